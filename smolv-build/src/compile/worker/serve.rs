//! The worker's side: set up, greet, then answer requests until the parent closes the pipe.
#![allow(unsafe_code, reason = "prctl, setrlimit, getppid, dup and dup2 on the worker's own process")]

use std::io::{BufReader, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use super::protocol::{self, Request};
use super::{MARKER, MEMORY_VAR, PARENT_VAR};
use crate::compile::{frontend, translate};

static SERVING: AtomicBool = AtomicBool::new(false);

/// If this process was started as a worker, serves its parent and exits.
pub(crate) fn serve_if_asked() {
    super::enter::retain();
    let Some(version) = crate::env::var_os(MARKER) else { return };
    if SERVING.swap(true, Ordering::AcqRel) {
        loop {
            std::thread::park();
        }
    }
    if version != protocol::VERSION {
        eprintln!(
            "smolv-build: asked to be a worker of protocol {version:?}, but this build speaks version {}",
            protocol::VERSION
        );
        std::process::exit(2);
    }
    std::process::exit(serve())
}

fn serve() -> i32 {
    if !die_with_parent() {
        return 0; // The parent is gone already: nobody to serve.
    }
    cap_memory();
    let Some(mut out) = private_stdout() else {
        eprintln!("smolv-build worker: cannot set up its output pipe");
        return 2;
    };
    if out.write_all(protocol::HELLO).and_then(|()| out.flush()).is_err() {
        return 0;
    }
    #[cfg(debug_assertions)]
    test_hooks::started();
    let mut input = BufReader::new(std::io::stdin().lock());
    loop {
        // The parent closed the pipe (done, or gone).
        let Ok(Some(payload)) = protocol::read_frame(&mut input) else { return 0 };
        let request: Request = match serde_json::from_slice(&payload) {
            Ok(request) => request,
            Err(e) => {
                eprintln!("smolv-build worker: a request it cannot read: {e}");
                return 2;
            }
        };
        #[cfg(debug_assertions)]
        test_hooks::before(&request);
        let response = match &request {
            Request::Compile { job, settings, source } => {
                protocol::encode_compiled(&frontend::compile(job, source.as_bytes(), settings))
            }
            Request::Translate { spirv } => translate::write_answer(&translate::to_wgsl(spirv)),
            #[cfg(feature = "optimizer")]
            Request::Optimize { spirv, recipe } => {
                protocol::encode_optimized(&crate::compile::optimize::linked::optimize(spirv, recipe))
            }
        };
        let Some(response) = response else {
            eprintln!("smolv-build worker: an answer too large to send");
            return 2;
        };
        if protocol::write_frame(&mut out, &response).is_err() {
            return 0;
        }
        #[cfg(debug_assertions)]
        test_hooks::after();
    }
}

/// Asks to die with the parent (Linux); `false` if the parent is gone.
fn die_with_parent() -> bool {
    let expected: Option<u32> = crate::env::var(PARENT_VAR).and_then(|pid| pid.parse().ok());
    #[cfg(target_os = "linux")]
    {
        // SAFETY: changes only this process's own death signal.
        unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) };
    }
    #[cfg(unix)]
    {
        // SAFETY: getppid has no preconditions. (After the prctl, which misses a parent already dead.)
        let parent = unsafe { libc::getppid() };
        if let Some(expected) = expected {
            return u32::try_from(parent).is_ok_and(|parent| parent == expected);
        }
    }
    let _ = expected;
    true
}

fn cap_memory() {
    let Some(bytes) = crate::env::var(MEMORY_VAR).and_then(|b| b.parse::<u64>().ok()) else { return };
    #[cfg(unix)]
    {
        let cap = libc::rlim_t::try_from(bytes).unwrap_or(libc::RLIM_INFINITY);
        let limit = libc::rlimit { rlim_cur: cap, rlim_max: libc::RLIM_INFINITY };
        // SAFETY: changes only this process's limit (uncapped on failure).
        unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    }
    let _ = bytes;
}

/// The pipe to the parent: a private copy of stdout, with descriptor 1 pointed at stderr.
#[cfg(unix)]
fn private_stdout() -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    // Anything buffered goes out before the greeting, and is skipped.
    let _ = std::io::stdout().flush();
    // SAFETY: dup and dup2 on the standard descriptors; the copy is owned by the File alone.
    unsafe {
        let copy = libc::dup(1);
        if copy < 0 || libc::dup2(2, 1) < 0 {
            return None;
        }
        libc::fcntl(copy, libc::F_SETFD, libc::FD_CLOEXEC);
        Some(std::fs::File::from_raw_fd(copy))
    }
}

#[cfg(not(unix))]
fn private_stdout() -> Option<std::io::Stdout> {
    Some(std::io::stdout())
}

#[cfg(debug_assertions)]
mod test_hooks {
    use super::Request;
    use crate::compile::worker::{
        TEST_ABORT_VAR, TEST_DEAF_VAR, TEST_DELAY_VAR, TEST_GRANDCHILD_VAR, TEST_STARTED_VAR,
    };

    pub(super) fn started() {
        if let Some(file) = crate::env::var_os(TEST_STARTED_VAR) {
            let mut log = std::fs::OpenOptions::new().create(true).append(true).open(file).expect("the test's log");
            std::io::Write::write_all(&mut log, format!("{}\n", std::process::id()).as_bytes()).expect("the log");
        }
    }

    /// Before a request: the hooks that the variables in `worker` describe.
    #[allow(clippy::zombie_processes, reason = "the grandchild is meant to outlive the worker, until the group kill")]
    pub(super) fn before(request: &Request) {
        if crate::env::var_os(TEST_DEAF_VAR).is_some() {
            #[cfg(unix)]
            // SAFETY: this process's own stdin, which nothing reads again.
            unsafe {
                libc::close(0)
            };
        }
        if let Some(file) = crate::env::var_os(TEST_GRANDCHILD_VAR) {
            let script = "while :; do echo tick >> \"$0\"; sleep 0.05; done";
            let mut child = std::process::Command::new("sh");
            child.arg("-c").arg(script).arg(file).stdin(std::process::Stdio::null());
            child.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
            child.spawn().expect("the test's grandchild");
        }
        // The delay names a compile by its file's name, an optimization by `optimize`; the abort names the step.
        let abort = crate::env::var_os(TEST_ABORT_VAR);
        let (name, aborts) = match request {
            Request::Compile { job, .. } => (job.path.file_name().map(|file| file.to_string_lossy()), false),
            Request::Translate { .. } => (None, abort.is_some_and(|v| v == "translate")),
            #[cfg(feature = "optimizer")]
            Request::Optimize { .. } => (Some("optimize".into()), abort.is_some_and(|v| v == "optimize")),
        };
        if aborts {
            std::process::abort();
        }
        let delay = crate::env::var(TEST_DELAY_VAR);
        let delay = delay.as_deref().and_then(|v| v.split_once('=')).filter(|&(n, _)| name.as_deref() == Some(n));
        if let Some(Ok(ms)) = delay.map(|(_, ms)| ms.parse::<u64>()) {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
    }

    /// After an answer: with `SMOLV_WORKER_TEST_DEAF`, waits to be killed.
    pub(super) fn after() {
        if crate::env::var_os(TEST_DEAF_VAR).is_some() {
            std::thread::sleep(std::time::Duration::from_secs(600));
        }
    }
}
