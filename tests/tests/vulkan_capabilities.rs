//! On lavapipe with the validation layer on: a module whose capabilities
//! need a feature the device was not created with is refused by the
//! manager, naming the capability, the feature and the shader, before the
//! driver sees it (the layer stays silent); with the feature enabled the
//! same module builds. Explicit vertex input from plain layouts draws,
//! and one whose format does not fit the vertex shader is refused.
#![allow(unsafe_code)]

use ash::vk;
use smolv_runtime::ShaderSet;
use smolv_runtime::reflect::Reflection;
use smolv_runtime::vulkan::capabilities::Feature;
use smolv_runtime::vulkan::{
    DeviceFeatures, GraphicsState, PipelineManager, PipelineOptions, Stage, VertexAttribute, VertexBufferLayout,
    VertexInput, VulkanError,
};
use smolv_tests::vulkan::Gpu;

/// Writes a double: `OpCapability Float64`.
const DOUBLE_COMP: &str = "#version 450\n\
layout(local_size_x = 1) in;\n\
layout(set = 0, binding = 0) buffer Out { double value; } result;\n\
void main() { result.value = 1.5lf * double(gl_GlobalInvocationID.x + 1u); }\n";

/// A 64-bit integer in a fragment shader: `OpCapability Int64`.
const INT64_FRAG: &str = "#version 450\n\
#extension GL_ARB_gpu_shader_int64 : require\n\
layout(location = 0) out vec4 color;\n\
layout(push_constant) uniform Push { int64_t big; } push;\n\
void main() { color = vec4(float(push.big >> 40), 0.0, 0.0, 1.0); }\n";

const FULLSCREEN_VERT: &str = "#version 450\n\
void main() {\n  vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n\
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";

/// Position and colour from vertex buffers.
const COLORED_VERT: &str = "#version 450\n\
layout(location = 0) in vec2 position;\nlayout(location = 1) in vec4 color;\n\
layout(location = 0) out vec4 v_color;\n\
void main() { v_color = color; gl_Position = vec4(position, 0.0, 1.0); }\n";

const COLORED_FRAG: &str = "#version 450\n\
layout(location = 0) in vec4 v_color;\nlayout(location = 0) out vec4 color;\n\
void main() { color = v_color; }\n";

struct Modules(Vec<(String, Vec<u32>, Reflection)>);

impl Modules {
    fn compile(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let shaders = dir.path().join("shaders");
        std::fs::create_dir_all(&shaders).unwrap();
        for (name, source) in files {
            std::fs::write(shaders.join(name), source).unwrap();
        }
        let mut config = smolv_build::Config::new();
        config.shader_dir(&shaders).out_dir(dir.path().join("out")).cargo_directives(false);
        config.try_compile().unwrap();
        let set = ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
        Self(
            files
                .iter()
                .map(|(name, _)| {
                    let shader = set.get(name).unwrap();
                    ((*name).to_owned(), shader.decode().unwrap(), shader.reflection().unwrap())
                })
                .collect(),
        )
    }

    fn stage(&self, name: &str) -> Stage<'_> {
        let (_, code, reflection) = self.0.iter().find(|(n, _, _)| n == name).unwrap();
        Stage { spirv: code, reflection, specialization: &[] }
    }
}

fn manager(gpu: &Gpu, features: DeviceFeatures) -> PipelineManager {
    let options =
        PipelineOptions::new().features(features.with_graphics_pipeline_library(gpu.graphics_pipeline_library));
    // SAFETY: `Gpu` enables dynamic rendering (and graphics pipeline
    // libraries where `options` says so) and the features in `gpu.features`;
    // each test drops its manager, after its renders (which wait), before the device.
    unsafe { PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.properties.limits, options) }
}

#[test]
fn a_module_needing_a_feature_the_device_lacks_is_refused_before_the_driver() {
    let modules = Modules::compile(&[
        ("double.comp", DOUBLE_COMP),
        ("fullscreen.vert", FULLSCREEN_VERT),
        ("int64.frag", INT64_FRAG),
    ]);
    let gpu = Gpu::new();
    // The device has shaderFloat64 and shaderInt64 enabled where lavapipe
    // has them, but the manager is told of none: it must refuse.
    let without = manager(&gpu, DeviceFeatures::from_enabled(&vk::PhysicalDeviceFeatures::default()));
    // SAFETY: modules from smolv-build with their reflections.
    let error = unsafe { without.get_compute(&modules.stage("double.comp")) }.unwrap_err();
    assert!(
        matches!(
            &error,
            VulkanError::FeatureNotEnabled {
                feature: "shaderFloat64",
                structure: "VkPhysicalDeviceFeatures",
                state: "OpCapability Float64",
                shader: Some(shader),
            } if shader == "compute shader `main`"
        ),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("OpCapability Float64") && message.contains("shaderFloat64"), "{message}");
    // SAFETY: as above.
    let error = unsafe {
        without.get_pipeline(&modules.stage("fullscreen.vert"), &modules.stage("int64.frag"), &GraphicsState::default())
    }
    .unwrap_err();
    assert!(
        matches!(&error, VulkanError::FeatureNotEnabled { feature: "shaderInt64", shader: Some(s), .. } if s == "fragment shader `main`"),
        "{error:?}"
    );
    drop(without);

    // Told of the features the device was created with, the same modules build.
    let enabled = DeviceFeatures::from_enabled(&gpu.features);
    assert_eq!(enabled.has(Feature::ShaderFloat64), gpu.shader_float64);
    assert!(gpu.shader_float64 && gpu.shader_int64, "lavapipe has shaderFloat64 and shaderInt64");
    {
        let with = manager(&gpu, enabled);
        // SAFETY: as above.
        unsafe {
            with.get_compute(&modules.stage("double.comp")).unwrap();
            with.get_pipeline(
                &modules.stage("fullscreen.vert"),
                &modules.stage("int64.frag"),
                &GraphicsState::default(),
            )
            .unwrap();
        }
        drop(with);
    }
    gpu.finish();
}

