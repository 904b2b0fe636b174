//! A build script's stdout carries `cargo:` lines and nothing else, even
//! when glslang, compiling in the build script's process, prints its whole
//! built-in prelude to stdout ("Unable to parse built-ins", for a
//! `#version 140` compute shader).
//!
//! No test harness (`harness = false` in Cargo.toml): libtest prints its
//! own lines on stdout, and this test reads the stdout of a process that
//! behaves exactly as a build script does. The test runs itself again with
//! `SMOLV_TEST_BUILD_SCRIPT` set; that child is the "build script". It
//! calls `Config::compile()` as a `build.rs` would (twice at once, on two
//! threads, as a build script driving two shader trees might), while a
//! third thread of the user's keeps printing `cargo:` lines of its own.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set in the child: the directory holding its shader trees.
const CHILD_VAR: &str = "SMOLV_TEST_BUILD_SCRIPT";

/// glslang 2023 cannot parse its own built-ins for this shader, prints
/// them all to the process's stdout, and fails.
const PRINTS_PRELUDE: &str = "#version 140\nvoid main() {}\n";
const COMPILES: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n";

#[allow(clippy::disallowed_methods, reason = "the test's child is told by a variable")]
fn main() {
    match std::env::var_os(CHILD_VAR) {
        Some(dir) => build_script(Path::new(&dir)),
        None => compiler_chatter_stays_off_a_build_script_s_stdout(),
    }
}

/// The child: a build script compiling two trees, each with a shader that
/// makes glslang print its prelude (kept going past, so the build ends
/// well and prints all its directives).
fn build_script(dir: &Path) {
    let printing = AtomicBool::new(true);
    let ticks = std::thread::scope(|scope| {
        let ticker = scope.spawn(|| {
            let mut ticks = 0;
            while printing.load(Ordering::Relaxed) {
                println!("cargo:rustc-env=SMOLV_TEST_TICK={ticks}");
                ticks += 1;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            ticks
        });
        let builds: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|tree| {
                scope.spawn(move || {
                    let mut config = smolv_build::Config::new();
                    config.shader_dir(dir.join(tree)).keep_going(true).jobs(2);
                    if tree == "b" {
                        // Not OUT_DIR itself, so directives are asked for.
                        config.out_dir(dir.join("out-b")).cargo_directives(true);
                    }
                    config.compile()
                })
            })
            .collect();
        for build in builds {
            let report = build.join().expect("the build panicked");
            assert_eq!(report.modules.len(), 1, "ok.frag compiles");
        }
        printing.store(false, Ordering::Relaxed);
        ticker.join().expect("the ticker panicked")
    });
    println!("cargo:rustc-env=SMOLV_TEST_TICKS={ticks}");
}

fn tree(dir: &Path, name: &str) -> PathBuf {
    let tree = dir.join(name);
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("old.comp"), PRINTS_PRELUDE).unwrap();
    std::fs::write(tree.join("ok.frag"), COMPILES).unwrap();
    tree
}

fn compiler_chatter_stays_off_a_build_script_s_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (tree(dir.path(), "a"), tree(dir.path(), "b"));
    let output = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_VAR, dir.path())
        .env("OUT_DIR", dir.path().join("out-a"))
        .env("SMOLV_CACHE_DIR", dir.path().join("cache"))
        .env_remove("SMOLV_REPORT")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the build script failed:\n{stdout}\n{stderr}");
    assert!(stderr.contains("Unable to parse built-ins"), "glslang must print its prelude (to stderr):\n{stderr}");

    let strays: Vec<&str> = stdout.lines().filter(|line| !line.starts_with("cargo:")).collect();
    assert!(strays.is_empty(), "{} lines on stdout are not cargo: lines, first {:?}", strays.len(), strays[0]);
    for tree in [&a, &b] {
        // The failed old.comp is watched through its shader root, which
        // Cargo scans recursively: one directive for the whole tree.
        let watched = format!("cargo:rerun-if-changed={}", tree.display());
        assert!(stdout.lines().any(|line| line == watched), "no {watched} in:\n{stdout}");
        let prefix = format!("cargo:rerun-if-changed={}/", tree.display());
        assert!(!stdout.lines().any(|line| line.starts_with(&prefix)), "files below the root watched again:\n{stdout}");
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with("cargo:warning=") && l.contains(&*tree.join("old.comp").to_string_lossy())),
            "old.comp's error is a warning (kept going):\n{stdout}"
        );
    }
    // The user's own `cargo:` lines, printed while shaders compiled, all
    // reached stdout, whole and in order.
    let ticks: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("cargo:rustc-env=SMOLV_TEST_TICK=")).collect();
    let total: usize = stdout
        .lines()
        .find_map(|l| l.strip_prefix("cargo:rustc-env=SMOLV_TEST_TICKS="))
        .expect("the build script ends with its tick count")
        .parse()
        .unwrap();
    let expected: Vec<String> = (0..total).map(|n| n.to_string()).collect();
    assert_eq!(ticks, expected, "every tick line, in order");
    println!("build_script_stdout: ok ({} stdout lines, {total} user lines, all cargo:)", stdout.lines().count());
}
