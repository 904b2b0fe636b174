//! A module's SPIR-V version against the Vulkan version the device was
//! created for, on lavapipe with validation on: a SPIR-V 1.5 module on a
//! Vulkan 1.0 device is refused with an error that names both, before the
//! driver sees it (the layer would report `Invalid SPIR-V binary version`
//! if it did); a SPIR-V 1.0 module works there, and the 1.5 one works on a
//! Vulkan 1.3 device. Each test ends by destroying the device, so the
//! layer reports anything left alive.
#![allow(unsafe_code)]

use ash::vk;
use smolv_build::TargetEnv;
use smolv_runtime::ShaderSet;
use smolv_runtime::reflect::Reflection;
use smolv_runtime::vulkan::{
    DeviceFeatures, GraphicsProgram, GraphicsState, PipelineManager, PipelineOptions, Stage, VulkanError,
};
use smolv_tests::vulkan::Gpu;

const COMPUTE: &str = "#version 450\nlayout(local_size_x = 64) in;\n\
layout(set = 0, binding = 0) buffer Data { uint values[]; } data;\n\
void main() { data.values[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x; }\n";

const VERTEX: &str = "#version 450\nvoid main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }\n";

const FRAGMENT: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n";

/// A decoded module and its reflection.
struct Module {
    code: Vec<u32>,
    reflection: Reflection,
}

impl Module {
    fn stage(&self) -> Stage<'_> {
        Stage { spirv: &self.code, reflection: &self.reflection, specialization: &[] }
    }
}

/// `fill.comp`, `point.vert` and `white.frag` compiled by smolv-build for `env`.
fn modules(env: TargetEnv) -> [Module; 3] {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    for (name, source) in [("fill.comp", COMPUTE), ("point.vert", VERTEX), ("white.frag", FRAGMENT)] {
        std::fs::write(dir.path().join("shaders").join(name), source).unwrap();
    }
    let mut config = smolv_build::Config::new();
    config
        .shader_dir(dir.path().join("shaders"))
        .out_dir(dir.path().join("out"))
        .target_env(env)
        .cargo_directives(false);
    config.try_compile().unwrap();
    let set = ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    ["fill.comp", "point.vert", "white.frag"].map(|name| {
        let shader = set.get(name).unwrap();
        Module { code: shader.decode().unwrap(), reflection: shader.reflection().unwrap() }
    })
}

fn manager(gpu: &Gpu, options: PipelineOptions) -> PipelineManager {
    // SAFETY: `options` says what `gpu` was created with; the tests drop
    // the manager before the device, with nothing pending.
    unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.properties.limits, options) }
}

/// The options for a device created for Vulkan 1.0: no libraries.
fn vulkan_1_0() -> PipelineOptions {
    PipelineOptions::new().api_version(vk::API_VERSION_1_0).graphics_pipeline_library(false)
}

fn assert_refused(result: Result<impl std::fmt::Debug, VulkanError>, stage: &str) {
    let error = result.unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(
            &error,
            VulkanError::SpirvVersionUnsupported { spirv: (1, 5), vulkan: (1, 0), stage: s, entry_point }
                if *s == stage && entry_point == "main"
        ),
        "{error:?}"
    );
    for part in ["SPIR-V 1.5 needs Vulkan 1.2", "created for Vulkan 1.0", "apiVersion", "target_env"] {
        assert!(text.contains(part), "{text:?} does not say {part:?}");
    }
}

#[test]
fn a_spirv_1_5_module_on_a_vulkan_1_0_device_is_refused_before_the_driver_sees_it() {
    let [compute, vertex, fragment] = modules(TargetEnv::Vulkan1_2);
    assert_eq!(compute.code[1], 0x0001_0500, "Vulkan 1.2 modules are SPIR-V 1.5");
    let gpu = Gpu::with_api_version(vk::API_VERSION_1_0);
    {
        let manager = manager(&gpu, vulkan_1_0());
        // SAFETY: valid SPIR-V described by its reflection (the refusal is the point).
        assert_refused(unsafe { manager.get_compute(&compute.stage()) }, "compute");
        // SAFETY: as above.
        assert_refused(unsafe { manager.request_compute(&compute.stage()) }, "compute");
        let state = GraphicsState::default();
        // SAFETY: as above; refused before any pipeline state reaches the device.
        assert_refused(unsafe { manager.get_pipeline(&vertex.stage(), &fragment.stage(), &state) }, "vertex");
        let program = GraphicsProgram::new(vertex.stage(), fragment.stage());
        // SAFETY: as above.
        assert_refused(unsafe { manager.get_program_pipeline(&program, &state) }, "vertex");
        // SAFETY: as above.
        assert_refused(unsafe { manager.preload_fragment(&vertex.stage(), &fragment.stage(), &state) }, "fragment");
        assert_eq!(manager.library_counts().total(), 0);
    }
    gpu.finish();
}

#[test]
fn a_spirv_1_0_module_on_a_vulkan_1_0_device_works() {
    let [compute, _, _] = modules(TargetEnv::Vulkan1_0);
    assert_eq!(compute.code[1], 0x0001_0000, "Vulkan 1.0 modules are SPIR-V 1.0");
    let gpu = Gpu::with_api_version(vk::API_VERSION_1_0);
    {
        let manager = manager(&gpu, vulkan_1_0());
        // SAFETY: smolv-build's output, described by its reflection.
        let slot = unsafe { manager.get_compute(&compute.stage()) }.unwrap();
        assert_ne!(slot.wait().unwrap(), vk::Pipeline::null());
    }
    gpu.finish();
}

#[test]
fn a_spirv_1_5_module_on_a_vulkan_1_3_device_works() {
    let [compute, _, _] = modules(TargetEnv::Vulkan1_2);
    let gpu = Gpu::new();
    {
        let options = PipelineOptions::new()
            .features(DeviceFeatures::default().with_graphics_pipeline_library(gpu.graphics_pipeline_library));
        assert_eq!(options.api_version, vk::API_VERSION_1_3, "the default is the Vulkan the manager needs");
        let manager = manager(&gpu, options);
        // SAFETY: smolv-build's output, described by its reflection.
        let slot = unsafe { manager.get_compute(&compute.stage()) }.unwrap();
        assert_ne!(slot.wait().unwrap(), vk::Pipeline::null());
    }
    gpu.finish();
}
