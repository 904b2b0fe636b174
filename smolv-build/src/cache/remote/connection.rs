//! The remote cache as the build's workers see it: a prefetch of every entry, and background uploads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::RemoteStats;
use super::budget::Lease;
use super::client::{MAX_BLOB_BYTES, MEMORY_BYTES, Server};
use super::settings::Resolved;
use crate::cache::key::Key;

const UPLOAD_THREADS: usize = 4;
/// Lookups in flight at once while prefetching.
const PREFETCH_THREADS: usize = 8;
/// Entries waiting for an upload thread (waiting for room counts against the time limit).
const QUEUE_LEN: usize = 64;

/// An entry waiting for its upload, with its share of the memory budget.
type Upload = (Key, Vec<u8>, Lease);

/// What [`Remote::prefetch`] did with a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prefetched {
    /// The verified entry is in the local cache now.
    Stored,
    /// The server had it, but the local cache could not store it: ask again.
    NotStored,
    /// A miss, counted already.
    Missing,
}

/// The remote cache of one build, shared by its worker threads.
pub(crate) struct Remote {
    server: Arc<Server>,
    queue: Mutex<Option<SyncSender<Upload>>>,
    uploaders: Mutex<Vec<JoinHandle<()>>>,
    /// What [`prefetch`](Self::prefetch) did with each key, until the build looks it up.
    prefetched: Mutex<HashMap<Key, Prefetched>>,
}

impl Remote {
    pub(crate) fn new(resolved: Resolved) -> Self {
        Self::with_server(Server::with_memory(resolved, MEMORY_BYTES))
    }

    fn with_server(server: Server) -> Self {
        let server = Arc::new(server);
        let (sender, receiver) = sync_channel::<Upload>(QUEUE_LEN);
        let receiver = Arc::new(Mutex::new(receiver));
        let threads = if server.uploads() { UPLOAD_THREADS } else { 0 };
        let uploaders: Vec<JoinHandle<()>> = (0..threads)
            .filter_map(|index| {
                let (server, receiver) = (Arc::clone(&server), Arc::clone(&receiver));
                let spawned = std::thread::Builder::new().name(format!("smolv-upload-{index}")).spawn(move || {
                    // Ends when the queue is closed and empty.
                    while let Ok((key, body, _lease)) =
                        receiver.lock().map_err(drop).and_then(|r| r.recv().map_err(drop))
                    {
                        server.put(&key, &body, None);
                    }
                });
                spawned.ok()
            })
            .collect();
        // Without a thread, `put` uploads on the caller's thread.
        let queue = (!uploaders.is_empty()).then_some(sender);
        Self {
            server,
            queue: Mutex::new(queue),
            uploaders: Mutex::new(uploaders),
            prefetched: Mutex::new(HashMap::new()),
        }
    }

