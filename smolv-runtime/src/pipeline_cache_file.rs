//! The file around a pipeline cache's data, shared by the Vulkan and wgpu `PipelineCacheFile`s.
//!
//! | offset | size | field                                        |
//! |-------:|-----:|----------------------------------------------|
//! | 0      | 8    | magic, one per layer                         |
//! | 8      | 4    | format version, little-endian                |
//! | 12     | 4    | reserved, zero                               |
//! | 16     | 8    | length of the body, little-endian            |
//! | 24     | 32   | BLAKE3 hash of the body                      |
//! | 56     | ...  | the body, as the layer defines it            |
//!
//! The hash catches truncation and bit rot; it is not a signature.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// What loading a pipeline cache file found.
///
/// ```
/// # #[cfg(feature = "vulkan")]
/// use smolv_runtime::vulkan::CacheLoad;
/// # #[cfg(not(feature = "vulkan"))]
/// # use smolv_runtime::wgpu::CacheLoad;
///
/// // `load` as `PipelineCacheFile::open` returned it, beside the cache.
/// fn report(load: &CacheLoad) {
///     match load {
///         CacheLoad::Loaded { bytes } => println!("pipeline cache: {bytes} bytes"),
///         CacheLoad::Missing => println!("pipeline cache: first run"),
///         CacheLoad::Ignored { reason } => eprintln!("warning: {reason}"),
///     }
/// }
/// report(&CacheLoad::Missing);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheLoad {
    /// The file was whole and matched this device; its data seeds the cache.
    Loaded {
        /// Bytes of driver (or wgpu) data the cache was seeded with.
        bytes: usize,
    },
    /// There was no file yet.
    Missing,
    /// The file was unusable and was ignored; the cache starts empty.
    Ignored {
        /// Why.
        reason: CacheRejected,
    },
}

/// Why a pipeline cache file was ignored; each message names the file.
///
/// ```
/// # #[cfg(feature = "vulkan")]
/// use smolv_runtime::vulkan::{CacheLoad, CacheRejected};
/// # #[cfg(not(feature = "vulkan"))]
/// # use smolv_runtime::wgpu::{CacheLoad, CacheRejected};
///
/// // `load` as `PipelineCacheFile::open` returned it.
/// fn warn(load: &CacheLoad) {
///     if let CacheLoad::Ignored { reason: CacheRejected::NotACacheFile(path) } = load {
///         eprintln!("{} is not a pipeline cache; it will be replaced", path.display());
///     }
/// }
/// let load = CacheLoad::Ignored { reason: CacheRejected::NotACacheFile("pipelines.bin".into()) };
/// warn(&load);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CacheRejected {
    /// The file exists but could not be read.
    #[error("{path}: cannot read it: {message}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error, as text.
        message: String,
    },
    /// The file does not start with this layer's magic (`SMOLVPC\0` for Vulkan, `SMOLVWPC` for wgpu).
    #[error("{0}: not a smolv pipeline cache file of this kind (its magic bytes differ); it will be replaced on save")]
    NotACacheFile(PathBuf),
    /// The file was written in another format version.
    #[error("{path}: format version {found}, which this smolv does not read; it will be replaced on save")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
    },
    /// The header's length does not match the bytes that follow it.
    #[error(
        "{path}: its header announces {expected} bytes of data but {found} follow; \
         the file is truncated or was appended to"
    )]
    Length {
        /// The file.
        path: PathBuf,
        /// The length in the header.
        expected: u64,
        /// The length on disk.
        found: u64,
    },
    /// The data does not match the hash in the header.
    #[error("{0}: its contents do not match their checksum; the file is corrupt")]
    Checksum(PathBuf),
    /// The driver data has no well-formed `VkPipelineCacheHeaderVersionOne` (Vulkan layer).
    #[error("{path}: its driver data has a malformed header: {reason}")]
    DriverHeader {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: &'static str,
    },
    /// The data was written on another device (Vulkan layer).
    #[error("{path}: it was written on device {vendor:04x}:{device:04x}, not this {this_vendor:04x}:{this_device:04x}")]
    OtherDevice {
        /// The file.
        path: PathBuf,
        /// Its vendor id.
        vendor: u32,
        /// Its device id.
        device: u32,
        /// This device's vendor id.
        this_vendor: u32,
        /// This device's device id.
        this_device: u32,
    },
    /// The data was written by another driver build (Vulkan layer).
    #[error("{0}: it was written by another driver version (pipeline cache UUID differs)")]
    OtherDriver(PathBuf),
    /// The driver refused the data although the checks passed (Vulkan layer).
    #[cfg(feature = "vulkan")]
    #[error("{path}: the driver rejected it ({result})")]
    DriverRejected {
        /// The file.
        path: PathBuf,
        /// What `vkCreatePipelineCache` returned.
        result: ash::vk::Result,
    },
    /// The adapter record in the file is malformed (wgpu layer).
    #[error("{path}: its adapter record is malformed: {reason}; it will be replaced on save")]
    AdapterRecord {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: &'static str,
    },
    /// The data was written for another adapter or driver (wgpu layer).
    #[error("{path}: it was written for {found}, not this {this}; it will be replaced on save")]
    OtherAdapter {
        /// The file.
        path: PathBuf,
        /// The identity the file records, escaped and bounded.
        found: String,
        /// This adapter's identity, in the same form.
        this: String,
    },
    /// wgpu raised an error for the data although the checks passed (wgpu layer).
    #[error("{path}: wgpu rejected it ({message})")]
    WgpuRejected {
        /// The file.
        path: PathBuf,
        /// wgpu's error and its causes, on one line.
        message: String,
    },
}

