//! Errors reading containers and bundles.

use crate::codec::DecodeError;
use crate::reflect::ReflectionError;

/// Why a container or bundle could not be read or decoded.
///
/// ```
/// use smolv_runtime::container::{Container, ContainerError};
/// let error = Container::parse(b"SMVC").unwrap_err();
/// assert!(matches!(error, ContainerError::TooShort { .. }));
/// println!("{error}"); // names the problem and what to do
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContainerError {
    /// Shorter than its fixed header.
    #[error("{what} is {len} bytes, shorter than its {needed}-byte header; the data is truncated")]
    TooShort {
        /// "shader container" or "shader bundle".
        what: &'static str,
        /// Length of the input.
        len: usize,
        /// Header size.
        needed: usize,
    },
    /// Wrong magic bytes.
    #[error("not a {what} (expected magic {expected:?}); pass a file written by smolv-build or cargo smolv")]
    BadMagic {
        /// "shader container" or "shader bundle".
        what: &'static str,
        /// The expected magic.
        expected: &'static str,
    },
    /// Written by a newer format version.
    #[error("{what} format version {version} is newer than this smolv-runtime reads (1); upgrade smolv-runtime")]
    UnsupportedVersion {
        /// "shader container" or "shader bundle".
        what: &'static str,
        /// The version byte.
        version: u8,
    },
    /// A header field is inconsistent.
    #[error("corrupt {what}: {reason}")]
    Corrupt {
        /// "shader container" or "shader bundle".
        what: &'static str,
        /// What is inconsistent.
        reason: &'static str,
    },
    /// The declared decoded size is over the caller's limit.
    #[error(
        "shader declares {declared} bytes of SPIR-V, over the limit of {limit} bytes; \
         raise DecodeSettings::max_decoded_len if shaders are expected to be this large"
    )]
    TooLarge {
        /// Declared decoded size.
        declared: usize,
        /// The limit.
        limit: usize,
    },
    /// The payload needs a dictionary that was not supplied or does not match.
    #[error(
        "shader was compressed with zstd dictionary {expected:#010x}, but {found}; \
         load it through the bundle it came from, or pass its dictionary"
    )]
    DictionaryMismatch {
        /// The dictionary id the container names.
        expected: u32,
        /// What was supplied.
        found: &'static str,
    },
    /// zstd could not decompress the payload.
    #[error("zstd decompression failed: {0}; the shader data is corrupt")]
    Decompress(String),
    /// The SMOL-V payload is invalid.
    #[error("SMOL-V payload: {0}")]
    Smolv(#[from] DecodeError),
    /// The reflection data is invalid.
    #[error("reflection: {0}")]
    Reflection(#[from] ReflectionError),
    /// The decoded SPIR-V does not have the recorded hash.
    #[error("decoded SPIR-V does not match the blake3 hash recorded at build time; the shader data is corrupt")]
    HashMismatch,
    /// A bundle has no entry of that name.
    #[error("no shader named {name:?} in this bundle{suggestion}")]
    NotFound {
        /// The name asked for.
        name: String,
        /// ", did you mean ...?" or empty.
        suggestion: String,
    },
    /// A container could not be built.
    #[error("cannot build shader container: {0}")]
    Build(String),
    /// A part is too large for its field in the format: writing it would
    /// have truncated the field and produced a file no reader accepts.
    #[error("cannot write {what}: {part} is {len}, over the format's limit of {max}; split or shorten it")]
    TooLargeToWrite {
        /// "shader container" or "shader bundle".
        what: &'static str,
        /// Which part, with its unit: "entry name (bytes)", "entry count", ...
        part: &'static str,
        /// Its size.
        len: usize,
        /// The largest size the format holds.
        max: u64,
    },
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// ", did you mean \"x\"?" naming up to three close names, or "".
#[inline]
pub(crate) fn suggest<'n>(name: &str, candidates: impl Iterator<Item = &'n str>) -> String {
    let mut scored: Vec<(usize, &str)> = candidates
        .map(|c| (strsim::levenshtein(name, c), c))
        .filter(|(d, c)| *d <= name.len().max(c.len()) / 2 || c.contains(name))
        .collect();
    scored.sort();
    match scored.as_slice() {
        [] => String::new(),
        close => {
            let names: Vec<String> = close.iter().take(3).map(|(_, c)| format!("{c:?}")).collect();
            format!(", did you mean {}?", names.join(" or "))
        }
    }
}
