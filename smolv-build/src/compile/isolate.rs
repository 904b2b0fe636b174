//! Compiler crashes: naming the shader, and isolating it.
//!
//! shaderc runs in the build's own process, so a crash in glslang (2023.1
//! segfaults on some invalid shaders) kills the build script. Compiling
//! every shader in a child process would cost a process per shader and
//! would rerun the user's build script up to its `compile()` call each
//! time, so compiles stay in-process, and crashes are handled in two steps:
//!
//! 1. While a compile runs, a [`Journal`] entry in `OUT_DIR` records it,
//!    and the build script writes `compiling <path>` and `compiled <path>`
//!    lines to the build's log, `OUT_DIR/smolv-build.log` (unbuffered), and
//!    one line to stderr that names the log. Cargo shows a crashed build
//!    script's stderr, so a crash already points at the shaders in flight,
//!    while a build that fails on an ordinary shader error shows only its
//!    errors (one line per shader compiled made a failed build's output
//!    long).
//! 2. The next build finds the entries the crash left. Each of those
//!    shaders is compiled alone in a child process: this same program,
//!    rerun with the same arguments and `SMOLV_BUILD_ISOLATE_KEY` set, whose
//!    build compiles that one job and exits. A child that dies names its
//!    shader in a `cargo::error=` line; one that survives was not at fault
//!    (or the crash was not repeatable), and the build goes on.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cache::Key;
use crate::source::Job;

/// Directory of in-flight records inside `OUT_DIR`.
const JOURNAL_DIR: &str = "smolv-in-flight";
/// Set in a child: the key (hex) of the job to compile alone.
const KEY_VAR: &str = "SMOLV_BUILD_ISOLATE_KEY";
/// Set in a child: the file it reports its progress in.
const STATUS_VAR: &str = "SMOLV_BUILD_ISOLATE_STATUS";
/// The build's log inside `OUT_DIR`: each compile's start and end, and a
/// failed build's full errors.
pub(crate) const LOG_FILE: &str = "smolv-build.log";

/// The build's log file ([`LOG_FILE`]), written line by line as the
/// build goes, so that what a crash interrupted is on disk.
pub(crate) struct BuildLog {
    file: std::fs::File,
    path: PathBuf,
}

impl BuildLog {
    /// Starts a new log in `out_dir`, replacing the last build's; `None`
    /// if it cannot be written (the build goes on without it).
    pub(crate) fn create(out_dir: &Path) -> Option<Self> {
        let path = out_dir.join(LOG_FILE);
        let file = std::fs::create_dir_all(out_dir).and_then(|()| std::fs::File::create(&path)).ok()?;
        Some(Self { file, path })
    }

    /// Appends `text` and a newline in one write, so lines of jobs on
    /// other threads do not interleave. Best effort: a full disk loses a
    /// log line, not the build.
    pub(crate) fn line(&self, text: &str) {
        use std::io::Write;
        let _ = (&self.file).write_all(format!("{text}\n").as_bytes());
    }

    /// Where the log is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// Compiles in flight, one file per job (named by its cache key, holding
/// its source path), and the ones an earlier build left behind.
pub(crate) struct Journal {
    /// `None` for an inert journal, which records nothing.
    dir: Option<PathBuf>,
    /// Keys found at start: compiles a crash interrupted.
    suspects: BTreeSet<String>,
    /// Where the compiling/compiled lines go (under a build script).
    log: Option<BuildLog>,
    announced: AtomicBool,
}

impl Journal {
    /// Opens the journal in `out_dir`, taking what an earlier build left
    /// there as suspects.
    pub(crate) fn open(out_dir: &Path, announce: bool) -> Self {
        let dir = out_dir.join(JOURNAL_DIR);
        let suspects = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
            .filter(|name| name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit()))
            .collect();
        let log = if announce { BuildLog::create(out_dir) } else { None };
        Self { dir: Some(dir), suspects, log, announced: AtomicBool::new(false) }
    }

    /// The build's log, under a build script.
    pub(crate) fn log(&self) -> Option<&BuildLog> {
        self.log.as_ref()
    }

