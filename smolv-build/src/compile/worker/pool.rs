//! The parent's side: start workers, hand each one job at a time, watch its time, replace the dead.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::keeper::{Keeper, Order};
use super::protocol::{self, Request};
use super::{MARKER, MEMORY_VAR, PARENT_VAR, Translation};
use crate::compile::frontend::Compiled;
#[cfg(feature = "optimizer")]
use crate::compile::optimize::{Failure as OptimizeFailure, Once, Recipe};
use crate::compile::tool::{Limits, describe_exit};
use crate::compile::translate::{self, Refused};
use crate::error::Diagnostic;
use crate::settings::Settings;
use crate::source::Job;

const WATCHDOG_TICK: Duration = Duration::from_millis(50);
const STDERR_TAIL: usize = 4096;

/// A pool of workers, started as needed; a kept pool keeps `warm` idle ones started.
pub(crate) struct Workers {
    /// Dropped first: stops the keeper before the idle workers go.
    keeper: Option<Keeper>,
    shared: Arc<Shared>,
}

pub(super) struct Shared {
    exe: PathBuf,
    limits: Limits,
    pub(super) idle: Mutex<Vec<Worker>>,
    /// Idle workers the keeper keeps started: 0 for a build's pool.
    pub(super) warm: usize,
    #[cfg(test)]
    env: Vec<(&'static str, std::ffi::OsString)>,
    #[cfg(test)]
    args: Vec<&'static str>,
}

/// Why a request got no answer.
enum Failure {
    Start(String),
    Ended(Ended),
}

/// How a worker ended on a request, with the end of its stderr.
struct Ended {
    how: String,
    /// Whether the watchdog stopped it at the time limit.
    #[cfg_attr(not(feature = "optimizer"), expect(dead_code, reason = "only an optimization is not tried again"))]
    overran: bool,
}

enum Lost {
    /// A broken pipe: the worker died (or stopped reading) before it.
    NotSent(Box<Worker>),
    OnIt(Ended),
}

pub(super) struct Worker {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<Vec<u8>>>,
    drain: Option<std::thread::JoinHandle<()>>,
    watch: Arc<Watch>,
    stop: Arc<AtomicBool>,
    greeted: Arc<AtomicBool>,
    ended: Arc<AtomicBool>,
}

struct Watch {
    state: Mutex<WatchState>,
    child: Arc<Mutex<Child>>,
}

#[derive(Default)]
struct WatchState {
    deadline: Option<Instant>,
    fired: bool,
}

impl Workers {
    /// A pool that keeps `warm` idle workers started, the first ones now.
    pub(super) fn new(exe: PathBuf, limits: Limits, warm: usize) -> Self {
        Self::start(Shared::new(exe, limits, warm))
    }

    fn start(shared: Shared) -> Self {
        let shared = Arc::new(shared);
        Self { keeper: Keeper::start(&shared), shared }
    }

    /// Compiles `job` in a worker; one that dies or overruns fails the job.
    pub(super) fn compile(&self, job: &Job, source: &str, settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
        let request = Request::Compile { job: job.clone(), settings: settings.clone(), source: source.to_owned() };
        let payload = match serde_json::to_vec(&request) {
            Ok(payload) => payload,
            // A path that is not UTF-8 cannot go into JSON: compile here.
            Err(_) => return crate::compile::frontend::compile(job, source.as_bytes(), settings),
        };
        match self.call(&payload) {
            Ok(response) => protocol::decode_compiled(&response).unwrap_or_else(|| {
                Err(vec![Diagnostic::whole_file(&job.path, "a compiler worker sent a damaged answer; build again")])
            }),
            Err(Failure::Start(why)) => Err(vec![Diagnostic::whole_file(&job.path, why)]),
            Err(Failure::Ended(Ended { how, .. })) => Err(vec![Diagnostic::whole_file(
                &job.path,
                format!(
                    "the shader compiler crashed on this shader: {} {how} in a worker process; the other shaders \
                     were compiled, and nothing was cached for this one. This is a compiler bug (or a shader beyond \
                     the worker's limits: {} s, {} MiB): rewrite the construct it fails on, or use another compiler \
                     version",
                    match job.language {
                        crate::options::Language::Wgsl => "naga",
                        crate::options::Language::Wesl => "wesl or naga",
                        _ => "glslang",
                    },
                    self.shared.limits.seconds(),
                    self.shared.limits.memory_bytes >> 20
                ),
            )]),
        }
    }

