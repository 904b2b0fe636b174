//! The prepared directory ([`DEFAULT_DIR`], `docs/prepare.md`): entries committed for builds without compilers,
//! recorded in a [`PREPARE_ENV`] session; [`staged`] reads it, [`Staged::write`] applies, [`Staged::compare`] checks.

use std::path::{Path, PathBuf};

use super::{Key, MAX_ENTRY_BYTES, read_entry_file, write_entry_file};

/// The session directory a build records its jobs' entries in, for `cargo smolv prepare`.
pub const PREPARE_ENV: &str = "SMOLV_PREPARE";

/// The prepared directory's name, beside `Cargo.toml`, when `Config::prepared_dir` names none.
pub const DEFAULT_DIR: &str = ".smolv";

/// The file of a session's group that names its prepared directory.
const DIRECTORY_FILE: &str = "directory";

/// Whether `name` is an entry's: 64 lowercase hex digits.
fn is_entry_name(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The body of the entry file at `path`, if it is a plain file (never a link) with an intact entry.
pub(super) fn read_entry(path: &Path, max_entry_bytes: u64) -> Option<Vec<u8>> {
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    read_entry_file(&mut std::fs::File::open(path).ok()?, max_entry_bytes)
}

/// Where one build records its jobs' entries: a session group named by the blake3 of the directory.
#[derive(Debug)]
pub(crate) struct Staging {
    /// `None` when the group could not be made.
    group: Option<PathBuf>,
}

impl Staging {
    /// The group of `prepared_dir` in the session directory `session`.
    pub(crate) fn new(session: &Path, prepared_dir: &Path) -> Self {
        let group = prepared_dir.to_str().and_then(|dir| {
            let group = session.join(&blake3::hash(dir.as_bytes()).to_hex()[..32]);
            write_entry_file(&group.join(DIRECTORY_FILE), dir.as_bytes()).then_some(group)
        });
        Self { group }
    }

    /// Records `body` under `key`; whether it worked.
    pub(crate) fn put(&self, key: &Key, body: &[u8]) -> bool {
        self.group.as_ref().is_some_and(|group| write_entry_file(&group.join(key.hex()), body))
    }
}

/// What a session recorded for one prepared directory: the entries it should hold.
#[derive(Clone, Debug)]
pub struct Staged {
    dir: PathBuf,
    group: PathBuf,
    /// Entry names, sorted.
    names: Vec<String>,
}

/// How a prepared directory differs from its session, or what [`Staged::write`] changed: sorted entry names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Changes {
    /// Entries the builds used that the directory lacks.
    pub added: Vec<String>,
    /// Entries the directory has with other contents.
    pub changed: Vec<String>,
    /// Entries of the directory that no build used.
    pub removed: Vec<String>,
}

impl Changes {
    /// Whether the directory is as the builds left it.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

/// Reads the session directory `session` ([`PREPARE_ENV`]): one [`Staged`] per prepared directory, sorted.
///
/// ```
/// let session = tempfile::tempdir()?;
/// assert!(smolv_build::cache::prepared::staged(session.path())?.is_empty());
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn staged(session: &Path) -> std::io::Result<Vec<Staged>> {
    let mut found = Vec::new();
    for group in std::fs::read_dir(session)?.flatten() {
        let group = group.path();
        let dir = read_entry(&group.join(DIRECTORY_FILE), MAX_ENTRY_BYTES).and_then(|dir| String::from_utf8(dir).ok());
        if let Some(dir) = dir {
            found.push(Staged { dir: PathBuf::from(dir), names: entry_names(&group)?, group });
        }
    }
    found.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(found)
}

/// The entry names in `dir`, sorted; a missing directory has none.
fn entry_names(dir: &Path) -> std::io::Result<Vec<String>> {
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut names: Vec<String> = listing
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| is_entry_name(name))
        .collect();
    names.sort();
    Ok(names)
}

impl Staged {
    /// The prepared directory these entries are for.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many entries the builds used.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the builds used none (every shader failed, or none is compiled).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// What [`write`](Self::write) would change (files not named as entries are left alone).
    pub fn compare(&self) -> std::io::Result<Changes> {
        let mut changes = Changes::default();
        for name in &self.names {
            let target = self.dir.join(name);
            if std::fs::symlink_metadata(&target).is_err() {
                changes.added.push(name.clone());
            } else {
                let now = read_entry(&target, MAX_ENTRY_BYTES);
                if now.is_none() || now != read_entry(&self.group.join(name), MAX_ENTRY_BYTES) {
                    changes.changed.push(name.clone());
                }
            }
        }
        changes.removed =
            entry_names(&self.dir)?.into_iter().filter(|name| self.names.binary_search(name).is_err()).collect();
        Ok(changes)
    }

