//! `--watch` on a temporary copy of the game's shaders, headless, with the
//! validation layer required: editing `post.frag` prints `reloaded
//! post.frag in N ms`; a syntax error prints `shader error:` with the file
//! and line and the game plays on; fixing the file recovers; editing
//! `include/frame.glsl` reloads its four dependents; the frames after each
//! reload (read back with `--reload-screenshots`) show the new pipeline,
//! or the old one after an error, a compiler crash (in a worker process:
//! the game plays on) or an edit its pipeline layout cannot take; a
//! varying removed from both files of a program reloads once, with both;
//! an edit that moves the bytes of `Frame` is refused, naming the
//! generated type.
#![cfg(feature = "hot-reload")]

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::{game, scratch};

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// The game running with `--watch` on a copy of its shaders; its stderr
/// lines arrive on `lines`, and every line read is kept in `seen`.
struct Running {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
    shaders: PathBuf,
    screenshots: PathBuf,
}

impl Running {
    fn start() -> Self {
        let scratch = scratch("hot-reload");
        let shaders = scratch.join("shaders");
        let screenshots = scratch.join("frames");
        std::fs::create_dir_all(&screenshots).unwrap();
        copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders"), &shaders);
        let mut child = game()
            .args(["--headless", "--validation", "--size", "64x64", "--frames", "1000000", "--watch", "--shader-dir"])
            .arg(&shaders)
            .arg("--reload-screenshots")
            .arg(&screenshots)
            .env("SMOLV_WORKER_TEST_CRASH", "CRASH_THE_COMPILER")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the game starts");
        let stderr = child.stderr.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut running = Self { child, lines, seen: Vec::new(), shaders, screenshots };
        running.until(|line| line.starts_with("watching "));
        running
    }

