//! The HTTP side: `GET`/`PUT` of `/ac/<key>` and `/cas/<sha256>` with
//! ureq, every downloaded blob checked, and the server switched off for
//! the rest of the build at its first failure.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sha2::Digest as _;

use super::record::{self, Digest};
use super::settings::{Header, Resolved};
use super::{RemoteStats, WARNING_PREFIX};
use crate::cache::key::Key;

/// Connecting (and resolving the name) may take this long.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// Each read and write, including the wait for the response, may take
/// this long: a server that accepts and never answers costs one timeout.
const IO_TIMEOUT: Duration = Duration::from_secs(5);
/// A whole request may take this long (a server trickling a large blob).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// Action-cache records are about 120 bytes; bazel-remote adds a little.
const MAX_RECORD_BYTES: u64 = 64 * 1024;
/// The largest entry uploaded or downloaded: far above any shader set's.
const MAX_BLOB_BYTES: u64 = 512 * 1024 * 1024;

/// The server of one build, shared by its worker and upload threads.
pub(crate) struct Server {
    base: String,
    upload: bool,
    header: Option<Header>,
    agent: ureq::Agent,
    off: AtomicBool,
    hits: AtomicU64,
    misses: AtomicU64,
    uploads: AtomicU64,
    bytes_down: AtomicU64,
    bytes_up: AtomicU64,
    nanos: AtomicU64,
    warnings: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("base", &self.base)
            .field("upload", &self.upload)
            .field("header", &self.header)
            .field("off", &self.off)
            .finish_non_exhaustive()
    }
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
    pub(crate) fn new(resolved: Resolved) -> Self {
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
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            uploads: AtomicU64::new(0),
            bytes_down: AtomicU64::new(0),
            bytes_up: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
            warnings: Mutex::new(Vec::new()),
        }
    }

    /// The entry stored under `key`, verified, or `None`: not there (a
    /// miss), unusable (a miss and a warning), or the remote is off. The
    /// caller reports with [`count`](Self::count) whether it could use a
    /// verified entry.
    pub(crate) fn get(&self, key: &Key) -> Option<Vec<u8>> {
        if self.off.load(Ordering::Relaxed) {
            return None;
        }
        let hex = key.hex();
        let record = match self.fetch(&format!("ac/{hex}"), MAX_RECORD_BYTES) {
            Ok(Fetched::Body(record)) => record,
            Ok(Fetched::NotFound) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
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
            return self.unusable(&hex, &format!("its record names a {}-byte blob", digest.size));
        }
        let blob = match self.fetch(&format!("cas/{}", digest.hash), digest.size) {
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
        Some(blob)
    }

    /// Counts a verified entry from [`get`](Self::get) as a hit, or, when
    /// the build could not use it (it records files that differ here), as
    /// a miss.
    pub(crate) fn count(&self, used: bool) {
        let counter = if used { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether [`put`](Self::put) would upload anything now.
    pub(crate) fn uploads(&self) -> bool {
        self.upload && !self.off.load(Ordering::Relaxed)
    }

    /// Uploads an entry: the blob to the CAS first, so that the record
    /// never names a missing blob (bazel-remote checks). Does nothing in
    /// read-only mode or once the server is off.
    pub(crate) fn put(&self, key: &Key, body: &[u8]) {
        if !self.uploads() || body.len() as u64 > MAX_BLOB_BYTES {
            return;
        }
        let digest = Digest { hash: sha256_hex(body), size: body.len() as u64 };
        let stored = self
            .store(&format!("cas/{}", digest.hash), body)
            .and_then(|()| self.store(&format!("ac/{}", key.hex()), &record::encode(&digest)));
        match stored {
            Ok(()) => {
                self.uploads.fetch_add(1, Ordering::Relaxed);
            }
            Err(why) => {
                self.switch_off(&why);
            }
        }
    }

    /// Counters so far, and the warnings not yet taken.
    pub(crate) fn take(&self) -> (RemoteStats, Vec<String>) {
        let count = |counter: &AtomicU64| usize::try_from(counter.load(Ordering::Relaxed)).unwrap_or(usize::MAX);
        let stats = RemoteStats {
            hits: count(&self.hits),
            misses: count(&self.misses),
            uploads: count(&self.uploads),
            bytes_down: self.bytes_down.load(Ordering::Relaxed),
            bytes_up: self.bytes_up.load(Ordering::Relaxed),
            seconds: Duration::from_nanos(self.nanos.load(Ordering::Relaxed)).as_secs_f64(),
        };
        let warnings = self.warnings.lock().map(|mut w| std::mem::take(&mut *w)).unwrap_or_default();
        (stats, warnings)
    }

    fn warn(&self, warning: String) {
        if let Ok(mut warnings) = self.warnings.lock() {
            warnings.push(warning);
        }
    }

    /// A miss with a warning: the entry is never used.
    fn unusable(&self, hex: &str, why: &str) -> Option<Vec<u8>> {
        self.misses.fetch_add(1, Ordering::Relaxed);
        self.warn(format!("{WARNING_PREFIX} entry /ac/{hex} is not used: {why}; building it instead"));
        None
    }

    /// The server failed: off for the rest of the build, and only the
    /// first failure of all threads is reported.
    fn switch_off(&self, why: &str) -> Option<Vec<u8>> {
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

    /// `GET {base}/{path}`, reading at most `limit` bytes. `Err` is a
    /// failure of the server or the connection, with what happened.
    fn fetch(&self, path: &str, limit: u64) -> Result<Fetched, String> {
        let fetched = self.timed(|| {
            let mut request = self.agent.get(format!("{}/{path}", self.base));
            if let Some(header) = &self.header {
                request = request.header(&header.name, &header.value);
            }
            let mut response = request.call().map_err(|e| format!("GET /{path} failed: {e}"))?;
            match response.status().as_u16() {
                200 => match response.body_mut().with_config().limit(limit).read_to_vec() {
                    Ok(body) => Ok(Fetched::Body(body)),
                    Err(ureq::Error::BodyExceedsLimit(_)) => Ok(Fetched::TooLarge),
                    Err(e) => Err(format!("GET /{path} failed while reading: {e}")),
                },
                404 => Ok(Fetched::NotFound),
                status => Err(format!("GET /{path} answered HTTP {status}")),
            }
        })?;
        if let Fetched::Body(body) = &fetched {
            self.bytes_down.fetch_add(body.len() as u64, Ordering::Relaxed);
        }
        Ok(fetched)
    }

    /// `PUT {base}/{path}`; `Err` unless the server answers 2xx.
    fn store(&self, path: &str, body: &[u8]) -> Result<(), String> {
        self.timed(|| {
            let mut request = self.agent.put(format!("{}/{path}", self.base));
            if let Some(header) = &self.header {
                request = request.header(&header.name, &header.value);
            }
            let response = request.send(body).map_err(|e| format!("PUT /{path} failed: {e}"))?;
            match response.status().as_u16() {
                200..=299 => Ok(()),
                status => Err(format!("PUT /{path} answered HTTP {status}")),
            }
        })?;
        self.bytes_up.fetch_add(body.len() as u64, Ordering::Relaxed);
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
        let remote = Server::new(Resolved { base: format!("http://127.0.0.1:{port}"), upload: true, header: None });
        let key = crate::cache::key::KeyBuilder::new("test").text("a").finish();
        assert!(remote.get(&key).is_none());
        remote.put(&key, b"body");
        assert!(remote.get(&key).is_none());
        let (stats, warnings) = remote.take();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("not using it for the rest of this build"), "{}", warnings[0]);
        assert_eq!((stats.hits, stats.misses, stats.uploads, stats.bytes_up), (0, 0, 0, 0));
    }
}
