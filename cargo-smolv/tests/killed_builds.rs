//! `cargo smolv build` killed with SIGKILL at random points, its whole
//! process group (workers, spirv-opt) with it, on one tree and one cache
//! directory, with the sources edited now and then between kills (issue
//! 30, item 2, the CLI's half; `tests/tests/killed_build_scripts.rs` is
//! the build scripts' half). After each kill, the next build's outputs
//! (all but the report) are byte-identical to a clean build of the same
//! sources in a new cache directory, and `cargo smolv cache stats` counts
//! every file in the cache directory, left-over temporary files included.
//!
//! `SMOLV_FAULT_KILLS` (default 10), `SMOLV_FAULT_MODULES` (default 24) and
//! `SMOLV_FAULT_SEED` (default: from the clock, printed) set the run;
//! docs/reliability.md has the figures of a full one.
#![cfg(target_os = "linux")]

mod faults;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use faults::{Rng, Snapshot, Tally, Tree};

/// Longer than any build of the tree here takes; past it a build hangs.
const LIMIT: Duration = Duration::from_secs(300);

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cargo-smolv"))
}

fn build(tree: &Tree, out: &Path, cache: &Path) -> Command {
    let mut command = tree.build_command(Path::new(env!("CARGO_BIN_EXE_cargo-smolv")), out, cache);
    command.stderr(std::process::Stdio::null());
    command
}

/// Runs `command` to the end; it must succeed within [`LIMIT`]. Returns
/// how long it took.
fn complete(command: &mut Command) -> Duration {
    let log = tempfile::NamedTempFile::new().unwrap();
    let start = Instant::now();
    let mut child = faults::spawn_group(command.stderr(log.reopen().unwrap()));
    let status = faults::wait_within(&mut child, LIMIT).unwrap_or_else(|| panic!("{command:?} hung"));
    let errors = std::fs::read_to_string(log.path()).unwrap_or_default();
    assert!(status.success(), "{command:?} failed: {status}\n{errors}");
    start.elapsed()
}

/// `cargo smolv cache stats --json`: files counted (entries and others)
/// and their bytes.
fn cache_stats(cache: &Path) -> (u64, u64) {
    let output = cli().args(["smolv", "cache", "stats", "--json", "--cache-dir"]).arg(cache).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let field = |name: &str| json[name].as_u64().unwrap_or_else(|| panic!("no {name} in {json}"));
    (field("entries") + field("other_files"), field("bytes") + field("other_bytes"))
}

#[test]
fn builds_killed_at_random_leave_no_stale_output_and_every_file_counted() {
    let kills = faults::env_count("SMOLV_FAULT_KILLS", 10);
    let modules = faults::env_count("SMOLV_FAULT_MODULES", 24);
    let mut rng = Rng::from_env("killed_builds");
    let dir = tempfile::tempdir().unwrap();
    let mut tree = Tree::create(&dir.path().join("shaders"), modules, &["one", "two"]);
    let (out, cache) = (dir.path().join("out"), dir.path().join("cache"));

    // A clean build of each state of the sources: a new cache directory.
    let mut clean: HashMap<Vec<(std::path::PathBuf, Vec<u8>)>, Snapshot> = HashMap::new();
    let mut cold = Duration::ZERO;
    let mut clean_build = |tree: &Tree, cold: &mut Duration| -> Snapshot {
        let state = tree.state();
        if let Some(known) = clean.get(&state) {
            return known.clone();
        }
        let (clean_out, clean_cache) = (dir.path().join("clean-out"), dir.path().join("clean-cache"));
        let _ = std::fs::remove_dir_all(&clean_out);
        let _ = std::fs::remove_dir_all(&clean_cache);
        *cold = complete(&mut build(tree, &clean_out, &clean_cache));
        let files = faults::snapshot(&clean_out);
        clean.insert(state, files.clone());
        files
    };
    clean_build(&tree, &mut cold);

    let mut tally = Tally::default();
    // Kill times are drawn up to the length of a build like the one
    // killed: a cold build at first, then the last build that finished
    // before its kill time.
    let mut window = cold;
    let began = Instant::now();
    while tally.killed < kills {
        tally.attempts += 1;
        tally.maybe_edit(&mut tree, &mut rng);
        if rng.one_in(4) {
            // Evict about half, so that the killed build has work to do.
            let (_, bytes) = cache_stats(&cache);
            let trim = cli()
                .args(["smolv", "cache", "trim", "--cache-dir"])
                .arg(&cache)
                .arg("--max-size")
                .arg((bytes / 2).to_string())
                .output()
                .unwrap();
            assert!(trim.status.success());
        }
        let delay = rng.duration(window);
        let start = Instant::now();
        let temporaries_before = faults::temporaries(&cache);
        let mut child = faults::spawn_group(&mut build(&tree, &out, &cache));
        if !faults::running_after(&mut child, delay) {
            window = start.elapsed();
            continue;
        }
        if !tally.kill(&mut child, &cache, temporaries_before, || cache_stats(&cache)) {
            window = start.elapsed();
            continue;
        }
        window = cold;

        tally.maybe_edit(&mut tree, &mut rng);
        complete(&mut build(&tree, &out, &cache));
        let expected = clean_build(&tree, &mut cold);
        tally.after_kill(&faults::snapshot(&out), &expected, &cache, began);
    }
    tally.finish(&format!("{modules} modules"), clean.len(), began);
}
