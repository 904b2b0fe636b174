//! Keeps compiler chatter (glslang's prelude) off standard output, which `build --json` owns:
//! while a [`StdoutToStderr`] lives, descriptor 1 is a duplicate of stderr.
#![allow(unsafe_code, reason = "dup/dup2/fflush on the process's own standard descriptors")]

#[cfg(unix)]
use std::io::Write;

/// `config.try_compile()` with standard output on stderr, under a spinner showing `spinner`.
pub(crate) fn compile(
    config: &smolv_build::Config,
    spinner: Option<&'static str>,
) -> Result<smolv_build::Report, smolv_build::Error> {
    let spinner = spinner.map_or_else(indicatif::ProgressBar::hidden, crate::ui::spinner);
    let result = {
        let _quiet = StdoutToStderr::begin();
        config.try_compile()
    };
    spinner.finish_and_clear();
    result
}

/// Standard output pointed at stderr until dropped (a no-op without `dup2`).
pub(crate) struct StdoutToStderr {
    /// A duplicate of the original standard output, restored on drop.
    #[cfg(unix)]
    saved: Option<std::os::fd::OwnedFd>,
}

impl StdoutToStderr {
    /// Points standard output at stderr; if that fails, it stays where it was.
    pub(crate) fn begin() -> Self {
        #[cfg(unix)]
        {
            use std::os::fd::{FromRawFd, OwnedFd};
            flush_everything();
            // SAFETY: dup only reads the descriptor table; a non-negative result is ours.
            let saved = unsafe { libc::dup(libc::STDOUT_FILENO) };
            if saved < 0 {
                return Self { saved: None };
            }
            // SAFETY: `saved` was just returned by dup and is owned by nobody else.
            let saved = unsafe { OwnedFd::from_raw_fd(saved) };
            // SAFETY: both are open descriptors of this process; dup2 replaces descriptor 1 atomically.
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
            // SAFETY: `saved` is an open descriptor we own, closed when dropped.
            unsafe { libc::dup2(saved.as_raw_fd(), libc::STDOUT_FILENO) };
        }
    }
}

/// Flushes Rust's standard output and every C stdio stream (glslang writes through stdio).
#[cfg(unix)]
fn flush_everything() {
    let _ = std::io::stdout().flush();
    // SAFETY: fflush(NULL) flushes all open output streams and takes no pointer of ours.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}
