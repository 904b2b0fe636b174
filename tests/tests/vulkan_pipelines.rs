//! Graphics pipeline libraries on lavapipe with validation on: libraries,
//! fast link, link-time-optimized link and monolithic pipelines render the
//! same pixels; descriptor sets from stage-independent layouts bind and
//! work; modules one word apart never share a pipeline; threads racing for
//! one pipeline leak nothing; every pipeline goes through the persistent
//! cache; shutting down during a background link is clean. Each test ends
//! by destroying the device, so the layer reports any object left alive.
#![allow(unsafe_code)]

use std::sync::{Arc, Barrier};
use std::time::Duration;

use ash::vk;
use smolv_runtime::ShaderSet;
use smolv_runtime::reflect::Reflection;
use smolv_runtime::specialize::Value;
use smolv_runtime::vulkan::{
    CacheLoad, CacheRejected, GraphicsState, PipelineCacheFile, PipelineManager, PipelineOptions, PipelineSlot, Stage,
    VulkanError,
};
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

/// A decoded module and its reflection.
struct Module {
    code: Vec<u32>,
    reflection: Reflection,
}

/// `tint.vert` and `tint.frag`, compiled with smolv-build as a game ships
/// them and decoded again.
fn modules() -> [Module; 2] {
    let set = shaders();
    ["tint.vert", "tint.frag"].map(|name| {
        let shader = set.get(name).unwrap();
        Module { code: shader.decode().unwrap(), reflection: shader.reflection().unwrap() }
    })
}

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

fn stage<'a>(module: &'a Module, specialization: &'a [(u32, Value)]) -> Stage<'a> {
    Stage { spirv: &module.code, reflection: &module.reflection, specialization }
}

/// `code` with the 32-bit `OpConstant` `from` set to `to`.
fn with_constant_changed(code: &[u32], from: f32, to: f32) -> Vec<u32> {
    const OP_CONSTANT: u32 = 43;
    let mut code = code.to_vec();
    let mut at = 5;
    while at < code.len() {
        let (opcode, count) = (code[at] & 0xFFFF, (code[at] >> 16) as usize);
        if opcode == OP_CONSTANT && count == 4 && code[at + 3] == from.to_bits() {
            code[at + 3] = to.to_bits();
            return code;
        }
        at += count;
    }
    panic!("no OpConstant {from}");
}

/// A manager on `gpu`, told (on top of `options`) that the device has
/// graphics pipeline libraries where `Gpu` enabled them.
fn manager(gpu: &Gpu, cache: vk::PipelineCache, options: PipelineOptions) -> PipelineManager {
    let options = with_libraries(gpu, options);
    // SAFETY: `Gpu` enables dynamic rendering and graphics pipeline
    // libraries; every test drops its managers (after `draw`, which waits
    // for the queue) before the cache and the device.
    unsafe { PipelineManager::new(gpu.device.clone(), cache, &gpu.properties.limits, options) }
}

/// `options`, with the graphics pipeline libraries `gpu` enabled.
fn with_libraries(gpu: &Gpu, options: PipelineOptions) -> PipelineOptions {
    options.features(options.features.with_graphics_pipeline_library(gpu.graphics_pipeline_library))
}

fn pipeline(
    manager: &PipelineManager,
    vertex: &Stage<'_>,
    fragment: &Stage<'_>,
    state: &GraphicsState,
) -> Result<Arc<PipelineSlot>, VulkanError> {
    // SAFETY: the modules come from smolv-build (compiled and validated)
    // with their own reflection, and the state is the default RGBA8 one,
    // which every device renders to.
    unsafe { manager.get_pipeline(vertex, fragment, state) }
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
    let landed = slot.wait_optimized(Duration::from_secs(30)).expect("the background link succeeds");
    assert!(landed, "the background link never finished");
    assert!(slot.is_optimized());
}