    /// A journal that records nothing and has no suspects.
    pub(crate) fn inert() -> Self {
        Self { dir: None, suspects: BTreeSet::new(), log: None, announced: AtomicBool::new(false) }
    }

    /// Whether an earlier build died while compiling the job with `key`.
    pub(crate) fn is_suspect(&self, key: &Key) -> bool {
        self.suspects.contains(&key.hex())
    }

    /// Records that the job with `key` compiles now, until the returned
    /// guard is dropped. A panic keeps the record, as a crash does.
    pub(crate) fn begin<'a>(&'a self, key: &Key, job: &'a Job) -> InFlight<'a> {
        let path = self.dir.as_ref().map(|dir| dir.join(key.hex()));
        if let (Some(dir), Some(path)) = (&self.dir, &path) {
            // Best effort: without the record, a crash is still named by the printed line.
            let _ =
                std::fs::create_dir_all(dir).and_then(|()| std::fs::write(path, job.path.to_string_lossy().as_bytes()));
        }
        if let Some(log) = &self.log {
            if !self.announced.swap(true, Ordering::Relaxed) {
                // Cargo shows this only when the build script dies.
                eprintln!(
                    "smolv-build: shader compiles are logged in {}; if this build script dies of a signal, the \
                     shader compiler crashed on a shader logged there as compiling and not compiled; build again, \
                     and smolv-build compiles those shaders alone in a separate process and reports the one at \
                     fault as an error",
                    log.path().display()
                );
            }
            log.line(&format!("compiling {}", job.path.display()));
        }
        InFlight { path, job, log: self.log.as_ref() }
    }

    /// Removes every record except those of `keep` (jobs that crashed when
    /// compiled alone, to be isolated again next time), once the build's
    /// compiles are over.
    pub(crate) fn finish(&self, keep: &BTreeSet<String>) {
        let Some(dir) = &self.dir else {
            return;
        };
        for suspect in self.suspects.iter().filter(|key| !keep.contains(*key)) {
            let _ = std::fs::remove_file(dir.join(suspect));
        }
        let _ = std::fs::remove_dir(dir); // only if empty
    }
}

/// A compile in progress (see [`Journal::begin`]).
pub(crate) struct InFlight<'a> {
    path: Option<PathBuf>,
    job: &'a Job,
    log: Option<&'a BuildLog>,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
        if let Some(log) = self.log {
            log.line(&format!("compiled {}", self.job.path.display()));
        }
    }
}

/// How a job compiled alone in a child process ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Isolated {
    /// The child compiled it (or reported its errors) and exited.
    Survived,
    /// The child died while compiling it: how, and the end of its stderr.
    Crashed(String),
    /// The child never reached the job (its build names other shaders, or
    /// it could not be started): why.
    NotReached(String),
}

/// Compiles the job with `key` alone, in a child process: this program,
/// rerun with the same arguments, whose build compiles only that job.
pub(crate) fn compile_in_child(key: &Key, status_dir: &Path) -> Isolated {
    let status = status_dir.join(format!("{}.status", key.hex()));
    let _ = std::fs::create_dir_all(status_dir);
    let _ = std::fs::remove_file(&status);
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return Isolated::NotReached(format!("cannot find this program to rerun it: {e}")),
    };
    let child = Command::new(&exe)
        .args(std::env::args_os().skip(1))
        .env(KEY_VAR, key.hex())
        .env(STATUS_VAR, &status)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => return Isolated::NotReached(format!("cannot rerun {}: {e}", exe.display())),
    };
    let mut stderr = Vec::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_end(&mut stderr);
    }
    let exit = child.wait();
    let progress = std::fs::read_to_string(&status).unwrap_or_default();
    let _ = std::fs::remove_file(&status);
    // The directory stays: other suspects may be compiling alone beside
    // this one, their children about to write their status files in it.
    // The build removes it once its compiles are over (`remove_status_dir`).
    if progress.contains("finished") {
        return Isolated::Survived;
    }
    let how = match exit {
        Ok(exit) => describe_exit(exit),
        Err(e) => format!("could not be waited for: {e}"),
    };
    if progress.contains("started") {
        Isolated::Crashed(format!("{how}{}", stderr_tail(&stderr)))
    } else {
        Isolated::NotReached(format!("the rerun {how} before reaching the shader{}", stderr_tail(&stderr)))
    }
}

