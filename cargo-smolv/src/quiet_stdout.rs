//! Keeps compiler chatter off standard output while shaders compile.
//!
//! glslang prints to the process's standard output on some inputs (its
//! whole built-in prelude after "Unable to parse built-ins", for a
//! `#version 140` compute shader), which would corrupt `build --json`.
//! While a [`StdoutToStderr`] lives, file descriptor 1 is a duplicate of
//! stderr, so whatever any code in the process writes to standard output,
//! through Rust or C stdio, lands on stderr; dropping it flushes and puts
//! standard output back. The CLI owns its process, so this is safe to do
//! here; a library inside a user's build script must not redirect a
//! process-wide descriptor (another thread may be printing `cargo:` lines).
#![allow(unsafe_code, reason = "dup/dup2/fflush on the process's own standard descriptors")]

#[cfg(unix)]
use std::io::Write;

/// Standard output pointed at stderr until dropped (a no-op where the
/// platform has no `dup2`).
pub(crate) struct StdoutToStderr {
    /// A duplicate of the original standard output, restored on drop.
    #[cfg(unix)]
    saved: Option<std::os::fd::OwnedFd>,
}

impl StdoutToStderr {
    /// Points standard output at stderr. If that fails, output stays where
    /// it was.
    pub(crate) fn begin() -> Self {
        #[cfg(unix)]
        {
            use std::os::fd::{FromRawFd, OwnedFd};
            flush_everything();
            // SAFETY: dup only reads the descriptor table; a non-negative
            // result is a new descriptor that nothing else owns.
            let saved = unsafe { libc::dup(libc::STDOUT_FILENO) };
            if saved < 0 {
                return Self { saved: None };
            }
            // SAFETY: `saved` was just returned by dup and is owned by nobody else.
            let saved = unsafe { OwnedFd::from_raw_fd(saved) };
            // SAFETY: both are open descriptors of this process; dup2
            // replaces descriptor 1 atomically, and every writer to it
            // (Rust's stdout, C stdio) goes through the descriptor number.
            if unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) } < 0 {
                return Self { saved: None };
            }
            Self { saved: Some(saved) }
        }
        #[cfg(not(unix))]
        Self {}
    }
}

impl Drop for StdoutToStderr {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(saved) = self.saved.take() {
            use std::os::fd::AsRawFd;
            // What was written while redirected, and sits in a buffer, belongs on stderr.
            flush_everything();
            // SAFETY: `saved` is an open descriptor we own; dup2 makes
            // descriptor 1 a copy of it, and `saved` is closed when dropped.
            unsafe { libc::dup2(saved.as_raw_fd(), libc::STDOUT_FILENO) };
        }
    }
}

/// Flushes Rust's standard output and every C stdio output stream: C++
/// code (glslang) writes through stdio, which buffers a whole block when
/// standard output is a pipe.
#[cfg(unix)]
fn flush_everything() {
    let _ = std::io::stdout().flush();
    // SAFETY: fflush(NULL) flushes all open output streams; it takes no
    // pointer of ours.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}