#[test]
fn fast_link_optimized_link_and_monolithic_pipelines_render_the_same() {
    let gpu = Gpu::new();
    assert!(gpu.graphics_pipeline_library, "lavapipe has VK_EXT_graphics_pipeline_library");
    let [vertex_shader, fragment_shader] = modules();
    let tints = [[1.0, 0.5, 1.0, 1.0], [0.5, 1.0, 1.0, 1.0]];
    let state = GraphicsState::default();
    let mut images = Vec::new();
    {
        let libraries = manager(&gpu, vk::PipelineCache::null(), PipelineOptions::default());
        assert!(libraries.uses_libraries());
        let monolithic = manager(&gpu, vk::PipelineCache::null(), PipelineOptions::new().force_monolithic(true));
        assert!(!monolithic.uses_libraries());
        for invert in [false, true] {
            let values = [(0, Value::Bool(invert))];
            let vertex = stage(&vertex_shader, &[]);
            let fragment = stage(&fragment_shader, &values);
            let slot = pipeline(&libraries, &vertex, &fragment, &state).unwrap();
            let layout = libraries.program_layout(&vertex, &fragment).unwrap();
            assert_eq!(layout.set_layouts.len(), 2);
            assert_eq!(layout.stage_layouts.len(), 2, "one independent-sets layout per stage");
            let bindings = Bindings::new(&gpu, &layout.set_layouts, tints);
            let fast = draw(&gpu, slot.fast(), slot.layout(), &bindings);
            wait_until_optimized(&slot);
            assert_ne!(slot.current(), slot.fast(), "the optimized pipeline was swapped in");
            let optimized = draw(&gpu, slot.current(), slot.layout(), &bindings);
            bindings.destroy(&gpu);

            let mono_slot = pipeline(&monolithic, &vertex, &fragment, &state).unwrap();
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
            let again = pipeline(&libraries, &vertex, &fragment, &state).unwrap();
            assert!(Arc::ptr_eq(&slot, &again));
        }
    }
    assert_ne!(images[0], images[1], "the spec constant changes the image");
    gpu.finish();
}

#[test]
fn specializing_ahead_renders_like_driver_specialization() {
    let gpu = Gpu::new();
    let [vertex_shader, fragment_shader] = modules();
    let tints = [[1.0; 4], [1.0; 4]];
    let values = [(0, Value::Bool(true))];
    let mut images = Vec::new();
    for specialize_ahead in [false, true] {
        let manager =
            manager(&gpu, vk::PipelineCache::null(), PipelineOptions::new().specialize_ahead(specialize_ahead));
        let vertex = stage(&vertex_shader, &[]);
        let fragment = stage(&fragment_shader, &values);
        let slot = pipeline(&manager, &vertex, &fragment, &GraphicsState::default()).unwrap();
        let layout = manager.program_layout(&vertex, &fragment).unwrap();
        let bindings = Bindings::new(&gpu, &layout.set_layouts, tints);
        images.push(draw(&gpu, slot.fast(), slot.layout(), &bindings));
        bindings.destroy(&gpu);
    }
    assert_eq!(images[0], images[1]);
    gpu.finish();
}

#[test]
fn shutting_down_during_a_background_link_is_clean() {
    let gpu = Gpu::new();
    let [vertex_shader, fragment_shader] = modules();
    for round in 0..3 {
        let manager = manager(&gpu, vk::PipelineCache::null(), PipelineOptions::default());
        let values = [(0, Value::Bool(round % 2 == 0))];
        let slot = pipeline(
            &manager,
            &stage(&vertex_shader, &[]),
            &stage(&fragment_shader, &values),
            &GraphicsState::default(),
        )
        .unwrap();
        assert!(slot.fast() != vk::Pipeline::null());
        drop(manager); // links queued or in flight: dropped or waited for, then everything destroyed
    }
    gpu.finish();
}

#[test]
fn modules_that_differ_in_a_word_get_their_own_pipelines() {
    let gpu = Gpu::new();
    let [vertex_shader, a_shader] = modules();
    // The same module with one word changed: the `0.5` blue becomes 0.25.
    let a_code = &a_shader.code;
    let b_code = &with_constant_changed(a_code, 0.5, 0.25);
    assert_eq!(a_code.iter().zip(b_code).filter(|(a, b)| a != b).count(), 1, "one word apart");
    let tints = [[1.0; 4], [1.0; 4]];
    for options in [PipelineOptions::default(), PipelineOptions::new().force_monolithic(true)] {
        let manager = manager(&gpu, vk::PipelineCache::null(), options);
        let vertex = stage(&vertex_shader, &[]);
        // Both with the same reflection: only the code tells them apart.
        let a = Stage { spirv: a_code, reflection: &a_shader.reflection, specialization: &[] };
        let b = Stage { spirv: b_code, reflection: &a_shader.reflection, specialization: &[] };
        let state = GraphicsState::default();
        let (a_slot, b_slot) =
            (pipeline(&manager, &vertex, &a, &state).unwrap(), pipeline(&manager, &vertex, &b, &state).unwrap());
        assert!(!Arc::ptr_eq(&a_slot, &b_slot));
        assert_ne!(a_slot.fast(), b_slot.fast());
        let layout = manager.program_layout(&vertex, &a).unwrap();
        let bindings = Bindings::new(&gpu, &layout.set_layouts, tints);
        let (a_image, b_image) = (
            draw(&gpu, a_slot.fast(), a_slot.layout(), &bindings),
            draw(&gpu, b_slot.fast(), b_slot.layout(), &bindings),
        );
        bindings.destroy(&gpu);
        assert_ne!(a_image, b_image, "each module renders its own blue");

        // The same words elsewhere in memory are the same module.
        let copy = b_code.clone();
        let again = pipeline(&manager, &vertex, &Stage { spirv: &copy, ..b }, &state).unwrap();
        assert!(Arc::ptr_eq(&b_slot, &again));
        // The same module with other spec-constant values is another pipeline.
        let values = [(0, Value::Bool(true))];
        let inverted = pipeline(&manager, &vertex, &Stage { specialization: &values, ..b }, &state).unwrap();
        assert!(!Arc::ptr_eq(&b_slot, &inverted));
        // A spec constant given twice is refused, not silently resolved.
        let twice = [(0, Value::Bool(true)), (0, Value::Bool(false))];
        let err = pipeline(&manager, &vertex, &Stage { specialization: &twice, ..b }, &state).unwrap_err();
        assert!(matches!(err, VulkanError::DuplicateSpecConstant(0)), "{err}");
    }
    gpu.finish();
}

