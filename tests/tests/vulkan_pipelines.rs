//! Graphics pipeline libraries on lavapipe with validation on: libraries,
//! fast link, link-time-optimized link and monolithic pipelines render the
//! same pixels; descriptor sets from stage-independent layouts bind and
//! work; shutting down during a background link is clean.
#![allow(unsafe_code)]

use std::time::{Duration, Instant};

use ash::vk;
use smolv_runtime::specialize::Value;
use smolv_runtime::vulkan::{GraphicsState, PipelineCacheFile, PipelineManager, PipelineOptions, Stage};
use smolv_runtime::{Shader, ShaderSet};
use smolv_tests::vulkan::Gpu;

const SIZE: u32 = 32;

const VERTEX: &str = "#version 450\n\
layout(set = 0, binding = 0) uniform VertexTint { vec4 tint; } vertex_tint;\n\
layout(location = 0) out vec2 uv;\nlayout(location = 1) out vec4 tint;\n\
void main() {\n  uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  tint = vertex_tint.tint;\n\
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";

const FRAGMENT: &str = "#version 450\n\
layout(set = 1, binding = 0) uniform FragmentTint { vec4 tint; } fragment_tint;\n\
layout(constant_id = 0) const bool INVERT = false;\n\
layout(location = 0) in vec2 uv;\nlayout(location = 1) in vec4 tint;\nlayout(location = 0) out vec4 color;\n\
void main() {\n  vec4 c = vec4(uv, 0.5, 1.0) * tint * fragment_tint.tint;\n  if (INVERT) { c.rgb = 1.0 - c.rgb; }\n  color = c;\n}\n";

fn shaders() -> ShaderSet {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    std::fs::write(dir.path().join("shaders/tint.vert"), VERTEX).unwrap();
    std::fs::write(dir.path().join("shaders/tint.frag"), FRAGMENT).unwrap();
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap()
}

fn stage<'a>(shader: &'a Shader, spirv: &'a [u32], specialization: &'a [(u32, Value)]) -> Stage<'a> {
    Stage { spirv, reflection: shader.reflection(), code_hash: shader.content_hash().unwrap().short(), specialization }
}

/// Uniform buffers and descriptor sets for the program's two independent
/// set layouts: set 0 for the vertex stage, set 1 for the fragment stage.
struct Bindings {
    pool: vk::DescriptorPool,
    sets: Vec<vk::DescriptorSet>,
    buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
}

impl Bindings {
    fn new(gpu: &Gpu, set_layouts: &[vk::DescriptorSetLayout], tints: [[f32; 4]; 2]) -> Self {
        // SAFETY: plain creation and updates of objects this test owns.
        unsafe {
            let sizes = [vk::DescriptorPoolSize { ty: vk::DescriptorType::UNIFORM_BUFFER, descriptor_count: 2 }];
            let pool = gpu
                .device
                .create_descriptor_pool(&vk::DescriptorPoolCreateInfo::default().max_sets(2).pool_sizes(&sizes), None)
                .unwrap();
            let sets = gpu
                .device
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(set_layouts),
                )
                .unwrap();
            let buffers: Vec<_> = tints
                .iter()
                .map(|tint| {
                    let bytes: Vec<u8> = tint.iter().flat_map(|f| f.to_le_bytes()).collect();
                    gpu.buffer_with(&bytes, vk::BufferUsageFlags::UNIFORM_BUFFER)
                })
                .collect();
            for (set, (buffer, _)) in sets.iter().zip(&buffers) {
                let info = [vk::DescriptorBufferInfo { buffer: *buffer, offset: 0, range: 16 }];
                let write = vk::WriteDescriptorSet::default()
                    .dst_set(*set)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&info);
                gpu.device.update_descriptor_sets(&[write], &[]);
            }
            Self { pool, sets, buffers }
        }
    }

    fn destroy(self, gpu: &Gpu) {
        // SAFETY: the device is idle after every draw.
        unsafe {
            gpu.device.destroy_descriptor_pool(self.pool, None);
            for (buffer, memory) in self.buffers {
                gpu.device.destroy_buffer(buffer, None);
                gpu.device.free_memory(memory, None);
            }
        }
    }
}

