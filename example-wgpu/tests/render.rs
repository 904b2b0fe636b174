//! The example draws its frame on wgpu's Vulkan backend (lavapipe in CI)
//! with shaders in GLSL, WGSL, WESL and Slang, every one through smolv;
//! the frame matches what wgpu's own paths draw from the same sources
//! (`--reference`) and the golden image made from those, within the game's
//! tolerance, and neither wgpu's validation nor the Khronos validation
//! layer reports anything. The program fails on any message, which
//! `--provoke` shows.

mod common;

use std::path::Path;

use common::{compare, read_png, run, scratch};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/frame.png");

/// Runs the example with `extra` arguments and returns its stdout and
/// frame (and where it wrote the frame).
fn frame(name: &str, extra: &[&str]) -> (String, common::Image) {
    let (stdout, image, _) = frame_at(name, extra);
    (stdout, image)
}

fn frame_at(name: &str, extra: &[&str]) -> (String, common::Image, std::path::PathBuf) {
    let shot = scratch(name).join("frame.png");
    let mut args = vec!["--screenshot", shot.to_str().expect("a UTF-8 path")];
    args.extend_from_slice(extra);
    let output = run(&args);
    assert!(output.status.success(), "the example failed; its output is above");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    assert!(stdout.contains("(Vulkan)"), "wgpu's Vulkan backend: {stdout}");
    (stdout, read_png(&shot), shot)
}

/// The frame wgpu's own paths draw from the original sources, no smolv
/// (`--reference`): WGSL as `include_wgsl!`, WESL as the `wesl` crate links
/// it, GLSL and Slang as `include_spirv!` of glslc's and slangc's SPIR-V.
fn reference_frame() -> (common::Image, std::path::PathBuf) {
    let (stdout, image, shot) = frame_at("reference", &["--reference"]);
    assert!(stdout.contains("modules: Reference"), "{stdout}");
    (image, shot)
}

#[test]
#[allow(clippy::disallowed_methods, reason = "SMOLV_UPDATE_GOLDEN, the test's own knob")]
fn the_frame_is_the_reference_frame_and_the_golden_image_and_the_sky_is_up() {
    let (_, frame) = frame("golden", &[]);
    assert_eq!((frame.width, frame.height), (128, 96));
    let (reference, reference_shot) = reference_frame();
    // The golden image is the reference frame, never smolv's own output:
    // SMOLV_UPDATE_GOLDEN=1 writes the reference.
    if std::env::var_os("SMOLV_UPDATE_GOLDEN").is_some() {
        std::fs::copy(&reference_shot, GOLDEN).expect("update the golden image");
    }
    let difference = compare(&frame, &reference);
    assert!(difference.close(), "smolv's frame differs from wgpu's own paths on the same sources: {difference:?}");
    let golden = read_png(Path::new(GOLDEN));
    let difference = compare(&reference, &golden);
    assert!(
        difference.close(),
        "the reference frame differs from {GOLDEN}: {difference:?}; if the change is intended, rerun with \
         SMOLV_UPDATE_GOLDEN=1 (which writes the reference frame, never smolv's)"
    );
    assert!(compare(&frame, &golden).close(), "the frame differs from {GOLDEN}");
    // sky.wgsl mixes from `sky.bottom` (orange) to `sky.top` (blue) as its
    // y goes up, and WGSL's y is up: the first row is blue.
    let [r, _, b, _] = golden.at(2, 1);
    assert!(b > r, "blue at the top of {GOLDEN}: {:?}", golden.at(2, 1));
    let [r, _, b, _] = golden.at(2, golden.height - 2);
    assert!(r > b, "orange at the bottom of {GOLDEN}: {:?}", golden.at(2, golden.height - 2));
}

#[test]
fn every_language_comes_through_smolv_into_a_wgpu_module() {
    let (stdout, _) = frame("languages", &[]);
    let modules = [
        "sky.wgsl#vs_main",
        "sky.wgsl#fs_main",
        "quad.vert",
        "checker.slang#fs_main",
        "tint.frag",
        "ring.wesl#fs_main",
    ];
    for module in modules {
        assert!(stdout.contains(&format!("module {module}: ")), "{module}: {stdout}");
    }
    // The build shipped what the feature asked for, where naga could.
    let shipped = if cfg!(feature = "spirv") { "SPIR-V" } else { "WGSL" };
    assert!(stdout.contains(&format!("module sky.wgsl#fs_main: {shipped}")), "{stdout}");
    assert!(stdout.contains(&format!("module checker.slang#fs_main: {shipped}")), "{stdout}");
    assert!(stdout.contains(&format!("module ring.wesl#fs_main: {shipped}")), "{stdout}");
}

#[test]
fn a_validation_layer_message_fails_the_run() {
    // The check the other tests rely on: a module the layer must refuse
    // reaches the collector, and the program exits non-zero.
    let output = run(&["--provoke"]);
    assert!(!output.status.success(), "an invalid module passed unnoticed");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("validation: ERROR wgpu_hal::vulkan"), "{stderr}");
    assert!(stderr.contains("InconsistentSpirv") || stderr.contains("VUID-"), "{stderr}");
}

/// The generated compute items on a real device: `scale.comp`'s
/// `BindGroup0` (a uniform and a storage buffer by name),
/// `set_bind_groups` on a compute pass and `compute_pipeline` scale 100
/// floats by 3, checked by the program, under the validation layer.
#[test]
fn the_generated_compute_bind_group_and_pipeline_dispatch() {
    let shot = scratch("compute").join("frame.png");
    let output = run(&["--compute", "--screenshot", shot.to_str().expect("a UTF-8 path")]);
    assert!(output.status.success(), "the example failed; its output is above");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert!(stdout.contains("compute: 100 values scaled by 3"), "{stdout}");
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
}
