//! The build cache (blake3-keyed, hash-checked entries) and its upkeep: [`stats`], [`clean`], [`trim`].

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::env::Env;

mod key;
pub mod prepared;
pub(crate) mod remote;

pub(crate) use key::{Key, KeyBuilder};
use prepared::Staging;
use remote::Remote;
pub use remote::{RemoteCacheMode, parse_seconds};

const ENTRY_MAGIC: &[u8; 12] = b"SMOLVCACHE1\0";

/// The largest entry body stored or read, locally and remotely: a larger file is a miss.
pub(crate) const MAX_ENTRY_BYTES: u64 = 64 * 1024 * 1024;

/// The magic and the body's blake3, before the body.
const HEADER_BYTES: u64 = ENTRY_MAGIC.len() as u64 + 32;

/// blake3 of files' contents (`None`: unreadable), memoized for one build.
#[derive(Default)]
pub(crate) struct FileHashes(std::sync::Mutex<std::collections::HashMap<PathBuf, Option<[u8; 32]>>>);

impl FileHashes {
    pub(crate) fn get(&self, path: &Path) -> Option<[u8; 32]> {
        if let Some(hash) = self.0.lock().ok().and_then(|memo| memo.get(path).copied()) {
            return hash;
        }
        let hash = std::fs::read(path).ok().map(|bytes| *blake3::hash(&bytes).as_bytes());
        if let Ok(mut memo) = self.0.lock() {
            memo.insert(path.to_owned(), hash);
        }
        hash
    }
}

/// The cache directory, and the remote cache behind it.
#[derive(Clone)]
pub(crate) struct Cache {
    root: PathBuf,
    remote: Option<Arc<Remote>>,
    /// The project's prepared directory, never written by a build.
    prepared: Option<PathBuf>,
    /// Where this build records its jobs' entries for `cargo smolv prepare`.
    preparing: Option<Arc<Staging>>,
    /// [`MAX_ENTRY_BYTES`], smaller in tests.
    max_entry_bytes: u64,
}

impl Cache {
    pub(crate) fn new(root: PathBuf) -> Self {
        Self { root, remote: None, prepared: None, preparing: None, max_entry_bytes: MAX_ENTRY_BYTES }
    }

    /// Reads the prepared directory `dir`; records entries for it in `session` (`SMOLV_PREPARE`).
    pub(crate) fn with_prepared(mut self, dir: Option<&Path>, session: Option<&Path>) -> Self {
        self.prepared = dir.map(Path::to_owned);
        self.preparing = dir.zip(session).map(|(dir, session)| Arc::new(Staging::new(session, dir)));
        self
    }

    pub(crate) fn with_remote(mut self, remote: Option<Arc<Remote>>) -> Self {
        self.remote = remote;
        self
    }

    pub(crate) fn has_remote(&self) -> bool {
        self.remote.is_some()
    }

    /// Asks the remote cache for the entries of `keys` missing locally, ahead of the lookups.
    pub(crate) fn prefetch(&self, keys: &[Key]) {
        if let Some(remote) = &self.remote {
            let prepared = |key: &Key| self.prepared.as_ref().is_some_and(|dir| dir.join(key.hex()).is_file());
            let missing: Vec<Key> =
                keys.iter().filter(|key| !self.path(key).is_file() && !prepared(key)).copied().collect();
            // Each entry found goes straight to the local cache, not into memory.
            remote.prefetch(&missing, |key, body| self.put_local(key, body));
        }
    }

    /// The entry's body (see [`get_valid`](Self::get_valid)).
    pub(crate) fn get(&self, key: &Key) -> Option<Vec<u8>> {
        self.get_valid(key, |body| Some(body.to_vec()))
    }

