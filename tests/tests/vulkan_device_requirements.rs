//! The default is valid on any device: a device created without
//! VK_EXT_graphics_pipeline_library and `PipelineOptions::new()` draw
//! monolithic pipelines with no validation message; one made with
//! `DeviceRequirements` takes the library path; graphics pipeline libraries
//! asked for where they are missing are `FeatureNotEnabled`, before the
//! driver sees anything. Each device is made by the `pipelines` example's
//! `gpu.rs` through `DeviceRequirements`, under the validation layer, and
//! each test ends by destroying it and failing on any message.
#![allow(unsafe_code)]

use std::time::Duration;

use smolv_runtime::reflect::Reflection;
use smolv_runtime::vulkan::ash::vk;
use smolv_runtime::vulkan::{
    GraphicsState, LibraryCounts, PipelineManager, PipelineOptions, PipelineSlot, Stage, VulkanError,
};

#[allow(dead_code, reason = "the example's helpers; these tests draw only")]
mod gpu {
    include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../smolv-runtime/examples/pipelines/gpu.rs"));
}

use gpu::Gpu;

const SHADERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../smolv-runtime/examples/pipelines/shaders/");

/// The example's full-viewport triangle and push-constant colour, as
/// glslang wrote them, with their reflections.
struct Program {
    vertex: (Vec<u32>, Reflection),
    fragment: (Vec<u32>, Reflection),
}

impl Program {
    fn load() -> Self {
        let module = |name: &str| {
            let code = gpu::words(&std::fs::read(format!("{SHADERS}{name}")).unwrap());
            let reflection = Reflection::from_spirv(&code).unwrap();
            (code, reflection)
        };
        Self { vertex: module("triangle.vert.spv"), fragment: module("solid.frag.spv") }
    }

    fn stages(&self) -> (Stage<'_>, Stage<'_>) {
        fn stage((code, reflection): &(Vec<u32>, Reflection)) -> Stage<'_> {
            Stage { spirv: code, reflection, specialization: &[] }
        }
        (stage(&self.vertex), stage(&self.fragment))
    }
}

const COLOUR: [f32; 4] = [0.25, 0.5, 0.75, 1.0];
const PIXEL: [u8; 4] = [64, 128, 191, 255];

fn manager(gpu: &Gpu, options: PipelineOptions) -> PipelineManager {
    // SAFETY: `gpu` was created with dynamic rendering and, where its
    // `options` say so, graphics pipeline libraries; `options` names no
    // more than that. Each test drops the manager (after `draw`, which
    // waits for the queue) before `finish` destroys the device.
    unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.limits, options) }
}

fn state() -> GraphicsState {
    GraphicsState { color_formats: vec![gpu::COLOR_FORMAT], ..GraphicsState::default() }
}

fn pipeline(manager: &PipelineManager, program: &Program) -> Result<std::sync::Arc<PipelineSlot>, VulkanError> {
    let (vertex, fragment) = program.stages();
    // SAFETY: glslang's output, valid for Vulkan 1.0, described by the
    // reflections made from it; every device renders to RGBA8.
    unsafe { manager.get_pipeline(&vertex, &fragment, &state()) }
}

fn finish(gpu: Gpu) {
    if let Err(messages) = gpu.finish() {
        panic!("{messages}");
    }
}

#[test]
fn a_device_without_libraries_draws_with_the_default_options_and_no_message() {
    let gpu = Gpu::open(false).unwrap();
    assert!(!gpu.options.features.has_graphics_pipeline_library(), "opened without the extensions");
    let program = Program::load();
    {
        // What a new user writes: the defaults, nothing about GPL.
        let manager = manager(&gpu, PipelineOptions::new());
        assert!(!manager.uses_libraries(), "the default follows the device: no libraries here");
        let slot = pipeline(&manager, &program).unwrap();
        assert_eq!(manager.library_counts(), LibraryCounts::default(), "no library asked of the driver");
        assert!(slot.is_optimized(), "a monolithic pipeline is optimized from the start");
        assert!(slot.wait_optimized(Duration::ZERO).unwrap(), "at once");
        assert_eq!(gpu.draw(slot.current(), slot.layout(), COLOUR).unwrap(), PIXEL);
    }
    finish(gpu);
}

#[test]
fn a_device_made_with_device_requirements_takes_the_library_path() {
    let gpu = Gpu::open(true).unwrap();
    assert!(
        gpu.options.features.has_graphics_pipeline_library(),
        "lavapipe has VK_EXT_graphics_pipeline_library: DeviceRequirements enables it"
    );
    let program = Program::load();
    {
        let manager = manager(&gpu, gpu.options);
        assert!(manager.uses_libraries());
        let slot = pipeline(&manager, &program).unwrap();
        assert_eq!(
            manager.library_counts(),
            LibraryCounts { vertex_input: 1, pre_rasterization: 1, fragment_shader: 1, fragment_output: 1 },
            "the four parts, each a library"
        );
        assert_eq!(gpu.draw(slot.fast(), slot.layout(), COLOUR).unwrap(), PIXEL, "the fast link draws");
        assert!(slot.wait_optimized(Duration::from_secs(120)).unwrap(), "the optimized link lands");
        assert_ne!(slot.current(), slot.fast(), "the optimized link replaced the fast one");
        assert_eq!(gpu.draw(slot.current(), slot.layout(), COLOUR).unwrap(), PIXEL, "the optimized link draws");
    }
    finish(gpu);
}

#[test]
fn the_default_options_on_a_device_with_libraries_they_are_not_told_of_stay_monolithic() {
    let gpu = Gpu::open(true).unwrap();
    let program = Program::load();
    {
        // Options that do not say what the device enabled claim nothing.
        let manager = manager(&gpu, PipelineOptions::new());
        assert!(!manager.uses_libraries());
        let slot = pipeline(&manager, &program).unwrap();
        assert_eq!(manager.library_counts(), LibraryCounts::default());
        assert_eq!(gpu.draw(slot.current(), slot.layout(), COLOUR).unwrap(), PIXEL);
    }
    finish(gpu);
}

#[test]
fn libraries_asked_for_on_a_device_without_them_are_feature_not_enabled() {
    let gpu = Gpu::open(false).unwrap();
    let program = Program::load();
    {
        let options = gpu.options.graphics_pipeline_library(true);
        assert!(options.check().is_err(), "the options can be checked before a manager exists");
        let manager = manager(&gpu, options);
        assert!(!manager.uses_libraries(), "never libraries where the device lacks them");
        let error = pipeline(&manager, &program).unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(
                error,
                VulkanError::FeatureNotEnabled {
                    feature: "VK_KHR_pipeline_library",
                    structure: "VkDeviceCreateInfo::ppEnabledExtensionNames",
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(message.contains("DeviceRequirements::for_physical_device"), "says what to do: {message}");
        let (vertex, fragment) = program.stages();
        // SAFETY: as in `pipeline`.
        let preload = unsafe { manager.preload_fragment(&vertex, &fragment, &state()) };
        assert!(matches!(preload, Err(VulkanError::FeatureNotEnabled { .. })), "{preload:?}");
        assert_eq!(manager.library_counts(), LibraryCounts::default(), "nothing reached the driver");
        // Asking for monolithic pipelines is always fine.
        let monolithic = self::manager(&gpu, gpu.options.graphics_pipeline_library(false));
        let slot = pipeline(&monolithic, &program).unwrap();
        assert_eq!(gpu.draw(slot.current(), slot.layout(), COLOUR).unwrap(), PIXEL);
    }
    finish(gpu);
}
