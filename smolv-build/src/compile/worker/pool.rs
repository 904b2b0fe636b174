//! The parent's side: start workers, hand each one job at a time, watch
//! its time, and replace one that died.

use std::io::{BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::protocol::{self, Request};
use super::{Limits, MARKER, MEMORY_VAR, PARENT_VAR, Translation, compiler_name, describe_exe};
use crate::compile::frontend::Compiled;
use crate::compile::tool::describe_exit;
use crate::compile::translate::{self, Refused};
use crate::error::Diagnostic;
use crate::settings::Settings;
use crate::source::Job;

/// How often a worker's watchdog checks its deadline.
const WATCHDOG_TICK: Duration = Duration::from_millis(50);
/// How much of a worker's stderr is kept for a crash's message.
const STDERR_TAIL: usize = 4096;

/// Idle workers of one build, started as needed: never more than the jobs
/// compiling at once, which the build's tokens bound.
pub(crate) struct Workers {
    exe: PathBuf,
    limits: Limits,
    idle: Mutex<Vec<Worker>>,
}

/// Why a request got no answer.
enum Failure {
    /// No worker could start: why.
    Start(String),
    /// The worker died or overran its time: how it ended.
    Ended(String),
}

/// One worker process.
struct Worker {
    child: Arc<Mutex<Child>>,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The thread that drains stderr; it ends when the worker does.
    drain: Option<std::thread::JoinHandle<()>>,
    /// When the job in hand must be done (`None` between jobs), for the
    /// watchdog; `stop` ends the watchdog.
    deadline: Arc<Mutex<Option<Instant>>>,
    stop: Arc<AtomicBool>,
    /// Set by the watchdog when it stopped the worker.
    overran: Arc<AtomicBool>,
}

impl Workers {
    pub(super) fn new(exe: PathBuf, limits: Limits) -> Self {
        Self { exe, limits, idle: Mutex::new(Vec::new()) }
    }

    /// Compiles `job` in a worker. A worker that dies or overruns its
    /// time is replaced, and the job fails with an error that names the
    /// shader and how the worker ended.
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
            Err(Failure::Ended(how)) => Err(vec![Diagnostic::whole_file(&job.path, self.crash_message(job, &how))]),
        }
    }

    /// Translates `spirv` to WGSL in a worker. naga's answer, a WGSL text
    /// or a refusal, is [`Translation::Answer`]; a worker that dies or
    /// overruns is replaced, and the module gets [`Translation::NoAnswer`],
    /// which says how it ended.
    pub(super) fn translate(&self, spirv: &[u32]) -> Translation {
        let no_answer = |step: &str, reason: String| Translation::NoAnswer(Refused::new(step, reason));
        let payload = match serde_json::to_vec(&Request::Translate { spirv: spirv.to_vec() }) {
            Ok(payload) => payload,
            Err(e) => return no_answer("it could not be sent to a naga worker", e.to_string()),
        };
        match self.call(&payload) {
            Ok(response) => translate::read_answer(&response).map_or_else(
                || {
                    no_answer(
                        "a naga worker sent a damaged answer (nothing was cached; the next build tries again)",
                        String::new(),
                    )
                },
                Translation::Answer,
            ),
            Err(Failure::Start(why)) => no_answer("no naga worker could start (the next build tries again)", why),
            Err(Failure::Ended(how)) => no_answer(
                "naga failed translating it to WGSL, in a worker process (nothing was cached, and the next build \
                 tries again; it works as SPIR-V, and if it fails again, simplify the expression naga fails on)",
                format!("naga {how}"),
            ),
        }
    }

    /// Sends one request to an idle worker (or a new one) and reads its
    /// answer; a worker that answered goes back to the idle ones.
    fn call(&self, payload: &[u8]) -> Result<Vec<u8>, Failure> {
        let worker = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let worker = worker.map_or_else(|| self.spawn(), Ok).map_err(Failure::Start)?;
        let (worker, response) = self.exchange(worker, payload).map_err(Failure::Ended)?;
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).push(worker);
        Ok(response)
    }

    /// Sends one request and reads its answer; the worker is lost if it
    /// dies or runs out of time.
    fn exchange(&self, mut worker: Worker, payload: &[u8]) -> Result<(Worker, Vec<u8>), String> {
        worker.arm(Some(Instant::now() + self.limits.time));
        let answer =
            protocol::write_frame(&mut worker.stdin, payload).and_then(|()| protocol::read_frame(&mut worker.stdout));
        worker.arm(None);
        match answer {
            Ok(Some(response)) if !worker.overran.load(Ordering::Acquire) => Ok((worker, response)),
            _ => Err(self.how_it_ended(&mut worker)),
        }
    }

    /// Starts a worker and waits for its greeting.
    fn spawn(&self) -> Result<Worker, String> {
        let mut command = Command::new(&self.exe);
        command
            .env(MARKER, protocol::VERSION)
            .env(PARENT_VAR, std::process::id().to_string())
            .env(MEMORY_VAR, self.limits.memory_bytes.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().map_err(|e| {
            format!(
                "cannot start a shader compiler worker ({}): {e}; build again, or set SMOLV_WORKERS=0 to compile \
                 in this process",
                self.exe.display()
            )
        })?;
        let (Some(stdin), Some(stdout), Some(mut stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("a shader compiler worker started without its pipes".into());
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let tail = Arc::clone(&stderr);
        // Passes the worker's stderr (compiler chatter, which it prints on
        // stdout too) on to this process's stderr, as when the compilers
        // ran here, keeping its end for a crash's message.
        let drain = std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = stderr_pipe.read(&mut buffer) {
                let _ = std::io::Write::write_all(&mut std::io::stderr(), &buffer[..n]);
                let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
                tail.extend_from_slice(&buffer[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL);
                tail.drain(..excess);
            }
        });
        let child = Arc::new(Mutex::new(child));
        let overran = Arc::new(AtomicBool::new(false));
        let deadline = Arc::new(Mutex::new(None::<Instant>));
        let stop = Arc::new(AtomicBool::new(false));
        let (victim, fired, due, stopped) =
            (Arc::clone(&child), Arc::clone(&overran), Arc::clone(&deadline), Arc::clone(&stop));
        // Polls rather than being woken per job: a wake-up of its own for
        // every job would cost more than the job's round trip.
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Acquire) {
                std::thread::sleep(WATCHDOG_TICK);
                let due = *due.lock().unwrap_or_else(PoisonError::into_inner);
                if due.is_some_and(|at| Instant::now() >= at) {
                    fired.store(true, Ordering::Release);
                    let _ = victim.lock().unwrap_or_else(PoisonError::into_inner).kill();
                    return;
                }
            }
        });
        let mut worker = Worker {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            stderr,
            drain: Some(drain),
            deadline,
            stop,
            overran,
        };
        worker.arm(Some(Instant::now() + self.limits.time));
        let greeted = protocol::wait_for_hello(&mut worker.stdout);
        worker.arm(None);
        match greeted {
            Ok(()) => Ok(worker),
            Err(_) => Err(format!(
                "a shader compiler worker ({}) did not start: it {}; if this program does work before \
                 `Config::compile`, call `smolv_build::Config::worker_main()` first in `main`, or set \
                 SMOLV_WORKERS=0",
                describe_exe(&self.exe),
                self.how_it_ended(&mut worker)
            )),
        }
    }

    /// How a worker that stopped answering ended: its exit status or the
    /// time limit, and the end of its stderr. Stops it if it still runs.
    fn how_it_ended(&self, worker: &mut Worker) -> String {
        let status = {
            let mut child = worker.child.lock().unwrap_or_else(PoisonError::into_inner);
            // A worker that closed its pipe but lives on is stopped.
            wait_briefly(&mut child)
        };
        let how = if worker.overran.load(Ordering::Acquire) {
            format!(
                "took longer than {} s, the worker's time limit ({}), and was stopped",
                self.limits.time.as_secs(),
                super::TIMEOUT_VAR
            )
        } else {
            match status {
                Ok(status) => describe_exit(status),
                Err(e) => format!("could not be waited for: {e}"),
            }
        };
        // The worker is gone, so its stderr pipe is closed: the drain
        // thread has the last of it once it ends.
        if let Some(drain) = worker.drain.take() {
            let _ = drain.join();
        }
        let stderr = worker.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        format!("{how}{}", stderr_tail(&stderr))
    }

    /// The error of a job whose worker died or overran.
    fn crash_message(&self, job: &Job, how: &str) -> String {
        format!(
            "the shader compiler crashed on this shader: {} {how} in a worker process; the other shaders were \
             compiled, and nothing was cached for this one. This is a compiler bug (or a shader beyond the \
             worker's limits: {} s, {} MiB): rewrite the construct it fails on, or use another compiler version",
            compiler_name(job),
            self.limits.time.as_secs(),
            self.limits.memory_bytes >> 20
        )
    }
}

