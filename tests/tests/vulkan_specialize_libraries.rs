//! Spec constants through graphics pipeline libraries, on lavapipe under
//! the validation layer:
//! - with the driver specializing, the fast and the optimized links of
//!   many value sets draw their values with 0 validation messages (the
//!   layer, 1.3.239, reads each library's specialization data again at
//!   every link, so the manager keeps it as long as the library);
//! - [`PipelineManager::specialization_counts`] says how many stages went
//!   to the driver and how many were folded ahead, and why a fold fell
//!   back to the driver.
#![allow(unsafe_code)]

use std::time::{Duration, Instant};

use ash::vk;
use smolv_runtime::reflect::Reflection;
use smolv_runtime::specialize::Value;
use smolv_runtime::vulkan::{
    DeviceFeatures, FallbackReason, GraphicsProgram, GraphicsState, PipelineManager, PipelineOptions,
    SpecializationCounts, Stage,
};
use smolv_tests::vulkan::Gpu;

const SIZE: u32 = 16;

/// A full-screen triangle with no outputs.
const VERTEX: &str = "#version 450\n\
void main() {\n  vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n}\n";

/// Every kind of constant the specializer folds: an int that sizes an
/// array through an `OpSpecConstantOp` (a garbage value makes the module
/// invalid, which is what the layer reports when it reads freed data), a
/// float, a bool and a switch.
const FRAGMENT: &str = r#"#version 450
layout(location = 0) out vec4 color;
layout(constant_id = 0) const int TAPS = 3;
layout(constant_id = 1) const float GAIN = 0.5;
layout(constant_id = 2) const bool INVERT = false;
layout(constant_id = 3) const int MODE = 0;
const int LENGTH = TAPS + 1;
void main() {
    float weights[LENGTH];
    for (int i = 0; i < LENGTH; ++i) {
        weights[i] = float(i) / 32.0;
    }
    float blue;
    switch (MODE) {
        case 0: blue = 0.25; break;
        case 1: blue = 0.5; break;
        default: blue = 1.0; break;
    }
    vec3 c = vec3(weights[LENGTH - 1], GAIN, blue);
    if (INVERT) {
        c = 1.0 - c;
    }
    color = vec4(c, 1.0);
}
"#;

/// The vertex and fragment modules as smolv-build ships them, with their
/// reflections.
fn shaders() -> [(Vec<u32>, Reflection); 2] {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    std::fs::write(shaders.join("bare.vert"), VERTEX).unwrap();
    std::fs::write(shaders.join("values.frag"), FRAGMENT).unwrap();
    let mut config = smolv_build::Config::new();
    config.shader_dir(&shaders).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    let set = smolv_runtime::ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    ["bare.vert", "values.frag"].map(|name| {
        let shader = set.get(name).unwrap();
        (shader.decode().unwrap(), shader.reflection().unwrap())
    })
}

/// The value sets drawn: taps, gain, invert, mode.
fn value_sets() -> Vec<(i32, f32, bool, i32)> {
    (0..12).map(|i| (1 + i * 2, [0.25, 0.5, 0.75][i as usize % 3], i % 2 == 1, i % 4)).collect()
}

fn values((taps, gain, invert, mode): (i32, f32, bool, i32)) -> [(u32, Value); 4] {
    [(0, Value::I32(taps)), (1, Value::F32(gain)), (2, Value::Bool(invert)), (3, Value::I32(mode))]
}

/// The pixel [`FRAGMENT`] draws with these values, worked out here, in
/// the steps of the RGBA8 image (0 to 255).
fn expected((taps, gain, invert, mode): (i32, f32, bool, i32)) -> [f32; 4] {
    let blue = match mode {
        0 => 0.25,
        1 => 0.5,
        _ => 1.0,
    };
    let c = [taps as f32 / 32.0, gain, blue].map(|v| if invert { 1.0 - v } else { v });
    let [r, g, b] = c.map(|v| v * 255.0);
    [r, g, b, 255.0]
}

