//! Eight `cargo smolv build` processes on one tree and one cache
//! directory, started at once, round after round, while
//! `cargo smolv cache trim --max-size` evicts entries under them (issue
//! 30, item 3). Every build ends within a time limit, every output is
//! byte-identical to a clean build's (all but the report), and no cache
//! entry is corrupt. Rounds alternate between an empty cache (every build
//! compiles, and they race to store the same entries) and the cache the
//! round before left.
//!
//! `SMOLV_LOAD_ROUNDS` (default 2), `SMOLV_LOAD_BUILDS` (default 8),
//! `SMOLV_LOAD_MODULES` (default 24) and `SMOLV_LOAD_LIMIT` (seconds a
//! build may take, default 300) set the run; docs/reliability.md has the
//! figures of a full one.
#![cfg(target_os = "linux")]

mod faults;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use faults::Tree;

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cargo-smolv"))
}

fn build(tree: &Tree, out: &Path, cache: &Path, log: &Path) -> Command {
    let mut command = tree.build_command(Path::new(env!("CARGO_BIN_EXE_cargo-smolv")), out, cache);
    command.stderr(std::fs::File::create(log).unwrap());
    command
}

#[test]
fn concurrent_builds_on_one_cache_agree_while_trim_evicts_under_them() {
    let rounds = faults::env_count("SMOLV_LOAD_ROUNDS", 2);
    let builds = faults::env_count("SMOLV_LOAD_BUILDS", 8);
    let modules = faults::env_count("SMOLV_LOAD_MODULES", 24);
    let limit = Duration::from_secs(faults::env_count("SMOLV_LOAD_LIMIT", 300) as u64);
    let began = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let tree = Tree::create(&dir.path().join("shaders"), modules, &["one", "two"]);
    let (cache, log) = (dir.path().join("cache"), dir.path().join("build.log"));

    let clean_cache = dir.path().join("clean-cache");
    let status = build(&tree, &dir.path().join("clean-out"), &clean_cache, &log).status().unwrap();
    assert!(status.success(), "{}", std::fs::read_to_string(&log).unwrap());
    let expected = faults::snapshot(&dir.path().join("clean-out"));
    // Half of what a full cache holds: trim always has something to evict.
    let max_size = smolv_build::cache::stats(&clean_cache).bytes / 2;

    let (mut started, mut identical, mut corrupt, mut hangs) = (0, 0, 0, 0);
    let mut slowest = Duration::ZERO;
    let (trims, evicted) = (AtomicU64::new(0), AtomicU64::new(0));
    for round in 0..rounds {
        if round % 2 == 0 {
            let _ = std::fs::remove_dir_all(&cache);
        }
        let building = AtomicBool::new(true);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                while building.load(Ordering::Relaxed) {
                    let output = cli()
                        .args(["smolv", "cache", "trim", "--json", "--cache-dir"])
                        .arg(&cache)
                        .arg("--max-size")
                        .arg(max_size.to_string())
                        .output()
                        .unwrap();
                    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
                    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
                    trims.fetch_add(1, Ordering::Relaxed);
                    evicted.fetch_add(json["removed_entries"].as_u64().unwrap(), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(50));
                }
            });
            let start = Instant::now();
            let outs: Vec<_> = (0..builds).map(|b| dir.path().join(format!("out-{b}"))).collect();
            let logs: Vec<_> = (0..builds).map(|b| dir.path().join(format!("build-{b}.log"))).collect();
            let mut children: Vec<_> =
                (0..builds).map(|b| faults::spawn_group(&mut build(&tree, &outs[b], &cache, &logs[b]))).collect();
            started += builds;
            for (b, child) in children.iter_mut().enumerate() {
                let Some(status) = faults::wait_within(child, limit.saturating_sub(start.elapsed())) else {
                    eprintln!("round {round}, build {b}: still running after {limit:?}, killed");
                    hangs += 1;
                    continue;
                };
                slowest = slowest.max(start.elapsed());
                let errors = std::fs::read_to_string(&logs[b]).unwrap_or_default();
                assert!(status.success(), "round {round}, build {b} failed: {status}\n{errors}");
                let differ = faults::differences(&faults::snapshot(&outs[b]), &expected);
                if differ.is_empty() {
                    identical += 1;
                } else {
                    eprintln!("round {round}, build {b}: differs from a clean build: {differ:?}");
                }
            }
            building.store(false, Ordering::Relaxed);
        });
        let damaged = faults::corrupt_entries(&cache);
        if !damaged.is_empty() {
            eprintln!("round {round}: corrupt entries {damaged:?}");
        }
        corrupt += damaged.len();
        eprintln!(
            "round {round}: {identical} of {started} identical so far, {:.0} s in",
            began.elapsed().as_secs_f64()
        );
    }
    println!(
        "{modules} modules, {builds} builds at once, {:.0} s in all; slowest build {:.1} s (limit {} s); trims during the builds: \
         {}, entries they evicted: {}",
        began.elapsed().as_secs_f64(),
        slowest.as_secs_f64(),
        limit.as_secs(),
        trims.load(Ordering::Relaxed),
        evicted.load(Ordering::Relaxed)
    );
    println!(
        "rounds: {rounds}, builds: {started}, outputs identical: {identical}, corrupt entries: {corrupt}, hangs: {hangs}"
    );
    assert_eq!((identical, corrupt, hangs), (started, 0, 0));
}
