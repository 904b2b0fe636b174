//! Window mode under Xvfb: a swapchain frame read back to a PNG, and a
//! session driven by xdotool (keys, a resize, the `P` key that
//! re-specializes the post-processing ubershader, Esc to quit), all with
//! the validation layer required. Needs `xvfb-run` and `xdotool`
//! (`apt-get install xvfb xdotool`; scripts/setup.sh installs them).

mod common;

use std::process::{Command, Output};

use common::{game, mean_brightness, read_png, run, scratch};

fn under_xvfb(script: &str) -> Output {
    let game = game();
    let mut command = Command::new("xvfb-run");
    command
        .args(["-a", "-s", "-screen 0 1024x768x24", "sh", "-c", script])
        .env("GAME", game.get_program())
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("SMOLV_FORCE_MONOLITHIC");
    let output = command.output().unwrap_or_else(|e| {
        panic!("cannot run xvfb-run ({e}); install it with `apt-get install xvfb xdotool` (scripts/setup.sh does)")
    });
    eprintln!("--- stdout\n{}", String::from_utf8_lossy(&output.stdout));
    eprintln!("--- stderr\n{}", String::from_utf8_lossy(&output.stderr));
    output
}

#[test]
fn a_window_frame_reads_back_from_the_swapchain() {
    let shot = scratch("window-frame").join("window.png");
    let script =
        format!("\"$GAME\" --window --validation --frames 45 --size 480x270 --screenshot '{}'", shot.display());
    let output = under_xvfb(&script);
    assert!(output.status.success(), "{:?}", output.status);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("45 frames, window, 480x270"), "{stdout}");
    assert!(stdout.contains("on, 0 messages"), "{stdout}");
    let image = read_png(&shot);
    assert_eq!((image.width, image.height), (480, 270));
    assert!(mean_brightness(&image) > 3.0, "the window frame is black");
}

#[test]
fn a_window_run_replaying_its_recording_compiles_nothing_on_the_render_thread() {
    const LINE: &str = "pipelines compiled on the render thread after the first frame: ";
    let file = scratch("window-warmup").join("rock-storm.smolvpso");
    let play = |warmup: &str| {
        let script = format!(
            "\"$GAME\" --window --validation --frames 30 --size 320x180 --no-pipeline-cache --post-cycle 10 {warmup} '{}'",
            file.display()
        );
        let output = under_xvfb(&script);
        assert!(output.status.success(), "{:?}", output.status);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(stdout.contains("on, 0 messages"), "{stdout}");
        let compiled = stdout.lines().find_map(|l| l.strip_prefix(LINE)).map(|n| n.trim().parse::<u64>().unwrap());
        (compiled.unwrap_or_else(|| panic!("no `{LINE}N` in:\n{stdout}")), stdout)
    };
    let (without, _) = play("--record");
    assert!(without > 0, "the post switches compile new pipelines mid-game without a replay");
    let (with, stdout) = play("--replay");
    assert_eq!(with, 0, "{stdout}");
    assert!(stdout.contains("(0 rebuilt, 0 dropped, 0 failed, 0 abandoned)"), "{stdout}");
}

#[test]
fn keyboard_resize_and_escape() {
    // No window manager: focus the window, then type with XTEST.
    let script = r#"
        "$GAME" --window --validation --size 640x360 &
        pid=$!
        wid=$(xdotool search --sync --name "Rock Storm" | head -1)
        sleep 2
        xdotool windowfocus --sync "$wid"
        xdotool keydown Left; sleep 0.3; xdotool keyup Left
        xdotool keydown space Up; sleep 0.5; xdotool keyup space Up
        xdotool windowsize "$wid" 800 450; sleep 1.5
        xdotool key p; sleep 1
        xdotool key Escape
        # Esc must end the game; give it 20 s.
        for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        if kill -0 "$pid" 2>/dev/null; then kill "$pid"; echo "still running after Esc" >&2; exit 99; fi
        wait "$pid"
    "#;
    let output = under_xvfb(script);
    assert!(output.status.success(), "{:?}", output.status);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("window, 800x450"), "the resize did not reach the swapchain:\n{stdout}");
    assert!(stdout.contains("post-processing: Retro (ubershader specialized"), "P did nothing:\n{stdout}");
    assert!(stdout.contains("on, 0 messages"), "{stdout}");
}

#[test]
fn window_mode_needs_a_display() {
    let output = run(game().args(["--window", "--frames", "1"]).env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY"));
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("window:") && stderr.contains("--headless"), "{stderr}");
}