fn draw(gpu: &Gpu, pipeline: vk::Pipeline, layout: vk::PipelineLayout, bindings: &Bindings) -> Vec<u8> {
    gpu.draw(pipeline, SIZE, |command| {
        // SAFETY: recording into a command buffer the helper owns.
        unsafe {
            gpu.device.cmd_bind_descriptor_sets(
                command,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                0,
                &bindings.sets,
                &[],
            );
        }
    })
}

fn wait_until_optimized(slot: &smolv_runtime::vulkan::PipelineSlot) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !slot.is_optimized() {
        assert!(Instant::now() < deadline, "the background link never finished");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn fast_link_optimized_link_and_monolithic_pipelines_render_the_same() {
    let gpu = Gpu::new();
    assert!(gpu.graphics_pipeline_library, "lavapipe has VK_EXT_graphics_pipeline_library");
    let set = shaders();
    let (vertex_shader, fragment_shader) = (set.get("tint.vert").unwrap(), set.get("tint.frag").unwrap());
    let (vertex_code, fragment_code) = (vertex_shader.decode().unwrap(), fragment_shader.decode().unwrap());
    let tints = [[1.0, 0.5, 1.0, 1.0], [0.5, 1.0, 1.0, 1.0]];
    let state = GraphicsState::default();
    let mut images = Vec::new();
    {
        let libraries = PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), PipelineOptions::default());
        assert!(libraries.uses_libraries());
        let monolithic = PipelineManager::new(
            gpu.device.clone(),
            vk::PipelineCache::null(),
            PipelineOptions { force_monolithic: true, ..PipelineOptions::default() },
        );
        assert!(!monolithic.uses_libraries());
        for invert in [false, true] {
            let values = [(0, Value::Bool(invert))];
            let vertex = stage(vertex_shader, &vertex_code, &[]);
            let fragment = stage(fragment_shader, &fragment_code, &values);
            let slot = libraries.get_pipeline(&vertex, &fragment, &state).unwrap();
            let layout = libraries.program_layout(&vertex, &fragment).unwrap();
            assert_eq!(layout.set_layouts.len(), 2);
            assert_eq!(layout.stage_layouts.len(), 2, "one independent-sets layout per stage");
            let bindings = Bindings::new(&gpu, &layout.set_layouts, tints);
            let fast = draw(&gpu, slot.fast(), slot.layout(), &bindings);
            wait_until_optimized(&slot);
            assert_ne!(slot.current(), slot.fast(), "the optimized pipeline was swapped in");
            let optimized = draw(&gpu, slot.current(), slot.layout(), &bindings);
            bindings.destroy(&gpu);

            let mono_slot = monolithic.get_pipeline(&vertex, &fragment, &state).unwrap();
            assert!(mono_slot.is_optimized());
            let mono_layout = monolithic.program_layout(&vertex, &fragment).unwrap();
            let bindings = Bindings::new(&gpu, &mono_layout.set_layouts, tints);
            let mono = draw(&gpu, mono_slot.current(), mono_slot.layout(), &bindings);
            bindings.destroy(&gpu);

            assert_eq!(fast, optimized, "fast link and link-time-optimized differ");
            assert_eq!(fast, mono, "libraries and monolithic differ");
            // The descriptor sets reached both stages: tints multiply the gradient.
            let corner = &fast[((SIZE - 1) * SIZE * 4 + (SIZE - 1) * 4) as usize..][..4];
            assert!(corner[0] > 0 && corner[1] > 0, "{corner:?}");
            images.push(fast);

            // The same request is served from the cache.
            let again = libraries.get_pipeline(&vertex, &fragment, &state).unwrap();
            assert!(std::sync::Arc::ptr_eq(&slot, &again));
        }
    }
    assert_ne!(images[0], images[1], "the spec constant changes the image");
    gpu.assert_validation_clean();
}

