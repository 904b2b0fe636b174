//! Spec constants set from the generated `SpecConstants` type, through
//! `PipelineManager`, headless, under the Khronos validation layer:
//!
//! ```text
//! cargo run -p smolv-runtime --features vulkan --example spec_constants
//! ```
//!
//! `shaders/tint.frag` tints a push-constant colour with three spec
//! constants (`GAIN`, `INVERT`, `SWIZZLE`). For four value sets, built as
//! `tint_frag::SpecConstants { .. }`, the example builds the pipeline twice:
//! once with the driver specializing (from graphics pipeline libraries
//! where the driver has them: the fast link, then the optimized one), once
//! with smolv's specializer folding the values into the SPIR-V first
//! (`PipelineOptions::specialize_ahead`). It draws each, reads the pixel
//! back, and compares it with the colour worked out here in Rust;
//! `specialization_counts` says which path each stage took. Any validation
//! message, a wrong pixel, or a stage that did not take its path exits
//! non-zero.
//!
//! In a game, `build.rs` runs smolv-build and `smolv_runtime::include_types!()`
//! brings in the types. An example of this crate cannot run a build
//! script, so `types.rs` and `tint.frag.spv` here are what smolv-build
//! makes of `shaders/tint.frag`: the test `spec_constants_example` of
//! smolv-tests checks that they still are, and runs this example. The
//! vertex shader is the `pipelines` example's.
#![allow(unsafe_code, reason = "Vulkan calls; each block says what it upholds")]

#[path = "../pipelines/gpu.rs"]
#[allow(dead_code, reason = "the `pipelines` example's device; this one only draws")]
mod gpu;

/// What `smolv_runtime::include_types!()` includes in a crate whose build
/// script runs smolv-build.
mod shader_types {
    include!("types.rs");
}

use std::error::Error;
use std::process::ExitCode;
use std::time::Duration;

use smolv_runtime::reflect::Reflection;
use smolv_runtime::vulkan::ash::vk;
use smolv_runtime::vulkan::{GraphicsState, PipelineManager, Stage};

use gpu::Gpu;
use shader_types::tint_frag;

const VERTEX: &[u8] = include_bytes!("../pipelines/shaders/triangle.vert.spv");
const FRAGMENT: &[u8] = include_bytes!("tint.frag.spv");

/// The colour the push constant gives `tint.frag`.
const COLOUR: [f32; 4] = [0.25, 0.5, 0.75, 1.0];

fn main() -> ExitCode {
    match run() {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("spec_constants example failed: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Everything but the exit code; `tests/tests/spec_constants_example.rs`
/// runs it too.
pub(crate) fn run() -> Result<String, Box<dyn Error>> {
    let gpu = Gpu::new()?;
    let outcome = draw_every_value_set(&gpu);
    // Last, once the managers are gone: the layer reports anything left alive.
    match (outcome, gpu.finish()) {
        (Ok(summary), Ok(())) => Ok(summary),
        (Err(error), Ok(())) => Err(error),
        (Ok(_), Err(messages)) => Err(messages),
        (Err(error), Err(messages)) => Err(format!("{messages}\n{error}").into()),
    }
}

/// The value sets drawn, as the generated type spells them.
fn value_sets() -> [tint_frag::SpecConstants; 4] {
    [
        // The shader's own values.
        tint_frag::SpecConstants::default(),
        tint_frag::SpecConstants { gain: 0.5, ..Default::default() },
        tint_frag::SpecConstants { invert: true, swizzle: 1, ..Default::default() },
        tint_frag::SpecConstants { gain: 1.5, invert: false, swizzle: 2 },
    ]
}

/// The pixel `tint.frag` draws with `constants`, worked out on the CPU, in
/// the steps of the RGBA8 image (0 to 255).
fn expected(constants: &tint_frag::SpecConstants) -> [f32; 4] {
    let [r, g, b, a] = COLOUR;
    let mut c = [r, g, b].map(|v| v * constants.gain);
    if constants.invert {
        c = c.map(|v| 1.0 - v);
    }
    let [r, g, b] = match constants.swizzle {
        1 => [c[2], c[1], c[0]],
        2 => [c[1], c[2], c[0]],
        _ => c,
    };
    // UNORM: clamped to [0, 1], 255 steps.
    [r, g, b, a].map(|v| v.clamp(0.0, 1.0) * 255.0)
}

fn draw_every_value_set(gpu: &Gpu) -> Result<String, Box<dyn Error>> {
    let (vertex_spirv, fragment_spirv) = (gpu::words(VERTEX), gpu::words(FRAGMENT));
    let (v, f) = (Reflection::from_spirv(&vertex_spirv)?, Reflection::from_spirv(&fragment_spirv)?);
    let state = GraphicsState { color_formats: vec![gpu::COLOR_FORMAT], ..GraphicsState::default() };
    let sets = value_sets();
    let mut lines = Vec::new();
    // The driver specializes (`gpu.options`, from `DeviceRequirements`:
    // libraries where the device has them), then smolv folds ahead.
    for (path, options) in [("driver", gpu.options), ("ahead", gpu.options.specialize_ahead(true))] {
        // SAFETY: the device was created with what `options` says; it
        // outlives the manager, which is dropped at the end of this loop's
        // body, after every draw waited for the queue.
        let manager =
            unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.limits, options) };
        for constants in &sets {
            // `(SpecId, Value)` for each constant, by id: what `Stage` takes.
            let values = constants.values();
            let vertex = Stage { spirv: &vertex_spirv, reflection: &v, specialization: &[] };
            let fragment = Stage { spirv: &fragment_spirv, reflection: &f, specialization: &values };
            // SAFETY: smolv-build's output for the device's Vulkan version,
            // described by the reflection made from it; the device renders to RGBA8.
            let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state)? };
            let mut pixels = vec![gpu.draw(slot.current(), slot.layout(), COLOUR)?];
            // With libraries, the optimized link too: it reads the same values.
            if manager.uses_libraries() && slot.wait_optimized(Duration::from_secs(60))? {
                pixels.push(gpu.draw(slot.current(), slot.layout(), COLOUR)?);
            }
            let want = expected(constants);
            for pixel in pixels {
                // Within one step: the GPU rounds to the nearest.
                if pixel.iter().zip(want).any(|(&got, want)| (f32::from(got) - want).abs() > 1.0) {
                    return Err(format!("{path}: {constants:?} drew {pixel:?}, not {want:?}").into());
                }
            }
        }
        let counts = manager.specialization_counts();
        let (folded, driver) = if path == "ahead" { (sets.len(), 0) } else { (0, sets.len()) };
        if (counts.folded, counts.driver) != (folded, driver) {
            return Err(
                format!("{path}: expected {folded} stages folded and {driver} to the driver: {counts:?}").into()
            );
        }
        let how = if manager.uses_libraries() { "from pipeline libraries" } else { "monolithic" };
        lines.push(format!("{} value sets {how}, {folded} folded ahead, {driver} by the driver", sets.len()));
    }
    Ok(format!("spec_constants: {}; every pixel as expected, with no validation message", lines.join("; ")))
}
