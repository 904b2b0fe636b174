//! Rebuilds (hot reload) on lavapipe with validation on, with libraries
//! and monolithic: a slot is filed under the program it draws. A rebuild
//! that fails on the worker leaves it filed under its old program, still
//! drawing it, and the new program gets a pipeline of its own; a rebuild
//! that lands files it under the new one. A program whose stages changed
//! together (a varying removed from both) rebuilds once; a pairing whose
//! stages disagree on a location is refused, naming both, and pairings
//! that agree per component (as Vulkan matches them) rebuild; a fragment
//! shader that stops reading its uniform is built into the running
//! layout. Each test ends by destroying the device, so the layer reports
//! anything left alive.
#![allow(unsafe_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use ash::vk;
use smolv_runtime::ShaderSet;
use smolv_runtime::reflect::Reflection;
use smolv_runtime::vulkan::{
    ComputeSlot, GraphicsProgram, GraphicsState, PipelineManager, PipelineOptions, PipelineSlot, Stage, VulkanError,
};
use smolv_tests::vulkan::Gpu;

const SIZE: u32 = 8;

const VERTEX: &str = "#version 450\n\
void main() {\n  vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n\
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";

const RED: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1, 0, 0, 1); }\n";

const GREEN: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(0, 1, 0, 1); }\n";

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

/// `fill.vert`, `red.frag` and `green.frag`, compiled with smolv-build.
fn modules() -> [Module; 3] {
    let dir = tempfile::tempdir().unwrap();
    let names = ["fill.vert", "red.frag", "green.frag"];
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    for (name, source) in names.iter().zip([VERTEX, RED, GREEN]) {
        std::fs::write(dir.path().join("shaders").join(name), source).unwrap();
    }
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    let set = ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    names.map(|name| {
        let shader = set.get(name).unwrap();
        Module { code: shader.decode().unwrap(), reflection: shader.reflection().unwrap() }
    })
}

/// A manager on the device whose pipeline creation a test can make fail.
fn manager(gpu: &Gpu, force_monolithic: bool) -> PipelineManager {
    let options = PipelineOptions::new()
        .features(
            smolv_runtime::vulkan::DeviceFeatures::default()
                .with_graphics_pipeline_library(gpu.graphics_pipeline_library),
        )
        .force_monolithic(force_monolithic);
    // SAFETY: `Gpu` enables dynamic rendering and, where `options` says
    // so, graphics pipeline libraries; each test drops the manager (after
    // `draw`, which waits for the queue) before the device.
    unsafe { PipelineManager::new(gpu.recording_device(), vk::PipelineCache::null(), &gpu.properties.limits, options) }
}

fn pipeline(manager: &PipelineManager, vertex: &Module, fragment: &Module) -> Arc<PipelineSlot> {
    // SAFETY: smolv-build's modules with their own reflection, and the
    // default RGBA8 state, which every device renders to.
    unsafe { manager.get_pipeline(&vertex.stage(), &fragment.stage(), &GraphicsState::default()) }.unwrap()
}

/// Waits until `done` holds, for at most ten seconds.
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(10), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The colour `slot`'s pipeline draws, as RGBA8 of the first pixel.
fn colour(gpu: &Gpu, slot: &PipelineSlot) -> Vec<u8> {
    gpu.draw(slot.current(), SIZE, |_| {})[..4].to_vec()
}

const RED_PIXEL: [u8; 4] = [255, 0, 0, 255];
const GREEN_PIXEL: [u8; 4] = [0, 255, 0, 255];

#[test]
fn a_failed_rebuild_leaves_the_slot_filed_under_the_program_it_still_draws() {
    let [vertex, red, green] = modules();
    for force_monolithic in [false, true] {
        let gpu = Gpu::new();
        {
            let manager = manager(&gpu, force_monolithic);
            let slot = pipeline(&manager, &vertex, &red);
            // No optimized link may be in flight when creation starts failing.
            wait_until("the optimized link", || slot.is_optimized());
            gpu.fail_pipeline_creation(true);
            let program = GraphicsProgram::new(vertex.stage(), green.stage());
            // SAFETY: as in `pipeline`; `slot` is this manager's.
            unsafe { manager.rebuild(&slot, &program) }.unwrap();
            wait_until("the rebuild to fail", || slot.rebuild_failure().is_some());
            gpu.fail_pipeline_creation(false);

            assert_eq!(slot.generation(), 0, "monolithic: {force_monolithic}");
            assert_eq!(colour(&gpu, &slot), RED_PIXEL, "the slot keeps drawing the old program");
            assert!(
                Arc::ptr_eq(&pipeline(&manager, &vertex, &red), &slot),
                "asking for the old program still finds the slot that draws it (monolithic: {force_monolithic})"
            );
            let green_slot = pipeline(&manager, &vertex, &green);
            assert!(
                !Arc::ptr_eq(&green_slot, &slot),
                "asking for the new program must not find a slot that draws the old one (monolithic: {force_monolithic})"
            );
            assert_eq!(colour(&gpu, &green_slot), GREEN_PIXEL);
        }
        gpu.finish();
    }
}