    /// Makes the prepared directory hold exactly the builds' entries; returns what changed.
    pub fn write(&self) -> std::io::Result<Changes> {
        let changes = self.compare()?;
        std::fs::create_dir_all(&self.dir)?;
        for name in changes.added.iter().chain(&changes.changed) {
            let body = read_entry(&self.group.join(name), MAX_ENTRY_BYTES).ok_or_else(|| {
                std::io::Error::other(format!("the session's entry {name} cannot be read back; prepare again"))
            })?;
            // Renamed over whatever is in the entry's place, links included.
            if !write_entry_file(&self.dir.join(name), &body) {
                return Err(std::io::Error::other(format!("cannot write {}", self.dir.join(name).display())));
            }
        }
        for name in &changes.removed {
            std::fs::remove_file(self.dir.join(name))?;
        }
        Ok(changes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cache, KeyBuilder};
    use super::*;

    fn key(name: &str) -> Key {
        KeyBuilder::new("test").text(name).finish()
    }

    #[test]
    fn a_build_reads_the_prepared_directory_between_the_local_cache_and_the_remote_one_and_never_writes_it() {
        let dir = tempfile::tempdir().unwrap();
        let prepared = dir.path().join(".smolv");
        let session = dir.path().join("session");
        // A build that prepares records its entries in the session.
        let preparing =
            Cache::new(dir.path().join("first")).with_prepared(Some(prepared.as_path()), Some(session.as_path()));
        assert!(preparing.is_preparing());
        assert!(preparing.prepare(&key("a"), b"module a"));
        assert!(preparing.prepare(&key("b"), b"module b"));
        let staged = staged(&session).unwrap();
        assert_eq!(staged.len(), 1);
        assert_eq!(staged[0].dir(), prepared);
        assert_eq!(staged[0].len(), 2);
        let changes = staged[0].write().unwrap();
        assert_eq!(changes.added.len(), 2);
        assert!(staged[0].compare().unwrap().is_empty(), "written: up to date");

        // Another build, with an empty local cache: served from the prepared directory.
        let local = dir.path().join("second");
        let cache = Cache::new(local.clone()).with_prepared(Some(prepared.as_path()), None);
        assert!(!cache.is_preparing());
        assert!(!cache.prepare(&key("a"), b"module a"), "not preparing: nothing recorded");
        assert_eq!(cache.get(&key("a")).unwrap(), b"module a");
        assert!(cache.get(&key("c")).is_none());
        assert_eq!(super::super::stats(&local).entries, 0, "a prepared hit is not copied into the local cache");
        let names = entry_names(&prepared).unwrap();
        assert_eq!(names.len(), 2, "the build wrote nothing there");
        // The local cache comes first.
        assert!(cache.put(&key("a"), b"local a"));
        assert_eq!(cache.get(&key("a")).unwrap(), b"local a");
        // A damaged prepared entry is a miss.
        let b = prepared.join(key("b").hex());
        let mut bytes = std::fs::read(&b).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&b, &bytes).unwrap();
        assert!(cache.get(&key("b")).is_none(), "a flipped bit must be a miss");
        assert_eq!(staged[0].compare().unwrap().changed, [key("b").hex()]);
    }

    #[test]
    fn writing_leaves_exactly_the_entries_the_builds_used_and_check_names_every_difference() {
        let dir = tempfile::tempdir().unwrap();
        let prepared = dir.path().join(".smolv");
        let first = dir.path().join("session-1");
        let cache = Cache::new(dir.path().join("cache")).with_prepared(Some(prepared.as_path()), Some(first.as_path()));
        for name in ["kept", "edited", "dropped"] {
            assert!(cache.prepare(&key(name), name.as_bytes()));
        }
        staged(&first).unwrap()[0].write().unwrap();
        std::fs::write(prepared.join("README.md"), "not an entry").unwrap();

        // The next session: one entry changed, one gone, one new.
        let second = dir.path().join("session-2");
        let cache =
            Cache::new(dir.path().join("cache")).with_prepared(Some(prepared.as_path()), Some(second.as_path()));
        for (name, body) in [("kept", "kept"), ("edited", "edited, new"), ("new", "new")] {
            assert!(cache.prepare(&key(name), body.as_bytes()));
        }
        let staged = &staged(&second).unwrap()[0];
        let expected = Changes {
            added: vec![key("new").hex()],
            changed: vec![key("edited").hex()],
            removed: vec![key("dropped").hex()],
        };
        assert_eq!(staged.compare().unwrap(), expected, "what --check reports");
        assert_eq!(staged.write().unwrap(), expected);
        assert!(staged.compare().unwrap().is_empty());
        let mut expected_names = vec![key("kept").hex(), key("edited").hex(), key("new").hex()];
        expected_names.sort();
        assert_eq!(entry_names(&prepared).unwrap(), expected_names);
        assert!(prepared.join("README.md").is_file(), "other files are left alone");
        let entry = read_entry(&prepared.join(key("edited").hex()), MAX_ENTRY_BYTES).unwrap();
        assert_eq!(entry, b"edited, new");
        // No temporary file is left behind.
        let files = std::fs::read_dir(&prepared).unwrap().count();
        assert_eq!(files, 4);
    }

    #[test]
    #[cfg(unix)]
    fn a_link_in_the_prepared_directory_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let prepared = dir.path().join(".smolv");
        let session = dir.path().join("session");
        let cache =
            Cache::new(dir.path().join("cache")).with_prepared(Some(prepared.as_path()), Some(session.as_path()));
        assert!(cache.prepare(&key("a"), b"module a"));
        staged(&session).unwrap()[0].write().unwrap();
        // A link to a valid entry elsewhere, in the place of the entry.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::rename(prepared.join(key("a").hex()), &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, prepared.join(key("a").hex())).unwrap();
        let reader = Cache::new(dir.path().join("other")).with_prepared(Some(prepared.as_path()), None);
        assert!(reader.get(&key("a")).is_none(), "a link is a miss");
        let staged = &staged(&session).unwrap()[0];
        assert_eq!(staged.compare().unwrap().changed, [key("a").hex()]);
        staged.write().unwrap();
        assert!(std::fs::symlink_metadata(prepared.join(key("a").hex())).unwrap().is_file(), "replaced by the entry");
        assert_eq!(reader.get(&key("a")).unwrap(), b"module a");
    }

    #[test]
    fn entry_names_are_64_lowercase_hex_digits() {
        assert!(is_entry_name(&key("a").hex()));
        assert!(!is_entry_name(&key("a").hex().to_uppercase()));
        assert!(!is_entry_name(DIRECTORY_FILE));
        assert!(!is_entry_name(&format!(".{}.1.2.3.tmp", key("a").hex())));
    }
}
