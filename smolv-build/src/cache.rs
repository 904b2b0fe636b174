//! The content-hash cache: compiled modules and compressed sets, keyed by
//! blake3 over everything that affects them.
//!
//! Entries live in one directory shared by every crate and profile of a
//! workspace. Each is written to a temporary file and renamed into place,
//! so concurrent builds never see half an entry, and each carries a hash of
//! its body, checked on every read: a corrupt or truncated entry is a miss
//! and gets rebuilt.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const ENTRY_MAGIC: &[u8; 12] = b"SMOLVCACHE1\0";

/// A cache key: blake3 over length-prefixed fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key([u8; 32]);

impl Key {
    /// Hex form, used as the file name.
    pub(crate) fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Builds a [`Key`] from fields; each is length-prefixed so that fields
/// cannot run into each other.
pub(crate) struct KeyBuilder(blake3::Hasher);

impl KeyBuilder {
    pub(crate) fn new(domain: &str) -> Self {
        Self(blake3::Hasher::new_derive_key(domain))
    }

    pub(crate) fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    pub(crate) fn text(&mut self, text: &str) -> &mut Self {
        self.field(text.as_bytes())
    }

    pub(crate) fn finish(&self) -> Key {
        Key(*self.0.finalize().as_bytes())
    }
}

/// blake3 of a file's contents, or `None` if it cannot be read.
pub(crate) fn hash_file(path: &Path) -> Option<[u8; 32]> {
    std::fs::read(path).ok().map(|bytes| *blake3::hash(&bytes).as_bytes())
}

/// File hashes remembered for one build: an include shared by hundreds of
/// modules is read and hashed once, not once per module.
#[derive(Default)]
pub(crate) struct FileHashes(std::sync::Mutex<std::collections::HashMap<PathBuf, Option<[u8; 32]>>>);

impl FileHashes {
    pub(crate) fn get(&self, path: &Path) -> Option<[u8; 32]> {
        if let Some(hash) = self.0.lock().ok().and_then(|memo| memo.get(path).copied()) {
            return hash;
        }
        let hash = hash_file(path);
        if let Ok(mut memo) = self.0.lock() {
            memo.insert(path.to_owned(), hash);
        }
        hash
    }
}

/// The cache directory.
#[derive(Clone, Debug)]
pub(crate) struct Cache {
    root: PathBuf,
}

impl Cache {
    pub(crate) fn new(root: PathBuf) -> Self {
        Self { root }
    }

    fn path(&self, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.root.join("v1").join(&hex[..2]).join(hex)
    }

    /// The entry's body, if present and intact.
    pub(crate) fn get(&self, key: &Key) -> Option<Vec<u8>> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let rest = bytes.strip_prefix(ENTRY_MAGIC.as_slice())?;
        let (hash, body) = rest.split_at_checked(32)?;
        (blake3::hash(body).as_bytes() == hash).then(|| body.to_vec())
    }

    /// Stores an entry atomically. Failing to cache is not a build error,
    /// so this only reports whether it worked.
    pub(crate) fn put(&self, key: &Key, body: &[u8]) -> bool {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let path = self.path(key);
        let Some(dir) = path.parent() else {
            return false;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return false;
        }
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{}.{}.{unique}.tmp", key.hex(), std::process::id()));
        let written = std::fs::File::create(&temp).and_then(|mut file| {
            file.write_all(ENTRY_MAGIC)?;
            file.write_all(blake3::hash(body).as_bytes())?;
            file.write_all(body)
        });
        if written.is_err() || std::fs::rename(&temp, &path).is_err() {
            let _ = std::fs::remove_file(&temp);
            return false;
        }
        true
    }
}

/// Little-endian field writer for cache entry bodies.
#[derive(Default)]
pub(crate) struct BodyWriter(pub(crate) Vec<u8>);

impl BodyWriter {
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
        self
    }
    pub(crate) fn text(&mut self, s: &str) -> &mut Self {
        self.bytes(s.as_bytes())
    }
    pub(crate) fn words(&mut self, w: &[u32]) -> &mut Self {
        self.u32(w.len() as u32);
        w.iter().for_each(|&v| self.0.extend_from_slice(&v.to_le_bytes()));
        self
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
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn fields_cannot_run_into_each_other() {
        let ab_c = KeyBuilder::new("t").text("ab").text("c").finish();
        let a_bc = KeyBuilder::new("t").text("a").text("bc").finish();
        assert_ne!(ab_c, a_bc);
    }
}
