//! The example draws its frame on wgpu's Vulkan backend (lavapipe in CI)
//! with shaders in GLSL, WGSL, WESL and Slang, every one through smolv;
//! the frame matches the golden image within the game's tolerance, and
//! neither wgpu's validation nor the Khronos validation layer reports
//! anything. The program fails on any message, which `--provoke` shows.

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

#[test]
fn the_frame_matches_the_golden_image_with_no_validation_message() {
    let (_, frame, shot) = frame_at("golden", &[]);
    assert_eq!((frame.width, frame.height), (128, 96));
    if std::env::var_os("SMOLV_UPDATE_GOLDEN").is_some() {
        std::fs::copy(&shot, GOLDEN).expect("update the golden image");
    }
    let difference = compare(&frame, &read_png(Path::new(GOLDEN)));
    assert!(
        difference.close(),
        "the frame differs from {GOLDEN}: {difference:?}; if the change is intended, rerun with SMOLV_UPDATE_GOLDEN=1"
    );
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
