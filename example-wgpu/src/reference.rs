//! The reference picture's modules (the golden image): each shader made by wgpu's own paths from
//! its original source, no smolv: WGSL as is, WESL linked by the `wesl` crate, GLSL and Slang as
//! `glslc`'s and `slangc`'s SPIR-V (`build/reference.rs`).

use std::borrow::Cow;

use crate::scene::{CHECKER_FS, QUAD_VS, RING_FS, SKY_FS, SKY_VS, TINT_FS};

/// The SPIR-V `glslc` or `slangc` wrote to `OUT_DIR/reference/FILE`.
macro_rules! reference_spirv {
    ($file:literal) => {
        wgpu::ShaderSource::SpirV(wgpu::util::make_spirv_raw(include_bytes!(concat!(
            env!("OUT_DIR"),
            "/reference/",
            $file
        ))))
    };
}

/// The reference module of the shader called `name`.
pub(crate) fn module(device: &wgpu::Device, name: &str) -> Result<wgpu::ShaderModule, String> {
    let source = match name {
        SKY_VS | SKY_FS => wgpu::ShaderSource::Wgsl(Cow::Borrowed(include_str!("../shaders/sky.wgsl"))),
        QUAD_VS => reference_spirv!("quad.vert.spv"),
        TINT_FS => reference_spirv!("tint.frag.spv"),
        CHECKER_FS => reference_spirv!("checker.slang.fs_main.spv"),
        RING_FS => {
            wgpu::ShaderSource::Wgsl(Cow::Borrowed(include_str!(concat!(env!("OUT_DIR"), "/reference/ring.wesl.wgsl"))))
        }
        _ => return Err(format!("no reference source for {name}")),
    };
    Ok(device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source }))
}
