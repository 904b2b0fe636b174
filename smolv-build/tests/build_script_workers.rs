//! A build script runs once per build, whatever the number of compiler
//! workers: a worker serves before the build script's `main`, so it never
//! runs what `main` does before `Config::compile` (issue 43, item 3).
//!
//! No test harness (`harness = false` in Cargo.toml): the test runs itself
//! again with `SMOLV_TEST_BUILD_SCRIPT_DIR` set and Cargo's build-script
//! variables, and that child is the "build script". Its `main` is a user's:
//! it appends a line to a file, sleeps if asked, then calls
//! `Config::compile()`, and nothing else of smolv-build. The test binary
//! links smolv-build as a library, as a build script does, so this also
//! checks that the linker kept smolv-build's constructor.
//!
//! The worker test hooks (debug builds) make each compile take a while, so
//! that the jobs overlap and several workers start, and log each worker
//! that starts. A release build has no hooks: there the test checks what
//! needs none (the prelude runs once, every shader compiles) and says, on
//! its output, what it could not check.

use std::path::Path;
use std::process::{Command, Output};

/// Set in the child: the directory holding its shaders and logs.
const CHILD_VAR: &str = "SMOLV_TEST_BUILD_SCRIPT_DIR";
/// Set in the child: how long its prelude sleeps, in milliseconds.
const SLEEP_VAR: &str = "SMOLV_TEST_PRELUDE_MS";

/// Whether the worker test hooks (`SMOLV_WORKER_TEST_*`) exist: in debug
/// builds of smolv-build only.
const HOOKS: bool = cfg!(debug_assertions);

#[allow(clippy::disallowed_methods, reason = "the test's child is told by a variable")]
fn main() {
    // Linux, macOS and Windows have the constructor (`compile/worker/enter.rs`);
    // elsewhere a build script's worker runs the prelude, as documented.
    if cfg!(not(any(target_os = "linux", target_os = "macos", windows))) {
        println!("build_script_workers: 0 tests: only Linux, macOS and Windows serve before a build script's main");
        return;
    }
    if let Some(dir) = std::env::var_os(CHILD_VAR) {
        return build_script(Path::new(&dir));
    }
    the_prelude_runs_once_per_build_with_1_2_and_8_workers();
    a_prelude_slower_than_the_greeting_time_out_fails_no_shader();
    if !HOOKS {
        println!(
            "build_script_workers: a release build has no worker test hooks: how many workers started, and \
             overlapping jobs, were not checked; run this test without --release for them"
        );
    }
    println!("build_script_workers: 2 tests passed");
}

/// The child: a user's `build.rs`.
#[allow(clippy::disallowed_methods, reason = "the test's child is told by a variable")]
fn build_script(dir: &Path) {
    use std::io::Write;
    let mut log = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("prelude.log")).unwrap();
    writeln!(log, "prelude of process {}", std::process::id()).unwrap();
    if let Some(ms) = std::env::var(SLEEP_VAR).ok().and_then(|ms| ms.parse().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    let report = smolv_build::Config::new().shader_dir(dir.join("shaders")).compile();
    println!("cargo:rustc-env=SMOLV_TEST_MODULES={}", report.modules.len());
}

/// `shaders` fragment shaders, each `shaders/dN/s.frag`.
fn shader_tree(dir: &Path, shaders: usize) {
    for i in 0..shaders {
        let folder = dir.join(format!("shaders/d{i}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("s.frag"),
            format!("#version 450\nlayout(location = 0) out vec4 color;\nvoid main() {{ color = vec4({i}.0); }}\n"),
        )
        .unwrap();
    }
}

/// Runs the child as Cargo runs a build script, with `threads` as
/// `NUM_JOBS` and a cache of its own (so that every shader compiles).
fn build(dir: &Path, threads: usize, run: usize, vars: &[(&str, String)]) -> Output {
    let output = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_VAR, dir)
        .env("OUT_DIR", dir.join("out"))
        .env("TARGET", "x86_64-unknown-linux-gnu")
        .env("HOST", "x86_64-unknown-linux-gnu")
        .env("NUM_JOBS", threads.to_string())
        .env("SMOLV_CACHE_DIR", dir.join(format!("cache-{run}")))
        .env("SMOLV_WORKER_TEST_STARTED", dir.join("started.log"))
        .env_remove("SMOLV_WORKERS")
        .env_remove("SMOLV_REPORT")
        .envs(vars.iter().map(|(name, value)| (name, value)))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && !stdout.contains("cargo::error="),
        "the build script failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn lines(file: &Path) -> usize {
    std::fs::read_to_string(file).map_or(0, |text| text.lines().count())
}

fn modules_built(output: &Output) -> usize {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("cargo:rustc-env=SMOLV_TEST_MODULES="))
        .expect("the build script prints its module count")
        .parse()
        .unwrap()
}

fn the_prelude_runs_once_per_build_with_1_2_and_8_workers() {
    for (run, threads) in [1, 2, 8].into_iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let shaders = 2 * threads;
        shader_tree(dir.path(), shaders);
        // Each compile takes half a second, so the threads' jobs overlap.
        let output = build(dir.path(), threads, run, &[("SMOLV_WORKER_TEST_DELAY", "s.frag=500".into())]);
        assert_eq!(modules_built(&output), shaders);
        if HOOKS {
            // Up to one worker per thread: on a loaded machine a thread may
            // find another's worker idle before it starts its own.
            let started = lines(&dir.path().join("started.log"));
            assert!((1..=threads).contains(&started), "{started} workers started for {threads} threads");
        }
        assert_eq!(lines(&dir.path().join("prelude.log")), 1, "{threads} workers: the prelude ran once");
    }
    // In-process compilers, as before workers.
    let dir = tempfile::tempdir().unwrap();
    shader_tree(dir.path(), 2);
    let output = build(dir.path(), 2, 9, &[("SMOLV_WORKERS", "0".into())]);
    assert_eq!(modules_built(&output), 2);
    assert_eq!(lines(&dir.path().join("started.log")), 0, "SMOLV_WORKERS=0 starts no worker");
    assert_eq!(lines(&dir.path().join("prelude.log")), 1);
}

fn a_prelude_slower_than_the_greeting_time_out_fails_no_shader() {
    let dir = tempfile::tempdir().unwrap();
    shader_tree(dir.path(), 4);
    // The greeting's time-out is the workers' time limit: 8 s here (it
    // covers starting this debug binary and glslang on a loaded machine),
    // and the prelude takes 10 s.
    let vars = [("SMOLV_WORKER_TIMEOUT", "8".to_owned()), (SLEEP_VAR, "10000".to_owned())];
    let output = build(dir.path(), 2, 0, &vars);
    assert_eq!(modules_built(&output), 4, "every shader compiled");
    if HOOKS {
        assert!(lines(&dir.path().join("started.log")) >= 1, "in workers");
    }
    assert_eq!(lines(&dir.path().join("prelude.log")), 1);
}
