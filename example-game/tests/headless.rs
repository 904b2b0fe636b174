//! The game headless on lavapipe (or any Vulkan device), with the
//! validation layer required: the README's first command, a golden image,
//! a clean validation log over 120 frames, and the monolithic fallback.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{compare, game, mean_brightness, read_png, run, scratch};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/rock-storm-120.png");

/// The README's command (`--headless --frames 120 --screenshot shot.png`),
/// run once for the tests below, with validation required.
fn readme_run() -> &'static (std::process::Output, PathBuf) {
    static RUN: OnceLock<(std::process::Output, PathBuf)> = OnceLock::new();
    RUN.get_or_init(|| {
        let shot = scratch("readme").join("shot.png");
        let output = run(game().args(["--headless", "--frames", "120", "--validation", "--screenshot"]).arg(&shot));
        (output, shot)
    })
}

#[test]
fn validation_is_clean_over_120_frames() {
    let (output, _) = readme_run();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "the game failed: {:?}", output.status);
    assert!(stdout.contains("validation               on, 0 messages"), "{stdout}");
    assert!(stdout.contains("frames                   120 in"), "{stdout}");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("validation:"), "the layer printed messages");
}

#[test]
fn the_table_reports_modules_sizes_and_pipeline_times() {
    let (output, _) = readme_run();
    let stdout = String::from_utf8_lossy(&output.stdout);
    for row in
        ["shader modules", "raw SPIR-V", "embedded", "decode (all modules)", "fast link", "LTO link", "monolithic"]
    {
        assert!(stdout.contains(row), "no `{row}` row in:\n{stdout}");
    }
    let modules: usize = value_of(&stdout, "shader modules").parse().unwrap();
    assert!(modules >= 12, "{modules} modules");
    // particle.slang's fragment shader is the game's Slang module.
    assert_eq!(value_of(&stdout, "by language"), "GLSL 7, WGSL 4, Slang 1", "{stdout}");
    let raw: usize = value_of(&stdout, "raw SPIR-V").trim_end_matches(" bytes").parse().unwrap();
    let embedded: usize = value_of(&stdout, "embedded").split(' ').next().unwrap().parse().unwrap();
    // The build packs the shaders however the binary comes out smallest:
    // raw SPIR-V costs its bytes plus names and a table; anything else must
    // store less than the SPIR-V.
    let packing = value_of(&stdout, "embedded");
    if packing.contains("spirv (") {
        assert!((raw..raw + 2048).contains(&embedded), "raw SPIR-V stored in {embedded} of {raw} bytes");
    } else {
        assert!(embedded < raw, "{packing}: {embedded} bytes stored for {raw} of SPIR-V");
    }
    // Lavapipe has graphics pipeline libraries, so pipelines come from them.
    assert!(stdout.contains("from graphics pipeline libraries"), "{stdout}");
    assert!(stdout.contains("all ready"), "the optimized links never arrived:\n{stdout}");
}

#[test]
fn a_second_run_loads_the_pipeline_cache_the_first_saved() {
    let cache = scratch("pipeline-cache").join("pipelines.bin");
    let play = || {
        let output = run(game()
            .args(["--headless", "--frames", "2", "--size", "64x64", "--validation", "--pipeline-cache"])
            .arg(&cache));
        assert!(output.status.success(), "{:?}", output.status);
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let first = play();
    assert!(value_of(&first, "pipeline cache").starts_with("miss: no file yet"), "{first}");
    assert!(value_of(&first, "saved").ends_with("bytes of driver data"), "{first}");
    assert!(cache.is_file(), "the first run saved no cache file");
    let second = play();
    assert!(value_of(&second, "pipeline cache").starts_with("hit: loaded"), "{second}");
    // Creation time with the loaded cache, and by a second manager without one.
    for row in ["load with the cache", "load without a cache"] {
        assert!(value_of(&second, row).contains(" ms"), "no `{row}` time in:\n{second}");
    }
    // A damaged file is ignored with the reason, never handed to the driver.
    let mut bytes = std::fs::read(&cache).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xFF;
    std::fs::write(&cache, bytes).unwrap();
    let third = play();
    assert!(value_of(&third, "pipeline cache").contains("file ignored"), "{third}");
}

#[test]
fn the_table_shows_library_reuse_and_the_compute_pipeline() {
    let (output, _) = readme_run();
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The sprite materials share sprite.vert and its vertex layout: the
    // ship's and the bullets' first pipelines need only a new
    // fragment-shader library.
    let materials: Vec<&str> = stdout.lines().filter(|l| l.trim_start().starts_with("new material")).collect();
    assert!(materials.len() >= 2, "{stdout}");
    for material in &materials {
        assert!(material.contains("new: fragment shader;"), "{material}");
        assert!(material.contains("monolithic"), "{material}");
    }
    let libraries = value_of(&stdout, "libraries");
    let total: usize = libraries.split(' ').next().unwrap().parse().unwrap();
    assert!(total < 4 * 7, "7 pipelines share libraries: {libraries}");
    assert!(value_of(&stdout, "compute pipeline").starts_with("particles, on the background worker"), "{stdout}");
}

fn value_of<'a>(table: &'a str, row: &str) -> &'a str {
    let line = table.lines().find(|l| l.trim_start().starts_with(row)).unwrap_or_else(|| panic!("no {row}"));
    line.trim_start()[row.len()..].trim()
}