    /// The entry under `key` that `read` accepts: local, else prepared, else remote (then stored locally).
    pub(crate) fn get_valid<T>(&self, key: &Key, read: impl Fn(&[u8]) -> Option<T>) -> Option<T> {
        if let Some(found) = self.get_local(key).and_then(|body| read(&body)) {
            // A remote hit if the prefetch stored it.
            if let Some(remote) = &self.remote {
                remote.used_locally(key);
            }
            return Some(found);
        }
        // Read in place, not copied: the project keeps it.
        let staged =
            self.prepared.as_ref().and_then(|dir| prepared::read_entry(&dir.join(key.hex()), self.max_entry_bytes));
        if let Some(found) = staged.and_then(|body| read(&body)) {
            return Some(found);
        }
        let remote = self.remote.as_ref()?;
        let body = remote.get(key)?;
        let found = read(&body);
        remote.count(found.is_some());
        if found.is_some() {
            self.put_local(key, &body);
        }
        found
    }

    /// Stores an entry locally and uploads it; whether the local store worked.
    pub(crate) fn put(&self, key: &Key, body: &[u8]) -> bool {
        let stored = self.put_local(key, body);
        if let Some(remote) = &self.remote {
            remote.put(key, body);
        }
        stored
    }

    fn path(&self, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.root.join("v1").join(&hex[..2]).join(hex)
    }

    /// The entry's body, if intact in the local cache; a hit refreshes its time for [`trim`].
    pub(crate) fn get_local(&self, key: &Key) -> Option<Vec<u8>> {
        let mut file = open_for_hit(&self.path(key)).ok()?;
        let body = read_entry_file(&mut file, self.max_entry_bytes)?;
        // Best effort: a read-only cache still serves hits.
        let _ = file.set_modified(std::time::SystemTime::now());
        Some(body)
    }

    /// Stores an entry atomically in the local cache only; whether it worked.
    pub(crate) fn put_local(&self, key: &Key, body: &[u8]) -> bool {
        body.len() as u64 <= self.max_entry_bytes && write_entry_file(&self.path(key), body)
    }

    /// Records a job's entry for the prepared directory, when this build prepares one.
    pub(crate) fn prepare(&self, key: &Key, body: &[u8]) -> bool {
        self.preparing
            .as_ref()
            .is_some_and(|staging| body.len() as u64 <= self.max_entry_bytes && staging.put(key, body))
    }

    /// Whether this build records its jobs' entries (`SMOLV_PREPARE`).
    pub(crate) fn is_preparing(&self) -> bool {
        self.preparing.is_some()
    }
}