/// `struct Vertex { color: [u8; 4], position: [f32; 2] }`: not the
/// layout reflection would pick (position first, colour as four floats).
const VERTEX_LAYOUT: VertexBufferLayout<'static> = VertexBufferLayout {
    stride: 12,
    per_instance: false,
    attributes: &[
        VertexAttribute { location: 1, format: vk::Format::R8G8B8A8_UNORM.as_raw() as u32, offset: 0 },
        VertexAttribute { location: 0, format: vk::Format::R32G32_SFLOAT.as_raw() as u32, offset: 4 },
    ],
};

#[test]
fn explicit_vertex_input_from_plain_layouts_draws_and_a_mismatched_format_is_refused() {
    let modules = Modules::compile(&[("colored.vert", COLORED_VERT), ("colored.frag", COLORED_FRAG)]);
    let gpu = Gpu::new();
    let manager = manager(&gpu, DeviceFeatures::from_enabled(&gpu.features));
    let (vertex, fragment) = (modules.stage("colored.vert"), modules.stage("colored.frag"));

    let state = GraphicsState { vertex_input: VertexInput::from_buffers(&[VERTEX_LAYOUT]), ..GraphicsState::default() };
    // SAFETY: modules from smolv-build; formats lavapipe supports.
    let slot = unsafe { manager.get_pipeline(&vertex, &fragment, &state) }.unwrap();
    // One triangle over the whole image, orange.
    let mut bytes = Vec::new();
    for position in [[-1.0f32, -1.0], [3.0, -1.0], [-1.0, 3.0]] {
        bytes.extend([255u8, 128, 0, 255]);
        bytes.extend(position.iter().flat_map(|v| v.to_le_bytes()));
    }
    let (buffer, memory) = gpu.buffer_with(&bytes, vk::BufferUsageFlags::VERTEX_BUFFER);
    let pixels = gpu.draw(slot.current(), 8, |command| {
        // SAFETY: the buffer lives until after the draw, which waits.
        unsafe { gpu.device.cmd_bind_vertex_buffers(command, 0, &[buffer], &[0]) };
    });
    // SAFETY: the draw waited for the queue.
    unsafe {
        gpu.device.destroy_buffer(buffer, None);
        gpu.device.free_memory(memory, None);
    }
    assert!(pixels.chunks(4).all(|p| p == [255, 128, 0, 255]), "first pixels: {:?}", &pixels[..8]);

    // Colour as unsigned integers, which the shader reads as floats.
    let wrong = VertexBufferLayout {
        attributes: &[
            VertexAttribute { location: 1, format: vk::Format::R8G8B8A8_UINT.as_raw() as u32, offset: 0 },
            VertexAttribute { location: 0, format: vk::Format::R32G32_SFLOAT.as_raw() as u32, offset: 4 },
        ],
        ..VERTEX_LAYOUT
    };
    let state = GraphicsState { vertex_input: VertexInput::from_buffers(&[wrong]), ..GraphicsState::default() };
    // SAFETY: as above; refused before the driver.
    let error = unsafe { manager.get_pipeline(&vertex, &fragment, &state) }.unwrap_err();
    assert!(matches!(error, VulkanError::VertexInputMismatch { location: 1, .. }), "{error:?}");
    assert!(error.to_string().contains("`color`"), "{error}");
    // And a location the shader reads with nothing feeding it.
    let partial = VertexBufferLayout { attributes: &VERTEX_LAYOUT.attributes[1..], ..VERTEX_LAYOUT };
    let state = GraphicsState { vertex_input: VertexInput::from_buffers(&[partial]), ..GraphicsState::default() };
    // SAFETY: as above.
    let error = unsafe { manager.get_pipeline(&vertex, &fragment, &state) }.unwrap_err();
    assert!(matches!(error, VulkanError::VertexInputMismatch { location: 1, .. }), "{error:?}");
    drop(manager);
    gpu.finish();
}
