//! External tools (`spirv-opt`, `slangc`): finding them, their version for cache keys, and running
//! them under the [`Limits`] of every child process.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use crate::cache::{Cache, KeyBuilder};

/// Seconds a worker or a tool may spend on one shader.
pub(crate) const TIMEOUT_VAR: &str = "SMOLV_WORKER_TIMEOUT";
/// The address-space cap of a worker or a tool, in MiB.
pub(crate) const MEMORY_MIB_VAR: &str = "SMOLV_WORKER_MEMORY_MB";
const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(120);
const DEFAULT_MEMORY_MIB: u64 = 4096;

/// The limits of every child process the build starts (a worker's, per request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) time: Duration,
    pub(crate) memory_bytes: u64,
}

impl Limits {
    pub(crate) fn from_env() -> Self {
        #[cfg(test)]
        if let Some(limits) = tests::OVERRIDE.with(std::cell::Cell::get) {
            return limits;
        }
        let number = |var: &str| crate::env::var(var).and_then(|v| v.trim().parse::<u64>().ok()).filter(|&n| n > 0);
        Self {
            time: number(TIMEOUT_VAR).map_or(DEFAULT_TIME_LIMIT, Duration::from_secs),
            memory_bytes: number(MEMORY_MIB_VAR).unwrap_or(DEFAULT_MEMORY_MIB).saturating_mul(1 << 20),
        }
    }

    /// The time limit in seconds, as every message writes it ("120", "0.5").
    pub(crate) fn seconds(&self) -> f64 {
        self.time.as_secs_f64()
    }

    /// "120 s and 4096 MiB (SMOLV_WORKER_TIMEOUT, SMOLV_WORKER_MEMORY_MB)".
    pub(crate) fn describe(&self) -> String {
        format!("{} s and {} MiB ({TIMEOUT_VAR}, {MEMORY_MIB_VAR})", self.seconds(), self.memory_bytes >> 20)
    }
}

/// Makes `command` start in a process group of its own on Linux, for [`kill_group`].
pub(crate) fn own_group(command: &mut Command) {
    #[cfg(target_os = "linux")]
    std::os::unix::process::CommandExt::process_group(command, 0);
    let _ = command;
}

/// [`own_group`], with the address space capped (unix) and, on Linux, death with the starting thread.
pub(crate) fn confine(command: &mut Command, memory_bytes: u64) {
    own_group(command);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let cap = libc::rlim_t::try_from(memory_bytes).unwrap_or(libc::RLIM_INFINITY);
        #[cfg(target_os = "linux")]
        let parent = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
        #[allow(unsafe_code, reason = "setrlimit and prctl between fork and exec, as CommandExt::pre_exec requires")]
        // SAFETY: only async-signal-safe calls on the child's own state.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit { rlim_cur: cap, rlim_max: libc::RLIM_INFINITY };
                libc::setrlimit(libc::RLIMIT_AS, &limit);
                #[cfg(target_os = "linux")]
                {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                    // The parent died before the request: nobody waits.
                    if libc::getppid() != parent {
                        return Err(std::io::ErrorKind::BrokenPipe.into());
                    }
                }
                Ok(())
            });
        }
    }
    let _ = memory_bytes;
}

/// Kills the process group that the unreaped `child` leads (elsewhere the child alone).
pub(crate) fn kill_group(child: &mut Child) {
    #[cfg(target_os = "linux")]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        #[allow(unsafe_code, reason = "kill(2) on a group this process created")]
        // SAFETY: plain integers; the group is the unreaped child's own.
        unsafe {
            libc::kill(-pid, libc::SIGKILL)
        };
    }
    let _ = child.kill();
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum Stopped {
    #[error("could not be started: {0}")]
    Start(std::io::Error),
    /// It ran past the time limit, and was killed with its process group.
    #[error(
        "took longer than {} s, the time limit of every tool and worker ({}), and was stopped",
        .0.seconds(),
        TIMEOUT_VAR
    )]
    OverTime(Limits),
    /// It exited, but a process it started outside its group kept its output open past the limit.
    #[error(
        "exited, but a process it started (outside its process group) kept its output open past {} s, the time \
         limit of every tool and worker ({}), and its output was not read (look for a leftover process of the tool)",
        .0.seconds(),
        TIMEOUT_VAR
    )]
    OutputHeld(Limits),
}

