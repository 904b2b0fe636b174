//! The HTTP side (ureq): `GET`/`PUT` of `/ac/<key>` and `/cas/<sha256>`, blobs checked, off at the first failure.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::Digest as _;

use super::budget::{Lease, MemoryBudget, TimeBudget};
use super::record::{self, Digest};
use super::settings::{Header, Resolved, TIME_LIMIT_VAR};
use super::{RemoteStats, WARNING_PREFIX};
use crate::cache::key::Key;

/// Connecting (and resolving the name) may take this long.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// Each read and write, including the wait for the response, may take this long.
const IO_TIMEOUT: Duration = Duration::from_secs(5);
/// A whole request may take this long (a server trickling a large blob).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// Action-cache records are about 120 bytes; bazel-remote adds a little.
const MAX_RECORD_BYTES: u64 = 64 * 1024;
/// The largest entry uploaded or downloaded: the local cache's limit.
pub(crate) const MAX_BLOB_BYTES: u64 = crate::cache::MAX_ENTRY_BYTES;
/// The bytes of entries held in memory at once, in all: two of the largest.
pub(crate) const MEMORY_BYTES: u64 = 2 * MAX_BLOB_BYTES;

/// The server of one build, shared by its worker and upload threads.
pub(crate) struct Server {
    base: String,
    upload: bool,
    header: Option<Header>,
    agent: ureq::Agent,
    off: AtomicBool,
    /// The time the build may still wait on the server.
    pub(crate) time: TimeBudget,
    /// The bytes of entries it may hold at once.
    pub(crate) memory: Arc<MemoryBudget>,
    /// The counters but `seconds`, and the time spent on requests.
    stats: Mutex<RemoteStats>,
    nanos: AtomicU64,
    warnings: Mutex<Vec<String>>,
}

/// A verified entry, holding its share of the memory budget until dropped.
pub(crate) struct Blob {
    pub(crate) bytes: Vec<u8>,
    _lease: Lease,
}