    pub(super) fn translate(&self, spirv: &[u32]) -> Translation {
        let no_answer = |step: &str, reason: String| Translation::NoAnswer(Refused::new(step, reason));
        let payload = match serde_json::to_vec(&Request::Translate { spirv: spirv.to_vec() }) {
            Ok(payload) => payload,
            Err(e) => return no_answer("it could not be sent to a naga worker", e.to_string()),
        };
        let damaged = "a naga worker sent a damaged answer (nothing was cached; the next build tries again)";
        match self.call(&payload) {
            Ok(response) => {
                translate::read_answer(&response).map_or_else(|| no_answer(damaged, String::new()), Translation::Answer)
            }
            Err(Failure::Start(why)) => no_answer("no naga worker could start (the next build tries again)", why),
            Err(Failure::Ended(Ended { how, .. })) => no_answer(
                "naga failed translating it to WGSL, in a worker process (nothing was cached, and the next build \
                 tries again; it works as SPIR-V, and if it fails again, simplify the expression naga fails on)",
                format!("naga {how}"),
            ),
        }
    }

    /// Runs `recipe` on `spirv` with the linked SPIRV-Tools in a worker.
    #[cfg(feature = "optimizer")]
    pub(super) fn optimize(&self, spirv: &[u32], recipe: &Recipe) -> Result<Vec<u32>, Once> {
        let payload = serde_json::to_vec(&Request::Optimize { spirv: spirv.to_vec(), recipe: *recipe })
            .map_err(|e| OptimizeFailure::Transient(format!("it could not be sent to a SPIRV-Tools worker: {e}")))?;
        let recipe = recipe.describe();
        match self.call(&payload) {
            Ok(response) => protocol::decode_optimized(&response).unwrap_or_else(|| {
                Err(OptimizeFailure::Transient("a SPIRV-Tools worker sent a damaged answer".to_owned()).into())
            }),
            Err(Failure::Start(why)) => Err(OptimizeFailure::Transient(why).into()),
            Err(Failure::Ended(Ended { how, overran: true })) => {
                Err(Once::OverTime(format!("SPIRV-Tools {recipe} {how}, in a worker process")))
            }
            Err(Failure::Ended(Ended { how, overran: false })) => Err(OptimizeFailure::Transient(format!(
                "SPIRV-Tools {recipe} crashed on it: the worker process running it {how} (a worker's limits are {})",
                self.shared.limits.describe()
            ))
            .into()),
        }
    }

    /// Sends one request to an idle worker (or a new one) and reads its answer; retried once on a broken pipe.
    fn call(&self, payload: &[u8]) -> Result<Vec<u8>, Failure> {
        let mut tries = 0;
        loop {
            tries += 1;
            let worker = self.take_idle().map_or_else(|| self.spawn(), Ok).map_err(Failure::Start)?;
            let worker = self.greet(worker).map_err(Failure::Start)?;
            match self.exchange(worker, payload) {
                Ok((worker, response)) => {
                    self.shared.idle.lock().unwrap_or_else(PoisonError::into_inner).push(worker);
                    return Ok(response);
                }
                Err(Lost::NotSent(_)) if tries < 2 => {}
                Err(Lost::NotSent(mut worker)) => return Err(Failure::Ended(self.how_it_ended(&mut worker))),
                Err(Lost::OnIt(how)) => return Err(Failure::Ended(how)),
            }
        }
    }

    /// An idle worker that still runs; the dead ones are dropped.
    fn take_idle(&self) -> Option<Worker> {
        let mut idle = self.shared.idle.lock().unwrap_or_else(PoisonError::into_inner);
        std::iter::from_fn(|| idle.pop()).find(Worker::is_alive)
    }

    fn exchange(&self, mut worker: Worker, payload: &[u8]) -> Result<(Worker, Vec<u8>), Lost> {
        worker.arm(Instant::now() + self.shared.limits.time);
        let sent = protocol::write_frame(&mut worker.stdin, payload);
        let answer = sent.as_ref().map_err(std::io::Error::kind).map(|()| protocol::read_frame(&mut worker.stdout));
        let overran = worker.watch.disarm();
        match answer {
            Ok(Ok(Some(response))) if !overran => Ok((worker, response)),
            Err(std::io::ErrorKind::BrokenPipe) if !overran => Err(Lost::NotSent(Box::new(worker))),
            _ => Err(Lost::OnIt(self.how_it_ended(&mut worker))),
        }
    }