#[test]
fn threads_racing_for_one_pipeline_share_one_slot_and_leak_nothing() {
    let gpu = Gpu::new();
    let [vertex_shader, fragment_shader] = modules();
    const THREADS: usize = 4;
    for force_monolithic in [false, true] {
        for round in 0..3 {
            let manager =
                manager(&gpu, vk::PipelineCache::null(), PipelineOptions::new().force_monolithic(force_monolithic));
            let values = [(0, Value::Bool(round % 2 == 1))];
            let start = Barrier::new(THREADS);
            let slots: Vec<Arc<PipelineSlot>> = std::thread::scope(|scope| {
                let racers: Vec<_> = (0..THREADS)
                    .map(|_| {
                        scope.spawn(|| {
                            let vertex = stage(&vertex_shader, &[]);
                            let fragment = stage(&fragment_shader, &values);
                            start.wait();
                            pipeline(&manager, &vertex, &fragment, &GraphicsState::default()).unwrap()
                        })
                    })
                    .collect();
                racers.into_iter().map(|racer| racer.join().unwrap()).collect()
            });
            assert!(slots.iter().all(|slot| Arc::ptr_eq(slot, &slots[0])), "one slot for everyone");
            if !force_monolithic {
                wait_until_optimized(&slots[0]);
            }
        }
    }
    // The managers are gone: destroying the device reports any pipeline
    // that a losing thread made and nobody destroyed.
    gpu.finish();
}

#[test]
fn pipelines_go_through_a_persistent_cache() {
    let gpu = Gpu::new();
    let [vertex_shader, fragment_shader] = modules();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipelines.bin");
    let open = |path: &std::path::Path| {
        // SAFETY: the device and its properties; each cache outlives the
        // manager that uses it and is dropped before the device.
        unsafe { PipelineCacheFile::open(gpu.device.clone(), &gpu.properties, path) }.unwrap()
    };
    let saved;
    {
        let (cache, load) = open(&path);
        assert_eq!(load, CacheLoad::Missing);
        let empty = cache.data().unwrap();
        // A manager whose every vkCreateGraphicsPipelines call is recorded.
        // SAFETY: as `manager`, on the same device.
        let manager = unsafe {
            PipelineManager::new(
                gpu.recording_device(),
                cache.handle(),
                &gpu.properties.limits,
                with_libraries(&gpu, PipelineOptions::default()),
            )
        };
        let slot =
            pipeline(&manager, &stage(&vertex_shader, &[]), &stage(&fragment_shader, &[]), &GraphicsState::default())
                .unwrap();
        wait_until_optimized(&slot);
        drop(manager);
        // Four libraries, the fast link and the optimized link (from the
        // worker thread), each through the cache.
        let used = gpu.pipeline_caches_used();
        assert_eq!(used.len(), 6, "{used:?}");
        assert!(used.iter().all(|&c| c == cache.handle()), "every pipeline went through the cache: {used:?}");
        saved = cache.data().unwrap();
        assert!(saved.len() >= empty.len(), "a cache never shrinks: {} -> {} bytes", empty.len(), saved.len());
        assert_eq!(cache.save().unwrap(), saved.len());
    }
    {
        let (cache, load) = open(&path);
        assert_eq!(load, CacheLoad::Loaded { bytes: saved.len() });
        assert_eq!(cache.data().unwrap(), saved, "the driver was seeded with what was saved");
    }
    let mut tampered = std::fs::read(&path).unwrap();
    *tampered.last_mut().unwrap() ^= 0x40;
    std::fs::write(&path, &tampered).unwrap();
    {
        let (_, load) = open(&path);
        assert!(matches!(load, CacheLoad::Ignored { reason: CacheRejected::Checksum(_) }), "{load:?}");
    }
    gpu.finish();
}