/// How often [`run`] looks whether a tool ended, at first and at most.
const POLL: Duration = Duration::from_millis(2);
const MAX_POLL: Duration = Duration::from_millis(10);
/// The least time [`run`] gives a tool's output to arrive once it exited.
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// Runs `command` under `limits` ([`confine`]), writing `input` to its stdin; its output.
pub(crate) fn run(command: &mut Command, input: Option<Vec<u8>>, limits: Limits) -> Result<Output, Stopped> {
    confine(command, limits.memory_bytes);
    let stdin = if input.is_some() { Stdio::piped() } else { Stdio::null() };
    let mut child =
        command.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(Stopped::Start)?;
    let deadline = Instant::now() + limits.time;
    // Fed and drained from threads, so that no full pipe blocks.
    if let Some((mut pipe, input)) = child.stdin.take().zip(input) {
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let (sender, output) = std::sync::mpsc::channel();
    let drain = |pipe: Option<Box<dyn Read + Send>>, stream: usize| {
        let sender = sender.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            let _ = sender.send((stream, bytes));
        });
    };
    drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>), 0);
    drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>), 1);
    drop(sender);
    let mut pause = POLL;
    let status = loop {
        match exited(&mut child) {
            Ok(true) => {
                // What is left of its group is a stray holding the pipes.
                kill_group(&mut child);
                break child.wait().map_err(Stopped::Start)?;
            }
            Ok(false) if Instant::now() >= deadline => {
                kill_group(&mut child);
                let _ = child.wait();
                return Err(Stopped::OverTime(limits));
            }
            Ok(false) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(MAX_POLL);
            }
            Err(e) => {
                kill_group(&mut child);
                let _ = child.wait();
                return Err(Stopped::Start(e));
            }
        }
    };
    let until = deadline.max(Instant::now() + DRAIN_GRACE);
    let mut streams = [Vec::new(), Vec::new()];
    for _ in 0..2 {
        match output.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok((stream, bytes)) => streams[stream] = bytes,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return Err(Stopped::OutputHeld(limits)),
        }
    }
    let [stdout, stderr] = streams;
    Ok(Output { status, stdout, stderr })
}

/// Whether `child` has exited; on Linux it is left unreaped (`WNOWAIT`), for [`kill_group`].
fn exited(child: &mut Child) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        let pid = libc::id_t::try_from(child.id()).map_err(std::io::Error::other)?;
        #[allow(unsafe_code, reason = "waitid(2) with WNOWAIT, which std does not offer")]
        // SAFETY: an all-zero siginfo_t is a valid plain C struct; waitid writes only into `info`, which outlives
        // the call; once it returned 0, si_pid is filled (0 if the child runs on).
        let pid = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            if libc::waitid(libc::P_PID, pid, &raw mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            info.si_pid()
        };
        Ok(pid != 0)
    }
    #[cfg(not(target_os = "linux"))]
    child.try_wait().map(|status| status.is_some())
}

/// Finds a tool: the configured path, else `from_env`, else on `PATH`.
pub(crate) fn find(configured: Option<&Path>, from_env: Option<OsString>, name: &str) -> Option<PathBuf> {
    if let Some(path) = configured {
        return Some(path.to_owned());
    }
    if let Some(path) = from_env.filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let name = if cfg!(windows) { format!("{name}.exe") } else { name.to_owned() };
    crate::env::var_os("PATH").iter().flat_map(std::env::split_paths).map(|dir| dir.join(&name)).find(|c| c.is_file())
}

/// The first line `tool <version_arg>` prints (stdout, else stderr).
pub(crate) fn version(tool: &Path, version_arg: &str) -> String {
    let Ok(out) = run(Command::new(tool).arg(version_arg), None, Limits::from_env()) else {
        return String::new();
    };
    let first_line = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes).lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default().to_owned()
    };
    let stdout = first_line(&out.stdout);
    if stdout.is_empty() { first_line(&out.stderr) } else { stdout }
}

