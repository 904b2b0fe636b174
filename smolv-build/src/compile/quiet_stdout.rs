//! Keeps compiler chatter off a build script's standard output: a [`QuietStdout`] points descriptor 1
//! at a pipe whose `cargo:` lines go on to the real stdout, the rest to stderr (a no-op without `dup2`).
#![allow(unsafe_code, reason = "fcntl/dup2/fflush on the process's own standard descriptors")]

use std::sync::{Mutex, PoisonError};

static REDIRECT: Mutex<Option<redirect::Redirect>> = Mutex::new(None);

/// Standard output filtered, until every guard is dropped.
pub(crate) struct QuietStdout {
    /// Whether this guard counts as a user of the redirect.
    active: bool,
}

impl QuietStdout {
    /// Starts filtering standard output, or joins the filter running.
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

    const CARGO_PREFIX: &[u8] = b"cargo:";

    pub(super) struct Redirect {
        pub(super) users: usize,
        stdout: File,
        forwarder: JoinHandle<()>,
    }

    impl Redirect {
        /// Points descriptor 1 at a pipe read by a forwarding thread.
        pub(super) fn start() -> Option<Self> {
            flush_everything();
            // SAFETY: fcntl(F_DUPFD_CLOEXEC) only reads the descriptor table.
            let saved = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 0) };
            if saved < 0 {
                return None;
            }
            // SAFETY: `saved` was just returned by fcntl and is owned by nobody else.
            let stdout = File::from(unsafe { OwnedFd::from_raw_fd(saved) });
            let (read, write) = std::io::pipe().ok()?;
            let forward_to = stdout.try_clone().ok()?;
            let forwarder = std::thread::Builder::new()
                .name("smolv-build stdout".to_owned())
                .spawn(move || forward(read, forward_to))
                .ok()?;
            // SAFETY: both are open descriptors of this process.
            if unsafe { libc::dup2(write.as_raw_fd(), libc::STDOUT_FILENO) } < 0 {
                drop(write); // the forwarder reads end-of-file and ends
                let _ = forwarder.join();
                return None;
            }
            Some(Self { users: 1, stdout, forwarder })
        }

        /// Puts standard output back, once everything is forwarded.
        pub(super) fn stop(self) {
            // Locked until the pipe is drained, so that no line overtakes it.
            let _in_order = std::io::stdout().lock();
            flush_everything();
            // SAFETY: `self.stdout` is an open descriptor we own.
            unsafe { libc::dup2(self.stdout.as_raw_fd(), libc::STDOUT_FILENO) };
            let _ = self.forwarder.join();
        }
    }

    /// Passes `cargo:` lines on to `stdout` and the rest to stderr.
    fn forward(pipe: PipeReader, mut stdout: File) {
        let mut reader = BufReader::new(pipe);
        let mut line = Vec::new();
        while let Ok(1..) = reader.read_until(b'\n', &mut line) {
            let (chatter, directive) = split(&line);
            let _ = std::io::stderr().write_all(chatter);
            let _ = stdout.write_all(directive);
            line.clear();
        }
    }

    /// Splits a line into compiler output and the `cargo:` line glued to its end.
    pub(super) fn split(line: &[u8]) -> (&[u8], &[u8]) {
        let start = (0..line.len())
            .find(|&at| line[at..].starts_with(CARGO_PREFIX) && is_directive(&line[at..]))
            .unwrap_or(line.len());
        line.split_at(start)
    }

    /// Whether `line` is `cargo:key=…` or `cargo::key=…`, the key in `[a-z0-9_-]`.
    fn is_directive(line: &[u8]) -> bool {
        let rest = &line[CARGO_PREFIX.len()..];
        let rest = rest.strip_prefix(b":").unwrap_or(rest);
        let key_len = rest
            .iter()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || **b == b'-' || **b == b'_')
            .count();
        key_len > 0 && rest.get(key_len) == Some(&b'=')
    }

    /// Flushes Rust's standard output and every C stdio output stream.
    fn flush_everything() {
        let _ = std::io::stdout().flush();
        // SAFETY: fflush(NULL) takes no pointer of ours.
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
