//! Graphics and compute pipelines through `PipelineManager`, headless,
//! under the Khronos validation layer:
//!
//! ```text
//! cargo run -p smolv-runtime --features vulkan --example pipelines
//! ```
//!
//! It opens a Vulkan 1.3 device (`gpu.rs`, through `DeviceRequirements`),
//! builds a graphics pipeline
//! (from graphics pipeline libraries where the driver has them, else
//! monolithic) and a compute pipeline from SPIR-V, draws once and
//! dispatches once, checks what they wrote, and prints one line. Any
//! validation message, or a wrong pixel or value, exits non-zero.
//!
//! The SPIR-V is `shaders/*.spv`, compiled from the GLSL beside it with
//! `glslangValidator -V --target-env vulkan1.0` and kept in the
//! repository, because an example of this crate cannot run smolv-build's
//! build script. A game gets the same words from `include_shader!`.
#![allow(unsafe_code, reason = "Vulkan calls; each block says what it upholds")]

mod gpu;

use std::error::Error;
use std::process::ExitCode;

use smolv_runtime::reflect::Reflection;
use smolv_runtime::vulkan::ash::vk;
use smolv_runtime::vulkan::{GraphicsState, PipelineManager, Stage};

use gpu::Gpu;

const VERTEX: &[u8] = include_bytes!("shaders/triangle.vert.spv");
const FRAGMENT: &[u8] = include_bytes!("shaders/solid.frag.spv");
const COMPUTE: &[u8] = include_bytes!("shaders/fill.comp.spv");

/// Invocations of the compute shader, one word each.
const COUNT: u32 = 256;

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pipelines example failed: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, Box<dyn Error>> {
    let gpu = Gpu::new()?;
    let outcome = draw_and_dispatch(&gpu);
    // Last, once the manager is gone: the layer reports anything left
    // alive. Its messages come first, even when the work failed too.
    match (outcome, gpu.finish()) {
        (Ok(summary), Ok(())) => Ok(summary),
        (Err(error), Ok(())) => Err(error),
        (Ok(_), Err(messages)) => Err(messages),
        (Err(error), Err(messages)) => Err(format!(
            "{messages}
{error}"
        )
        .into()),
    }
}

fn draw_and_dispatch(gpu: &Gpu) -> Result<String, Box<dyn Error>> {
    // From `DeviceRequirements::pipeline_options` (see `gpu.rs`): pipeline
    // libraries where the device was created with them, else monolithic.
    let options = gpu.options;
    // SAFETY: the device was created with what `options` says (dynamic
    // rendering, and the pipeline-library extensions and feature where it
    // names them); it outlives the manager, which is dropped at the end of
    // this function, after every submission waited.
    let manager = unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.limits, options) };

    // Graphics: a full-screen triangle in the colour of a push constant.
    let (vertex_spirv, fragment_spirv) = (gpu::words(VERTEX), gpu::words(FRAGMENT));
    let (v, f) = (Reflection::from_spirv(&vertex_spirv)?, Reflection::from_spirv(&fragment_spirv)?);
    let vertex = Stage { spirv: &vertex_spirv, reflection: &v, specialization: &[] };
    let fragment = Stage { spirv: &fragment_spirv, reflection: &f, specialization: &[] };
    let state = GraphicsState { color_formats: vec![gpu::COLOR_FORMAT], ..GraphicsState::default() };
    // SAFETY: glslang's output, valid for Vulkan 1.0, described by the
    // reflection made from it; the device renders to RGBA8.
    let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
    // Every frame binds `current()`: the fast link now, the optimized one
    // once the worker has linked it.
    let pixel = gpu.draw(slot.current(), slot.layout(), [0.25, 0.5, 0.75, 1.0])?;
    if pixel != [64, 128, 191, 255] {
        return Err(format!("the triangle drew {pixel:?}, not [64, 128, 191, 255]").into());
    }

    // Compute: element i of a storage buffer becomes 3 i + 1.
    let compute_spirv = gpu::words(COMPUTE);
    let c = Reflection::from_spirv(&compute_spirv)?;
    let stage = Stage { spirv: &compute_spirv, reflection: &c, specialization: &[] };
    // SAFETY: as for the graphics stages.
    let compute = unsafe { manager.get_compute(&stage)? };
    let layout = manager.compute_layout(&stage)?;
    let values = gpu.dispatch(compute.wait()?, layout.pipeline_layout, layout.set_layouts[0], COUNT)?;
    if let Some((i, value)) = values.iter().enumerate().find(|&(i, &value)| u64::from(value) != 3 * i as u64 + 1) {
        return Err(format!("the dispatch wrote {value} at {i}, not {}", 3 * i + 1).into());
    }

    let how = if manager.uses_libraries() { "from pipeline libraries" } else { "monolithic" };
    Ok(format!(
        "pipelines: drew {pixel:?} with a graphics pipeline {how} and dispatched {COUNT} invocations, \
         with no validation message"
    ))
}
