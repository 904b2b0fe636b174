//! What the tests of killed and concurrent builds share (issue 30, items 2
//! and 3): a generated shader tree that can be edited, a seeded random
//! generator, process groups that are killed whole, and the files a build
//! leaves. `tests/tests/killed_build_scripts.rs` includes this file too.
#![allow(dead_code)] // each test uses a part of it

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A count from the environment variable `name`, else `default`.
#[allow(clippy::disallowed_methods, reason = "the fault tests' knobs")]
pub(crate) fn env_count(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("{name}={text:?} is not a count")),
        Err(_) => default,
    }
}

/// splitmix64: small, seedable, and good enough to pick kill times.
pub(crate) struct Rng(u64);

impl Rng {
    /// Seeded from `SMOLV_FAULT_SEED`, else from the clock; the seed is
    /// printed, so that a failure can be replayed.
    #[allow(clippy::disallowed_methods, reason = "the fault tests' seed")]
    pub(crate) fn from_env(test: &str) -> Self {
        let seed = match std::env::var("SMOLV_FAULT_SEED") {
            Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("SMOLV_FAULT_SEED={text:?} is not a number")),
            Err(_) => {
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
                now.as_secs() ^ u64::from(now.subsec_nanos()) << 32 ^ u64::from(std::process::id())
            }
        };
        println!("{test}: seed {seed} (replay with SMOLV_FAULT_SEED={seed})");
        Self(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        let n64 = u64::try_from(n).unwrap();
        usize::try_from(self.next() % n64).unwrap()
    }