/// The worker's exit status, stopping it if it has not ended within a
/// moment of closing its pipe.
fn wait_briefly(child: &mut Child) -> std::io::Result<ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    child.wait()
}

impl Worker {
    /// Sets when the job in hand must be done; `None` between jobs.
    fn arm(&self, deadline: Option<Instant>) {
        *self.deadline.lock().unwrap_or_else(PoisonError::into_inner) = deadline;
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // An idle worker is between jobs: closing its stdin ends it, and
        // a kill makes sure of it without waiting.
        let mut child = self.child.lock().unwrap_or_else(PoisonError::into_inner);
        if let Ok(None) = child.try_wait() {
            let _ = child.kill();
        }
        let _ = child.wait();
    }
}

/// `; its stderr ends: …` with the worker's last few stderr lines, or
/// nothing.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
    if tail.is_empty() { String::new() } else { format!("; its stderr ends: {tail}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tails_keep_the_last_lines() {
        assert_eq!(stderr_tail(b"a\n\nb\nc\nd\n"), "; its stderr ends: b | c | d");
        assert_eq!(stderr_tail(b""), "");
    }

    #[cfg(unix)]
    #[test]
    fn a_program_that_is_no_worker_is_reported_and_never_hangs() {
        // `true` exits at once without greeting.
        let workers = Workers::new("true".into(), Limits { time: Duration::from_secs(5), memory_bytes: 1 << 30 });
        let job = crate::compile::job::tests::fragment_job("a.frag");
        let settings = crate::compile::job::tests::settings();
        let errors = workers.compile(&job, "#version 450\nvoid main() {}\n", &settings).unwrap_err();
        assert!(errors[0].message.contains("did not start: it exited with status 0"), "{}", errors[0].message);
    }
}
