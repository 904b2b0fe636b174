//! The shaders the build embedded, and the Rust types it generated from
//! their reflection (`quad_vert::Vertex`, `quad_vert::VERTEX_LAYOUT`).

smolv_runtime::include_shaders!(pub(crate) static SHADERS);

#[allow(dead_code, reason = "the generated constants cover every shader; the example reads a few")]
mod types {
    smolv_runtime::include_types!();
}

pub(crate) use types::{
    checker, checker_slang_fs_main, quad_vert, ring, ring_wesl_fs_main, scale_comp, sky, sky_wgsl_fs_main,
    sky_wgsl_vs_main, tint, tint_frag,
};

/// The shader called `name`.
pub(crate) fn get(name: &str) -> Result<&'static smolv_runtime::Shader, Box<dyn std::error::Error>> {
    // A raw set's shaders deref to `Shader`; a packed set's are one.
    Ok(SHADERS.get(name)?)
}