/// The body of an entry file (magic, blake3, body) if intact and at most `max_entry_bytes`.
fn read_entry_file(file: &mut std::fs::File, max_entry_bytes: u64) -> Option<Vec<u8>> {
    let limit = HEADER_BYTES + max_entry_bytes;
    if file.metadata().ok()?.len() > limit {
        return None;
    }
    // At most one byte past the limit, should the file grow meanwhile.
    let mut bytes = Vec::new();
    Read::by_ref(file).take(limit + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > limit {
        return None;
    }
    let rest = bytes.strip_prefix(ENTRY_MAGIC.as_slice())?;
    let (hash, body) = rest.split_at_checked(32)?;
    if blake3::hash(body).as_bytes() != hash {
        return None;
    }
    Some(body.to_vec())
}

/// Writes an entry file at `path` atomically (a renamed temporary file); whether it worked.
fn write_entry_file(path: &Path, body: &[u8]) -> bool {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return false;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    // Unique per process, thread and call.
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let thread: String = format!("{:?}", std::thread::current().id()).chars().filter(char::is_ascii_digit).collect();
    let temp = dir.join(format!(".{}.{}.{thread}.{unique}.tmp", name.to_string_lossy(), std::process::id()));
    let written = std::fs::File::create(&temp).and_then(|mut file| {
        file.write_all(ENTRY_MAGIC)?;
        file.write_all(blake3::hash(body).as_bytes())?;
        file.write_all(body)
    });
    if written.is_err() || std::fs::rename(&temp, path).is_err() {
        let _ = std::fs::remove_file(&temp);
        return false;
    }
    true
}

/// Opens an entry read-write where it can (Windows' `SetFileTime` needs it), else read-only.
fn open_for_hit(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::options().read(true).write(true).open(path).or_else(|_| std::fs::File::open(path))
}

/// `configured`, else `SMOLV_CACHE_DIR`, else `smolv-cache` in Cargo's target dir or `out_dir` (vars always read).
pub(crate) fn resolve_cache_dir(configured: Option<&Path>, out_dir: &Path, env: Env) -> PathBuf {
    let (dir, target) = (env.var("SMOLV_CACHE_DIR"), env.var("CARGO_TARGET_DIR"));
    if let Some(dir) = configured.map(Path::to_owned).or(dir.map(PathBuf::from)) {
        return dir;
    }
    let target = target.map(PathBuf::from).or_else(|| {
        // Cargo marks its target directory with CACHEDIR.TAG.
        out_dir.ancestors().find(|dir| dir.join("CACHEDIR.TAG").is_file()).map(Path::to_owned).or_else(cargo_target_dir)
    });
    target.as_deref().unwrap_or(out_dir).join("smolv-cache")
}

/// Cargo's target directory for the current directory's workspace, from `cargo metadata`.
fn cargo_target_dir() -> Option<PathBuf> {
    let cargo = crate::env::cargo_var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    #[derive(serde::Deserialize)]
    struct Metadata {
        target_directory: PathBuf,
    }
    // The JSON is one line; a wrapper around Cargo may print other lines.
    let json = output.stdout.split(|&byte| byte == b'\n').find(|line| line.starts_with(b"{"))?;
    serde_json::from_slice::<Metadata>(json).ok().map(|metadata| metadata.target_directory)
}

/// The cache directory builds use outside a build script: `SMOLV_CACHE_DIR`, else `smolv-cache` in
/// Cargo's target directory (`CARGO_TARGET_DIR`, else `cargo metadata`'s), else `target/smolv-cache`.
///
/// ```no_run
/// let dir = smolv_build::cache::cache_dir();
/// println!("the build cache is in {}", dir.display());
/// ```
pub fn cache_dir() -> PathBuf {
    resolve_cache_dir(None, Path::new("target"), Env::default())
}

/// What the cache directory holds ([`stats`]), or what was removed from it ([`clean`], [`trim`]).
///
/// ```
/// use smolv_build::cache::stats;
/// let dir = tempfile::tempdir()?;
/// let empty = stats(dir.path());
/// assert_eq!((empty.entries, empty.bytes, empty.other_files), (0, 0, 0));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CacheStats {
    /// Entries (files named as entries are; their bodies are not checked).
    pub entries: u64,
    /// Their total size in bytes.
    pub bytes: u64,
    /// Every other file in the cache's tree, such as the temporary files of killed builds.
    pub other_files: u64,
    /// Their total size in bytes.
    pub other_bytes: u64,
}

/// A file in the cache's tree, and whether it is an entry (named by 64 hex digits).
struct CacheFile {
    path: PathBuf,
    len: u64,
    used: std::time::SystemTime,
    entry: bool,
}

/// Every file under `root/v1`, at any depth.
fn files(root: &Path) -> Vec<CacheFile> {
    fn walk(dir: &Path, found: &mut Vec<CacheFile>) {
        let Ok(listing) = std::fs::read_dir(dir) else {
            return;
        };
        for file in listing.flatten() {
            // A link is never followed.
            let Ok(meta) = std::fs::symlink_metadata(file.path()) else {
                continue;
            };
            if meta.is_dir() {
                walk(&file.path(), found);
                continue;
            }
            let name = file.file_name();
            let entry = meta.is_file()
                && name.len() == 64
                && name.to_str().is_some_and(|name| name.bytes().all(|b| b.is_ascii_hexdigit()));
            found.push(CacheFile {
                path: file.path(),
                len: meta.len(),
                used: meta.modified().unwrap_or(std::time::UNIX_EPOCH),
                entry,
            });
        }
    }
    let mut found = Vec::new();
    walk(&root.join("v1"), &mut found);
    found
}

impl CacheStats {
    fn add(&mut self, file: &CacheFile) {
        if file.entry {
            self.entries += 1;
            self.bytes += file.len;
        } else {
            self.other_files += 1;
            self.other_bytes += file.len;
        }
    }
}