/// What a `GET` found.
enum Fetched {
    Body(Vec<u8>),
    NotFound,
    TooLarge,
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

impl Server {
    /// A server whose entries may hold `memory_bytes` at once.
    pub(crate) fn with_memory(resolved: Resolved, memory_bytes: u64) -> Self {
        let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_resolve(Some(CONNECT_TIMEOUT))
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_per_read(Some(IO_TIMEOUT))
            .timeout_per_write(Some(IO_TIMEOUT))
            .timeout_recv_response(Some(IO_TIMEOUT))
            .timeout_per_call(Some(CALL_TIMEOUT))
            .user_agent(concat!("smolv-build/", env!("CARGO_PKG_VERSION")))
            .tls_config(tls)
            .build()
            .into();
        Self {
            base: resolved.base,
            upload: resolved.upload,
            header: resolved.header,
            agent,
            off: AtomicBool::new(false),
            time: TimeBudget::new(resolved.time_limit),
            memory: MemoryBudget::new(memory_bytes),
            stats: Mutex::default(),
            nanos: AtomicU64::new(0),
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// The verified entry under `key` by `deadline`, or `None` (a miss, or off); [`count`](Self::count) its use.
    pub(crate) fn get(&self, key: &Key, deadline: Option<Instant>) -> Option<Blob> {
        if self.off.load(Ordering::Relaxed) {
            return None;
        }
        let hex = key.hex();
        let record = match self.fetch(&format!("ac/{hex}"), MAX_RECORD_BYTES, deadline) {
            Ok(Fetched::Body(record)) => record,
            Ok(Fetched::NotFound) => {
                self.add(|stats| stats.misses += 1);
                return None;
            }
            Ok(Fetched::TooLarge) => return self.unusable(&hex, "its action-cache record is over 64 KiB"),
            Err(why) => return self.switch_off(&why),
        };
        let digest = match record::decode(&record) {
            Ok(digest) => digest,
            Err(why) => return self.unusable(&hex, &format!("its action-cache record is not valid: {why}")),
        };
        if digest.size > MAX_BLOB_BYTES {
            let why =
                format!("its record names a {}-byte blob, over the {} MiB limit", digest.size, MAX_BLOB_BYTES >> 20);
            return self.unusable(&hex, &why);
        }
        // Room for the blob first.
        let past = |deadline: Option<Instant>| deadline.is_some_and(|d| Instant::now() >= d);
        let Some(lease) = self.memory.take(digest.size, || self.off.load(Ordering::Relaxed) || past(deadline)) else {
            return if past(deadline) { self.switch_off(&self.out_of_time()) } else { None };
        };
        let blob = match self.fetch(&format!("cas/{}", digest.hash), digest.size, deadline) {
            Ok(Fetched::Body(blob)) => blob,
            Ok(Fetched::NotFound) => {
                return self.unusable(&hex, &format!("the server does not have its blob /cas/{}", digest.hash));
            }
            Ok(Fetched::TooLarge) => {
                return self.unusable(&hex, &format!("its blob is longer than the {} bytes recorded", digest.size));
            }
            Err(why) => return self.switch_off(&why),
        };
        if blob.len() as u64 != digest.size {
            let why = format!("its blob is truncated: {} of {} bytes", blob.len(), digest.size);
            return self.unusable(&hex, &why);
        }
        if sha256_hex(&blob) != digest.hash {
            return self.unusable(&hex, "its blob does not match its SHA-256 (damaged on the server or on the way)");
        }
        Some(Blob { bytes: blob, _lease: lease })
    }

    /// Counts an entry from [`get`](Self::get) as a hit, or a miss when the build could not use it.
    pub(crate) fn count(&self, used: bool) {
        self.add(|stats| if used { stats.hits += 1 } else { stats.misses += 1 });
    }

    fn add(&self, change: impl FnOnce(&mut RemoteStats)) {
        if let Ok(mut stats) = self.stats.lock() {
            change(&mut stats);
        }
    }

    /// Whether [`put`](Self::put) would upload anything now.
    pub(crate) fn uploads(&self) -> bool {
        self.upload && !self.off.load(Ordering::Relaxed)
    }

    /// Uploads an entry by `deadline`, the blob first (servers check records), if [`uploads`](Self::uploads) and small.
    pub(crate) fn put(&self, key: &Key, body: &[u8], deadline: Option<Instant>) {
        if !self.uploads() || body.len() as u64 > MAX_BLOB_BYTES {
            return;
        }
        let digest = Digest { hash: sha256_hex(body), size: body.len() as u64 };
        let stored = self
            .store(&format!("cas/{}", digest.hash), body, deadline)
            .and_then(|()| self.store(&format!("ac/{}", key.hex()), &record::encode(&digest), deadline));
        match stored {
            Ok(()) => self.add(|stats| stats.uploads += 1),
            Err(why) => {
                self.switch_off::<()>(&why);
            }
        }
    }

    /// Counters so far, and the warnings not yet taken.
    pub(crate) fn take(&self) -> (RemoteStats, Vec<String>) {
        let mut stats = self.stats.lock().map(|stats| *stats).unwrap_or_default();
        stats.seconds = Duration::from_nanos(self.nanos.load(Ordering::Relaxed)).as_secs_f64();
        let warnings = self.warnings.lock().map(|mut w| std::mem::take(&mut *w)).unwrap_or_default();
        (stats, warnings)
    }

    fn warn(&self, warning: String) {
        if let Ok(mut warnings) = self.warnings.lock() {
            warnings.push(warning);
        }
    }

    /// A miss with a warning: the entry is never used.
    fn unusable<T>(&self, hex: &str, why: &str) -> Option<T> {
        self.add(|stats| stats.misses += 1);
        self.warn(format!("{WARNING_PREFIX} entry /ac/{hex} is not used: {why}; building it instead"));
        None
    }

    /// Why the remote is off when the build has waited on it long enough.
    pub(crate) fn out_of_time(&self) -> String {
        format!(
            "the build has waited {:.1} s for it, its limit ({TIME_LIMIT_VAR} or Config::remote_cache_time_limit)",
            self.time.limit.as_secs_f64()
        )
    }

    /// The server failed: off for the rest of the build; only the first failure is reported.
    pub(crate) fn switch_off<T>(&self, why: &str) -> Option<T> {
        if !self.off.swap(true, Ordering::SeqCst) {
            self.warn(format!("{WARNING_PREFIX} {}: {why}; not using it for the rest of this build", self.base));
        }
        None
    }

    fn timed<T>(&self, request: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let result = request();
        let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
        result
    }

    /// The timeout of a request that starts now and must end by `deadline`; `Err` if past.
    fn timeout(&self, deadline: Option<Instant>) -> Result<Duration, String> {
        match deadline.map(|deadline| deadline.saturating_duration_since(Instant::now())) {
            Some(left) if left.is_zero() => Err(self.out_of_time()),
            Some(left) => Ok(left.min(CALL_TIMEOUT)),
            None => Ok(CALL_TIMEOUT),
        }
    }

    /// What a failed request says: the time limit, if it ended it.
    fn failure(&self, deadline: Option<Instant>, failure: String) -> String {
        let cut_short = deadline.is_some_and(|d| Instant::now() + Duration::from_millis(20) >= d);
        if cut_short { self.out_of_time() } else { failure }
    }

    /// `request` with the header, if any, done within `timeout`.
    fn prepared<B>(&self, mut request: ureq::RequestBuilder<B>, timeout: Duration) -> ureq::RequestBuilder<B> {
        if let Some(header) = &self.header {
            request = request.header(&header.name, &header.value);
        }
        request.config().timeout_global(Some(timeout)).build()
    }

    /// `GET {base}/{path}`, at most `limit` bytes, by `deadline`; `Err` if the server or connection fails.
    fn fetch(&self, path: &str, limit: u64, deadline: Option<Instant>) -> Result<Fetched, String> {
        let timeout = self.timeout(deadline)?;
        let fetched = self.timed(|| {
            let request = self.prepared(self.agent.get(format!("{}/{path}", self.base)), timeout);
            let mut response =
                request.call().map_err(|e| self.failure(deadline, format!("GET /{path} failed: {e}")))?;
            match response.status().as_u16() {
                200 => match response.body_mut().with_config().limit(limit).read_to_vec() {
                    Ok(body) => Ok(Fetched::Body(body)),
                    Err(ureq::Error::BodyExceedsLimit(_)) => Ok(Fetched::TooLarge),
                    Err(e) => Err(self.failure(deadline, format!("GET /{path} failed while reading: {e}"))),
                },
                404 => Ok(Fetched::NotFound),
                status => Err(format!("GET /{path} answered HTTP {status}")),
            }
        })?;
        if let Fetched::Body(body) = &fetched {
            self.add(|stats| stats.bytes_down += body.len() as u64);
        }
        Ok(fetched)
    }

    /// `PUT {base}/{path}`, done by `deadline`; `Err` unless the server answers 2xx.
    fn store(&self, path: &str, body: &[u8], deadline: Option<Instant>) -> Result<(), String> {
        let timeout = self.timeout(deadline)?;
        self.timed(|| {
            let request = self.prepared(self.agent.put(format!("{}/{path}", self.base)), timeout);
            let response =
                request.send(body).map_err(|e| self.failure(deadline, format!("PUT /{path} failed: {e}")))?;
            match response.status().as_u16() {
                200..=299 => Ok(()),
                status => Err(format!("PUT /{path} answered HTTP {status}")),
            }
        })?;
        self.add(|stats| stats.bytes_up += body.len() as u64);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_are_addressed_by_their_sha256_as_bazel_does() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn a_closed_port_switches_the_remote_off_with_one_warning() {
        // Bind, then drop: nothing listens on the port any more.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let resolved = Resolved {
            base: format!("http://127.0.0.1:{port}"),
            upload: true,
            header: None,
            time_limit: super::super::settings::DEFAULT_TIME_LIMIT,
        };
        let remote = Server::with_memory(resolved, MEMORY_BYTES);
        let key = crate::cache::key::KeyBuilder::new("test").text("a").finish();
        assert!(remote.get(&key, None).is_none());
        remote.put(&key, b"body", None);
        assert!(remote.get(&key, None).is_none());
        let (stats, warnings) = remote.take();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("not using it for the rest of this build"), "{}", warnings[0]);
        assert_eq!((stats.hits, stats.misses, stats.uploads, stats.bytes_up), (0, 0, 0, 0));
    }
}