/// Removes the directory of [`compile_in_child`]'s status files, once no
/// child can be running (if it is empty, as it then is).
pub(crate) fn remove_status_dir(status_dir: &Path) {
    let _ = std::fs::remove_dir(status_dir);
}

/// `; stderr: …` with the child's last few stderr lines, or nothing.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
    if tail.is_empty() { String::new() } else { format!("; its stderr ends: {tail}") }
}

/// "was killed by signal 11 (SIGSEGV)", "exited with status 101".
fn describe_exit(exit: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = exit.signal() {
            let name = match signal {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                _ => "",
            };
            return format!("was killed by signal {signal}{name}");
        }
    }
    match exit.code() {
        Some(code) => format!("exited with status {code}"),
        None => format!("ended: {exit}"),
    }
}

/// In a child started by [`compile_in_child`]: which job to compile, and
/// where to report progress.
pub(crate) struct ChildRequest {
    pub(crate) key: String,
    status: PathBuf,
}

impl ChildRequest {
    /// The request, if this process is such a child.
    pub(crate) fn from_env() -> Option<Self> {
        let key = std::env::var(KEY_VAR).ok()?;
        let status = PathBuf::from(std::env::var_os(STATUS_VAR)?);
        Some(Self { key, status })
    }

    /// Records that the compile starts: from here, dying is a crash.
    pub(crate) fn started(&self) {
        let _ = std::fs::write(&self.status, "started\n");
    }

    /// Records that the compile ended, and ends this process.
    pub(crate) fn finished(&self) -> ! {
        let _ = std::fs::write(&self.status, "started\nfinished\n");
        std::process::exit(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::KeyBuilder;

    fn job(path: &Path) -> Job {
        Job {
            name: "a.vert".to_owned(),
            path: path.to_owned(),
            language: crate::options::Language::Glsl,
            stage: None,
            entry_point: "main".to_owned(),
            defines: Vec::new(),
            variant: None,
            spec_constants: Vec::new(),
        }
    }

    #[test]
    fn an_interrupted_compile_is_a_suspect_in_the_next_build() {
        let dir = tempfile::tempdir().unwrap();
        let (crashed, finished) =
            (KeyBuilder::new("t").text("crashed").finish(), KeyBuilder::new("t").text("ok").finish());
        let job = job(&dir.path().join("a.vert"));
        let journal = Journal::open(dir.path(), false);
        drop(journal.begin(&finished, &job));
        // A crash never drops the guard.
        std::mem::forget(journal.begin(&crashed, &job));
        let next = Journal::open(dir.path(), false);
        assert!(next.is_suspect(&crashed));
        assert!(!next.is_suspect(&finished), "a compile that ended is no suspect");
        next.finish(&BTreeSet::from([crashed.hex()]));
        assert!(Journal::open(dir.path(), false).is_suspect(&crashed), "a job that crashed alone stays suspect");
        Journal::open(dir.path(), false).finish(&BTreeSet::new());
        assert!(!Journal::open(dir.path(), false).is_suspect(&crashed));
        assert!(!dir.path().join(JOURNAL_DIR).exists(), "an empty journal leaves nothing behind");
    }

    #[test]
    fn a_panicking_compile_stays_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let key = KeyBuilder::new("t").text("panics").finish();
        let job = job(&dir.path().join("a.vert"));
        let journal = Journal::open(dir.path(), false);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _guard = journal.begin(&key, &job);
            panic!("the compiler panicked");
        }));
        assert!(result.is_err());
        assert!(Journal::open(dir.path(), false).is_suspect(&key));
    }

    #[cfg(unix)]
    #[test]
    fn exits_are_described_with_the_signal_name() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(describe_exit(std::process::ExitStatus::from_raw(11)), "was killed by signal 11 (SIGSEGV)");
        assert_eq!(describe_exit(std::process::ExitStatus::from_raw(101 << 8)), "exited with status 101");
        assert_eq!(stderr_tail(b"a\n\nb\nc\nd\n"), "; its stderr ends: b | c | d");
        assert_eq!(stderr_tail(b""), "");
    }
}