    /// Starts a worker, on the keeper's thread (see `keeper`).
    fn spawn(&self) -> Result<Worker, String> {
        let child = match &self.keeper {
            Some(keeper) => keeper.spawn(),
            None => self.shared.command().spawn(),
        };
        let child = child.map_err(|e| {
            format!(
                "cannot start a shader compiler worker ({}): {e}; build again, or set SMOLV_WORKERS=0 to compile \
                 in this process",
                self.shared.exe.display()
            )
        })?;
        Worker::watch(child, self.keeper.as_ref().map(|keeper| keeper.orders.clone()))
    }

    /// Waits for a new worker's greeting (at once for one that greeted).
    fn greet(&self, mut worker: Worker) -> Result<Worker, String> {
        if worker.greeted.load(Ordering::Acquire) {
            return Ok(worker);
        }
        worker.arm(Instant::now() + self.shared.limits.time);
        let greeted = protocol::wait_for_hello(&mut worker.stdout);
        // A worker that greeted just as the watchdog fired is lost.
        let greeted = greeted
            .and_then(|()| if worker.watch.disarm() { Err(std::io::ErrorKind::TimedOut.into()) } else { Ok(()) });
        match greeted {
            Ok(()) => {
                worker.greeted.store(true, Ordering::Release);
                Ok(worker)
            }
            Err(_) => Err(format!(
                "a shader compiler worker ({}) did not start: it {}; a program that is no build script must \
                 call `smolv_build::Config::worker_main()` first in `main` (off Linux, a build script too, or it \
                 calls `Config::compile` first); or set SMOLV_WORKERS=0",
                Path::new(self.shared.exe.file_name().unwrap_or(self.shared.exe.as_os_str())).display(),
                self.how_it_ended(&mut worker).how
            )),
        }
    }

    /// How a worker that stopped answering ended; stops it if it still runs.
    fn how_it_ended(&self, worker: &mut Worker) -> Ended {
        let status = wait_briefly(&mut worker.watch.child.lock().unwrap_or_else(PoisonError::into_inner));
        let overran = worker.watch.state.lock().unwrap_or_else(PoisonError::into_inner).fired;
        let how = match status {
            _ if overran => format!(
                "took longer than {} s, the worker's time limit ({}), and was stopped",
                self.shared.limits.seconds(),
                crate::compile::tool::TIMEOUT_VAR
            ),
            Ok(status) => describe_exit(status),
            Err(e) => format!("could not be waited for: {e}"),
        };
        // The worker is gone: the drain thread has the last of its stderr.
        if let Some(drain) = worker.drain.take() {
            let _ = drain.join();
        }
        let stderr = worker.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        Ended { how: format!("{how}{}", stderr_tail(&stderr)), overran }
    }
}

/// The worker's exit status, stopping it if it has not ended within 2 s.
fn wait_briefly(child: &mut Child) -> std::io::Result<ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    crate::compile::tool::kill_group(child);
    child.wait()
}

impl Shared {
    fn new(exe: PathBuf, limits: Limits, warm: usize) -> Self {
        Self {
            exe,
            limits,
            idle: Mutex::new(Vec::new()),
            warm,
            #[cfg(test)]
            env: Vec::new(),
            #[cfg(test)]
            args: Vec::new(),
        }
    }