#[test]
fn a_landed_rebuild_files_the_slot_under_its_new_program() {
    let [vertex, red, green] = modules();
    for force_monolithic in [false, true] {
        let gpu = Gpu::new();
        {
            let manager = manager(&gpu, force_monolithic);
            let slot = pipeline(&manager, &vertex, &red);
            let program = GraphicsProgram::new(vertex.stage(), green.stage());
            // SAFETY: as in `pipeline`; `slot` is this manager's.
            let target = unsafe { manager.rebuild(&slot, &program) }.unwrap();
            wait_until("the rebuild to land", || slot.generation() >= target);
            assert!(slot.rebuild_failure().is_none());
            assert_eq!(colour(&gpu, &slot), GREEN_PIXEL, "the slot draws the new program");
            assert!(Arc::ptr_eq(&pipeline(&manager, &vertex, &green), &slot), "monolithic: {force_monolithic}");
            let red_slot = pipeline(&manager, &vertex, &red);
            assert!(!Arc::ptr_eq(&red_slot, &slot), "the old program gets a pipeline of its own");
            assert_eq!(colour(&gpu, &red_slot), RED_PIXEL);
            // SAFETY: `draw` waited for the queue: nothing uses the replaced pipelines.
            let retired = unsafe { manager.retire_replaced() };
            assert!(retired >= 1, "the replaced pipelines are retired, {retired} of them");
        }
        gpu.finish();
    }
}

const FILL_ONE: &str = "#version 450\nlayout(local_size_x = 1) in;\n\
layout(set = 0, binding = 0) buffer Out { uint value; } result;\nvoid main() { result.value = 1u; }\n";

const FILL_TWO: &str = "#version 450\nlayout(local_size_x = 1) in;\n\
layout(set = 0, binding = 0) buffer Out { uint value; } result;\nvoid main() { result.value = 2u; }\n";

/// `one.comp` and `two.comp`: the same layout, different code.
fn compute_modules() -> [Module; 2] {
    let dir = tempfile::tempdir().unwrap();
    let names = ["one.comp", "two.comp"];
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    for (name, source) in names.iter().zip([FILL_ONE, FILL_TWO]) {
        std::fs::write(dir.path().join("shaders").join(name), source).unwrap();
    }
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    let set = ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    names.map(|name| {
        let shader = set.get(name).unwrap();
        Module { code: shader.decode().unwrap(), reflection: shader.reflection().unwrap() }
    })
}

fn compute(manager: &PipelineManager, module: &Module) -> Arc<ComputeSlot> {
    // SAFETY: smolv-build's module with its own reflection.
    unsafe { manager.get_compute(&module.stage()) }.unwrap()
}

#[test]
fn a_compute_slot_is_filed_under_its_new_stage_only_once_the_rebuild_lands() {
    let [one, two] = compute_modules();
    let gpu = Gpu::new();
    {
        let manager = manager(&gpu, false);
        let slot = compute(&manager, &one);
        let first = slot.pipeline();
        gpu.fail_pipeline_creation(true);
        // SAFETY: as in `compute`; `slot` is this manager's.
        unsafe { manager.rebuild_compute(&slot, &two.stage()) }.unwrap();
        wait_until("the compute rebuild to fail", || slot.rebuild_failure().is_some());
        gpu.fail_pipeline_creation(false);

        assert_eq!((slot.generation(), slot.pipeline()), (0, first), "the slot keeps its pipeline");
        assert!(
            Arc::ptr_eq(&compute(&manager, &one), &slot),
            "asking for the old stage still finds the slot that holds its pipeline"
        );
        let two_slot = compute(&manager, &two);
        assert!(!Arc::ptr_eq(&two_slot, &slot), "asking for the new stage must not find a slot holding the old one");

        // A rebuild that lands moves the slot off the old stage (the new
        // one has its own slot now, so this one is kept aside).
        // SAFETY: as above.
        let target = unsafe { manager.rebuild_compute(&slot, &two.stage()) }.unwrap();
        wait_until("the compute rebuild to land", || slot.generation() >= target);
        assert!(!Arc::ptr_eq(&compute(&manager, &one), &slot), "the old stage no longer finds the rebuilt slot");
        assert!(Arc::ptr_eq(&compute(&manager, &two), &two_slot));
    }
    gpu.finish();
}

