//! `--watch` on a temporary copy of the game's shaders, headless, with the
//! validation layer required: editing `post.frag` prints `reloaded
//! post.frag in N ms`; a syntax error prints `shader error:` with the file
//! and line and the game plays on; fixing the file recovers; editing
//! `include/frame.glsl` reloads its four dependents. (That a later frame
//! shows the edit needs the pipeline manager to rebuild pipelines: #17.)
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
}

impl Running {
    fn start() -> Self {
        let shaders = scratch("hot-reload").join("shaders");
        copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders"), &shaders);
        let mut child = game()
            .args(["--headless", "--validation", "--size", "64x64", "--frames", "1000000", "--watch", "--shader-dir"])
            .arg(&shaders)
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
        let mut running = Self { child, lines, seen: Vec::new(), shaders };
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

    fn edit(&self, file: &str, from: &str, to: &str) {
        let path = self.shaders.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} holds {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn watch_reloads_edits_reports_errors_recovers_and_follows_includes() {
    let mut game = Running::start();

    game.edit("post.frag", "color = vec4(c, 1.0);", "color = vec4(c.bgr, 1.0);");
    let line = game.until(|line| line.starts_with("reloaded post.frag in ")).pop().unwrap();
    assert!(line.ends_with(" ms"), "{line}");

    game.edit("post.frag", "color = vec4(c.bgr, 1.0);", "color = vec4(c.bgr, 1.0) +;");
    let post = game.shaders.join("post.frag");
    let broken = std::fs::read_to_string(&post).unwrap().lines().position(|l| l.contains("+;")).unwrap() + 1;
    let read = game.until(|line| line.starts_with("kept the previous post.frag"));
    let prefix = format!("shader error: {}:{broken}:", post.canonicalize().unwrap().display());
    assert!(read.iter().any(|line| line.starts_with(&prefix)), "{prefix} in {read:#?}");

    game.edit("post.frag", "color = vec4(c.bgr, 1.0) +;", "color = vec4(c.bgr, 1.0);");
    game.until(|line| line.starts_with("reloaded post.frag in "));

    game.edit("include/frame.glsl", "    mat4 view_projection;\n", "    vec4 fade;\n    mat4 view_projection;\n");
    let dependents: BTreeSet<&str> = ["particle.vert", "particles.comp", "post.frag", "sprite.vert"].into();
    let mut reloaded = BTreeSet::new();
    while reloaded.len() < dependents.len() {
        let line = game.until(|line| line.starts_with("reloaded ")).pop().unwrap();
        reloaded.insert(line.split(' ').nth(1).unwrap().to_owned());
    }
    assert_eq!(reloaded.iter().map(String::as_str).collect::<BTreeSet<_>>(), dependents);

    assert!(game.child.try_wait().unwrap().is_none(), "the game plays on");
    assert!(!game.seen.iter().any(|line| line.starts_with("validation:")), "validation stays clean: {:#?}", game.seen);
}