    /// Looks `keys` up, several at once, handing each verified entry to `store` (the local cache).
    pub(crate) fn prefetch(&self, keys: &[Key], store: impl Fn(&Key, &[u8]) -> bool + Sync) {
        let start = Instant::now();
        let deadline = self.server.time.deadline();
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..PREFETCH_THREADS.min(keys.len()) {
                scope.spawn(|| {
                    while let Some(key) = keys.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let what = match self.server.get(key, Some(deadline)) {
                            Some(blob) if store(key, &blob.bytes) => Prefetched::Stored,
                            Some(_) => Prefetched::NotStored,
                            None => Prefetched::Missing,
                        };
                        if let Ok(mut prefetched) = self.prefetched.lock() {
                            prefetched.insert(*key, what);
                        }
                    }
                });
            }
        });
        self.waited_since(start);
    }

    /// Counts a wait on the remote; turns it off once the build has waited its time limit.
    fn waited_since(&self, start: Instant) {
        self.server.time.charge_since(start);
        if self.server.time.is_spent() {
            self.server.switch_off::<()>(&self.server.out_of_time());
        }
    }

    /// The build used `key`'s local entry: a remote hit if the prefetch put it there.
    pub(crate) fn used_locally(&self, key: &Key) {
        let prefetched = self.prefetched.lock().ok().and_then(|mut prefetched| prefetched.remove(key));
        if prefetched == Some(Prefetched::Stored) {
            self.server.count(true);
        }
    }

    /// The verified entry under `key`; `None` for a key the prefetch already found or missed.
    pub(crate) fn get(&self, key: &Key) -> Option<Vec<u8>> {
        match self.prefetched.lock().ok().and_then(|mut prefetched| prefetched.remove(key)) {
            Some(Prefetched::Missing) => return None,
            Some(Prefetched::Stored) => {
                self.server.count(false);
                return None;
            }
            Some(Prefetched::NotStored) | None => {}
        }
        let start = Instant::now();
        let found = self.server.get(key, Some(self.server.time.deadline()));
        self.waited_since(start);
        found.map(|blob| blob.bytes)
    }

    /// See [`Server::count`].
    pub(crate) fn count(&self, used: bool) {
        self.server.count(used);
    }

    /// Queues an upload of the entry (see [`Server::put`]); waiting for room counts against the time limit.
    pub(crate) fn put(&self, key: &Key, body: &[u8]) {
        if !self.server.uploads() || body.len() as u64 > MAX_BLOB_BYTES {
            return;
        }
        let start = Instant::now();
        let Some(queue) = self.queue.lock().ok().and_then(|queue| queue.clone()) else {
            self.server.put(key, body, Some(self.server.time.deadline()));
            return self.waited_since(start);
        };
        let deadline = self.server.time.deadline();
        let give_up = || !self.server.uploads() || Instant::now() >= deadline;
        let Some(lease) = self.server.memory.take(body.len() as u64, give_up) else {
            return self.waited_since(start);
        };
        let mut upload = (*key, body.to_vec(), lease);
        // Until queued, off, out of time, or the uploaders are gone.
        while let Err(TrySendError::Full(back)) = queue.try_send(upload)
            && !give_up()
        {
            upload = back;
            std::thread::sleep(Duration::from_millis(2));
        }
        self.waited_since(start);
    }

    /// Waits for the queued uploads, within the time limit; the counters and warnings not yet taken.
    pub(crate) fn take(&self) -> (RemoteStats, Vec<String>) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.take();
        }
        let uploaders = self.uploaders.lock().map(|mut handles| std::mem::take(&mut *handles)).unwrap_or_default();
        if !uploaders.is_empty() {
            let start = Instant::now();
            let deadline = self.server.time.deadline();
            while uploaders.iter().any(|u| !u.is_finished()) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(2));
            }
            self.waited_since(start);
            if uploaders.iter().any(|u| !u.is_finished()) {
                // Off: what is still queued is dropped untried.
                self.server.switch_off::<()>(&self.server.out_of_time());
            }
            for uploader in uploaders.into_iter().filter(JoinHandle::is_finished) {
                let _ = uploader.join();
            }
        }
        self.server.take()
    }
}

#[cfg(test)]
mod tests {
    use super::super::record::{self, Digest};
    use super::super::settings::DEFAULT_TIME_LIMIT;
    use super::super::test_server::TestServer;
    use super::*;
    use crate::cache::{Cache, KeyBuilder};

    fn resolved(url: &str, time_limit: Duration) -> Resolved {
        Resolved { base: url.to_owned(), upload: true, header: None, time_limit }
    }

    fn key(index: usize) -> Key {
        KeyBuilder::new("remote test").text(&index.to_string()).finish()
    }

    fn entry(index: usize) -> Vec<u8> {
        format!("entry {index}").repeat(100).into_bytes()
    }

    /// Uploads entries `0..count` to the server at `url`.
    fn fill(url: &str, count: usize) {
        let uploader = Server::with_memory(resolved(url, DEFAULT_TIME_LIMIT), MEMORY_BYTES);
        (0..count).for_each(|index| uploader.put(&key(index), &entry(index), None));
        assert_eq!(uploader.take().0.uploads, count);
    }