    pub(super) fn command(&self) -> Command {
        let mut command = Command::new(&self.exe);
        command
            .env(MARKER, protocol::VERSION)
            .env(PARENT_VAR, std::process::id().to_string())
            .env(MEMORY_VAR, self.limits.memory_bytes.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A group of its own (Linux), so that a time-out stops what it started.
        crate::compile::tool::own_group(&mut command);
        #[cfg(test)]
        command.envs(self.env.iter().map(|(name, value)| (name, value))).args(&self.args);
        command
    }
}

impl Worker {
    /// Watches a new worker: a thread drains its stderr, a watchdog stops it past a request's deadline.
    pub(super) fn watch(mut child: Child, keeper: Option<Sender<Order>>) -> Result<Self, String> {
        let (Some(stdin), Some(stdout), Some(mut stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("a shader compiler worker started without its pipes".into());
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (greeted, ended) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
        let (tail, was_greeted, has_ended) = (Arc::clone(&stderr), Arc::clone(&greeted), Arc::clone(&ended));
        // Passes the worker's stderr on to ours, keeping its end.
        let drain = std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = stderr_pipe.read(&mut buffer) {
                let _ = std::io::Write::write_all(&mut std::io::stderr(), &buffer[..n]);
                let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
                tail.extend_from_slice(&buffer[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
            has_ended.store(true, Ordering::Release);
            if let Some(keeper) = keeper.filter(|_| was_greeted.load(Ordering::Acquire)) {
                let _ = keeper.send(Order::TopUp);
            }
        });
        let watch = Arc::new(Watch { state: Mutex::default(), child: Arc::new(Mutex::new(child)) });
        let stop = Arc::new(AtomicBool::new(false));
        let (watched, stopped) = (Arc::clone(&watch), Arc::clone(&stop));
        // Polls: a wake-up per job would cost more than the job's round trip.
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Acquire) {
                std::thread::sleep(WATCHDOG_TICK);
                if watched.fire_if_due() {
                    return;
                }
            }
        });
        let stdout = BufReader::new(stdout);
        Ok(Worker { stdin, stdout, stderr, drain: Some(drain), watch, stop, greeted, ended })
    }

    pub(super) fn is_alive(&self) -> bool {
        !self.ended.load(Ordering::Acquire)
            && matches!(self.watch.child.lock().unwrap_or_else(PoisonError::into_inner).try_wait(), Ok(None))
    }

    fn arm(&self, deadline: Instant) {
        self.watch.state.lock().unwrap_or_else(PoisonError::into_inner).deadline = Some(deadline);
    }
}

impl Watch {
    /// Ends the job's deadline; whether the watchdog stopped the worker.
    fn disarm(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.deadline = None;
        state.fired
    }