/// [`version`], remembered in the local cache by the tool's path, size and time.
pub(crate) fn identity(tool: &Path, version_arg: &str, cache: &Cache) -> String {
    let Ok(meta) = std::fs::metadata(tool) else {
        return version(tool, version_arg);
    };
    let mtime =
        meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    let key = KeyBuilder::new("smolv-build tool identity v1")
        .text(&tool.to_string_lossy())
        .field(&meta.len().to_le_bytes())
        .field(&mtime.to_le_bytes())
        .text(version_arg)
        .finish();
    if let Some(version) = cache.get_local(&key).and_then(|body| String::from_utf8(body).ok()) {
        return version;
    }
    let version = version(tool, version_arg);
    if !version.is_empty() {
        cache.put_local(&key, version.as_bytes());
    }
    version
}

/// "was killed by signal 11 (SIGSEGV)", "exited with status 101".
pub(crate) fn describe_exit(exit: ExitStatus) -> String {
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
                15 => " (SIGTERM)",
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

/// How a tool that a signal ended died, or `None` if it exited.
pub(crate) fn crashed(exit: ExitStatus) -> Option<String> {
    // No exit code: a signal ended it (unix).
    exit.code().is_none().then(|| describe_exit(exit))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// The limits [`Limits::from_env`] gives on this thread, if set.
        pub(super) static OVERRIDE: Cell<Option<Limits>> = const { Cell::new(None) };
    }

    /// Runs `f` with `limits` in place of the environment's, on this
    /// thread (tests run in parallel threads of one process, so the
    /// environment itself is not theirs to change).
    #[cfg(unix)]
    pub(crate) fn with_limits<T>(limits: Limits, f: impl FnOnce() -> T) -> T {
        let before = OVERRIDE.with(|cell| cell.replace(Some(limits)));
        let result = f();
        OVERRIDE.with(|cell| cell.set(before));
        result
    }

    /// An executable `sh` script named `name` in `dir`, written aside and
    /// renamed into place (an executable open for writing while another
    /// test thread forks could fail with "text file busy").
    #[cfg(unix)]
    pub(crate) fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let (tool, temp) = (dir.join(name), dir.join(format!("{name}.new")));
        std::fs::write(&temp, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&temp, &tool).unwrap();
        tool
    }

    /// Lines in `file`, 0 if it does not exist.
    #[cfg(unix)]
    pub(crate) fn lines(file: &Path) -> usize {
        std::fs::read_to_string(file).map_or(0, |text| text.lines().count())
    }

    /// A stand-in tool that hangs, with a child of its own that keeps
    /// writing to `ticks` until it is killed.
    #[cfg(unix)]
    pub(crate) fn hanging_tool(dir: &Path, name: &str, ticks: &Path) -> PathBuf {
        // The child holds none of the tool's pipes: only the group kill
        // stops it.
        let body = format!(
            "(while :; do echo tick >> '{}'; sleep 0.05; done) </dev/null >/dev/null 2>&1 &\nsleep 60",
            ticks.display()
        );
        script(dir, name, &body)
    }

    /// Asserts that nothing writes to `ticks` any more.
    #[cfg(unix)]
    pub(crate) fn assert_still(ticks: &Path) {
        std::thread::sleep(Duration::from_millis(200));
        let before = lines(ticks);
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(lines(ticks), before, "a child of the stopped process writes on");
    }

    /// A stand-in tool that allocates without end: a string doubled until
    /// it would be 512 MiB (about 1.5 GiB of memory at its peak), then
    /// `survived` on stdout.
    #[cfg(unix)]
    pub(crate) fn allocating_tool(dir: &Path, name: &str) -> PathBuf {
        script(dir, name, "x=a; i=0; while [ $i -lt 29 ]; do x=\"$x$x\"; i=$((i+1)); done; echo survived")
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_hung_tool_is_stopped_at_the_time_limit_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let ticks = dir.path().join("ticks");
        let tool = hanging_tool(dir.path(), "hangs", &ticks);
        // Room for `sh` to start its child, and the child to write, on a
        // loaded machine.
        let limits = Limits { time: Duration::from_secs(2), memory_bytes: 1 << 30 };
        let start = Instant::now();
        let stopped = run(&mut Command::new(&tool), None, limits).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
        assert!(matches!(stopped, Stopped::OverTime(_)), "{stopped:?}");
        assert!(stopped.to_string().contains("took longer than 2 s"), "{stopped}");
        assert!(lines(&ticks) > 0, "the child ran");
        assert_still(&ticks);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_left_holding_the_output_is_stopped_when_the_tool_exits() {
        let dir = tempfile::tempdir().unwrap();
        let tool = script(dir.path(), "leaves", "sleep 30 &\necho hi");
        let limits = Limits { time: Duration::from_secs(60), memory_bytes: 1 << 30 };
        let start = Instant::now();
        let output = run(&mut Command::new(&tool), None, limits).unwrap();
        assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
        assert!(output.status.success(), "{output:?}");
        assert_eq!(output.stdout, b"hi\n");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_that_left_the_group_and_holds_the_output_costs_the_run_not_the_build() {
        let dir = tempfile::tempdir().unwrap();
        // The tool exits only once its child has left the group.
        let left = dir.path().join("left");
        let body = format!(
            "setsid sh -c 'echo > \"$0\"; exec sleep 30' '{0}' &\nwhile [ ! -s '{0}' ]; do sleep 0.02; done\necho hi",
            left.display()
        );
        let tool = script(dir.path(), "escapes", &body);
        // Room for the tool to exit before the limit on a loaded machine.
        let limits = Limits { time: Duration::from_secs(5), memory_bytes: 1 << 30 };
        let start = Instant::now();
        let stopped = run(&mut Command::new(&tool), None, limits).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(15), "{:?}", start.elapsed());
        assert!(matches!(stopped, Stopped::OutputHeld(_)), "{stopped:?}");
        assert!(stopped.to_string().contains("kept its output open past 5 s"), "{stopped}");
    }

    #[cfg(unix)]
    #[test]
    fn a_runaway_tool_hits_the_memory_cap() {
        let dir = tempfile::tempdir().unwrap();
        let tool = allocating_tool(dir.path(), "allocates");
        let limits = Limits { time: Duration::from_secs(120), memory_bytes: 128 << 20 };
        let output = run(&mut Command::new(&tool), None, limits).unwrap();
        assert!(!output.status.success(), "{output:?}");
        assert!(!String::from_utf8_lossy(&output.stdout).contains("survived"), "the cap stopped it");
    }

    #[cfg(unix)]
    #[test]
    fn a_tool_reads_its_input_and_its_output_is_collected() {
        let dir = tempfile::tempdir().unwrap();
        let tool = script(dir.path(), "echoes", "cat; echo said >&2");
        let limits = Limits { time: Duration::from_secs(60), memory_bytes: 1 << 30 };
        let output = run(&mut Command::new(&tool), Some(vec![7; 1 << 20]), limits).unwrap();
        assert!(output.status.success());
        assert_eq!((output.stdout.len(), output.stderr.as_slice()), (1 << 20, &b"said\n"[..]));
        assert!(matches!(run(&mut Command::new(dir.path().join("none")), None, limits), Err(Stopped::Start(_))));
    }

    #[test]
    fn the_configured_path_wins_and_a_missing_tool_is_none() {
        let configured = Path::new("/opt/tools/slangc");
        assert_eq!(find(Some(configured), Some("/elsewhere".into()), "slangc").as_deref(), Some(configured));
        let from_env = Path::new("/elsewhere/slangc");
        assert_eq!(find(None, Some(from_env.into()), "slangc").as_deref(), Some(from_env));
        assert_eq!(find(None, None, "smolv-no-such-tool-anywhere"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_version_printed_on_stderr_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let tool = script(dir.path(), "slangc", "echo '2026.14.1' >&2");
        assert_eq!(version(&tool, "-v"), "2026.14.1");
        assert_eq!(version(Path::new("/no/such/slangc"), "-v"), "");
    }
}
