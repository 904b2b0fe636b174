//! Pipeline warm-up, headless on lavapipe with the validation layer
//! required and no pipeline cache: a run that meets new pipelines mid-game
//! (the post-processing feature set switched every 10 frames) compiles
//! them on the render thread; the same run replaying the first run's
//! recording compiles none there. A recording that is not one stops the
//! game with a clear message.

mod common;

use std::path::Path;

use common::{game, run, scratch};

const LINE: &str = "pipelines compiled on the render thread after the first frame: ";

/// A 40-frame run with the post preset switched every 10 frames, and `extra` arguments.
fn play(extra: &[&std::ffi::OsStr]) -> String {
    let output = run(game()
        .args(["--headless", "--frames", "40", "--validation", "--no-pipeline-cache", "--post-cycle", "10"])
        .args(extra));
    assert!(output.status.success(), "the game failed: {:?}", output.status);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(stdout.contains("validation               on, 0 messages"), "{stdout}");
    stdout
}

fn compiled_in_play(stdout: &str) -> u64 {
    let line =
        stdout.lines().find_map(|l| l.strip_prefix(LINE)).unwrap_or_else(|| panic!("no `{LINE}N` in:\n{stdout}"));
    line.trim().parse().unwrap()
}

#[test]
fn a_replayed_recording_leaves_nothing_to_compile_on_the_render_thread() {
    let dir = scratch("warmup");
    let file = dir.join("rock-storm.pso");
    let recorded = play(&["--record".as_ref(), file.as_os_str()]);
    let without = compiled_in_play(&recorded);
    eprintln!("without replay: {without} pipelines compiled on the render thread after the first frame");
    assert!(without > 0, "the post switches compile new pipelines mid-game without a replay");
    assert!(Path::new(&file).is_file(), "the recording was written");
    let replayed = play(&["--replay".as_ref(), file.as_os_str()]);
    assert_eq!(compiled_in_play(&replayed), 0, "{replayed}");
    assert!(replayed.contains("(0 rebuilt, 0 dropped, 0 failed, 0 abandoned)"), "{replayed}");
}

#[test]
fn a_file_that_is_not_a_recording_is_refused_with_a_clear_message() {
    let dir = scratch("warmup-bad");
    let file = dir.join("not-a-recording.pso");
    std::fs::write(&file, b"garbage").unwrap();
    let output = run(game().args(["--headless", "--frames", "2", "--no-pipeline-cache", "--replay"]).arg(&file));
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not a smolv pipeline recording"), "{stderr}");
}