/// A program whose vertex shader hands its fragment shader a colour at
/// location 0 (`varying.vert` + `varying.frag`, red); the same two with
/// the varying removed from both (`plain.vert` + `plain.frag`, green); a
/// fragment shader that reads location 1, which no vertex shader here
/// writes (`reads_1.frag`); one that reads location 0 as a `vec3` and a
/// `float` at component 3 (`split.frag`), one as two `vec2`s, the second
/// at component 2 (`tail.frag`), and one as an `ivec4` (`ivec4.frag`); a
/// vertex shader that writes location 0 as two `vec2`s (`halves.vert`);
/// a fragment shader that takes its colour from a uniform (`uniform.frag`,
/// set 0 binding 0) and one that stopped reading it (`no_uniform.frag`).
const INTERFACE_SHADERS: [(&str, &str); 10] = [
    (
        "varying.vert",
        "#version 450\nlayout(location = 0) out vec4 v_color;\nvoid main() {\n\
         vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n\
         gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n  v_color = vec4(1, 0, 0, 1);\n}\n",
    ),
    (
        "varying.frag",
        "#version 450\nlayout(location = 0) in vec4 v_color;\nlayout(location = 0) out vec4 color;\n\
         void main() { color = v_color; }\n",
    ),
    ("plain.vert", VERTEX),
    ("plain.frag", GREEN),
    (
        "reads_1.frag",
        "#version 450\nlayout(location = 1) in vec4 v_tint;\nlayout(location = 0) out vec4 color;\n\
         void main() { color = v_tint; }\n",
    ),
    (
        "split.frag",
        "#version 450\nlayout(location = 0) in vec3 v_rgb;\nlayout(location = 0, component = 3) in float v_a;\n\
         layout(location = 0) out vec4 color;\nvoid main() { color = vec4(v_rgb, v_a); }\n",
    ),
    (
        "tail.frag",
        "#version 450\nlayout(location = 0) in vec2 v_head;\nlayout(location = 0, component = 2) in vec2 v_tail;\n\
         layout(location = 0) out vec4 color;\nvoid main() { color = vec4(v_head, v_tail); }\n",
    ),
    (
        "ivec4.frag",
        "#version 450\nlayout(location = 0) flat in ivec4 v_color;\nlayout(location = 0) out vec4 color;\n\
         void main() { color = vec4(v_color); }\n",
    ),
    (
        "halves.vert",
        "#version 450\nlayout(location = 0) out vec2 v_rg;\nlayout(location = 0, component = 2) out vec2 v_ba;\n\
         void main() {\n  vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n\
         gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n  v_rg = vec2(1, 0);\n  v_ba = vec2(0, 1);\n}\n",
    ),
    (
        "uniform.frag",
        "#version 450\nlayout(set = 0, binding = 0) uniform Tint { vec4 tint; } tint;\n\
         layout(location = 0) out vec4 color;\nvoid main() { color = tint.tint; }\n",
    ),
];

const NO_UNIFORM: (&str, &str) = ("no_uniform.frag", GREEN);

/// The modules of [`INTERFACE_SHADERS`] and [`NO_UNIFORM`], by name.
fn interface_modules() -> std::collections::BTreeMap<&'static str, Module> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    let shaders: Vec<(&str, &str)> = INTERFACE_SHADERS.into_iter().chain([NO_UNIFORM]).collect();
    for (name, source) in &shaders {
        std::fs::write(dir.path().join("shaders").join(name), source).unwrap();
    }
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    let set = ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    shaders
        .iter()
        .map(|(name, _)| {
            let shader = set.get(name).unwrap();
            (*name, Module { code: shader.decode().unwrap(), reflection: shader.reflection().unwrap() })
        })
        .collect()
}

#[test]
fn a_varying_removed_from_both_stages_rebuilds_once_to_a_valid_pipeline() {
    let modules = interface_modules();
    for force_monolithic in [false, true] {
        let gpu = Gpu::new();
        {
            let manager = manager(&gpu, force_monolithic);
            let slot = pipeline(&manager, &modules["varying.vert"], &modules["varying.frag"]);
            assert_eq!(colour(&gpu, &slot), RED_PIXEL);
            let program = GraphicsProgram::new(modules["plain.vert"].stage(), modules["plain.frag"].stage());
            // SAFETY: as in `pipeline`; `slot` is this manager's.
            let target = unsafe { manager.rebuild(&slot, &program) }.unwrap();
            wait_until("the rebuild to land", || slot.generation() >= target);
            assert_eq!((target, slot.rebuild_failure().is_none()), (1, true), "monolithic: {force_monolithic}");
            assert_eq!(colour(&gpu, &slot), GREEN_PIXEL, "the slot draws both new stages");
        }
        gpu.finish();
    }
}

