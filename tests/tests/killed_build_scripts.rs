//! Build scripts killed with SIGKILL at random points (issue 30, item 2,
//! the build scripts' half; `cargo-smolv/tests/killed_builds.rs` is the
//! CLI's): a workspace of two crates outside this one, each with a
//! `build.rs` that compiles half of one shader tree through smolv-build,
//! both sharing one cache directory. Cargo is killed with its whole
//! process group (the build scripts, their workers, spirv-opt) while a
//! build script runs; the sources are edited now and then between kills.
//! After each kill, the next build's `OUT_DIR`s (all but the report) are
//! byte-identical to a clean build's in a new cache directory, and the
//! cache's stats count every file in it, left-over temporary files
//! included.
//!
//! `SMOLV_FAULT_KILLS` (default 10), `SMOLV_FAULT_MODULES` (default 24) and
//! `SMOLV_FAULT_SEED` (default: from the clock, printed) set the run;
//! docs/reliability.md has the figures of a full one.
#![cfg(target_os = "linux")]

#[path = "../../cargo-smolv/tests/faults/mod.rs"]
mod faults;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use faults::{Rng, Snapshot, Tally, Tree};
use smolv_tests::outside;

const CRATES: [&str; 2] = ["one", "two"];

/// Longer than any build here takes (the first compiles the build
/// scripts); past it a build hangs.
const LIMIT: Duration = Duration::from_secs(600);

/// Two crates, each compiling its half of `shaders/` in its build script.
/// The build scripts run on every build: each build sets
/// `SMOLV_FAULT_RUN` to a new value.
fn create_workspace(root: &Path) {
    outside::create(root, "[workspace]\nmembers = [\"one\", \"two\"]\nresolver = \"3\"\n");
    for name in CRATES {
        outside::write(
            &root.join(name).join("Cargo.toml"),
            &format!(
                "[package]\nname = \"faults-{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
                 [build-dependencies]\nsmolv-build = {{ path = {} }}\n",
                outside::crate_path("smolv-build")
            ),
        );
        outside::write(
            &root.join(name).join("build.rs"),
            &format!(
                "fn main() {{\n    println!(\"cargo::rerun-if-env-changed=SMOLV_FAULT_RUN\");\n    \
                 smolv_build::Config::new().shader_dir(\"../shaders/{name}\").include_dir(\"../shaders/include\")\
                 .compile();\n}}\n"
            ),
        );
        outside::write(&root.join(name).join("src/lib.rs"), "//! Its shaders are built by build.rs.\n");
    }
}

struct Workspace {
    root: PathBuf,
    runs: u32,
    out_dirs: Vec<PathBuf>,
}

impl Workspace {
    /// `cargo build` with the cache at `cache`.
    fn build(&mut self, cache: &Path, log: &Path) -> Command {
        self.runs += 1;
        let mut command = outside::cargo(&self.root, &["build", "--quiet"]);
        command
            .env("SMOLV_CACHE_DIR", cache)
            .env("SMOLV_FAULT_RUN", self.runs.to_string())
            .stdout(std::fs::File::create(log).unwrap())
            .stderr(std::fs::File::create(log.with_extension("err")).unwrap());
        command
    }

    /// A build to the end; it must succeed within [`LIMIT`]. Returns the
    /// `OUT_DIR`s' files and how long it took.
    fn complete(&mut self, cache: &Path, log: &Path) -> (Snapshot, Duration) {
        let start = Instant::now();
        let mut child = faults::spawn_group(&mut self.build(cache, log));
        let status = faults::wait_within(&mut child, LIMIT).expect("cargo build hung");
        let took = start.elapsed();
        let errors = std::fs::read_to_string(log.with_extension("err")).unwrap_or_default();
        assert!(status.success(), "cargo build failed: {status}\n{errors}");
        if self.out_dirs.is_empty() {
            self.out_dirs = CRATES
                .iter()
                .map(|name| outside::out_dir(&self.root.join(name).join("../shaders").join(name)))
                .collect();
        }
        let mut files = Snapshot::new();
        for (name, dir) in CRATES.iter().zip(&self.out_dirs) {
            files.extend(faults::snapshot(dir).into_iter().map(|(file, bytes)| (format!("{name}/{file}"), bytes)));
        }
        (files, took)
    }
}

