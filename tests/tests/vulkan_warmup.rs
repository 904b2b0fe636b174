//! Pipeline warm-up on lavapipe with validation on: a recording made by
//! one manager, replayed by a fresh one, hands out every recorded pipeline
//! without building on the caller's thread; a shader edited with its
//! interface intact is rebuilt, one with another interface is dropped; a
//! replay past its time budget builds nothing. Each test ends by
//! destroying the device, so the layer reports any object left alive.
#![allow(unsafe_code)]

use std::sync::Arc;
use std::time::Duration;

use ash::vk;
use smolv_runtime::ShaderSet;
use smolv_runtime::reflect::{Reflection, ShaderStage};
use smolv_runtime::specialize::Value;
use smolv_runtime::vulkan::warmup::{Recording, Replay, ReplayBudget, ReplayShader};
use smolv_runtime::vulkan::{GraphicsState, PipelineManager, PipelineOptions, Stage};
use smolv_tests::vulkan::Gpu;

const VERTEX: &str = "#version 450\n\
layout(location = 0) out vec2 uv;\n\
void main() {\n  uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n\
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";

const FRAGMENT: &str = "#version 450\n\
layout(constant_id = 0) const bool INVERT = false;\n\
layout(location = 0) in vec2 uv;\nlayout(location = 0) out vec4 color;\n\
void main() {\n  vec4 c = vec4(uv, 0.5, 1.0);\n  if (INVERT) { c.rgb = 1.0 - c.rgb; }\n  color = c;\n}\n";

const COMPUTE: &str = "#version 450\nlayout(local_size_x = 64) in;\n\
layout(set = 0, binding = 0) buffer Values { uint values[]; };\n\
void main() { values[gl_GlobalInvocationID.x] = 3u * gl_GlobalInvocationID.x + 1u; }\n";

const NAMES: [&str; 3] = ["plain.vert", "invert.frag", "fill.comp"];

fn shaders() -> Vec<ReplayShader> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    for (name, source) in NAMES.iter().zip([VERTEX, FRAGMENT, COMPUTE]) {
        std::fs::write(dir.path().join("shaders").join(name), source).unwrap();
    }
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    let set = ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    NAMES
        .map(|name| {
            let shader = set.get(name).unwrap();
            ReplayShader { spirv: shader.decode().unwrap(), reflection: shader.reflection().unwrap() }
        })
        .into()
}

fn manager(gpu: &Gpu) -> Arc<PipelineManager> {
    let options = PipelineOptions::new()
        .features(PipelineOptions::new().features.with_graphics_pipeline_library(gpu.graphics_pipeline_library));
    // SAFETY: `Gpu` enables dynamic rendering and graphics pipeline
    // libraries; every test drops its managers and replays before the device.
    Arc::new(unsafe {
        PipelineManager::new(gpu.device.clone(), vk::PipelineCache::null(), &gpu.properties.limits, options)
    })
}

fn stage<'a>(shader: &'a ReplayShader, values: &'a [(u32, Value)]) -> Stage<'a> {
    Stage { spirv: &shader.spirv, reflection: &shader.reflection, specialization: values }
}

const INVERTS: [[(u32, Value); 1]; 2] = [[(0, Value::Bool(false))], [(0, Value::Bool(true))]];

/// What the game does each run: two graphics pipelines and a compute one.
fn ask_for_everything(manager: &PipelineManager, shaders: &[ReplayShader]) {
    let state = GraphicsState::default();
    for values in &INVERTS {
        // SAFETY: modules compiled by smolv-build with their reflection; the
        // default RGBA8 state, which every device renders to.
        unsafe { manager.get_pipeline(&stage(&shaders[0], &[]), &stage(&shaders[1], values), &state) }.unwrap();
    }
    // SAFETY: as above.
    let compute = unsafe { manager.get_compute(&stage(&shaders[2], &[])) }.unwrap();
    compute.wait().unwrap();
}

/// A recording of one run, through the file's bytes.
fn record(gpu: &Gpu, shaders: &[ReplayShader]) -> Recording {
    let manager = manager(gpu);
    let recorder = manager.recorder();
    for (name, shader) in NAMES.iter().zip(shaders) {
        recorder.name_shader(name, &shader.spirv);
    }
    recorder.set_scope(Some("level 1"));
    ask_for_everything(&manager, shaders);
    assert_eq!(manager.caller_builds(), 3, "without replay, the run builds all three on its own thread");
    // The same pipelines again: recorded once each.
    ask_for_everything(&manager, shaders);
    let recording = recorder.recording();
    assert_eq!(recording.entries.len(), 3);
    assert!(recording.entries.iter().all(|e| e.scope.as_deref() == Some("level 1")));
    Recording::from_bytes(&recording.to_bytes()).unwrap()
}

