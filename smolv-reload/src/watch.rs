//! The running reloader: a notify watcher feeding a thread that debounces, rebuilds and reports.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};
use smolv_build::recipe::CompilerPool;

use crate::error::ReloadError;
use crate::event::Event;
use crate::rebuild::rebuild;
use crate::targets::{Targets, normal};

/// An edit lasts this long after its first event at most (an editor that keeps writing).
const MAX_BATCH: Duration = Duration::from_millis(500);

/// File times lag the clock by up to a scheduler tick.
const CLOCK_SLACK: Duration = Duration::from_millis(20);

/// What the reloader's thread hears.
enum Message {
    /// A file event from notify.
    File(notify::Result<notify::Event>),
    /// The [`Watcher`] is being dropped.
    Stop,
}

/// A running reloader: while it lives, every save of a watched shader or an include is recompiled
/// and published. Dropping it stops watching (after a compile under way) and ends its workers.
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
    /// Tells the thread to end.
    stop: Sender<Message>,
    thread: Option<JoinHandle<()>>,
    events: Receiver<Event>,
}

impl Watcher {
    /// Starts watching `targets`, compiling with `pool`.
    pub(crate) fn start(
        targets: Targets,
        pool: CompilerPool,
        debounce: Duration,
        print: bool,
    ) -> Result<Self, ReloadError> {
        let (messages, receiver) = channel();
        let file_events = messages.clone();
        let notify = notify::recommended_watcher(move |event| {
            // The thread is gone only when the watcher is being dropped.
            let _ = file_events.send(Message::File(event));
        })
        .map_err(|source| ReloadError::Watch { path: PathBuf::from("."), source })?;
        let mut watches = Watches { notify, roots: Vec::new(), dirs: BTreeSet::new() };
        let (_, errors) = watches.add(targets.watch_list());
        if let Some(error) = errors.into_iter().next() {
            return Err(error);
        }
        let (events, events_receiver) = channel();
        let thread = std::thread::Builder::new()
            .name("smolv-reload".into())
            .spawn(move || run(targets, watches, &pool, &receiver, &events, debounce, print))
            .map_err(ReloadError::Thread)?;
        Ok(Self { stop: messages, thread: Some(thread), events: events_receiver })
    }

    /// Every [`Event`] so far, in order (also on stderr unless [`Reloader::quiet`](crate::Reloader::quiet)).
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // The thread ends at once, or after the compile under way.
        let _ = self.stop.send(Message::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The file watcher and what it watches; it grows as compiles read files from other directories.
struct Watches {
    notify: RecommendedWatcher,
    /// Watched recursively.
    roots: Vec<PathBuf>,
    /// Watched alone, or found unwatchable (tried once).
    dirs: BTreeSet<PathBuf>,
}

impl Watches {
    /// Watches each of `list` not watched yet; returns the directories newly watched alone, and errors.
    fn add(&mut self, list: Vec<(PathBuf, RecursiveMode)>) -> (Vec<PathBuf>, Vec<ReloadError>) {
        let (mut added, mut errors) = (Vec::new(), Vec::new());
        for (path, mode) in list {
            if self.roots.iter().any(|root| path.starts_with(root)) || self.dirs.contains(&path) {
                continue;
            }
            let result = self.notify.watch(&path, mode);
            match mode {
                RecursiveMode::Recursive => self.roots.push(path.clone()),
                RecursiveMode::NonRecursive => {
                    self.dirs.insert(path.clone());
                    if result.is_ok() {
                        added.push(path.clone());
                    }
                }
            }
            if let Err(source) = result {
                errors.push(ReloadError::Watch { path, source });
            }
        }
        (added, errors)
    }
}

/// The `files` in `dirs` (just watched) that changed since `since`, give or take [`CLOCK_SLACK`]:
/// edits made after a compile read a file and before its directory was watched.
fn changed_before_watched<'a>(
    files: impl Iterator<Item = &'a Path>,
    dirs: &[PathBuf],
    since: SystemTime,
) -> BTreeSet<PathBuf> {
    let since = since.checked_sub(CLOCK_SLACK).unwrap_or(since);
    files
        .filter(|file| file.parent().is_some_and(|dir| dirs.iter().any(|d| d == dir)))
        .filter(|file| std::fs::metadata(file).and_then(|m| m.modified()).is_ok_and(|at| at >= since))
        .map(Path::to_owned)
        .collect()
}

/// Whether a file event can mean new content.
fn is_edit(kind: &EventKind) -> bool {
    !matches!(kind, EventKind::Modify(notify::event::ModifyKind::Metadata(_)) | EventKind::Access(_) | EventKind::Other)
}

/// The reloader's thread: waits for an edit and `debounce` of quiet, rebuilds, watches, reports.
fn run(
    mut targets: Targets,
    mut watches: Watches,
    pool: &CompilerPool,
    messages: &Receiver<Message>,
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
        match messages.recv_timeout(wait) {
            Ok(Message::File(Ok(event))) if is_edit(&event.kind) => {
                first_seen.get_or_insert_with(Instant::now);
                changed.extend(event.paths.iter().map(|p| normal(p)));
            }
            Ok(Message::File(Ok(_))) => {}
            Ok(Message::File(Err(error))) if print => {
                eprintln!("smolv-reload: the file watcher reported an error: {error}");
            }
            Ok(Message::File(Err(_))) => {}
            Err(RecvTimeoutError::Timeout) => {
                if let Some(seen) = first_seen.take() {
                    let compiled_from = SystemTime::now();
                    for event in rebuild(&mut targets, &std::mem::take(&mut changed), seen, pool) {
                        if print {
                            eprintln!("{event}");
                        }
                        let _ = events.send(event);
                    }
                    let (added, errors) = watches.add(targets.watch_list());
                    for error in errors.iter().filter(|_| print) {
                        eprintln!("smolv-reload: {error}; edits there will not reload");
                    }
                    let missed = changed_before_watched(targets.files(), &added, compiled_from);
                    if !missed.is_empty() {
                        first_seen = Some(Instant::now());
                        changed.extend(missed);
                    }
                }
            }
            Ok(Message::Stop) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_after_the_compile_began_in_a_newly_watched_directory_is_an_edit() {
        let dir = tempfile::tempdir().unwrap();
        let (new_dir, old_dir) = (dir.path().join("new"), dir.path().join("old"));
        std::fs::create_dir_all(&new_dir).unwrap();
        std::fs::create_dir_all(&old_dir).unwrap();
        let (before, after, elsewhere) =
            (new_dir.join("before.glsl"), new_dir.join("after.glsl"), old_dir.join("x.glsl"));
        std::fs::write(&before, "// read as it was").unwrap();
        // Past the file times' lag behind the clock.
        std::thread::sleep(CLOCK_SLACK * 3);
        let compiled_from = SystemTime::now();
        std::fs::write(&after, "// written once the compile read it").unwrap();
        std::fs::write(&elsewhere, "// in a directory watched all along").unwrap();
        let files = [before.as_path(), after.as_path(), elsewhere.as_path()];
        let missed = changed_before_watched(files.into_iter(), &[new_dir], compiled_from);
        assert_eq!(missed, BTreeSet::from([after]));
    }
}
