//! External tools the build runs (`spirv-opt`, `slangc`, `glslc`): finding
//! them, naming their version for cache keys without spawning them on every
//! warm build, and running them under the limits every child process of
//! the build has ([`Limits`]: the compiler workers' too).
//!
//! A tool runs with its address space capped (`RLIMIT_AS`, unix) and, on
//! Linux, in a process group of its own ([`own_group`]); past the time
//! limit the whole group is killed, so a tool's own children stop writing
//! too. Once a tool exits, the children it left in its group are killed, and its output is waited
//! for no longer than the time limit (a child that left the group may hold
//! the pipes). A hung or runaway tool so costs the shader it was working
//! on, never the build.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use crate::cache::{Cache, KeyBuilder};

/// Seconds a worker or a tool may spend on one shader (default
/// [`DEFAULT_TIME_LIMIT`]).
pub(crate) const TIMEOUT_VAR: &str = "SMOLV_WORKER_TIMEOUT";
/// The address-space cap of a worker or a tool, in MiB (default
/// [`DEFAULT_MEMORY_MIB`]).
pub(crate) const MEMORY_MIB_VAR: &str = "SMOLV_WORKER_MEMORY_MB";
/// Long enough for any real shader, short enough that a hung compiler is
/// noticed.
const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(120);
/// glslang, naga, slangc and spirv-opt need tens of MiB for large shaders;
/// this leaves room for a program's own mappings, and stops a runaway
/// allocation long before it takes the machine's memory.
const DEFAULT_MEMORY_MIB: u64 = 4096;

/// The limits of every child process the build starts: each compiler
/// worker, per request, and each run of an external tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) time: Duration,
    pub(crate) memory_bytes: u64,
}

impl Limits {
    /// From `SMOLV_WORKER_TIMEOUT` (seconds) and `SMOLV_WORKER_MEMORY_MB`,
    /// else the defaults; an unreadable value is ignored.
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

    /// The time limit in seconds, as every message writes it ("120",
    /// "0.5"): one spelling for the workers and the tools.
    pub(crate) fn seconds(&self) -> f64 {
        self.time.as_secs_f64()
    }

    /// "120 s and 4096 MiB (SMOLV_WORKER_TIMEOUT, SMOLV_WORKER_MEMORY_MB)",
    /// for messages.
    pub(crate) fn describe(&self) -> String {
        format!("{} s and {} MiB ({TIMEOUT_VAR}, {MEMORY_MIB_VAR})", self.seconds(), self.memory_bytes >> 20)
    }
}

/// Makes `command` start in a process group of its own on Linux, so that
/// [`kill_group`] reaches its children too. There it also dies with the
/// thread that starts it (`PR_SET_PDEATHSIG`, [`confine`] and the
/// workers' `serve`): out of the build's process group, a killed build's
/// Ctrl-C or `kill -- -PGID` no longer reaches it, and the death signal
/// stands in for them. Elsewhere, with no death signal, it stays in the
/// build's group, which Ctrl-C reaches, and a time-out kills it alone.
pub(crate) fn own_group(command: &mut Command) {
    #[cfg(target_os = "linux")]
    std::os::unix::process::CommandExt::process_group(command, 0);
    let _ = command;
}

/// Makes `command` start in a process group of its own ([`own_group`],
/// Linux) with its address space capped at `memory_bytes` (unix; elsewhere
/// it runs uncapped). On Linux it also dies with the thread that starts it
/// ([`run`] waits for it on that thread).
pub(crate) fn confine(command: &mut Command, memory_bytes: u64) {
    own_group(command);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let cap = libc::rlim_t::try_from(memory_bytes).unwrap_or(libc::RLIM_INFINITY);
        #[cfg(target_os = "linux")]
        let parent = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
        #[allow(unsafe_code, reason = "setrlimit and prctl between fork and exec, as CommandExt::pre_exec requires")]
        // SAFETY: the closure only makes system calls that are
        // async-signal-safe (setrlimit, prctl, getppid) on the child's own
        // state, and touches no memory of the parent's but the copied
        // values.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit { rlim_cur: cap, rlim_max: libc::RLIM_INFINITY };
                // A failure leaves the tool uncapped, as on other systems.
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

/// Kills the process group that `child` leads ([`own_group`]): the child
/// and whatever it started. Call it only while `child` is not yet reaped:
/// the zombie keeps its process id, and so the group's, from being reused.
/// Elsewhere than on Linux, where `child` leads no group, kills the child
/// alone.
pub(crate) fn kill_group(child: &mut Child) {
    #[cfg(target_os = "linux")]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        #[allow(unsafe_code, reason = "kill(2) on a group this process created")]
        // SAFETY: kill takes plain integers; the group is the child's own,
        // which exists as long as the child is not reaped.
        unsafe {
            libc::kill(-pid, libc::SIGKILL)
        };
    }
    let _ = child.kill();
}

/// Why a tool gave no output.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// It could not be started.
    Start(std::io::Error),
    /// It ran past the time limit, and was killed with its process group;
    /// or it exited, but a process it started kept its output open past
    /// the limit.
    OverTime(OverTime),
}

/// What ran past the time limit ([`Stopped::OverTime`]).
#[derive(Debug)]
pub(crate) struct OverTime {
    limits: Limits,
    /// The tool had exited: what held its output was a process it started,
    /// outside its process group.
    output_held: bool,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Start(e) => write!(f, "could not be started: {e}"),
            Self::OverTime(OverTime { limits, output_held: false }) => write!(
                f,
                "took longer than {} s, the time limit of every tool and worker ({TIMEOUT_VAR}), and was stopped",
                limits.seconds()
            ),
            Self::OverTime(OverTime { limits, output_held: true }) => write!(
                f,
                "exited, but a process it started (outside its process group) kept its output open past {} s, the \
                 time limit of every tool and worker ({TIMEOUT_VAR}), and its output was not read (look for a \
                 leftover process of the tool)",
                limits.seconds()
            ),
        }
    }
}