/// Files in the cache directory as smolv-build counts them (what
/// `cargo smolv cache stats` prints): entries and the others.
fn counted(cache: &Path) -> (u64, u64) {
    let stats = smolv_build::cache::stats(cache);
    (stats.entries + stats.other_files, stats.bytes + stats.other_bytes)
}

#[test]
fn build_scripts_killed_at_random_leave_no_stale_output_and_every_file_counted() {
    let kills = faults::env_count("SMOLV_FAULT_KILLS", 10);
    let modules = faults::env_count("SMOLV_FAULT_MODULES", 24);
    let mut rng = Rng::from_env("killed_build_scripts");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("faults");
    create_workspace(&root);
    let mut tree = Tree::create(&root.join("shaders"), modules, &CRATES);
    let mut workspace = Workspace { root, runs: 0, out_dirs: Vec::new() };
    let (cache, log) = (dir.path().join("cache"), dir.path().join("cargo.log"));

    // A clean build of each state of the sources: a new cache directory.
    // It writes the same OUT_DIRs, so it runs only after a build's files
    // are read.
    let mut clean: HashMap<Vec<(PathBuf, Vec<u8>)>, Snapshot> = HashMap::new();
    let mut clean_build = |workspace: &mut Workspace, tree: &Tree| -> (Snapshot, Duration) {
        let state = tree.state();
        if let Some(known) = clean.get(&state) {
            return (known.clone(), Duration::ZERO);
        }
        let clean_cache = dir.path().join("clean-cache");
        let _ = std::fs::remove_dir_all(&clean_cache);
        let (files, took) = workspace.complete(&clean_cache, &log);
        clean.insert(state, files.clone());
        (files, took)
    };
    // The first build compiles the build scripts; the second is cold.
    clean_build(&mut workspace, &tree);
    let (_, cold) = workspace.complete(&dir.path().join("cold-cache"), &log);

    let mut tally = Tally::default();
    // Kill times are drawn from the start of the first build script, up to
    // the length of a build like the one killed: a cold build at first,
    // then the last build that finished before its kill time.
    let mut window = cold;
    let began = Instant::now();
    while tally.killed < kills {
        tally.attempts += 1;
        tally.maybe_edit(&mut tree, &mut rng);
        if rng.one_in(4) {
            // Evict about half, so that the killed build has work to do.
            smolv_build::cache::trim(&cache, counted(&cache).1 / 2);
        }
        let temporaries_before = faults::temporaries(&cache);
        let mut child = faults::spawn_group(&mut workspace.build(&cache, &log));
        let group = child.id();
        let in_build_script = || faults::group_members(group).iter().any(|name| name.starts_with("build-script"));
        while !in_build_script() && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(2));
        }
        let start = Instant::now();
        if !faults::running_after(&mut child, rng.duration(window)) || !in_build_script() {
            // It finished first, or the build scripts did (then let it end).
            faults::wait_within(&mut child, LIMIT).expect("cargo build hung");
            window = start.elapsed();
            continue;
        }
        if !tally.kill(&mut child, &cache, temporaries_before, || counted(&cache)) {
            window = start.elapsed();
            continue;
        }
        window = cold;

        tally.maybe_edit(&mut tree, &mut rng);
        let (built, _) = workspace.complete(&cache, &log);
        let (expected, _) = clean_build(&mut workspace, &tree);
        tally.after_kill(&built, &expected, &cache, began);
    }
    tally.finish(&format!("{modules} modules in 2 crates"), clean.len(), began);
}