    /// Reads stderr until a line satisfies `done` (at most 60 s); returns
    /// the lines read.
    fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut read = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| panic!("stderr so far: {:#?}", self.seen));
            self.seen.push(line.clone());
            read.push(line.clone());
            if done(&line) {
                return read;
            }
        }
    }

    /// The share of pixels of the next frame read back after a reload
    /// (`reload-N.png`) that are `rgb`, give or take 8 per channel.
    fn next_frame_share(&mut self, rgb: [u8; 3]) -> f64 {
        let line = self.until(|line| line.starts_with("screenshot ")).pop().unwrap();
        let path = PathBuf::from(line.trim_start_matches("screenshot "));
        assert!(path.starts_with(&self.screenshots), "{path:?}");
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        let channels = info.color_type.samples();
        let pixels = &pixels[..info.buffer_size()];
        let near = |p: &[u8]| p.iter().zip(rgb).all(|(&a, b)| a.abs_diff(b) <= 8);
        let matching = pixels.chunks(channels).filter(|p| near(&p[..3])).count();
        matching as f64 / (pixels.len() / channels) as f64
    }

    fn edit(&self, file: &str, from: &str, to: &str) {
        self.edits(file, &[(from, to)]);
    }

    /// Several replacements, saved at once.
    fn edits(&self, file: &str, replacements: &[(&str, &str)]) {
        let path = self.shaders.join(file);
        let mut text = std::fs::read_to_string(&path).unwrap();
        for (from, to) in replacements {
            assert!(text.contains(from), "{file} holds {from:?}");
            text = text.replacen(from, to, 1);
        }
        std::fs::write(&path, text).unwrap();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Most of a frame, once the HUD is drawn over the post-processed scene.
const MOST: f64 = 0.8;

#[test]
fn watch_reloads_edits_reports_errors_recovers_and_follows_includes() {
    let mut game = Running::start();
    const ORIGINAL: &str = "color = vec4(c, 1.0);";
    // Still reading the scene: the pipeline layout stays the same.
    const MAGENTA: &str = "color = vec4(1.0, 0.0, 1.0, 1.0) + vec4(c, 0.0) * 1e-6;";
    const GREEN: &str = "color = vec4(0.0, 1.0, 0.0, 1.0) + vec4(c, 0.0) * 1e-6;";

    // The output colour changes: the frame after the reload is magenta.
    game.edit("post.frag", ORIGINAL, MAGENTA);
    let line = game.until(|line| line.starts_with("reloaded post.frag in ")).pop().unwrap();
    assert!(line.ends_with(" ms"), "{line}");
    let share = game.next_frame_share([255, 0, 255]);
    assert!(share > MOST, "{share} of the frame after the reload is magenta");

    // A syntax error: the error line with file and line, frames unchanged.
    game.edit("post.frag", MAGENTA, "color = vec4(1.0, 0.0, 1.0, 1.0) +;");
    let post = game.shaders.join("post.frag");
    let broken = std::fs::read_to_string(&post).unwrap().lines().position(|l| l.contains("+;")).unwrap() + 1;
    let read = game.until(|line| line.starts_with("kept the previous post.frag"));
    let prefix = format!("shader error: {}:{broken}:", post.canonicalize().unwrap().display());
    assert!(read.iter().any(|line| line.starts_with(&prefix)), "{prefix} in {read:#?}");
    let share = game.next_frame_share([255, 0, 255]);
    assert!(share > MOST, "{share} of the frame after the error is still magenta");

    // Fixing the file recovers, with its new colour.
    game.edit("post.frag", "color = vec4(1.0, 0.0, 1.0, 1.0) +;", GREEN);
    game.until(|line| line.starts_with("reloaded post.frag in "));
    let share = game.next_frame_share([0, 255, 0]);
    assert!(share > MOST, "{share} of the frame after the fix is green");

    // An edit that crashes the compiler (SIGSEGV, through the debug-build
    // hook `SMOLV_WORKER_TEST_CRASH`, set in `start`, whose marker this
    // edit adds): the compile ran in a worker process, so the game plays
    // on, names the shader and the signal, and keeps the old pipeline; the
    // next save compiles in a new worker.
    const CRASHES_GLSLANG: &str = "color = vec4(0.0, 1.0, 0.0, 1.0) + vec4(c, 0.0) * 1e-6; // CRASH_THE_COMPILER";
    game.edit("post.frag", GREEN, CRASHES_GLSLANG);
    let read = game.until(|line| line.starts_with("kept the previous post.frag"));
    let crashed =
        format!("shader error: {}: the shader compiler crashed on this shader", post.canonicalize().unwrap().display());
    assert!(
        read.iter().any(|line| line.starts_with(&crashed) && line.contains("killed by signal 11 (SIGSEGV)")),
        "{crashed} in {read:#?}"
    );
    let share = game.next_frame_share([0, 255, 0]);
    assert!(share > MOST, "{share} of the frame after the crash is still green");
    assert!(game.child.try_wait().unwrap().is_none(), "the crash did not end the game");
    game.edit("post.frag", CRASHES_GLSLANG, GREEN);
    game.until(|line| line.starts_with("reloaded post.frag in "));

    // A new binding: the pipeline layout cannot take it; reported, old pipeline kept.
    const INPUT: &str = "layout(location = 0) in vec2 v_uv;";
    const EXTRA: &str = "layout(set = 1, binding = 1) uniform sampler2D extra;\nlayout(location = 0) in vec2 v_uv;";
    const USES_EXTRA: &str = "color = vec4(c, 1.0) + texture(extra, v_uv);";
    game.edits("post.frag", &[(INPUT, EXTRA), (GREEN, USES_EXTRA)]);
    let line = game.until(|line| line.starts_with("kept the previous post.frag: ")).pop().unwrap();
    assert!(line.contains("fragment shader no longer fits") && line.contains("set 1 binding 1"), "{line}");
    let share = game.next_frame_share([0, 255, 0]);
    assert!(share > MOST, "{share} of the frame after the refused edit is still green");
    game.edits("post.frag", &[(EXTRA, INPUT), (USES_EXTRA, GREEN)]);
    game.until(|line| line.starts_with("reloaded post.frag in "));

    // A varying removed from both files of a program, saved one after the
    // other: one edit, so the pipeline is rebuilt once, with both new
    // stages (a half-edited one would fail the validation check below).
    const BLUE: &str = "color = vec4(0.0, 0.0, 1.0, 1.0) + vec4(c, 0.0) * 1e-6;";
    const OWN_UV: &str = "void main() {\n    vec2 v_uv = gl_FragCoord.xy / frame.resolution;\n    vec3 c;";
    game.edits(
        "fullscreen.vert",
        &[("layout(location = 0) out vec2 v_uv;\n", ""), ("    v_uv = vec2(", "    vec2 v_uv = vec2(")],
    );
    game.edits("post.frag", &[(INPUT, ""), ("void main() {\n    vec3 c;", OWN_UV), (GREEN, BLUE)]);
    let read = game.until(|line| line.starts_with("reloaded ") || line.starts_with("kept the previous "));
    let line = read.last().unwrap();
    assert!(
        line.starts_with("reloaded ") && line.contains("fullscreen.vert") && line.contains("post.frag"),
        "{read:#?}"
    );
    let share = game.next_frame_share([0, 0, 255]);
    assert!(share > MOST, "{share} of the frame after the edit of both stages is blue");

    // The include: its four dependents reload, graphics and compute.
    // (A layout-neutral edit: the block keeps the size the game writes.)
    game.edit("include/frame.glsl", "} frame;\n", "} frame;\n\nconst float FRAME_FADE = 1.0;\n");
    let dependents: BTreeSet<&str> = ["particle.vert", "particles.comp", "post.frag", "sprite.vert"].into();
    let mut reloaded = BTreeSet::new();
    while reloaded.len() < dependents.len() {
        let line = game.until(|line| line.starts_with("reloaded ")).pop().unwrap();
        let names = line.trim_start_matches("reloaded ").rsplit_once(" in ").unwrap().0;
        reloaded.extend(names.split(", ").map(str::to_owned));
    }
    assert_eq!(reloaded.iter().map(String::as_str).collect::<BTreeSet<_>>(), dependents);

    // A layout change: the game fills `Frame` through the type generated
    // from the build's layout, so each dependent is refused, naming it.
    game.edit("include/frame.glsl", "    mat4 view_projection;\n", "    vec4 fade;\n    mat4 view_projection;\n");
    let (mut refused, mut read) = (BTreeSet::new(), Vec::new());
    while refused.len() < dependents.len() {
        let mut lines = game.until(|line| line.starts_with("kept the previous ") && line.contains("old layout"));
        let name = lines.last().unwrap().trim_start_matches("kept the previous ").split(':').next().unwrap();
        refused.insert(name.to_owned());
        read.append(&mut lines);
    }
    assert_eq!(refused.iter().map(String::as_str).collect::<BTreeSet<_>>(), dependents);
    let named = read.iter().filter(|line| {
        line.starts_with("shader error: ")
            && line.contains("no longer matches its generated Rust type `Frame`")
            && line.contains("member `view_projection` moved from offset 0 to 16")
    });
    assert_eq!(named.count(), dependents.len(), "{read:#?}");

    assert!(game.child.try_wait().unwrap().is_none(), "the game plays on");
    assert!(!game.seen.iter().any(|line| line.starts_with("validation:")), "validation stays clean: {:#?}", game.seen);
}