#[test]
#[allow(clippy::disallowed_methods, reason = "SMOLV_UPDATE_GOLDEN, the test's own knob")]
fn the_last_frame_matches_the_golden_image() {
    let (output, shot) = readme_run();
    assert!(output.status.success());
    let frame = read_png(shot);
    assert_eq!((frame.width, frame.height), (960, 540));
    if std::env::var_os("SMOLV_UPDATE_GOLDEN").is_some() {
        std::fs::copy(shot, GOLDEN).expect("update the golden image");
    }
    let golden = read_png(Path::new(GOLDEN));
    let difference = compare(&frame, &golden);
    // Different LLVM versions under lavapipe, or a real GPU, round a little
    // differently; the game state itself is deterministic.
    assert!(
        difference.mean < 2.0 && difference.outliers < 0.01,
        "frame 120 differs from {GOLDEN}: {difference:?}; if the change is intended, \
         rerun with SMOLV_UPDATE_GOLDEN=1 (the README shows this image)"
    );
}

#[test]
fn monolithic_pipelines_render_the_same_frame() {
    let dir = scratch("monolithic");
    let frame = |name: &str, extra: &[&str]| {
        let path = dir.join(name);
        let output = run(game()
            .args(["--headless", "--frames", "20", "--size", "320x180", "--validation", "--screenshot"])
            .arg(&path)
            .args(extra));
        assert!(output.status.success(), "{name}: {:?}", output.status);
        (read_png(&path), String::from_utf8_lossy(&output.stdout).into_owned())
    };
    let (libraries, _) = frame("libraries.png", &[]);
    let (monolithic, table) = frame("monolithic.png", &["--monolithic"]);
    assert!(table.contains("monolithic (no pipeline libraries)"), "{table}");
    assert!(mean_brightness(&libraries) > 3.0, "the frame is black");
    let difference = compare(&libraries, &monolithic);
    assert!(difference.mean < 0.5 && difference.outliers < 0.001, "{difference:?}");
}

#[test]
fn every_post_processing_preset_renders() {
    let dir = scratch("presets");
    let mut frames = Vec::new();
    for preset in ["arcade", "retro", "clean"] {
        let path = dir.join(format!("{preset}.png"));
        let output = run(game()
            .args([
                "--headless",
                "--frames",
                "3",
                "--size",
                "320x180",
                "--validation",
                "--post",
                preset,
                "--screenshot",
            ])
            .arg(&path));
        assert!(output.status.success(), "{preset}: {:?}", output.status);
        frames.push(read_png(&path));
    }
    // The spec constants change what the ubershader does.
    assert!(compare(&frames[0], &frames[1]).mean > 0.5);
    assert!(compare(&frames[1], &frames[2]).mean > 0.5);
}

#[test]
fn pipeline_timings_are_taken_with_mesas_shader_cache_off() {
    // Lavapipe keeps compiled shaders in Mesa's on-disk cache when allowed
    // to, so the side of the comparison built second (and, from the second
    // run on, both) would load them instead of compiling. The game turns
    // the cache off for itself unless the user chose a setting.
    let files = |dir: &Path| std::fs::read_dir(dir).map_or(0, |entries| entries.count());
    let play = |cache: &Path, setting: Option<&str>| {
        let mut command = game();
        command.env("MESA_SHADER_CACHE_DIR", cache).env_remove("MESA_GLSL_CACHE_DISABLE");
        match setting {
            Some(value) => command.env("MESA_SHADER_CACHE_DISABLE", value),
            None => command.env_remove("MESA_SHADER_CACHE_DISABLE"),
        };
        let output = run(command.args(["--headless", "--frames", "2", "--size", "64x64", "--validation"]));
        assert!(output.status.success(), "{:?}", output.status);
        String::from_utf8_lossy(&output.stdout).into_owned()
    };

    let cold = scratch("shader-cache-off");
    let table = play(&cold, None);
    assert_eq!(value_of(&table, "Mesa shader cache"), "off (both sides compile cold)");
    assert_eq!(files(&cold), 0, "nothing was written to the shader cache");

    let warm = scratch("shader-cache-on");
    let table = play(&warm, Some("false"));
    assert!(value_of(&table, "Mesa shader cache").starts_with("on (MESA_SHADER_CACHE_DISABLE=false)"), "{table}");
    assert!(files(&warm) > 0, "the driver used the shader cache it was allowed to use");
}