/// Counts the files of the cache at `root` and their size (a missing directory is an empty cache).
///
/// ```no_run
/// use smolv_build::cache::{cache_dir, stats};
/// let now = stats(&cache_dir());
/// println!("{} entries, {} bytes; {} other files", now.entries, now.bytes, now.other_files);
/// ```
pub fn stats(root: &Path) -> CacheStats {
    let mut stats = CacheStats::default();
    files(root).iter().for_each(|file| stats.add(file));
    stats
}

/// Removes every entry of the cache at `root` (the `v1` tree); returns what was removed.
///
/// ```
/// use smolv_build::cache::{clean, stats};
/// let dir = tempfile::tempdir()?;
/// clean(dir.path())?; // an empty or missing cache is fine
/// assert_eq!(stats(dir.path()).entries, 0);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn clean(root: &Path) -> std::io::Result<CacheStats> {
    let before = stats(root);
    match std::fs::remove_dir_all(root.join("v1")) {
        Ok(()) => Ok(before),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(CacheStats::default()),
        Err(e) => Err(e),
    }
}

/// How old a temporary file must be before [`trim`] takes it for a killed build's orphan.
pub const ORPHAN_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes non-entry files [`ORPHAN_AGE`] old or older, then evicts least-recently-used entries until
/// the cache at `root` holds at most `max_bytes` of entries. Returns what was removed.
///
/// ```no_run
/// use smolv_build::cache::{cache_dir, trim};
/// let removed = trim(&cache_dir(), 2 << 30);
/// println!("evicted {} entries, {} bytes", removed.entries, removed.bytes);
/// println!("removed {} orphaned temporary files", removed.other_files);
/// ```
pub fn trim(root: &Path, max_bytes: u64) -> CacheStats {
    let now = std::time::SystemTime::now();
    let (mut entries, others): (Vec<CacheFile>, Vec<CacheFile>) = files(root).into_iter().partition(|f| f.entry);
    let mut removed = CacheStats::default();
    for orphan in others {
        // A file from the future (a clock set back) is old enough too.
        let age = now.duration_since(orphan.used).unwrap_or(ORPHAN_AGE);
        if age >= ORPHAN_AGE && std::fs::remove_file(&orphan.path).is_ok() {
            removed.add(&orphan);
        }
    }
    let mut total: u64 = entries.iter().map(|file| file.len).sum();
    entries.sort_by(|a, b| a.used.cmp(&b.used).then_with(|| a.path.cmp(&b.path)));
    for entry in entries {
        if total <= max_bytes {
            break;
        }
        if std::fs::remove_file(&entry.path).is_ok() {
            total -= entry.len;
            removed.add(&entry);
        }
    }
    removed
}

/// Little-endian writer of entry bodies; a count over `u32` poisons it ([`finish`](BodyWriter::finish) gives `None`).
#[derive(Default)]
pub(crate) struct BodyWriter(pub(crate) Vec<u8>, bool);

impl BodyWriter {
    fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        if !self.1 {
            self.0.extend_from_slice(bytes);
        }
        self
    }
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.raw(&v.to_le_bytes())
    }
    /// A length or count, which must fit a `u32`.
    pub(crate) fn count(&mut self, n: usize) -> &mut Self {
        match u32::try_from(n) {
            Ok(n) => self.u32(n),
            Err(_) => {
                self.0 = Vec::new();
                self.1 = true;
                self
            }
        }
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.count(b.len()).raw(b)
    }
    pub(crate) fn text(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }
    pub(crate) fn words(&mut self, w: &[u32]) -> &mut Self {
        self.list(w, |this, &v| this.u32(v))
    }
    pub(crate) fn list<T>(
        &mut self,
        items: &[T],
        mut write: impl for<'w> FnMut(&'w mut Self, &T) -> &'w mut Self,
    ) -> &mut Self {
        items.iter().fold(self.count(items.len()), |this, item| write(this, item))
    }
    pub(crate) fn finish(self) -> Option<Vec<u8>> {
        (!self.1).then_some(self.0)
    }
}

/// Reader for [`BodyWriter`] output; every read is bounds-checked.
pub(crate) struct BodyReader<'a>(&'a [u8]);