fn manager(gpu: &Gpu, options: PipelineOptions) -> PipelineManager {
    let options = options.features(
        DeviceFeatures::from_enabled(&gpu.features).with_graphics_pipeline_library(gpu.graphics_pipeline_library),
    );
    // SAFETY: `Gpu` enables what the features say, and the tests drop the
    // manager before the device, after `draw` waited for the queue.
    unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.properties.limits, options) }
}

fn center(image: &[u8]) -> [u8; 4] {
    let at = ((SIZE / 2) * SIZE * 4 + (SIZE / 2) * 4) as usize;
    image[at..at + 4].try_into().unwrap()
}

/// Within one step: the GPU rounds to the nearest.
fn assert_close(got: [u8; 4], want: [f32; 4], what: &str) {
    let close = got.iter().zip(want).all(|(&got, want)| (f32::from(got) - want).abs() <= 1.0);
    assert!(close, "{what}: drew {got:?}, expected {want:?}");
}

#[test]
fn driver_specialization_through_libraries_links_fast_and_optimized_without_validation_messages() {
    let [(vertex, vertex_reflection), (fragment, fragment_reflection)] = shaders();
    let gpu = Gpu::new();
    assert!(gpu.graphics_pipeline_library, "lavapipe has VK_EXT_graphics_pipeline_library");
    let manager = manager(&gpu, PipelineOptions::new());
    assert!(manager.uses_libraries());
    let vertex_stage = Stage { spirv: &vertex, reflection: &vertex_reflection, specialization: &[] };
    let state = GraphicsState { color_formats: vec![vk::Format::R8G8B8A8_UNORM], ..GraphicsState::default() };
    let sets = value_sets();
    let mut slots = Vec::new();
    // Every library first, then the links: the data of the first libraries
    // has long been freed by the time the last ones link, were it not kept.
    for &set in &sets {
        let values = values(set);
        let fragment_stage = Stage { spirv: &fragment, reflection: &fragment_reflection, specialization: &values };
        // SAFETY: smolv-build's output, described by its own reflection; RGBA8.
        let slot = unsafe { manager.get_pipeline(&vertex_stage, &fragment_stage, &state) }.unwrap();
        slots.push(slot);
    }
    for (slot, &set) in slots.iter().zip(&sets) {
        let fast = gpu.draw(slot.fast(), SIZE, |_| {});
        assert_close(center(&fast), expected(set), &format!("fast link of {set:?}"));
        assert!(slot.wait_optimized(Duration::from_secs(60)).unwrap(), "the optimized link of {set:?} arrives");
        assert_ne!(slot.current(), slot.fast());
        let optimized = gpu.draw(slot.current(), SIZE, |_| {});
        assert_close(center(&optimized), expected(set), &format!("optimized link of {set:?}"));
    }
    // The same values again: the same slot, no library made or prepared again.
    let first = values(sets[0]);
    let fragment_stage = Stage { spirv: &fragment, reflection: &fragment_reflection, specialization: &first };
    // SAFETY: as above.
    let again = unsafe { manager.get_pipeline(&vertex_stage, &fragment_stage, &state) }.unwrap();
    assert!(std::sync::Arc::ptr_eq(&again, &slots[0]));
    assert_eq!(manager.library_counts().fragment_shader, sets.len());
    assert_eq!(
        manager.specialization_counts(),
        SpecializationCounts { folded: 0, driver: sets.len(), fallbacks: Default::default() },
        "each fragment library's values went to the driver once; the vertex stage has none"
    );
    // Rebuilt with other values (a hot reload): the rebuilt fragment
    // libraries keep their data too, through both links of the new pipeline.
    let rebuilt_sets: Vec<_> =
        sets.iter().take(6).map(|&(taps, gain, invert, mode)| (taps + 5, gain, !invert, mode + 1)).collect();
    for (slot, &set) in slots.iter().zip(&rebuilt_sets) {
        let values = values(set);
        let program = GraphicsProgram::new(
            Stage { spirv: &vertex, reflection: &vertex_reflection, specialization: &[] },
            Stage { spirv: &fragment, reflection: &fragment_reflection, specialization: &values },
        );
        // SAFETY: as above; `slot` is this manager's.
        let target = unsafe { manager.rebuild(slot, &program) }.unwrap();
        let start = Instant::now();
        while slot.generation() < target {
            assert!(slot.rebuild_failure().is_none(), "{:?}", slot.rebuild_failure());
            assert!(start.elapsed() < Duration::from_secs(60), "the rebuild of {set:?} lands");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_close(
            center(&gpu.draw(slot.fast(), SIZE, |_| {})),
            expected(set),
            &format!("rebuilt fast link of {set:?}"),
        );
        assert!(slot.wait_optimized(Duration::from_secs(60)).unwrap(), "the optimized link of {set:?} arrives");
        let optimized = gpu.draw(slot.current(), SIZE, |_| {});
        assert_close(center(&optimized), expected(set), &format!("rebuilt optimized link of {set:?}"));
    }
    assert_eq!(manager.specialization_counts().driver, sets.len() + rebuilt_sets.len());
    let messages = gpu.validation_messages();
    assert!(messages.is_empty(), "validation messages ({}):\n{}", messages.len(), messages.join("\n"));
    drop((slots, again, manager));
    gpu.finish();
}

#[test]
fn specialization_counts_say_which_path_each_stage_took_and_why_a_fold_fell_back() {
    let [(vertex, vertex_reflection), (fragment, fragment_reflection)] = shaders();
    let gpu = Gpu::new();
    let vertex_stage = Stage { spirv: &vertex, reflection: &vertex_reflection, specialization: &[] };
    let state = GraphicsState { color_formats: vec![vk::Format::R8G8B8A8_UNORM], ..GraphicsState::default() };
    let sets = &value_sets()[..3];
    for options in [PipelineOptions::new(), PipelineOptions::new().force_monolithic(true)] {
        let ahead = manager(&gpu, options.specialize_ahead(true));
        for &set in sets {
            let values = values(set);
            let fragment_stage = Stage { spirv: &fragment, reflection: &fragment_reflection, specialization: &values };
            // SAFETY: smolv-build's output, described by its own reflection; RGBA8.
            let slot = unsafe { ahead.get_pipeline(&vertex_stage, &fragment_stage, &state) }.unwrap();
            assert_close(center(&gpu.draw(slot.current(), SIZE, |_| {})), expected(set), &format!("{set:?}"));
        }
        assert_eq!(
            ahead.specialization_counts(),
            SpecializationCounts { folded: sets.len(), driver: 0, fallbacks: Default::default() },
            "{options:?}: every value set folded ahead"
        );
        // A value for a constant the module lacks (id 9): the driver ignores
        // it, the specializer cannot fold it. It draws all the same, through
        // the driver, and the counts say why.
        let mut values = values(sets[0]).to_vec();
        values.push((9, Value::I32(1)));
        let fragment_stage = Stage { spirv: &fragment, reflection: &fragment_reflection, specialization: &values };
        // SAFETY: as above.
        let slot = unsafe { ahead.get_pipeline(&vertex_stage, &fragment_stage, &state) }.unwrap();
        assert_close(center(&gpu.draw(slot.current(), SIZE, |_| {})), expected(sets[0]), "with an unknown id");
        let counts = ahead.specialization_counts();
        assert_eq!(
            counts,
            SpecializationCounts {
                folded: sets.len(),
                driver: 1,
                fallbacks: [(FallbackReason::UnknownSpecId, 1)].into()
            },
            "{options:?}"
        );
        assert_eq!(counts.fallback_total(), 1);
        drop(ahead);
    }
    // Without `specialize_ahead` every stage with values goes to the
    // driver, and nothing is a fall-back.
    let driver = manager(&gpu, PipelineOptions::new().force_monolithic(true));
    for &set in sets {
        let values = values(set);
        let fragment_stage = Stage { spirv: &fragment, reflection: &fragment_reflection, specialization: &values };
        // SAFETY: as above.
        let slot = unsafe { driver.get_pipeline(&vertex_stage, &fragment_stage, &state) }.unwrap();
        assert_close(center(&gpu.draw(slot.current(), SIZE, |_| {})), expected(set), &format!("{set:?}"));
    }
    assert_eq!(
        driver.specialization_counts(),
        SpecializationCounts { folded: 0, driver: sets.len(), fallbacks: Default::default() }
    );
    drop(driver);
    gpu.finish();
}
