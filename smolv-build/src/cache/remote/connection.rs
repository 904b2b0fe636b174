//! The remote cache as the build's workers see it. Requests wait on the
//! network, not on the CPU, so they do not run one at a time on the few
//! worker threads: every job's entry is asked for at once before the jobs
//! run ([`Remote::prefetch`]), and uploads are handed to background
//! threads, so that a cold build compiles on while its entries travel.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::RemoteStats;
use super::client::Server;
use super::settings::Resolved;
use crate::cache::key::Key;

/// Upload threads.
const UPLOAD_THREADS: usize = 4;
/// Lookups in flight at once while prefetching.
const PREFETCH_THREADS: usize = 8;
/// Entries waiting for an upload thread; a worker that finds the queue
/// full waits, so memory stays bounded whatever the server's speed.
const QUEUE_LEN: usize = 64;

/// An entry waiting for its upload.
type Upload = (Key, Vec<u8>);

/// The remote cache of one build, shared by its worker threads.
pub(crate) struct Remote {
    server: Arc<Server>,
    queue: Mutex<Option<SyncSender<Upload>>>,
    uploaders: Mutex<Vec<JoinHandle<()>>>,
    /// What [`prefetch`](Self::prefetch) found, until [`get`](Self::get)
    /// takes it: the verified entry, or `None` for a miss.
    prefetched: Mutex<HashMap<Key, Option<Vec<u8>>>>,
}

// By hand: the prefetched entries are not worth printing.
impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("server", &self.server).finish_non_exhaustive()
    }
}

impl Remote {
    pub(crate) fn new(resolved: Resolved) -> Self {
        let server = Arc::new(Server::new(resolved));
        let (mut queue, mut uploaders) = (None, Vec::new());
        if server.uploads() {
            let (sender, receiver) = sync_channel::<Upload>(QUEUE_LEN);
            let receiver = Arc::new(Mutex::new(receiver));
            for index in 0..UPLOAD_THREADS {
                let (server, receiver) = (Arc::clone(&server), Arc::clone(&receiver));
                let spawned = std::thread::Builder::new().name(format!("smolv-upload-{index}")).spawn(move || {
                    // Ends when the queue is closed and empty.
                    while let Ok((key, body)) = receiver.lock().map_err(drop).and_then(|r| r.recv().map_err(drop)) {
                        server.put(&key, &body);
                    }
                });
                // Without a thread, `put` uploads on the caller's thread.
                if let Ok(handle) = spawned {
                    uploaders.push(handle);
                }
            }
            queue = (!uploaders.is_empty()).then_some(sender);
        }
        Self {
            server,
            queue: Mutex::new(queue),
            uploaders: Mutex::new(uploaders),
            prefetched: Mutex::new(HashMap::new()),
        }
    }

    /// Looks `keys` up with several requests in flight, and keeps what was
    /// found for [`get`](Self::get).
    pub(crate) fn prefetch(&self, keys: &[Key]) {
        let next = AtomicUsize::new(0);
        let found = Mutex::new(HashMap::new());
        std::thread::scope(|scope| {
            for _ in 0..PREFETCH_THREADS.min(keys.len()) {
                scope.spawn(|| {
                    while let Some(key) = keys.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let entry = self.server.get(key);
                        if let Ok(mut found) = found.lock() {
                            found.insert(*key, entry);
                        }
                    }
                });
            }
        });
        if let (Ok(found), Ok(mut prefetched)) = (found.into_inner(), self.prefetched.lock()) {
            prefetched.extend(found);
        }
    }

    /// The verified entry under `key`: what [`prefetch`](Self::prefetch)
    /// found for it, else see [`Server::get`].
    pub(crate) fn get(&self, key: &Key) -> Option<Vec<u8>> {
        if let Some(found) = self.prefetched.lock().ok().and_then(|mut prefetched| prefetched.remove(key)) {
            return found;
        }
        self.server.get(key)
    }

    /// See [`Server::count`].
    pub(crate) fn count(&self, used: bool) {
        self.server.count(used);
    }

    /// Queues an upload of the entry (nothing in read-only mode or once
    /// the server is off).
    pub(crate) fn put(&self, key: &Key, body: &[u8]) {
        if !self.server.uploads() {
            return;
        }
        let queue = self.queue.lock().ok().and_then(|queue| queue.clone());
        match queue {
            Some(queue) => {
                if let Err(unsent) = queue.send((*key, body.to_vec())) {
                    let (key, body) = unsent.0;
                    self.server.put(&key, &body);
                }
            }
            None => self.server.put(key, body),
        }
    }

    /// Waits for the queued uploads, then returns the counters and the
    /// warnings not yet taken.
    pub(crate) fn take(&self) -> (RemoteStats, Vec<String>) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.take();
        }
        let uploaders = self.uploaders.lock().map(|mut handles| std::mem::take(&mut *handles)).unwrap_or_default();
        for uploader in uploaders {
            let _ = uploader.join();
        }
        self.server.take()
    }
}