impl<'a> BodyReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self(bytes)
    }
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, tail) = self.0.split_at_checked(n)?;
        self.0 = tail;
        Some(head)
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }
    pub(crate) fn text(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }
    pub(crate) fn words(&mut self) -> Option<Vec<u32>> {
        let len = self.u32()? as usize;
        let bytes = self.take(len.checked_mul(4)?)?;
        Some(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }
    /// A count, then that many items as `read` reads them.
    pub(crate) fn list<T>(&mut self, mut read: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        (0..self.u32()?).map(|_| read(self)).collect()
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::key::SMOLV_BUILD_IDENTITY;
    use super::*;

    #[test]
    fn cargo_metadata_names_a_target_directory_cargo_made() {
        // `cargo test` runs in the crate's directory, with `CARGO` set, and
        // runs this test from a binary in the target directory. (Not under
        // `cargo test --target-dir X`: Cargo does not pass that on to the
        // `cargo metadata` this runs; scripts/test.sh does not use it.)
        let dir = cargo_target_dir().expect("cargo metadata names the target directory");
        let test = std::env::current_exe().unwrap().canonicalize().unwrap();
        assert!(test.starts_with(dir.canonicalize().unwrap()), "{} is not in {}", test.display(), dir.display());
    }

    #[test]
    fn entries_round_trip_and_corruption_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_owned());
        let key = KeyBuilder::new("test").text("a").finish();
        assert!(cache.get(&key).is_none());
        assert!(cache.put(&key, b"hello"));
        assert_eq!(cache.get(&key).unwrap(), b"hello");
        let path = cache.path(&key);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(cache.get(&key).is_none(), "a flipped bit must be a miss");
        std::fs::write(&path, &bytes[..20]).unwrap();
        assert!(cache.get(&key).is_none(), "a truncated entry must be a miss");
    }

    #[test]
    fn an_entry_over_the_size_limit_is_never_stored_and_a_planted_one_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache { max_entry_bytes: 1024, ..Cache::new(dir.path().to_owned()) };
        let key = KeyBuilder::new("test").text("large").finish();
        assert!(!cache.put(&key, &[1u8; 1025]), "over the limit: not stored");
        assert!(cache.get(&key).is_none());
        // A whole, well-hashed entry over the limit, written by something
        // else (a damaged or hostile cache): a miss, not read.
        let body = [2u8; 1025];
        let planted = [&ENTRY_MAGIC[..], blake3::hash(&body).as_bytes(), &body].concat();
        std::fs::create_dir_all(cache.path(&key).parent().unwrap()).unwrap();
        std::fs::write(cache.path(&key), planted).unwrap();
        assert!(cache.get(&key).is_none(), "an entry over the limit must be a miss");
        // At the limit it is an entry.
        assert!(cache.put(&key, &[3u8; 1024]));
        assert_eq!(cache.get(&key).unwrap(), [3u8; 1024]);
    }

    #[test]
    fn a_hostile_body_reads_as_nothing_never_a_panic_nor_a_huge_allocation() {
        // Lengths and counts that claim more than the body holds.
        let huge = u32::MAX.to_le_bytes();
        assert!(BodyReader::new(&[&huge[..], b"abc"].concat()).bytes().is_none());
        assert!(BodyReader::new(&[&huge[..], b"abcd"].concat()).words().is_none());
        assert!(BodyReader::new(&[&huge[..], b"abcd"].concat()).text().is_none());
        assert!(BodyReader::new(&[0, 0, 0, 0x40, 1]).words().is_none(), "a word count whose bytes run past the end");
        assert!(BodyReader::new(&[2, 0, 0, 0, 0xff, 0xfe]).text().is_none(), "text that is not UTF-8");
        // Every truncation of a real body.
        let mut w = BodyWriter::default();
        w.text("lit.frag").words(&[1, 2, 3]).bytes(b"payload");
        let body = w.finish().unwrap();
        for len in 0..body.len() {
            let mut r = BodyReader::new(&body[..len]);
            let whole = r.text().is_some() && r.words().is_some() && r.bytes().is_some();
            assert!(!whole, "a body cut to {len} bytes read whole");
        }
    }

    #[test]
    fn concurrent_puts_never_corrupt_or_lose_entries() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_owned());
        let shared = KeyBuilder::new("test").text("shared").finish();
        std::thread::scope(|scope| {
            for thread in 0..16u32 {
                let cache = &cache;
                scope.spawn(move || {
                    for round in 0..40u32 {
                        // Same key, same body from every thread; and one key per thread and round.
                        assert!(cache.put(&shared, &[7u8; 4096]), "put of the shared key failed");
                        let own = KeyBuilder::new("test").text(&format!("{thread}/{round}")).finish();
                        let body = format!("{thread}/{round}").repeat(200);
                        assert!(cache.put(&own, body.as_bytes()));
                        assert_eq!(cache.get(&shared).as_deref(), Some(&[7u8; 4096][..]));
                    }
                });
            }
        });
        assert_eq!(cache.get(&shared).unwrap(), vec![7u8; 4096]);
        for thread in 0..16u32 {
            for round in 0..40u32 {
                let own = KeyBuilder::new("test").text(&format!("{thread}/{round}")).finish();
                assert_eq!(cache.get(&own).unwrap(), format!("{thread}/{round}").repeat(200).into_bytes());
            }
        }
        assert_eq!(stats(dir.path()).entries, 16 * 40 + 1, "no temporaries left, no entry lost");
        let leftovers = std::fs::read_dir(cache.path(&shared).parent().unwrap())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .count();
        assert_eq!(leftovers, 0);
    }

    #[test]
    fn trim_evicts_least_recently_used_first_and_reads_count_as_use() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_owned());
        let keys: Vec<Key> = (0..4).map(|i| KeyBuilder::new("test").text(&i.to_string()).finish()).collect();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for (i, key) in keys.iter().enumerate() {
            assert!(cache.put(key, &[0u8; 1000]));
            let file = std::fs::File::options().write(true).open(cache.path(key)).unwrap();
            file.set_modified(old + std::time::Duration::from_secs(i as u64)).unwrap();
        }
        let entry_len = stats(dir.path()).bytes / 4;
        // Key 0 is the oldest write, but reading it makes it the most recently used.
        assert!(cache.get(&keys[0]).is_some());
        let removed = trim(dir.path(), entry_len * 2);
        assert_eq!(removed, CacheStats { entries: 2, bytes: entry_len * 2, ..CacheStats::default() });
        assert!(cache.get(&keys[0]).is_some(), "the entry just read survives");
        assert!(cache.get(&keys[1]).is_none() && cache.get(&keys[2]).is_none());
        assert!(cache.get(&keys[3]).is_some());
        assert_eq!(clean(dir.path()).unwrap().entries, 2);
        assert_eq!(stats(dir.path()), CacheStats::default());
        assert_eq!(clean(dir.path()).unwrap(), CacheStats::default(), "cleaning an empty cache is fine");
    }

    /// A temporary file as a build writes one, with its time set `age` ago.
    fn temporary(cache: &Cache, key: &Key, age: std::time::Duration) -> PathBuf {
        let path = cache.path(key).with_file_name(format!(".{}.1234.5.6.tmp", key.hex()));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"half an entr").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(std::time::SystemTime::now() - age).unwrap();
        path
    }

    #[test]
    fn stats_count_left_over_temporaries_and_trim_removes_those_an_hour_old() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().to_owned());
        let key = KeyBuilder::new("test").text("kept").finish();
        assert!(cache.put(&key, b"an entry"));
        let entry_len = stats(dir.path()).bytes;
        let minute = std::time::Duration::from_secs(60);
        let orphan = temporary(&cache, &KeyBuilder::new("test").text("killed").finish(), ORPHAN_AGE + minute);
        let young = temporary(&cache, &KeyBuilder::new("test").text("writing").finish(), ORPHAN_AGE - minute);
        let now = stats(dir.path());
        assert_eq!(now, CacheStats { entries: 1, bytes: entry_len, other_files: 2, other_bytes: 24 });
        // Room for every entry: only the orphan goes.
        let removed = trim(dir.path(), u64::MAX);
        assert_eq!(removed, CacheStats { other_files: 1, other_bytes: 12, ..CacheStats::default() });
        assert!(!orphan.exists(), "an orphan an hour old is removed");
        assert!(young.exists(), "a temporary file a build may still be writing is left alone");
        assert!(cache.get(&key).is_some());
        let left = CacheStats { entries: 1, bytes: entry_len, other_files: 1, other_bytes: 12 };
        assert_eq!(clean(dir.path()).unwrap(), left);
        assert_eq!(stats(dir.path()), CacheStats::default(), "clean removes temporaries too");
    }

    #[test]
    fn a_hit_opens_the_entry_with_write_access_to_set_its_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("entry");
        std::fs::write(&path, b"body").unwrap();
        // Windows sets a file's time only through a handle with write
        // access; Linux does not care, so check the access itself: only a
        // handle open for writing may change the file's length.
        let file = open_for_hit(&path).unwrap();
        file.set_len(4).expect("a hit's handle has write access");
        file.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"body");
        // A read-only entry still serves a hit.
        let mut permissions = std::fs::metadata(&path).unwrap().permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&path, permissions).unwrap();
        let mut body = Vec::new();
        open_for_hit(&path).unwrap().read_to_end(&mut body).unwrap();
        assert_eq!(body, b"body");
    }

    #[test]
    fn keys_change_with_smolv_builds_own_sources() {
        let key = |build: &str| KeyBuilder::of_build("test", build).text("same fields").finish();
        assert_ne!(key("a"), key("b"), "another smolv-build must not read these entries");
        assert_eq!(KeyBuilder::new("test").text("same fields").finish(), key(SMOLV_BUILD_IDENTITY));
    }

    /// The build script's hash of one crate, recomputed: names relative to
    /// the crate and contents of `src/**`, `build.rs` and `Cargo.toml`,
    /// sorted by name.
    fn source_hash(root: &Path) -> String {
        fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                if entry.path().is_dir() { collect(&entry.path(), files) } else { files.push(entry.path()) }
            }
        }
        let mut files = vec![root.join("build.rs"), root.join("Cargo.toml")];
        collect(&root.join("src"), &mut files);
        let mut named: Vec<(String, PathBuf)> = files
            .into_iter()
            .map(|path| {
                let relative = path.strip_prefix(root).unwrap();
                let name: Vec<_> = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect();
                (name.join("/"), path)
            })
            .collect();
        named.sort();
        let mut hasher = blake3::Hasher::new();
        for (name, path) in named {
            let bytes = std::fs::read(path).unwrap();
            hasher.update(&(name.len() as u64).to_le_bytes()).update(name.as_bytes());
            hasher.update(&(bytes.len() as u64).to_le_bytes()).update(&bytes);
        }
        hasher.finalize().to_hex().to_string()
    }

    #[test]
    fn the_build_identity_is_the_hash_of_the_sources_compiled() {
        // smolv-build's own sources, then smolv-codec's (whose encoder and
        // specializer run at build time).
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let expected = format!("{}+{}", source_hash(root), source_hash(&root.join("../smolv-codec")));
        assert_eq!(SMOLV_BUILD_IDENTITY, expected, "the build script must rerun when a source changes");
    }

    #[test]
    fn a_count_too_large_for_its_field_poisons_the_body_instead_of_truncating() {
        let mut w = BodyWriter::default();
        w.u32(7).text("kept");
        assert_eq!(w.finish().unwrap().len(), 4 + 4 + 4);
        let mut w = BodyWriter::default();
        w.u32(7).count(usize::try_from(u64::from(u32::MAX) + 1).unwrap()).text("after");
        assert!(w.0.is_empty(), "nothing of a poisoned body is kept");
        assert!(w.finish().is_none());
        assert!(BodyReader::new(&[]).u32().is_none(), "an empty body reads as no entry");
    }

    #[test]
    fn fields_cannot_run_into_each_other() {
        let ab_c = KeyBuilder::new("t").text("ab").text("c").finish();
        let a_bc = KeyBuilder::new("t").text("a").text("bc").finish();
        assert_ne!(ab_c, a_bc);
    }
}