    #[test]
    fn prefetched_entries_go_straight_to_the_local_cache_and_count_as_remote_hits() {
        let server = TestServer::start(Duration::ZERO);
        fill(&server.url, 3);
        let dir = tempfile::tempdir().unwrap();
        let remote = Arc::new(Remote::new(resolved(&server.url, DEFAULT_TIME_LIMIT)));
        let cache = Cache::new(dir.path().to_owned()).with_remote(Some(Arc::clone(&remote)));
        let keys: Vec<Key> = (0..4).map(key).collect();
        cache.prefetch(&keys);
        for index in 0..3 {
            assert_eq!(cache.get_local(&key(index)), Some(entry(index)), "on disk once the prefetch returns");
        }
        let asked = server.requests().len();
        for index in 0..3 {
            assert_eq!(cache.get(&key(index)), Some(entry(index)));
        }
        assert_eq!(cache.get(&key(3)), None, "a miss on the server");
        assert_eq!(server.requests().len(), asked, "every lookup was answered from the prefetch");
        let (stats, warnings) = remote.take();
        assert_eq!((stats.hits, stats.misses), (3, 1));
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn downloads_hold_no_more_than_the_memory_budget() {
        let server = TestServer::start(Duration::ZERO);
        fill(&server.url, 16);
        let size = entry(10).len() as u64;
        let remote = Remote::with_server(Server::with_memory(resolved(&server.url, DEFAULT_TIME_LIMIT), 3 * size));
        let stored = AtomicUsize::new(0);
        let keys: Vec<Key> = (0..16).map(key).collect();
        remote.prefetch(&keys, |_, _| {
            // Slow disk: the downloads pile up unless the budget holds them back.
            std::thread::sleep(Duration::from_millis(20));
            stored.fetch_add(1, Ordering::Relaxed) < usize::MAX
        });
        assert_eq!(stored.load(Ordering::Relaxed), 16);
        let peak = remote.server.memory.peak();
        assert!(peak >= size && peak <= 3 * size, "held {peak} bytes at once, for a budget of {}", 3 * size);
    }

    #[test]
    fn an_entry_over_64_mib_is_neither_downloaded_nor_uploaded() {
        let server = TestServer::start(Duration::ZERO);
        let huge = Digest { hash: "ab".repeat(32), size: MAX_BLOB_BYTES + 1 };
        server.insert(&format!("ac/{}", key(0).hex()), &record::encode(&huge));
        let remote = Server::with_memory(resolved(&server.url, DEFAULT_TIME_LIMIT), MEMORY_BYTES);
        assert!(remote.get(&key(0), None).is_none());
        remote.put(&key(1), &vec![0; usize::try_from(MAX_BLOB_BYTES).unwrap() + 1], None);
        assert_eq!(server.requests(), [format!("GET /ac/{}", key(0).hex())], "no blob was asked for or sent");
        let (stats, warnings) = remote.take();
        assert_eq!((stats.misses, stats.uploads), (1, 0));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("over the 64 MiB limit"), "{}", warnings[0]);
    }

    #[test]
    fn a_server_answering_just_under_its_timeout_costs_the_time_limit_and_no_more() {
        // Each answer comes after 1 s, well within the 5 s read timeout;
        // 40 lookups, 8 at a time, would take 5 s.
        let server = TestServer::start(Duration::from_secs(1));
        let limit = Duration::from_millis(1500);
        let remote = Remote::new(resolved(&server.url, limit));
        let keys: Vec<Key> = (0..40).map(key).collect();
        let start = Instant::now();
        remote.prefetch(&keys, |_, _| true);
        let prefetch = start.elapsed();
        assert!(prefetch < limit + Duration::from_millis(500), "the prefetch took {prefetch:?}");
        assert_eq!(remote.get(&key(99)), None);
        remote.put(&key(0), b"entry");
        let (stats, warnings) = remote.take();
        let elapsed = start.elapsed();
        assert!(elapsed < limit + Duration::from_millis(600), "the remote took {elapsed:?} of the build");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("SMOLV_REMOTE_CACHE_TIME_LIMIT"), "{}", warnings[0]);
        assert_eq!(stats.uploads, 0);
    }

    #[test]
    fn uploads_left_at_the_end_wait_no_longer_than_the_time_limit() {
        // 20 uploads of two requests each, 4 at a time: 10 s at 1 s an answer.
        let server = TestServer::start(Duration::from_secs(1));
        let limit = Duration::from_millis(1500);
        let remote = Remote::new(resolved(&server.url, limit));
        (0..20).for_each(|index| remote.put(&key(index), &entry(index)));
        let start = Instant::now();
        let (stats, warnings) = remote.take();
        let waited = start.elapsed();
        assert!(waited < limit + Duration::from_millis(500), "the build waited {waited:?} for its uploads");
        assert!(stats.uploads < 20);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("SMOLV_REMOTE_CACHE_TIME_LIMIT"), "{}", warnings[0]);
    }
}
