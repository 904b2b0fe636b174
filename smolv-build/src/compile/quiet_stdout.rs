//! Keeps compiler chatter off a build script's standard output.
//!
//! glslang runs inside the build script's process (where there are no
//! workers) and on
//! some inputs prints to the process's standard output: its whole built-in
//! prelude after "Unable to parse built-ins", for a `#version 140` compute
//! shader. A build script's standard output is where Cargo reads `cargo:`
//! lines, and C stdio flushes its buffer there at any byte, so a directive
//! printed after it can be glued to the end of a prelude line and lost.
//!
//! While compiles run under a build script, a [`QuietStdout`] points file
//! descriptor 1 at a pipe. A forwarding thread reads it line by line and
//! passes `cargo:` lines (from any thread of the user's build script) on to
//! the real standard output and everything else to stderr, where Cargo
//! shows it when the build fails. The redirect is process-wide, so it is
//! shared: the first guard sets it up, the last one puts standard output
//! back, and a build running beside another in the same process (tests,
//! or two `compile()` calls on two threads) keeps it until both are done.
//! The compilers themselves run in worker processes where they can
//! ([`worker`](crate::compile::worker)), whose standard output is their
//! stderr; this guard covers the ones that still run here.
//!
//! No shader text becomes a directive here. The pipe carries what the
//! process writes to descriptor 1: Rust's `println!` from any thread, and
//! the C stdio of compilers running in the process. Of those, only
//! glslang writes, and only its own built-in prelude, a fixed text; what
//! it says about a shader (an `#error` line, a name, a snippet) comes back
//! from glslang's log as data and reaches Cargo through
//! [`cargo_errors`](crate::output::emit::cargo_errors) or a warning, one
//! `cargo::error=`/`cargo:warning=` line per line of text. Child
//! processes (slangc, spirv-opt, workers) never write to
//! descriptor 1: their output is captured. And a line is passed on only
//! when what follows `cargo:` is a directive's shape (`key=`, or `:key=`,
//! the key in lowercase letters, digits, `-` and `_`), so stray text that
//! merely mentions `cargo:` goes to stderr.
//!
//! A no-op where the platform has no `dup2` (standard output stays as it
//! is).
#![allow(unsafe_code, reason = "fcntl/dup2/fflush on the process's own standard descriptors")]

use std::sync::{Mutex, PoisonError};

/// The shared redirect, while any guard lives.
static REDIRECT: Mutex<Option<redirect::Redirect>> = Mutex::new(None);

/// Standard output filtered as described in the module docs, until every
/// guard is dropped.
pub(crate) struct QuietStdout {
    /// Whether this guard counts as a user of the redirect.
    active: bool,
}

impl QuietStdout {
    /// Starts filtering standard output, or joins the filter already
    /// running. If the redirect cannot be set up, output stays as it is.
    pub(crate) fn begin() -> Self {
        let mut redirect = REDIRECT.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(running) = redirect.as_mut() {
            running.users += 1;
            return Self { active: true };
        }
        *redirect = redirect::Redirect::start();
        Self { active: redirect.is_some() }
    }
}

impl Drop for QuietStdout {
    fn drop(&mut self) {
        if !self.active {
            return;
        }
        let mut redirect = REDIRECT.lock().unwrap_or_else(PoisonError::into_inner);
        let last = redirect.as_mut().is_some_and(|running| {
            running.users -= 1;
            running.users == 0
        });
        if let Some(running) = redirect.take_if(|_| last) {
            running.stop();
        }
    }
}

#[cfg(unix)]
mod redirect {
    use std::fs::File;
    use std::io::{BufRead, BufReader, PipeReader, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::thread::JoinHandle;

    /// Lines that belong on the real standard output.
    const CARGO_PREFIX: &[u8] = b"cargo:";

    pub(super) struct Redirect {
        pub(super) users: usize,
        /// The real standard output.
        stdout: File,
        forwarder: JoinHandle<()>,
    }

    impl Redirect {
        /// Points descriptor 1 at a pipe read by a forwarding thread.
        pub(super) fn start() -> Option<Self> {
            flush_everything();
            // SAFETY: fcntl(F_DUPFD_CLOEXEC) only reads the descriptor
            // table; a non-negative result is a new descriptor nobody else
            // owns (close-on-exec, so children do not keep it).
            let saved = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 0) };
            if saved < 0 {
                return None;
            }
            // SAFETY: `saved` was just returned by fcntl and is owned by nobody else.
            let stdout = File::from(unsafe { OwnedFd::from_raw_fd(saved) });
            // Close-on-exec, as std makes every descriptor it opens.
            let (read, write) = std::io::pipe().ok()?;
            let forward_to = stdout.try_clone().ok()?;
            let forwarder = std::thread::Builder::new()
                .name("smolv-build stdout".to_owned())
                .spawn(move || forward(read, forward_to))
                .ok()?;
            // SAFETY: both are open descriptors of this process; dup2
            // replaces descriptor 1 atomically, and every writer to it
            // (Rust's stdout, C stdio, child processes) goes through the
            // number. Descriptor 1 now holds the pipe's write end, and
            // `write` is closed at the end of this function.
            if unsafe { libc::dup2(write.as_raw_fd(), libc::STDOUT_FILENO) } < 0 {
                drop(write); // the forwarder reads end-of-file and ends
                let _ = forwarder.join();
                return None;
            }
            Some(Self { users: 1, stdout, forwarder })
        }

