//! `EmbeddedStage`: a stage from a `Shader` carries the reflection smolv
//! made of its own words, so `get_pipeline` asks no promise about it.
//! Shaders embedded with `include_shader!` build a pipeline, and shaders
//! that smolv-build compiled and packed into a set draw, through
//! `EmbeddedStage::from_shader` alone (no `Reflection` and no SPIR-V in
//! the test's hands), under the validation layer; each test ends by
//! destroying the device and failing on any message.
#![allow(unsafe_code)]

use smolv_runtime::reflect::{Reflection, ShaderStage};
use smolv_runtime::vulkan::ash::vk;
use smolv_runtime::vulkan::{EmbeddedStage, GraphicsState, PipelineManager, PipelineOptions, VertexInput, VulkanError};
use smolv_runtime::{Shader, ShaderSet, include_shader};

#[allow(dead_code, reason = "the example's helpers; these tests draw only")]
mod gpu {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../smolv-runtime/examples/pipelines/gpu.rs"));
}

use gpu::Gpu;

static LIT_VERT: &Shader = include_shader!("lit.vert");
static LIT_FRAG: &Shader = include_shader!("lit.frag");

const EXAMPLE_SHADERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../smolv-runtime/examples/pipelines/shaders/");

fn manager(gpu: &Gpu, options: PipelineOptions) -> PipelineManager {
    // SAFETY: `gpu` was created with dynamic rendering and what its
    // `options` name; each test drops the manager (after `draw`, which
    // waits for the queue) before `finish` destroys the device.
    unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.limits, options) }
}

fn finish(gpu: Gpu) {
    if let Err(messages) = gpu.finish() {
        panic!("{messages}");
    }
}

/// The example's full-viewport triangle and push-constant colour, compiled
/// by smolv-build as a game ships them, in a packed set.
fn example_set(dir: &std::path::Path) -> ShaderSet {
    let shaders = dir.join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    for name in ["triangle.vert", "solid.frag"] {
        std::fs::copy(format!("{EXAMPLE_SHADERS}{name}"), shaders.join(name)).unwrap();
    }
    let mut config = smolv_build::Config::new();
    config.shader_dir(&shaders).out_dir(dir.join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    ShaderSet::open(dir.join("out/smolv/shaders.smvb")).unwrap()
}

#[test]
fn the_stage_pairs_the_words_with_their_own_reflection() {
    let stage = EmbeddedStage::from_shader(LIT_FRAG).unwrap();
    assert_eq!(stage.spirv(), LIT_FRAG.decode().unwrap(), "the words the shader decodes to");
    assert_eq!(stage.reflection(), &Reflection::from_spirv(stage.spirv()).unwrap(), "reflected from those words");
    assert_eq!(stage.reflection(), &LIT_FRAG.reflection().unwrap(), "the same as the one smolv-build recorded");
    assert_eq!(stage.reflection().stage, ShaderStage::Fragment);
    let as_stage = stage.stage();
    assert!(std::ptr::eq(as_stage.spirv, stage.spirv()) && std::ptr::eq(as_stage.reflection, stage.reflection()));
    assert!(as_stage.specialization.is_empty());
    let values = [(0, smolv_runtime::specialize::Value::F32(2.0))];
    assert_eq!(stage.specialized(&values).specialization, values);
}

#[test]
fn words_smolv_cannot_reflect_are_an_error_not_a_stage() {
    // A shader whose words smolv cannot reflect is refused here, before
    // any Vulkan call: never a stage with a made-up reflection.
    let empty = Shader::raw("empty.frag", &[]);
    let error = EmbeddedStage::from_shader(&empty).unwrap_err();
    assert!(!error.to_string().is_empty());
}

#[test]
fn include_shader_stages_build_a_pipeline_with_no_message() {
    let gpu = Gpu::open(false).unwrap();
    {
        let manager = manager(&gpu, gpu.options);
        let vertex = EmbeddedStage::from_shader(LIT_VERT).unwrap();
        let fragment = EmbeddedStage::from_shader(LIT_FRAG).unwrap();
        let state = GraphicsState {
            color_formats: vec![gpu::COLOR_FORMAT],
            vertex_input: VertexInput::FromReflection,
            ..GraphicsState::default()
        };
        // SAFETY: smolv compiled the modules (and reflected them itself);
        // the device renders to RGBA8 and takes the reflected vertex formats.
        let slot = unsafe { manager.get_pipeline(&vertex.stage(), &fragment.stage(), &state) }.unwrap();
        assert_ne!(slot.current(), vk::Pipeline::null());
        // The camera block (set 0) and the albedo texture (set 1), from the reflection.
        let layout = manager.program_layout(&vertex.stage(), &fragment.stage()).unwrap();
        assert_eq!(layout.set_layouts.len(), 2);
        // The reflection names the stage: a swapped pair is refused before the driver.
        // SAFETY: as above; refused before anything reaches the driver.
        let swapped = unsafe { manager.get_pipeline(&fragment.stage(), &vertex.stage(), &state) };
        assert!(matches!(swapped, Err(VulkanError::WrongStage { .. })), "{swapped:?}");
    }
    finish(gpu);
}

#[test]
fn an_embedded_set_draws_through_embedded_stages_with_no_message() {
    let dir = tempfile::tempdir().unwrap();
    let set = example_set(dir.path());
    for libraries in [false, true] {
        let gpu = Gpu::open(libraries).unwrap();
        {
            let manager = manager(&gpu, gpu.options);
            assert_eq!(manager.uses_libraries(), gpu.options.features.has_graphics_pipeline_library());
            let vertex = EmbeddedStage::from_shader(set.get("triangle.vert").unwrap()).unwrap();
            let fragment = EmbeddedStage::from_shader(set.get("solid.frag").unwrap()).unwrap();
            let state = GraphicsState { color_formats: vec![gpu::COLOR_FORMAT], ..GraphicsState::default() };
            // SAFETY: smolv compiled the modules and reflected them itself;
            // the device renders to RGBA8.
            let slot = unsafe { manager.get_pipeline(&vertex.stage(), &fragment.stage(), &state) }.unwrap();
            let pixel = gpu.draw(slot.current(), slot.layout(), [0.25, 0.5, 0.75, 1.0]).unwrap();
            assert_eq!(pixel, [64, 128, 191, 255], "libraries: {libraries}");
        }
        finish(gpu);
    }
}