/// Size of the file's own header.
pub(crate) const HEADER_LEN: usize = 56;

/// One layer's file: its magic and format version.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Format {
    /// The first eight bytes of every file of this kind.
    pub(crate) magic: [u8; 8],
    /// The version of the body's layout.
    pub(crate) version: u32,
}

impl Format {
    /// The body of `file` (read from `path`), if its header is this format's and matches it.
    pub(crate) fn body<'f>(&self, path: &Path, file: &'f [u8]) -> Result<&'f [u8], CacheRejected> {
        let path = || path.to_owned();
        let Some((header, body)) = file.split_at_checked(HEADER_LEN).filter(|(header, _)| header[..8] == self.magic)
        else {
            return Err(CacheRejected::NotACacheFile(path()));
        };
        let version = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default());
        if version != self.version {
            return Err(CacheRejected::Version { path: path(), found: version });
        }
        let expected = u64::from_le_bytes(header[16..24].try_into().unwrap_or_default());
        let found = u64::try_from(body.len()).unwrap_or(u64::MAX);
        if expected != found {
            return Err(CacheRejected::Length { path: path(), expected, found });
        }
        if blake3::hash(body).as_bytes()[..] != header[24..HEADER_LEN] {
            return Err(CacheRejected::Checksum(path()));
        }
        Ok(body)
    }

    /// The file bytes for a body made of `parts`, in order.
    pub(crate) fn file_bytes(&self, parts: &[&[u8]]) -> Vec<u8> {
        let body = parts.concat();
        let len = u64::try_from(body.len()).unwrap_or(u64::MAX).to_le_bytes();
        let hash = blake3::hash(&body);
        [&self.magic[..], &self.version.to_le_bytes(), &[0; 4], &len, hash.as_bytes(), &body].concat()
    }
}

/// The bytes of the cache file at `path`, or the [`CacheLoad`] to report instead.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, CacheLoad> {
    std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CacheLoad::Missing,
        _ => CacheLoad::Ignored { reason: CacheRejected::Unreadable { path: path.to_owned(), message: e.to_string() } },
    })
}

/// Writes `bytes` to `path` atomically (a temporary file renamed), creating the parent directory.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static TEMP: AtomicU64 = AtomicU64::new(0);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    // Unique per process and call, for concurrent saves.
    let mut temp = path.to_owned().into_os_string();
    temp.push(format!(".tmp.{}.{}", std::process::id(), TEMP.fetch_add(1, Ordering::Relaxed)));
    let temp = PathBuf::from(temp);
    std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMAT: Format = Format { magic: *b"SMOLVTST", version: 3 };

    #[test]
    fn a_body_in_parts_reads_back_whole() {
        let file = FORMAT.file_bytes(&[b"one ", b"", b"two"]);
        assert_eq!(file.len(), HEADER_LEN + 7);
        assert_eq!(FORMAT.body(Path::new("f"), &file), Ok(&b"one two"[..]));
        assert_eq!(file, FORMAT.file_bytes(&[b"one two"]), "the parts are hashed as one body");
    }

    #[test]
    fn another_formats_file_is_not_this_formats() {
        let file = FORMAT.file_bytes(&[b"body"]);
        let other = Format { magic: *b"SMOLVOTH", ..FORMAT };
        assert!(matches!(other.body(Path::new("f"), &file), Err(CacheRejected::NotACacheFile(_))));
        let newer = Format { version: 4, ..FORMAT };
        assert!(matches!(newer.body(Path::new("f"), &file), Err(CacheRejected::Version { found: 3, .. })));
    }

    #[test]
    fn an_atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/cache.bin");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let names: Vec<_> =
            std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["cache.bin"]);
    }

    #[test]
    fn a_missing_file_is_missing_and_a_directory_is_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(&dir.path().join("absent")), Err(CacheLoad::Missing));
        assert!(matches!(read(dir.path()), Err(CacheLoad::Ignored { reason: CacheRejected::Unreadable { .. } })));
    }
}