/// How often [`run`] looks whether a tool ended. Polled rather than
/// waited for, so that the time-out kills a child that is not yet reaped
/// (see [`kill_group`]); a tool runs for milliseconds at least.
const POLL: Duration = Duration::from_millis(2);
/// The longest pause between two looks: what a tool's end can cost.
const MAX_POLL: Duration = Duration::from_millis(10);

/// The least time [`run`] gives a tool's output to arrive once the tool
/// has exited, even past the time limit: what was written before the exit
/// is still in the pipes.
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// Runs `command` under `limits` ([`confine`]), writing `input` to its
/// standard input (none: it reads nothing), and collects its output. Past
/// the time limit the tool and its children are killed. Once the tool has
/// exited, so are the children it left behind (Linux, [`confine`]), and
/// its output is waited for no longer than the time limit: a child that
/// escaped its group and holds the pipes costs that run, never the build.
pub(crate) fn run(command: &mut Command, input: Option<Vec<u8>>, limits: Limits) -> Result<Output, Stopped> {
    confine(command, limits.memory_bytes);
    let stdin = if input.is_some() { Stdio::piped() } else { Stdio::null() };
    let mut child =
        command.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(Stopped::Start)?;
    let deadline = Instant::now() + limits.time;
    // Fed and drained from threads, so that no full pipe blocks the tool
    // or this loop. The feeder is never waited for: it ends when the last
    // holder of the pipe does, which need not be before `run` returns.
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
                // The tool is done: whatever of its group is left is a
                // stray, and would hold the pipes.
                kill_group(&mut child);
                break child.wait().map_err(Stopped::Start)?;
            }
            Ok(false) if Instant::now() >= deadline => {
                kill_group(&mut child);
                let _ = child.wait();
                return Err(Stopped::OverTime(OverTime { limits, output_held: false }));
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
            // A reader that panicked: its stream is empty.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            // The reader threads end with the last holder of the pipes.
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                return Err(Stopped::OverTime(OverTime { limits, output_held: true }));
            }
        }
    }
    let [stdout, stderr] = streams;
    Ok(Output { status, stdout, stderr })
}

/// Whether `child` has exited. On Linux it is left unreaped (`WNOWAIT`),
/// so that [`kill_group`] can still reach its group's strays safely;
/// elsewhere (no group of its own, [`confine`]) it is reaped, and
/// `Child::wait` then gives the status it read.
fn exited(child: &mut Child) -> std::io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        let pid = libc::id_t::try_from(child.id()).map_err(std::io::Error::other)?;
        // SAFETY: an all-zero siginfo_t is a valid value of that plain C
        // struct, which waitid fills.
        #[allow(unsafe_code, reason = "waitid(2) with WNOWAIT, which std does not offer")]
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid writes only into `info`, which outlives the call;
        // WNOWAIT leaves the child to `Child::wait`.
        #[allow(unsafe_code, reason = "waitid(2) with WNOWAIT, which std does not offer")]
        let result =
            unsafe { libc::waitid(libc::P_PID, pid, &raw mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT) };
        if result != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: waitid filled `info`; si_pid is 0 if the child runs on.
        #[allow(unsafe_code, reason = "reading the union field that waitid(2) filled")]
        let pid = unsafe { info.si_pid() };
        Ok(pid != 0)
    }
    #[cfg(not(target_os = "linux"))]
    child.try_wait().map(|status| status.is_some())
}

/// Finds a tool: the configured path, else `from_env` (the value of its
/// variable), else `name` on `PATH`.
pub(crate) fn find(configured: Option<&Path>, from_env: Option<OsString>, name: &str) -> Option<PathBuf> {
    if let Some(path) = configured {
        return Some(path.to_owned());
    }
    if let Some(path) = from_env.filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let name = if cfg!(windows) { format!("{name}.exe") } else { name.to_owned() };
    crate::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).map(|dir| dir.join(&name)).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|candidate| candidate.is_file())
}

/// The first line `tool <version_arg>` prints, on stdout or else on
/// stderr (`slangc -v` writes there); empty if it cannot be run.
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

/// [`version`], for cache keys, remembered in the cache by the tool's
/// path, size and modification time: a warm build spawns nothing, and a
/// replaced binary is asked again. A version that cannot be read is not
/// remembered.
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
    // Local only: the entry describes this machine's binary, never shared.
    if let Some(version) = cache.get_local(&key).and_then(|body| String::from_utf8(body).ok()) {
        return version;
    }
    let version = version(tool, version_arg);
    if !version.is_empty() {
        cache.put_local(&key, version.as_bytes());
    }
    version
}

/// "was killed by signal 11 (SIGSEGV)", "exited with status 101": how a
/// child process ended, in words, for every tool smolv-build runs.
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

/// How a tool that a signal ended died ("was killed by signal 11
/// (SIGSEGV)"), or `None` if it exited: a crash is named as such, never
/// taken for the tool's ordinary failure.
pub(crate) fn crashed(exit: ExitStatus) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if exit.signal().is_some() {
            return Some(describe_exit(exit));
        }
    }
    let _ = exit;
    None
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
        assert!(matches!(stopped, Stopped::OverTime(OverTime { output_held: false, .. })), "{stopped:?}");
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
        assert!(matches!(stopped, Stopped::OverTime(OverTime { output_held: true, .. })), "{stopped:?}");
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