        /// Flushes what was written, puts standard output back, and waits
        /// until everything in the pipe is forwarded.
        pub(super) fn stop(self) {
            // Rust's standard output stays locked until the pipe is drained,
            // so that a line another thread prints next cannot overtake
            // the lines still in the pipe.
            let _in_order = std::io::stdout().lock();
            // What sits in a buffer was written while filtered.
            flush_everything();
            // SAFETY: `self.stdout` is an open descriptor we own; dup2
            // makes descriptor 1 a copy of it, which closes descriptor 1's
            // pipe end: the forwarder reads end-of-file once the last
            // writer (a child process still running) is gone.
            unsafe { libc::dup2(self.stdout.as_raw_fd(), libc::STDOUT_FILENO) };
            let _ = self.forwarder.join();
        }
    }

    /// Passes `cargo:` lines on to `stdout` and the rest to stderr, until
    /// the pipe's write end is closed.
    fn forward(pipe: PipeReader, mut stdout: File) {
        let mut reader = BufReader::new(pipe);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => return,
                Ok(_) => {
                    let (chatter, directive) = split(&line);
                    let _ = std::io::stderr().write_all(chatter);
                    let _ = stdout.write_all(directive);
                }
                // Interrupted reads are retried by read_until; anything
                // else means the pipe is unusable.
                Err(_) => return,
            }
        }
    }

    /// Splits a line read from the pipe into compiler output and a `cargo:`
    /// line. C stdio flushes its buffer wherever it fills, so a chunk of a
    /// compiler's output can end mid-line, and a `cargo:` line printed then
    /// by another thread (Rust prints a line in one write, which a pipe
    /// never splits) is glued to its end. Compiler output never says
    /// `cargo:`, so the first `cargo:` with a directive's shape starts the
    /// directive.
    pub(super) fn split(line: &[u8]) -> (&[u8], &[u8]) {
        let start = (0..line.len())
            .find(|&at| line[at..].starts_with(CARGO_PREFIX) && is_directive(&line[at..]))
            .unwrap_or(line.len());
        line.split_at(start)
    }

    /// Whether `line`, which starts with `cargo:`, has a directive's shape:
    /// `cargo:key=` or `cargo::key=`, the key in `[a-z0-9_-]`.
    fn is_directive(line: &[u8]) -> bool {
        let rest = &line[CARGO_PREFIX.len()..];
        let rest = rest.strip_prefix(b":").unwrap_or(rest);
        let key_len = rest
            .iter()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || **b == b'-' || **b == b'_')
            .count();
        key_len > 0 && rest.get(key_len) == Some(&b'=')
    }

    /// Flushes Rust's standard output and every C stdio output stream: C++
    /// code (glslang) writes through stdio, which buffers a whole block when
    /// standard output is a pipe.
    fn flush_everything() {
        let _ = std::io::stdout().flush();
        // SAFETY: fflush(NULL) flushes all open output streams; it takes no
        // pointer of ours.
        unsafe { libc::fflush(std::ptr::null_mut()) };
    }
}

#[cfg(not(unix))]
mod redirect {
    /// Never started: standard output stays as it is.
    pub(super) struct Redirect {
        pub(super) users: usize,
    }

    impl Redirect {
        pub(super) fn start() -> Option<Self> {
            None
        }

        pub(super) fn stop(self) {}
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::redirect::split;

    #[test]
    fn a_cargo_line_glued_to_compiler_output_is_split_off() {
        assert_eq!(split(b"cargo:rerun-if-changed=a\n"), (&b""[..], &b"cargo:rerun-if-changed=a\n"[..]));
        assert_eq!(split(b"vec4 texture(cargo::warning=x\n"), (&b"vec4 texture("[..], &b"cargo::warning=x\n"[..]));
        assert_eq!(split(b"Unable to parse built-ins\n"), (&b"Unable to parse built-ins\n"[..], &b""[..]));
        assert_eq!(split(b"cargo:warning=see cargo:x\n").0, b"", "the first cargo: starts it");
    }

    #[test]
    fn text_that_merely_mentions_cargo_is_no_directive() {
        let chatter: &[&[u8]] = &[b"see cargo: its docs\n", b"x cargo:Rustc-cfg=y\n", b"cargo:=x\n", b"cargo:::x=y\n"];
        for line in chatter {
            assert_eq!(split(line), (*line, &b""[..]), "{}", String::from_utf8_lossy(line));
        }
        assert_eq!(split(b"cargo::rustc-env=A=1\n").1, b"cargo::rustc-env=A=1\n");
    }
}
