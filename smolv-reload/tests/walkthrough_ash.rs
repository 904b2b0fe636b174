//! The README's ash walkthrough (`tests/walkthrough/ash.rs`, the very file
//! the README shows) runs on lavapipe under the validation layer: a
//! pipeline made from two embedded shaders draws red; an edit of the
//! fragment shader, compiled and published by a watcher, is rebuilt into
//! it and it draws green; an edit its layout cannot take is refused with
//! the reason, and it still draws green. No validation message.
#![allow(unsafe_code, reason = "the walkthrough's Vulkan calls")]

#[path = "walkthrough/ash.rs"]
#[allow(unreachable_pub, reason = "the README's file, as a program's module would have it")]
mod walkthrough;

use std::path::Path;
use std::time::{Duration, Instant};

use ash::vk;
use smolv_build::recipe::ShaderRecipe;
use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE};
use smolv_reload::Reloader;
use smolv_runtime::ShaderSet;
use smolv_runtime::vulkan::{DeviceFeatures, GraphicsState, PipelineManager, PipelineOptions};
use smolv_tests::vulkan::Gpu;
use walkthrough::Reloading;

const VERTEX: &str = "#version 450\n\
void main() {\n  vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n\
  gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);\n}\n";
const RED: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1, 0, 0, 1); }\n";
const GREEN: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(0, 1, 0, 1); }\n";
/// Reads a texture the pipeline's layout has no binding for.
const SAMPLES: &str = "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D tex;\n\
layout(location = 0) out vec4 color;\nvoid main() { color = texture(tex, vec2(0.5)); }\n";

/// The code blocks of `markdown` whose first line is `// {file}: …`.
fn blocks_naming(markdown: &str, file: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            if body.first().is_some_and(|first| first.starts_with(&format!("// {file}:"))) {
                blocks.push(body.join("\n") + "\n");
            }
        }
    }
    blocks
}

#[test]
fn the_readme_shows_this_walkthrough_as_it_is() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let file = std::fs::read_to_string(root.join("tests/walkthrough/ash.rs")).unwrap();
    assert_eq!(blocks_naming(&readme, "tests/walkthrough/ash.rs"), [file], "README.md's ash walkthrough");
}

/// Waits until `done` gives something, for at most 60 s.
fn wait_for<T>(what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = done() {
            return value;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn the_ash_walkthrough_rebuilds_the_pipeline_an_edit_changed_and_keeps_it_on_a_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    std::fs::write(shaders.join("fill.vert"), VERTEX).unwrap();
    std::fs::write(shaders.join("tint.frag"), RED).unwrap();
    let out = dir.path().join("out");
    let mut config = smolv_build::Config::new();
    config.shader_dir(&shaders).out_dir(&out).cache_dir(dir.path().join("cache")).cargo_directives(false);
    config.try_compile().unwrap();
    let artifacts = out.join(ARTIFACT_DIR);
    let manifest: smolv_format::Manifest<ShaderRecipe> =
        serde_json::from_slice(&std::fs::read(artifacts.join(MANIFEST_FILE)).unwrap()).unwrap();
    // What `include_shaders!` embeds, with the recipes the manifest holds.
    let set: &'static ShaderSet =
        Box::leak(Box::new(ShaderSet::from_vec(std::fs::read(artifacts.join(&manifest.bundle)).unwrap()).unwrap()));
    let mut reloader = Reloader::new();
    reloader.quiet(true);
    for module in &manifest.modules {
        reloader.shader_with_recipe(set.get(&module.name).unwrap(), module.recipe.clone().unwrap());
    }
    let _watcher = reloader.start().unwrap();

    let gpu = Gpu::new();
    {
        let options = PipelineOptions::new()
            .features(DeviceFeatures::default().with_graphics_pipeline_library(gpu.graphics_pipeline_library));
        // SAFETY: `Gpu` enables dynamic rendering, and graphics pipeline
        // libraries where the options say so; the manager is dropped
        // before the device.
        let manager = unsafe {
            PipelineManager::new(gpu.recording_device(), vk::PipelineCache::null(), &gpu.properties.limits, options)
        };
        let pair = [set.get("fill.vert").unwrap(), set.get("tint.frag").unwrap()];
        // SAFETY: smolv-build's modules; the default RGBA8 state, which
        // `Gpu::draw` renders to.
        let mut reloading = unsafe { Reloading::new(&manager, pair, &GraphicsState::default()) }.unwrap();
        let pixel = |reloading: &Reloading| gpu.draw(reloading.slot.current(), 8, |_| {})[..4].to_vec();
        assert_eq!(pixel(&reloading), [255, 0, 0, 255]);
        // SAFETY: as above; the slot is the manager's.
        assert!(unsafe { reloading.update(&manager) }.is_none(), "nothing published yet");

        std::fs::write(shaders.join("tint.frag"), GREEN).unwrap();
        // SAFETY: as above.
        let update = wait_for("the edit", || unsafe { reloading.update(&manager) });
        let target = update.expect("the edit is rebuilt");
        wait_for("the new pipeline", || (reloading.slot.generation() >= target).then_some(()));
        assert_eq!(pixel(&reloading), [0, 255, 0, 255], "the slot draws the edit");

        std::fs::write(shaders.join("tint.frag"), SAMPLES).unwrap();
        // SAFETY: as above.
        let refused = wait_for("the next edit", || unsafe { reloading.update(&manager) }).unwrap_err();
        assert!(refused.starts_with("kept the previous fill.vert, tint.frag: "), "{refused}");
        assert!(refused.contains("binding 0"), "the reason names the binding: {refused}");
        assert_eq!(pixel(&reloading), [0, 255, 0, 255], "the old pipeline stays");
        // SAFETY: `draw` waited for the queue.
        unsafe { manager.retire_replaced() };
    }
    gpu.finish();
}