fn find<'a>(shaders: &'a [ReplayShader]) -> impl FnMut(&str) -> Option<ReplayShader> + 'a {
    |name| NAMES.iter().position(|n| *n == name).map(|i| shaders[i].clone())
}

#[test]
fn a_replayed_recording_hands_out_its_pipelines_without_building_on_the_caller() {
    let gpu = Gpu::new();
    let shaders = shaders();
    let recording = record(&gpu, &shaders);
    let fresh = manager(&gpu);
    let budget = ReplayBudget::new().threads(2).scopes_first(["level 1"]);
    // SAFETY: the shaders and states this test's own run recorded.
    let replay = unsafe { Replay::start(Arc::clone(&fresh), &recording, &budget, find(&shaders)) };
    assert!(replay.wait_scope(Some("level 1"), Duration::from_secs(60)), "{:?}", replay.progress());
    let progress = replay.progress();
    assert_eq!((progress.done, progress.total, progress.dropped, progress.failed), (3, 3, 0, 0));
    assert_eq!(progress.scopes, vec![(Some("level 1".to_owned()), 3, 3)]);
    ask_for_everything(&fresh, &shaders);
    assert_eq!(fresh.caller_builds(), 0, "every pipeline was ready before it was asked for");
    drop(replay);
    drop(fresh);
    gpu.finish();
}

#[test]
fn an_edited_shader_is_rebuilt_when_its_interface_matches_and_dropped_otherwise() {
    let gpu = Gpu::new();
    let shaders = shaders();
    let recording = record(&gpu, &shaders);
    // The fragment shader edited: a constant changed, the interface not.
    let mut edited = shaders.clone();
    let half = 0.5f32.to_bits();
    let at = edited[1].spirv.iter().rposition(|&w| w == half).expect("the 0.5 constant");
    edited[1].spirv[at] = 0.25f32.to_bits();
    let fresh = manager(&gpu);
    // SAFETY: valid modules (one constant changed) with their reflection.
    let replay = unsafe { Replay::start(Arc::clone(&fresh), &recording, &ReplayBudget::new(), find(&edited)) };
    assert!(replay.wait(Duration::from_secs(60)));
    let progress = replay.progress();
    assert_eq!((progress.done, progress.rebuilt, progress.dropped), (3, 2, 0), "{progress:?}");
    ask_for_everything(&fresh, &edited);
    assert_eq!(fresh.caller_builds(), 0, "the rebuilt pipelines are the edited shader's");
    drop(replay);
    // The compute shader with another interface (no storage buffer): dropped.
    let mut changed = shaders.clone();
    changed[2].spirv.push(0);
    changed[2].reflection = Reflection::new(ShaderStage::Compute, "main");
    // SAFETY: the changed entry is dropped before anything is built; the rest are the recorded shaders.
    let replay = unsafe { Replay::start(Arc::clone(&fresh), &recording, &ReplayBudget::new(), find(&changed)) };
    assert!(replay.wait(Duration::from_secs(60)));
    let progress = replay.progress();
    assert_eq!((progress.total, progress.dropped), (2, 1), "{progress:?}");
    drop(replay);
    drop(fresh);
    gpu.finish();
}

#[test]
fn a_replay_past_its_time_budget_or_cancelled_builds_nothing_more() {
    let gpu = Gpu::new();
    let shaders = shaders();
    let recording = record(&gpu, &shaders);
    let fresh = manager(&gpu);
    let budget = ReplayBudget::new().time(Duration::ZERO);
    // SAFETY: the shaders and states this test's own run recorded.
    let replay = unsafe { Replay::start(Arc::clone(&fresh), &recording, &budget, find(&shaders)) };
    assert!(replay.wait(Duration::from_secs(60)));
    let progress = replay.progress();
    assert_eq!((progress.done, progress.abandoned), (0, 3), "{progress:?}");
    drop(replay);
    ask_for_everything(&fresh, &shaders);
    assert_eq!(fresh.caller_builds(), 3, "nothing was built ahead");
    drop(fresh);
    gpu.finish();
}