    /// Stops the worker and its group if its job is past its deadline (under [`Watch::disarm`]'s lock).
    fn fire_if_due(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.deadline.is_none_or(|at| Instant::now() < at) {
            return false;
        }
        #[cfg(test)]
        std::thread::sleep(tests::WATCHDOG_PAUSE.with(std::cell::Cell::get));
        state.fired = true;
        // Not yet reaped: the group's id is still the worker's.
        crate::compile::tool::kill_group(&mut self.child.lock().unwrap_or_else(PoisonError::into_inner));
        true
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Closing its stdin ends an idle worker; the kill makes sure of it.
        let mut child = self.watch.child.lock().unwrap_or_else(PoisonError::into_inner);
        if let Ok(None) = child.try_wait() {
            crate::compile::tool::kill_group(&mut child);
        }
        let _ = child.wait();
    }
}

/// `; its stderr ends: …` with the worker's last 3 stderr lines, or nothing.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
    if tail.is_empty() { String::new() } else { format!("; its stderr ends: {tail}") }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// How long the watchdog on this thread waits between finding a
        /// job past its deadline and stopping the worker.
        pub(super) static WATCHDOG_PAUSE: Cell<Duration> = const { Cell::new(Duration::ZERO) };
    }

    #[test]
    fn stderr_tails_keep_the_last_lines() {
        assert_eq!(stderr_tail(b"a\n\nb\nc\nd\n"), "; its stderr ends: b | c | d");
        assert_eq!(stderr_tail(b""), "");
    }

    #[cfg(unix)]
    #[test]
    fn a_program_that_is_no_worker_is_reported_and_never_hangs() {
        // `true` exits at once without greeting.
        let workers = Workers::new("true".into(), Limits { time: Duration::from_secs(5), memory_bytes: 1 << 30 }, 0);
        let job = crate::compile::job::tests::fragment_job("a.frag");
        let settings = crate::compile::job::tests::settings();
        let errors = workers.compile(&job, "#version 450\nvoid main() {}\n", &settings).unwrap_err();
        assert!(errors[0].message.contains("did not start: it exited with status 0"), "{}", errors[0].message);
    }

    #[cfg(unix)]
    #[test]
    fn the_watchdog_never_stops_a_worker_it_reported_as_running() {
        let mut sleeper = Command::new("sleep");
        sleeper.arg("30");
        std::os::unix::process::CommandExt::process_group(&mut sleeper, 0);
        let child = Arc::new(Mutex::new(sleeper.spawn().unwrap()));
        let state = WatchState { deadline: Some(Instant::now()), fired: false };
        let watch = Arc::new(Watch { state: Mutex::new(state), child });
        // The watchdog finds the job past its deadline, and takes its time
        // to stop the worker...
        let watchdog = {
            let watch = Arc::clone(&watch);
            std::thread::spawn(move || {
                WATCHDOG_PAUSE.with(|pause| pause.set(Duration::from_millis(400)));
                watch.fire_if_due()
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        // ... while the answer comes, and the exchange disarms it.
        let fired = watch.disarm();
        assert_eq!(watchdog.join().unwrap(), fired, "disarm says what the watchdog did");
        let mut child = watch.child.lock().unwrap();
        if fired {
            // The kill was sent under the lock; the end follows.
            assert!(!child.wait().unwrap().success());
        } else {
            std::thread::sleep(Duration::from_millis(600));
            assert!(child.try_wait().unwrap().is_none(), "the watchdog killed a worker it reported as running");
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Workers that are this test binary: started with a build script's
    /// variables, it serves before libtest's `main` (`enter`), as a build
    /// script's worker does.
    #[cfg(all(target_os = "linux", any(feature = "glsl", feature = "optimizer")))]
    pub(in crate::compile::worker) fn this_test_binary(
        time: Duration,
        hooks: &[(&'static str, &std::path::Path)],
    ) -> Workers {
        pool_of_this_test_binary(time, hooks, 0)
    }

    /// [`this_test_binary`], keeping `warm` idle workers started.
    #[cfg(all(target_os = "linux", any(feature = "glsl", feature = "optimizer")))]
    fn pool_of_this_test_binary(time: Duration, hooks: &[(&'static str, &std::path::Path)], warm: usize) -> Workers {
        let exe = super::super::this_program().unwrap();
        let mut shared = Shared::new(exe, Limits { time, memory_bytes: 4 << 30 }, warm);
        let build_script = [("OUT_DIR", "/nonexistent"), ("TARGET", "test"), ("HOST", "test"), ("NUM_JOBS", "1")];
        shared.env = build_script.iter().map(|&(name, value)| (name, std::ffi::OsString::from(value))).collect();
        shared.env.extend(hooks.iter().map(|&(name, value)| (name, value.as_os_str().to_owned())));
        // Should the worker not serve before `main`, libtest runs no test
        // in it (not this one again, and so on), and it never greets.
        shared.args = vec!["--exact", "no test has this name"];
        Workers::start(shared)
    }

    #[cfg(all(target_os = "linux", feature = "glsl"))]
    fn compile_a_frag(workers: &Workers) -> Result<Compiled, Vec<Diagnostic>> {
        let job = crate::compile::job::tests::fragment_job("a.frag");
        let settings = crate::compile::job::tests::settings();
        let source = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n";
        workers.compile(&job, source, &settings)
    }

    #[cfg(all(target_os = "linux", feature = "glsl"))]
    #[test]
    fn an_idle_worker_that_died_is_never_handed_out() {
        let workers = this_test_binary(Duration::from_secs(60), &[]);
        compile_a_frag(&workers).unwrap();
        let pid = workers.shared.idle.lock().unwrap()[0].watch.child.lock().unwrap().id();
        let pid = libc::pid_t::try_from(pid).unwrap();
        // SAFETY: a plain signal to the worker this test started.
        #[allow(unsafe_code, reason = "kill(2) on the test's own worker")]
        unsafe {
            libc::kill(pid, libc::SIGKILL)
        };
        let state = || std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let start = Instant::now();
        while !state().contains(") Z ") && start.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(workers.take_idle().is_none(), "the dead worker was handed out");
        compile_a_frag(&workers).expect("a new worker compiles it");
    }

    /// The process id of the pool's only idle worker, once it has one
    /// that runs and has greeted (at most 60 s).
    #[cfg(all(target_os = "linux", feature = "glsl", debug_assertions))]
    fn idle_worker_once_started(workers: &Workers, started: &std::path::Path, starts: usize) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            {
                let idle = workers.shared.idle.lock().unwrap();
                if let [worker] = &idle[..]
                    && worker.is_alive()
                    && crate::compile::tool::tests::lines(started) == starts
                {
                    return worker.watch.child.lock().unwrap().id();
                }
            }
            assert!(Instant::now() < deadline, "no idle worker started in the background");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    // The test hooks exist in debug builds only.
    #[cfg(all(target_os = "linux", feature = "glsl", debug_assertions))]
    #[test]
    fn a_worker_outlives_the_thread_whose_request_started_it() {
        let dir = tempfile::tempdir().unwrap();
        let started = dir.path().join("started");
        let workers = this_test_binary(Duration::from_secs(60), &[(super::super::TEST_STARTED_VAR, &started)]);
        // A short-lived thread asks first, as a build's job thread or a
        // caller's own thread does, and ends.
        std::thread::scope(|scope| scope.spawn(|| compile_a_frag(&workers).unwrap()).join().unwrap());
        let pid = workers.shared.idle.lock().unwrap()[0].watch.child.lock().unwrap().id();
        // Time for a death signal sent when that thread ended to land.
        std::thread::sleep(Duration::from_millis(300));
        compile_a_frag(&workers).expect("the same worker compiles again");
        assert_eq!(crate::compile::tool::tests::lines(&started), 1, "no second worker was started");
        assert_eq!(workers.shared.idle.lock().unwrap()[0].watch.child.lock().unwrap().id(), pid);
    }

    // The test hooks exist in debug builds only.
    #[cfg(all(target_os = "linux", feature = "glsl", debug_assertions))]
    #[test]
    fn a_kept_pool_replaces_a_worker_that_died_in_the_background() {
        let dir = tempfile::tempdir().unwrap();
        let started = dir.path().join("started");
        let crash = std::path::PathBuf::from("crash.frag");
        let workers = pool_of_this_test_binary(
            Duration::from_secs(60),
            &[(super::super::TEST_STARTED_VAR, &started), ("SMOLV_WORKER_TEST_CRASH", &crash)],
            1,
        );
        // The first worker starts with the pool, before any request.
        let first = idle_worker_once_started(&workers, &started, 1);
        // Two edits, one worker.
        compile_a_frag(&workers).unwrap();
        compile_a_frag(&workers).unwrap();
        assert_eq!(idle_worker_once_started(&workers, &started, 1), first, "both compiles used the first worker");

        // A compiler crash fails that shader alone...
        let job = crate::compile::job::tests::fragment_job("crash.frag");
        let settings = crate::compile::job::tests::settings();
        let errors = workers.compile(&job, "#version 450\nvoid main() {}\n", &settings).unwrap_err();
        assert!(errors[0].message.contains("SIGSEGV"), "{}", errors[0].message);
        // ... and a new worker is started in the background, which the
        // next shader finds ready: no start on its way.
        let second = idle_worker_once_started(&workers, &started, 2);
        assert_ne!(second, first);
        compile_a_frag(&workers).expect("the replacement compiles the next shader");
        assert_eq!(crate::compile::tool::tests::lines(&started), 2);

        // An idle worker killed from outside is replaced the same way.
        let pid = libc::pid_t::try_from(second).unwrap();
        // SAFETY: a plain signal to the worker this test started.
        #[allow(unsafe_code, reason = "kill(2) on the test's own worker")]
        unsafe {
            libc::kill(pid, libc::SIGKILL)
        };
        let third = idle_worker_once_started(&workers, &started, 3);
        assert_ne!(third, second);
        compile_a_frag(&workers).expect("the replacement compiles the next shader");
        assert_eq!(crate::compile::tool::tests::lines(&started), 3);
    }

    // The test hooks exist in debug builds only.
    #[cfg(all(target_os = "linux", feature = "glsl", debug_assertions))]
    #[test]
    fn a_request_that_meets_a_broken_pipe_goes_to_another_worker() {
        let dir = tempfile::tempdir().unwrap();
        let started = dir.path().join("started");
        // Each worker stops reading after its first answer, but lives on.
        let deaf = dir.path().join("deaf");
        let workers = this_test_binary(
            Duration::from_secs(60),
            &[(super::super::TEST_DEAF_VAR, &deaf), (super::super::TEST_STARTED_VAR, &started)],
        );
        compile_a_frag(&workers).unwrap();
        compile_a_frag(&workers).expect("sent again, to a new worker");
        assert_eq!(crate::compile::tool::tests::lines(&started), 2);
    }

    // The test hooks exist in debug builds only.
    #[cfg(all(target_os = "linux", feature = "glsl", debug_assertions))]
    #[test]
    fn a_time_out_stops_what_the_worker_started_too() {
        let dir = tempfile::tempdir().unwrap();
        let ticks = dir.path().join("ticks");
        let delay = std::path::PathBuf::from("a.frag=60000");
        let workers = this_test_binary(
            // Also the greeting's limit: room to start this debug binary
            // and glslang on a loaded machine.
            Duration::from_secs(8),
            &[(super::super::TEST_DELAY_VAR, &delay), (super::super::TEST_GRANDCHILD_VAR, &ticks)],
        );
        let errors = compile_a_frag(&workers).unwrap_err();
        assert!(errors[0].message.contains("took longer than 8 s"), "{}", errors[0].message);
        assert!(crate::compile::tool::tests::lines(&ticks) > 0, "the worker's child ran");
        crate::compile::tool::tests::assert_still(&ticks);
    }

    #[cfg(all(target_os = "linux", feature = "optimizer"))]
    #[test]
    fn a_worker_optimizes_as_this_process_would() {
        use crate::compile::optimize::{Recipe, linked};
        use crate::options::{Optimization, TargetEnv};
        let workers = this_test_binary(Duration::from_secs(60), &[]);
        let module = crate::compile::optimize::tests::corpus_module("dota2/1021831.spv");
        let recipe = Recipe { level: Optimization::Size, env: TargetEnv::Vulkan1_0, legalize: false };
        let optimized = workers.optimize(&module, &recipe).unwrap();
        assert!(optimized.len() < module.len());
        assert_eq!(Ok(optimized), linked::optimize(&module, &recipe));
        // A verdict comes back as one.
        let refused = workers.optimize(&[0x0723_0203, 0x0001_0000, 0, 1, 0, 7], &recipe);
        assert!(matches!(refused, Err(Once::Failed(OptimizeFailure::Refused(_)))), "{refused:?}");
    }

    // The test hooks exist in debug builds only.
    #[cfg(all(target_os = "linux", feature = "optimizer", feature = "glsl", debug_assertions))]
    #[test]
    fn an_optimizer_crash_ends_the_worker_and_is_transient() {
        use crate::compile::optimize::Recipe;
        use crate::options::{Optimization, TargetEnv};
        let abort = std::path::PathBuf::from("optimize");
        let workers = this_test_binary(Duration::from_secs(60), &[(super::super::TEST_ABORT_VAR, &abort)]);
        let recipe = Recipe { level: Optimization::Size, env: TargetEnv::Vulkan1_0, legalize: false };
        let failure = workers.optimize(&smolv_format::doc_example_module(), &recipe);
        assert!(
            matches!(&failure, Err(Once::Failed(OptimizeFailure::Transient(why))) if why.contains("SIGABRT")),
            "{failure:?}"
        );
        compile_a_frag(&workers).expect("a new worker still compiles");
    }

    // The test hooks exist in debug builds only.
    #[cfg(all(target_os = "linux", feature = "optimizer", debug_assertions))]
    #[test]
    fn an_optimization_past_the_time_limit_is_stopped_and_not_tried_again() {
        use crate::compile::optimize::Recipe;
        use crate::options::{Optimization, TargetEnv};
        let delay = std::path::PathBuf::from("optimize=60000");
        // Also the greeting's limit: room to start this debug binary on a
        // loaded machine.
        let workers = this_test_binary(Duration::from_secs(8), &[(super::super::TEST_DELAY_VAR, &delay)]);
        let recipe = Recipe { level: Optimization::Size, env: TargetEnv::Vulkan1_0, legalize: false };
        let failure = workers.optimize(&smolv_format::doc_example_module(), &recipe);
        assert!(
            matches!(&failure, Err(Once::OverTime(why)) if why.contains("-Os took longer than 8 s")),
            "{failure:?}"
        );
    }
}