#[test]
fn specializing_ahead_renders_like_driver_specialization() {
    let gpu = Gpu::new();
    let set = shaders();
    let (vertex_shader, fragment_shader) = (set.get("tint.vert").unwrap(), set.get("tint.frag").unwrap());
    let (vertex_code, fragment_code) = (vertex_shader.decode().unwrap(), fragment_shader.decode().unwrap());
    let tints = [[1.0; 4], [1.0; 4]];
    let values = [(0, Value::Bool(true))];
    let mut images = Vec::new();
    for specialize_ahead in [false, true] {
        let manager = PipelineManager::new(
            gpu.device.clone(),
            vk::PipelineCache::null(),
            PipelineOptions { specialize_ahead, ..PipelineOptions::default() },
        );
        let vertex = stage(vertex_shader, &vertex_code, &[]);
        let fragment = stage(fragment_shader, &fragment_code, &values);
        let slot = manager.get_pipeline(&vertex, &fragment, &GraphicsState::default()).unwrap();
        let layout = manager.program_layout(&vertex, &fragment).unwrap();
        let bindings = Bindings::new(&gpu, &layout.set_layouts, tints);
        images.push(draw(&gpu, slot.fast(), slot.layout(), &bindings));
        bindings.destroy(&gpu);
    }
    assert_eq!(images[0], images[1]);
    gpu.assert_validation_clean();
}

#[test]
fn shutting_down_during_a_background_link_is_clean() {
    let gpu = Gpu::new();
    let set = shaders();
    let (vertex_shader, fragment_shader) = (set.get("tint.vert").unwrap(), set.get("tint.frag").unwrap());
    let (vertex_code, fragment_code) = (vertex_shader.decode().unwrap(), fragment_shader.decode().unwrap());
    for round in 0..3 {
        let manager = PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), PipelineOptions::default());
        let values = [(0, Value::Bool(round % 2 == 0))];
        let slot = manager
            .get_pipeline(
                &stage(vertex_shader, &vertex_code, &[]),
                &stage(fragment_shader, &fragment_code, &values),
                &GraphicsState::default(),
            )
            .unwrap();
        assert!(slot.fast() != vk::Pipeline::null());
        drop(manager); // links queued or in flight: dropped or waited for, then everything destroyed
    }
    gpu.assert_validation_clean();
}

#[test]
fn pipelines_go_through_a_persistent_cache() {
    let gpu = Gpu::new();
    let set = shaders();
    let (vertex_shader, fragment_shader) = (set.get("tint.vert").unwrap(), set.get("tint.frag").unwrap());
    let (vertex_code, fragment_code) = (vertex_shader.decode().unwrap(), fragment_shader.decode().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipelines.bin");
    // SAFETY: a plain query on a live physical device.
    let properties = unsafe { gpu.instance.get_physical_device_properties(gpu.physical) };
    let empty_size;
    {
        let (cache, _) = PipelineCacheFile::open(gpu.device.clone(), &properties, &path).unwrap();
        empty_size = cache.save().unwrap();
        let manager = PipelineManager::new(gpu.device.clone(), cache.handle(), PipelineOptions::default());
        let slot = manager
            .get_pipeline(
                &stage(vertex_shader, &vertex_code, &[]),
                &stage(fragment_shader, &fragment_code, &[]),
                &GraphicsState::default(),
            )
            .unwrap();
        wait_until_optimized(&slot);
        drop(manager);
        assert!(cache.save().unwrap() >= empty_size);
    }
    let (_, load) = PipelineCacheFile::open(gpu.device.clone(), &properties, &path).unwrap();
    assert!(matches!(load, smolv_runtime::vulkan::CacheLoad::Loaded { .. }), "{load:?}");
    gpu.assert_validation_clean();
}
