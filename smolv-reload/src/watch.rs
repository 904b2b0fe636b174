//! The running reloader: a notify watcher feeding a thread that debounces
//! file events, rebuilds what they touched and reports it.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, Watcher as _};

use crate::error::ReloadError;
use crate::event::Event;
use crate::rebuild::rebuild;
use crate::targets::{Targets, normal};

/// An edit is whatever arrives before the files are quiet this long, or
/// this long after its first event at most (an editor that keeps writing).
const MAX_BATCH: Duration = Duration::from_millis(500);

/// A running reloader: while it lives, every save of a watched shader or
/// of a file it includes is recompiled and published. Dropping it stops
/// watching (and waits for a compile under way).
///
/// ```no_run
/// # fn get(watcher: smolv_reload::Watcher) {
/// // Once a frame:
/// for event in watcher.events().try_iter() {
///     println!("{}", event.summary());
/// }
/// # }
/// ```
#[derive(Debug)]
pub struct Watcher {
    /// Dropped first: its handler holds the thread's sender, so the thread
    /// sees the channel close and ends.
    notify: Option<RecommendedWatcher>,
    thread: Option<JoinHandle<()>>,
    events: Receiver<Event>,
}

impl Watcher {
    /// Starts watching `targets`.
    pub(crate) fn start(targets: Targets, debounce: Duration, print: bool) -> Result<Self, ReloadError> {
        let (file_events, file_receiver) = channel();
        let mut notify = notify::recommended_watcher(move |event| {
            // The thread is gone only when the watcher is being dropped.
            let _ = file_events.send(event);
        })
        .map_err(|source| ReloadError::Watch { path: PathBuf::from("."), source })?;
        for (path, mode) in targets.watch_list() {
            notify.watch(&path, mode).map_err(|source| ReloadError::Watch { path: path.clone(), source })?;
        }
        let (events, receiver) = channel();
        let thread = std::thread::Builder::new()
            .name("smolv-reload".into())
            .spawn(move || run(targets, &file_receiver, &events, debounce, print))
            .map_err(ReloadError::Thread)?;
        Ok(Self { notify: Some(notify), thread: Some(thread), events: receiver })
    }

    /// Every [`Event`] so far, in order (they are printed on stderr as well,
    /// unless [`Reloader::quiet`](crate::Reloader::quiet)). Unread events
    /// wait here; read them once a frame, or not at all.
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        drop(self.notify.take());
        if let Some(thread) = self.thread.take() {
            // It does not panic (rebuild catches the compilers' panics);
            // if it did, there is nothing left to stop.
            let _ = thread.join();
        }
    }
}

/// Whether a file event can mean new content.
fn is_edit(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(notify::event::ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// The reloader's thread: waits for an edit, waits for the files to be
/// quiet for `debounce`, rebuilds, reports; until the watcher is dropped.
fn run(
    mut targets: Targets,
    files: &Receiver<notify::Result<notify::Event>>,
    events: &Sender<Event>,
    debounce: Duration,
    print: bool,
) {
    let mut changed = BTreeSet::new();
    let mut first_seen: Option<Instant> = None;
    loop {
        let wait = match first_seen {
            None => Duration::from_secs(3600),
            Some(seen) => debounce.min(MAX_BATCH.saturating_sub(seen.elapsed())),
        };
        match files.recv_timeout(wait) {
            Ok(Ok(event)) if is_edit(&event.kind) => {
                first_seen.get_or_insert_with(Instant::now);
                changed.extend(event.paths.iter().map(|p| normal(p)));
            }
            Ok(Ok(_)) => {}
            Ok(Err(error)) => {
                if print {
                    eprintln!("smolv-reload: the file watcher reported an error: {error}");
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Some(seen) = first_seen.take() {
                    for event in rebuild(&mut targets, &std::mem::take(&mut changed), seen) {
                        if print {
                            eprintln!("{event}");
                        }
                        // Nobody reads events once the watcher is dropped.
                        let _ = events.send(event);
                    }
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
