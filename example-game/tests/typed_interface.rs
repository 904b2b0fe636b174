//! The game reads its shaders' interfaces through the types smolv-build
//! generates, so a change to a shader block breaks the Rust build instead
//! of the picture: changing a member's type in `include/frame.glsl` stops
//! the game from compiling, and rustc points at the line that fills that
//! member.
//!
//! The test copies the game into a workspace of its own (the real
//! workspace's manifest, narrowed to the game, with absolute paths to the
//! smolv crates), edits the copy's shader and runs `cargo check` on it.
//! It shares `target/external-crate-test` with the other crates built
//! outside the workspace, so the dependencies compile once.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("example-game is in the workspace").to_path_buf()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("cannot create {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display())) {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("cannot copy to {}: {e}", target.display()));
        }
    }
}

/// A workspace in `root` whose only member is a copy of the game: the
/// real workspace's manifest (its dependency versions, lints and
/// profiles) with `members` narrowed and every path made absolute, and the
/// real lock file.
fn game_workspace(root: &Path) {
    let ws = workspace();
    let _ = std::fs::remove_dir_all(root);
    let manifest = std::fs::read_to_string(ws.join("Cargo.toml")).expect("read the workspace manifest");
    let manifest: Vec<String> = manifest
        .lines()
        .filter(|line| !line.starts_with("exclude = "))
        .map(|line| {
            if line.starts_with("members = ") {
                "members = [\"example-game\"]".to_owned()
            } else {
                line.replace("path = \"", &format!("path = \"{}/", ws.display()))
            }
        })
        .collect();
    std::fs::create_dir_all(root).expect("create the workspace");
    std::fs::write(root.join("Cargo.toml"), manifest.join("\n")).expect("write the manifest");
    std::fs::copy(ws.join("Cargo.lock"), root.join("Cargo.lock")).expect("copy Cargo.lock");
    let game = root.join("example-game");
    for dir in ["src", "shaders"] {
        copy_dir(&ws.join("example-game").join(dir), &game.join(dir));
    }
    for file in ["Cargo.toml", "build.rs"] {
        std::fs::copy(ws.join("example-game").join(file), game.join(file)).expect("copy the game's files");
    }
}

/// `cargo check` of the game in `root`, offline, with one short line per
/// diagnostic.
fn check(root: &Path) -> Output {
    let ws = workspace();
    let mut command = Command::new(env!("CARGO"));
    command
        .args(["check", "-p", "example-game", "--message-format=short"])
        .current_dir(root)
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_TARGET_DIR", ws.join("target/external-crate-test"))
        .env("SMOLV_CACHE_DIR", root.join("smolv-cache"))
        .env_remove("OUT_DIR")
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("CARGO_PRIMARY_PACKAGE")
        .env_remove("CARGO_MAKEFLAGS");
    command.output().unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// The 1-based number of the one line of `file` that reads `text` once
/// trimmed.
fn line_of(file: &Path, text: &str) -> usize {
    let source = std::fs::read_to_string(file).expect("read the game's source");
    let lines: Vec<usize> =
        source.lines().enumerate().filter(|(_, line)| line.trim() == text).map(|(i, _)| i + 1).collect();
    assert_eq!(lines.len(), 1, "{} should have one line `{text}`, has {lines:?}", file.display());
    lines[0]
}

#[test]
fn changing_a_frame_member_s_type_stops_the_game_at_the_line_that_fills_it() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("typed-interface");
    game_workspace(&root);

    // The copy compiles as it is: what breaks it below is the edit.
    let unchanged = check(&root);
    assert!(
        unchanged.status.success(),
        "the unchanged copy should compile:\n{}",
        String::from_utf8_lossy(&unchanged.stderr)
    );

    let frame = root.join("example-game/shaders/include/frame.glsl");
    let glsl = std::fs::read_to_string(&frame).expect("read frame.glsl");
    assert_eq!(glsl.matches("    float time;").count(), 1, "frame.glsl should declare `float time` once:\n{glsl}");
    std::fs::write(&frame, glsl.replace("    float time;", "    vec2 time;")).expect("edit frame.glsl");

    let changed = check(&root);
    let stderr = String::from_utf8_lossy(&changed.stderr);
    assert!(!changed.status.success(), "the game should not compile with `vec2 time`:\n{stderr}");
    // The shaders still compile (none of the GLSL reads `time`): the
    // failure is rustc's, at the argument that fills `Frame::time`.
    let line = line_of(&root.join("example-game/src/render/scene.rs"), "world.time,");
    let at = format!("example-game/src/render/scene.rs:{line}:");
    assert!(
        stderr.lines().any(|l| l.starts_with(&at) && l.contains("error[E0308]")),
        "rustc should report error[E0308] at {at}:\n{stderr}"
    );
    // `background.wgsl` still declares the old block, and the game's check
    // that every shader reads the same `Frame` says so.
    assert!(
        stderr.lines().any(|l| l.starts_with("example-game/src/shader_types.rs:") && l.contains("error[E0308]")),
        "the check that every shader reads one `Frame` should fail:\n{stderr}"
    );
    // Every error is in the game's own source, none in the generated file.
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains(": error")).collect();
    assert!(
        errors.iter().all(|l| l.starts_with("example-game/src/")),
        "every error should be in the game's source:\n{stderr}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
