//! The build's thread pool: as in cc, each job runs on a token of Cargo's jobserver, so that crates keep to `-j`.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rayon::prelude::*;

use crate::error::Error;

/// The build's threads: a pool, and the tokens for keeping them busy.
pub(crate) struct Threads {
    pool: rayon::ThreadPool,
    tokens: Tokens,
}

impl Threads {
    /// `threads` worker threads (0: one per core), on Cargo's tokens.
    pub(crate) fn new(threads: usize) -> Result<Self, Error> {
        Ok(Self { pool: thread_pool(threads)?, tokens: Tokens::new(inherited()) })
    }

    /// `job` of every item, in parallel, each on a token; in order.
    pub(crate) fn each<T: Sync, R: Send>(&self, items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
        self.pool.install(|| {
            items
                .par_iter()
                .enumerate()
                .map(|(index, item)| {
                    let _token = self.tokens.acquire();
                    let _log = JobLog::start(index);
                    job(item)
                })
                .collect()
        })
    }

    /// Runs `work`, which splits itself across threads, on as many threads as there are tokens now.
    pub(crate) fn leased<R: Send>(&self, work: impl FnOnce() -> R + Send) -> Result<R, Error> {
        if self.tokens.limited() {
            let lease = self.tokens.lease(self.pool.current_num_threads());
            Ok(thread_pool(lease.len())?.install(work))
        } else {
            Ok(self.pool.install(work))
        }
    }
}

/// Worker threads; 0 for one per core.
fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Internal(format!("cannot start worker threads: {e}")))
}

/// Where the tokens come from.
pub(crate) struct Tokens {
    client: Option<jobserver::Client>,
    /// Whether the token this process holds by running is free.
    implicit_free: AtomicBool,
}

/// The right to keep one thread busy; given back when dropped.
pub(crate) enum Token<'a> {
    /// No jobserver: the thread count is the limit.
    Unlimited,
    /// The token this process holds by running.
    Implicit(&'a AtomicBool),
    /// A token taken from the jobserver.
    Acquired(#[allow(dead_code, reason = "held for its Drop, which gives the token back")] jobserver::Acquired),
}

impl Drop for Token<'_> {
    fn drop(&mut self) {
        if let Token::Implicit(free) = self {
            free.store(true, Ordering::Release);
        }
    }
}

/// Cargo's jobserver, if this process inherited one; connected once.
#[allow(unsafe_code, reason = "the jobserver crate's only way to join an inherited jobserver")]
fn inherited() -> Option<jobserver::Client> {
    static CLIENT: OnceLock<Option<jobserver::Client>> = OnceLock::new();
    // SAFETY: the descriptors in `CARGO_MAKEFLAGS` are the jobserver's: Cargo passes them for this, smolv-build
    // never closes descriptors it did not open, and `true` checks both are pipes, so a reused number is refused.
    CLIENT.get_or_init(|| unsafe { jobserver::Client::from_env_ext(true) }.client.ok()).clone()
}

impl Tokens {
    /// Tokens from `client` (`None`: unlimited), with this process's own token free.
    pub(crate) fn new(client: Option<jobserver::Client>) -> Self {
        Self { client, implicit_free: AtomicBool::new(true) }
    }

    /// Whether a jobserver limits this build.
    pub(crate) fn limited(&self) -> bool {
        self.client.is_some()
    }

    /// A token, waiting until one is free: this process's own, else the jobserver's (both polled). Should the
    /// jobserver fail, the job runs anyway.
    pub(crate) fn acquire(&self) -> Token<'_> {
        loop {
            match self.try_acquire() {
                Ok(Some(token)) => return token,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                // Non-blocking reads unsupported here: block on the jobserver.
                Err(_) => {
                    return match self.client.as_ref().map(jobserver::Client::acquire) {
                        Some(Ok(acquired)) => Token::Acquired(acquired),
                        _ => Token::Unlimited,
                    };
                }
            }
        }
    }

    /// A token if one is free now.
    pub(crate) fn try_acquire(&self) -> std::io::Result<Option<Token<'_>>> {
        let Some(client) = &self.client else { return Ok(Some(Token::Unlimited)) };
        if self.implicit_free.swap(false, Ordering::AcqRel) {
            return Ok(Some(Token::Implicit(&self.implicit_free)));
        }
        Ok(client.try_acquire()?.map(Token::Acquired))
    }

    /// Up to `most` tokens that are free now (at least one).
    pub(crate) fn lease(&self, most: usize) -> Vec<Token<'_>> {
        let mut tokens = vec![self.acquire()];
        while tokens.len() < most
            && let Ok(Some(token)) = self.try_acquire()
        {
            tokens.push(token);
        }
        tokens
    }
}

/// A test hook for `SMOLV_TEST_JOB_LOG=dir`: each job holds its token 100 ms more and logs its start and end there.
pub(crate) struct JobLog {
    file: std::path::PathBuf,
    started: u128,
}

fn now() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

impl JobLog {
    /// Starts the record of one job, when the hook is on.
    pub(crate) fn start(job: usize) -> Option<Self> {
        let dir = crate::env::var_os("SMOLV_TEST_JOB_LOG")?;
        let file = std::path::Path::new(&dir).join(format!("{}-{job}", std::process::id()));
        Some(Self { file, started: now() })
    }
}

impl Drop for JobLog {
    fn drop(&mut self) {
        std::thread::sleep(Duration::from_millis(100));
        // A test hook: a failed write shows up as a missing job in the test.
        let _ = std::fs::write(&self.file, format!("{} {}\n", self.started, now()));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use rayon::prelude::*;

    use super::*;

    fn busiest(tokens: &Tokens, threads: usize, jobs: usize) -> usize {
        let (running, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let done: usize = pool.install(|| {
            (0..jobs)
                .into_par_iter()
                .map(|_| {
                    let _token = tokens.acquire();
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    running.fetch_sub(1, Ordering::SeqCst);
                    1
                })
                .sum()
        });
        assert_eq!(done, jobs);
        most.into_inner()
    }

    #[test]
    fn a_jobserver_caps_the_jobs_at_its_tokens_plus_our_own() {
        // Two tokens in the jobserver, plus the one this process holds.
        let tokens = Tokens::new(Some(jobserver::Client::new(2).unwrap()));
        assert!(tokens.limited());
        let most = busiest(&tokens, 6, 24);
        assert!((1..=3).contains(&most), "{most} jobs ran at once on 3 tokens");
    }

    #[test]
    fn tokens_go_back_to_the_jobserver() {
        let client = jobserver::Client::new(1).unwrap();
        let tokens = Tokens::new(Some(client.clone()));
        let own = tokens.acquire();
        assert!(matches!(own, Token::Implicit(_)), "our own token first");
        let taken = tokens.acquire();
        assert!(matches!(taken, Token::Acquired(_)), "then the jobserver's");
        assert_eq!(client.available().unwrap(), 0);
        drop((own, taken));
        assert_eq!(client.available().unwrap(), 1, "the jobserver's token came back");
        // A lease takes what is free now: our own, and the jobserver's
        // where it can be read without waiting (not on a pipe made here).
        let lease = tokens.lease(8);
        assert!(matches!(lease[0], Token::Implicit(_)), "our own token came back too");
        assert!((1..=2).contains(&lease.len()));
        drop(lease);
        assert_eq!(client.available().unwrap(), 1);
    }

    #[test]
    fn without_a_jobserver_the_threads_are_the_limit() {
        let tokens = Tokens::new(None);
        assert!(!tokens.limited());
        assert_eq!(tokens.lease(4).len(), 4);
        assert!(busiest(&tokens, 3, 12) <= 3);
    }
}