    /// True once in `n` times.
    pub(crate) fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// A duration in `0..max`.
    pub(crate) fn duration(&mut self, max: Duration) -> Duration {
        max.mul_f64((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// Where an edit goes in each file: the number between the markers.
const EDIT: (&str, &str) = ("/*edit*/", "/*end*/");

/// A tree of GLSL fragment shaders, split into `groups` (directories), each
/// including one of a few include files from `include/` through the
/// include path. Every file has a number that [`Tree::edit`] changes to a
/// value never used before, so an entry compiled before an edit can never
/// be right after it.
pub(crate) struct Tree {
    pub(crate) root: PathBuf,
    shaders: Vec<PathBuf>,
    includes: Vec<PathBuf>,
    edits: u32,
}

/// Include files: few, so that editing one changes many modules.
const INCLUDES: usize = 4;

impl Tree {
    pub(crate) fn create(root: &Path, modules: usize, groups: &[&str]) -> Self {
        let mut includes = Vec::new();
        for i in 0..INCLUDES {
            let path = root.join(format!("include/common{i}.glsl"));
            let text = format!(
                "// include {i}\nvec4 tint{i}(vec4 c) {{\n    return c * vec4({i}.5, {}1.0{}, 0.25, 1.0);\n}}\n",
                EDIT.0, EDIT.1
            );
            write(&path, &text);
            includes.push(path);
        }
        let mut shaders = Vec::new();
        for m in 0..modules {
            let group = groups[m % groups.len()];
            let i = m % INCLUDES;
            let path = root.join(format!("{group}/m{m:03}.frag"));
            let text = format!(
                "#version 450\n#include \"common{i}.glsl\"\nlayout(location = 0) in vec4 v;\n\
                 layout(location = 0) out vec4 color;\nvoid main() {{\n    \
                 color = tint{i}(v) + vec4(0.{m:03}, {}1.0{}, v.x * v.y, 1.0);\n}}\n",
                EDIT.0, EDIT.1
            );
            write(&path, &text);
            shaders.push(path);
        }
        Self { root: root.to_owned(), shaders, includes, edits: 0 }
    }

    /// The directory of the include files.
    pub(crate) fn include_dir(&self) -> PathBuf {
        self.root.join("include")
    }

    /// `cargo smolv build` of this tree through the CLI at `exe`, into
    /// `out`, with the cache directory `cache`; its stdout goes nowhere.
    pub(crate) fn build_command(&self, exe: &Path, out: &Path, cache: &Path) -> Command {
        let mut command = Command::new(exe);
        command
            .args(["smolv", "build"])
            .arg(&self.root)
            .arg("-o")
            .arg(out)
            .arg("--cache-dir")
            .arg(cache)
            .arg("-I")
            .arg(self.include_dir())
            .stdout(std::process::Stdio::null());
        command
    }

    /// Changes a random shader or (one time in three) a random include to
    /// a number it never had; returns the file's path.
    pub(crate) fn edit(&mut self, rng: &mut Rng) -> PathBuf {
        let path = if rng.one_in(3) {
            self.includes[rng.below(self.includes.len())].clone()
        } else {
            self.shaders[rng.below(self.shaders.len())].clone()
        };
        self.edits += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let start = text.find(EDIT.0).unwrap() + EDIT.0.len();
        let end = text.find(EDIT.1).unwrap();
        // Exact in binary, and new: 1 + edits/1024.
        let value = format!("{:?}", 1.0 + f64::from(self.edits) / 1024.0);
        write(&path, &format!("{}{value}{}", &text[..start], &text[end..]));
        path
    }

    /// The tree's sources now: the key of a clean build's outputs.
    pub(crate) fn state(&self) -> Vec<(PathBuf, Vec<u8>)> {
        self.shaders.iter().chain(&self.includes).map(|p| (p.clone(), std::fs::read(p).unwrap())).collect()
    }
}

pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Every file under `dir` by its path relative to `dir`, except the build
/// report (it counts cache hits, so it differs by design).
pub(crate) type Snapshot = BTreeMap<String, Vec<u8>>;

pub(crate) fn snapshot(dir: &Path) -> Snapshot {
    let mut files = Snapshot::new();
    for (path, _) in walk(dir) {
        let relative = path.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
        if !relative.starts_with("smolv-report.") {
            files.insert(relative, std::fs::read(&path).unwrap());
        }
    }
    files
}

/// The names of the files that differ between two snapshots (missing from
/// one of them included).
pub(crate) fn differences(a: &Snapshot, b: &Snapshot) -> Vec<String> {
    let mut names: Vec<String> = a.keys().chain(b.keys()).cloned().collect();
    names.sort();
    names.dedup();
    names.retain(|name| a.get(name) != b.get(name));
    names
}

/// Every file under `dir`, at any depth, with its size: what the cache
/// directory holds, walked independently of smolv-build.
pub(crate) fn walk(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut files = Vec::new();
    let Ok(listing) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in listing.flatten() {
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        if meta.is_dir() {
            files.extend(walk(&entry.path()));
        } else {
            files.push((entry.path(), meta.len()));
        }
    }
    files.sort();
    files
}

/// Files under `dir` named as temporary files are (`….tmp`).
pub(crate) fn temporaries(dir: &Path) -> usize {
    walk(dir).iter().filter(|(path, _)| path.to_string_lossy().ends_with(".tmp")).count()
}

/// The cache's entries that fail their own check: the entry layout is
/// `SMOLVCACHE1\0`, blake3 of the body, the body (smolv-build's
/// `cache/mod.rs`). Temporary files are not entries.
pub(crate) fn corrupt_entries(cache: &Path) -> Vec<PathBuf> {
    let mut corrupt = Vec::new();
    for (path, _) in walk(cache) {
        if path.to_string_lossy().ends_with(".tmp") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_default();
        let intact = bytes
            .strip_prefix(b"SMOLVCACHE1\0".as_slice())
            .and_then(|rest| rest.split_at_checked(32))
            .is_some_and(|(hash, body)| blake3::hash(body).as_bytes() == hash);
        if !intact {
            corrupt.push(path);
        }
    }
    corrupt
}

/// Starts `command` as the leader of a process group of its own, so that
/// everything it starts (workers, spirv-opt, rustc, build scripts) can be
/// killed with it.
pub(crate) fn spawn_group(command: &mut Command) -> Child {
    command.process_group(0).spawn().unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// The processes of group `group` that are still alive (zombies are
/// dead): their names, from `/proc`.
pub(crate) fn group_members(group: u32) -> Vec<String> {
    let mut members = Vec::new();
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return members;
    };
    for process in processes.flatten() {
        let Ok(stat) = std::fs::read_to_string(process.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
        let Some((name, rest)) = stat.split_once(" (").and_then(|(_, rest)| rest.rsplit_once(") ")) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == group.to_string() {
            members.push(name.to_owned());
        }
    }
    members
}

/// SIGKILL to every process of `child`'s group; reaps `child` and waits
/// until no process of the group is left (a worker that outlived its
/// parent would be a failure). Returns the names of the processes that
/// were alive when the signal went.
pub(crate) fn kill_group(child: &mut Child) -> Vec<String> {
    let group = child.id();
    let members = group_members(group);
    let status = Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status().expect("kill runs");
    assert!(status.success() || child.try_wait().unwrap().is_some(), "kill -KILL -{group} failed");
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = group_members(group);
        if left.is_empty() {
            return members;
        }
        assert!(Instant::now() < deadline, "processes of the killed build outlived it: {left:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `child` until `limit`; past it, kills its group and returns
/// `None` (a hang).
pub(crate) fn wait_within(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if start.elapsed() > limit {
            kill_group(child);
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Sleeps until `delay` has passed or `child` has exited; true if it is
/// still running.
pub(crate) fn running_after(child: &mut Child, delay: Duration) -> bool {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        let left = delay.saturating_sub(start.elapsed());
        if left.is_zero() {
            return true;
        }
        std::thread::sleep(left.min(Duration::from_millis(5)));
    }
}

/// The counts of a test that kills builds, and its summary lines.
#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) attempts: usize,
    pub(crate) killed: usize,
    edits: usize,
    identical: usize,
    stale: usize,
    processes: usize,
    temporaries: usize,
    checked_with_temporaries: usize,
}

impl Tally {
    /// Kills `child`'s process group and counts it, where `cache` held
    /// `temporaries_before` temporary files before the build started;
    /// `false` (nothing counted) if the build had ended first. Checks that
    /// the cache's own stats, `counted()` (files, bytes), count every file
    /// the kill left.
    pub(crate) fn kill(
        &mut self,
        child: &mut Child,
        cache: &Path,
        temporaries_before: usize,
        counted: impl FnOnce() -> (u64, u64),
    ) -> bool {
        let alive = kill_group(child);
        if alive.is_empty() {
            // It ended between the last look and the signal: not a kill.
            return false;
        }
        self.killed += 1;
        self.processes += alive.len();
        let temporaries_now = temporaries(cache);
        self.temporaries += temporaries_now.saturating_sub(temporaries_before);
        self.checked_with_temporaries += usize::from(temporaries_now > 0);
        let walked = walk(cache);
        let files = (walked.len() as u64, walked.iter().map(|(_, len)| len).sum::<u64>());
        assert_eq!(counted(), files, "the cache's stats must count every file: {walked:#?}");
        true
    }

    /// Edits a random shader or include of `tree` one time in three.
    pub(crate) fn maybe_edit(&mut self, tree: &mut Tree, rng: &mut Rng) {
        if rng.one_in(3) {
            tree.edit(rng);
            self.edits += 1;
        }
    }

    /// Compares what the build after the last kill made with a clean
    /// build's outputs, and checks the cache for corrupt entries.
    pub(crate) fn after_kill(&mut self, built: &Snapshot, clean: &Snapshot, cache: &Path, began: Instant) {
        let killed = self.killed;
        let differ = differences(built, clean);
        // A module's SPIR-V that differs was served from a stale entry.
        self.stale += differ.iter().filter(|name| name.ends_with(".spv")).count();
        eprintln!("kill {killed}: {} differing files, {:.0} s in", differ.len(), began.elapsed().as_secs_f64());
        if differ.is_empty() {
            self.identical += 1;
        } else {
            eprintln!("kill {killed}: differs from a clean build: {differ:?}");
        }
        let corrupt = corrupt_entries(cache);
        assert!(corrupt.is_empty(), "corrupt entries after kill {killed}: {corrupt:?}");
    }

    /// Prints the summary (`what`: the tree) and the line, and
    /// fails unless every build after a kill matched a clean one.
    pub(crate) fn finish(&self, what: &str, clean_builds: usize, began: Instant) {
        println!(
            "{what}, {} builds started, {} edits, {clean_builds} clean builds; processes killed: {}, temporary \
             files left: {} (stats checked with some present: {}); {:.0} s after the first clean build",
            self.attempts,
            self.edits,
            self.processes,
            self.temporaries,
            self.checked_with_temporaries,
            began.elapsed().as_secs_f64()
        );
        println!("kills: {}, builds after kill identical: {}, stale hits: {}", self.killed, self.identical, self.stale);
        assert_eq!((self.identical, self.stale), (self.killed, 0));
    }
}