#[test]
fn a_stage_pairing_whose_interfaces_do_not_match_is_refused_naming_both_and_the_location() {
    let modules = interface_modules();
    let gpu = Gpu::new();
    {
        let manager = manager(&gpu, false);
        let slot = pipeline(&manager, &modules["varying.vert"], &modules["varying.frag"]);
        let refused = |vertex: &str, fragment: &str| {
            let program = GraphicsProgram::new(modules[vertex].stage(), modules[fragment].stage());
            // SAFETY: as in `pipeline`; `slot` is this manager's.
            let error = unsafe { manager.rebuild(&slot, &program) }.unwrap_err();
            assert!(matches!(error, VulkanError::RebuildIncompatible { .. }), "{error:?}");
            error.to_string()
        };
        // The fragment shader changed: it reads what the vertex shader never wrote.
        let message = refused("varying.vert", "reads_1.frag");
        assert!(
            message.contains("changed fragment shader")
                && message.contains(
                    "the fragment shader reads location 1 (`v_tint`, vec4), which the vertex shader does not write"
                ),
            "{message}"
        );
        // The vertex shader changed: it no longer writes what the fragment shader reads.
        let message = refused("plain.vert", "varying.frag");
        assert!(
            message.contains("changed vertex shader")
                && message.contains(
                    "the fragment shader reads location 0 (`v_color`, vec4), which the vertex shader does not write"
                ),
            "{message}"
        );
        let message = refused("varying.vert", "ivec4.frag");
        assert!(
            message.contains(
                "location 0 is `v_color`, vec4 in the vertex shader but `v_color`, ivec4 in the fragment shader"
            ),
            "{message}"
        );
        assert_eq!(slot.generation(), 0, "nothing was rebuilt");
        assert_eq!(colour(&gpu, &slot), RED_PIXEL, "the slot keeps drawing the old program");
    }
    gpu.finish();
}

#[test]
fn pairings_vulkan_accepts_by_component_rebuild_and_draw() {
    let modules = interface_modules();
    let gpu = Gpu::new();
    {
        let manager = manager(&gpu, false);
        let slot = pipeline(&manager, &modules["varying.vert"], &modules["varying.frag"]);
        // Inputs narrower than the output they read (a `vec3`, and a
        // `vec2` from component 2; each beside another input that reads the
        // rest, since the layer warns of components nobody reads, and an
        // output wider than all its inputs is left to the unit tests), and
        // two outputs read as one input.
        for (vertex, fragment) in
            [("varying.vert", "split.frag"), ("varying.vert", "tail.frag"), ("halves.vert", "varying.frag")]
        {
            let program = GraphicsProgram::new(modules[vertex].stage(), modules[fragment].stage());
            // SAFETY: as in `pipeline`; `slot` is this manager's.
            let target = unsafe { manager.rebuild(&slot, &program) }.unwrap();
            wait_until("the rebuild to land", || slot.generation() >= target);
            assert!(slot.rebuild_failure().is_none(), "{vertex} + {fragment}: {:?}", slot.rebuild_failure());
            assert_eq!(colour(&gpu, &slot), RED_PIXEL, "{vertex} + {fragment}");
        }
    }
    gpu.finish();
}

#[test]
fn a_fragment_shader_that_stops_reading_its_uniform_is_rebuilt_into_the_running_layout() {
    let modules = interface_modules();
    for force_monolithic in [false, true] {
        let gpu = Gpu::new();
        {
            let manager = manager(&gpu, force_monolithic);
            let vertex = &modules["plain.vert"];
            let slot = pipeline(&manager, vertex, &modules["uniform.frag"]);
            let program = GraphicsProgram::new(vertex.stage(), modules["no_uniform.frag"].stage());
            // SAFETY: as in `pipeline`; `slot` is this manager's.
            let target = unsafe { manager.rebuild(&slot, &program) }.unwrap_or_else(|e| panic!("{e}"));
            wait_until("the rebuild to land", || slot.generation() >= target);
            assert!(slot.rebuild_failure().is_none(), "monolithic: {force_monolithic}");
            assert_eq!(colour(&gpu, &slot), GREEN_PIXEL, "the slot draws the new fragment shader");
            // The binding is still in the layout: reading it again fits too.
            let back = GraphicsProgram::new(vertex.stage(), modules["uniform.frag"].stage());
            // SAFETY: as above.
            let target = unsafe { manager.rebuild(&slot, &back) }.unwrap_or_else(|e| panic!("{e}"));
            wait_until("the second rebuild to land", || slot.generation() >= target);
            // SAFETY: `draw` waited for the queue: nothing uses the replaced pipelines.
            unsafe { manager.retire_replaced() };
        }
        gpu.finish();
    }
}
