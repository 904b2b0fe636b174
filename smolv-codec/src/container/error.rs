//! Errors reading containers and bundles.

use crate::relative_ids::RelativeIdsError;
use crate::smolv::{DecodeError, EncodeError};
use smolv_format::reflect::ReflectionError;

/// Why a container or bundle could not be read or decoded.
///
/// ```
/// use smolv_codec::container::{Container, ContainerError};
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
         raise DecodeOptions::max_decoded_len if shaders are expected to be this large"
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
    /// zstd could not decompress the payload (zstd's name for the error).
    #[error("zstd decompression failed: {0}; the shader data is corrupt")]
    Decompress(&'static str),
    /// The SMOL-V payload is invalid.
    #[error("SMOL-V payload: {0}")]
    Smolv(#[from] DecodeError),
    /// Embedded SPIR-V with relative ids does not convert back.
    #[error("embedded SPIR-V with relative ids: {0}; the shader data is corrupt, rebuild the crate")]
    RelativeIds(#[from] RelativeIdsError),
    /// The reflection data is invalid.
    #[error("reflection: {0}")]
    Reflection(#[from] ReflectionError),
    /// The decoded SPIR-V does not have the recorded hash.
    #[error("decoded SPIR-V does not match the blake3 hash recorded at build time; the shader data is corrupt")]
    HashMismatch,
    /// A container could not be built: what the builder was missing.
    #[error("cannot build shader container: {0}")]
    Build(&'static str),
    /// SMOL-V encoding failed while building a container.
    #[error("cannot build shader container: SMOL-V encoding failed: {0}")]
    Encode(#[from] EncodeError),
    /// zstd could not compress the payload (zstd's name for the error).
    #[error("cannot build shader container: zstd compression failed: {0}")]
    Compress(&'static str),
    /// A part is too large for its field in the format.
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
}

/// A shader set or bundle has no shader of that name: what `get` returns.
///
/// ```
/// # use smolv_codec::container::{BundleBuilder, LookupError};
/// # let (spirv, _, container) = smolv_codec::container::doc_example_container()?;
/// # let bytes = BundleBuilder::new().add("blur.comp", container).build()?;
/// let bundle = smolv_codec::container::Bundle::parse(&bytes)?;
/// let Err(LookupError::NotFound(missing)) = bundle.get("blur.com") else { panic!() };
/// assert_eq!(missing.name, "blur.com");
/// assert_eq!(missing.to_string(), "no shader named \"blur.com\" in this set, did you mean \"blur.comp\"?");
/// assert_eq!(missing.suggestions, ["blur.comp"]); // also as data
/// let Err(LookupError::NotFound(far)) = bundle.get("sky.frag") else { panic!() };
/// assert!(far.suggestions.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no shader named {name:?} in this set{}", did_you_mean(.suggestions))]
#[non_exhaustive]
pub struct NotFound {
    /// The name asked for.
    pub name: String,
    /// Up to three names of the set close to it, closest first.
    pub suggestions: Vec<String>,
}

impl NotFound {
    /// `name` was asked for; `names` are the ones there are.
    ///
    /// ```
    /// use smolv_codec::container::NotFound;
    /// let missing = NotFound::new("sky.frg", ["sky.frag", "ocean.comp"].into_iter());
    /// assert_eq!(missing.suggestions, ["sky.frag"]);
    /// ```
    #[inline]
    pub fn new<'n>(name: &str, names: impl Iterator<Item = &'n str>) -> Self {
        Self { name: name.to_owned(), suggestions: suggest(name, names) }
    }
}

/// `, did you mean "a" or "b"?`, or nothing for no names.
fn did_you_mean(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("{name:?}")).collect();
    if quoted.is_empty() { String::new() } else { format!(", did you mean {}?", quoted.join(" or ")) }
}

/// A shader, set or bundle file that could not be opened, named.
///
/// ```
/// use smolv_codec::container::OpenError;
/// let error = smolv_codec::container::Bundle::open("no/such/shaders.smvb").unwrap_err();
/// assert!(matches!(error, OpenError::Io { .. }));
/// assert!(error.to_string().starts_with("no/such/shaders.smvb: "), "{error}");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file was read, but is not a valid container or bundle.
    #[error("{path}: {source}")]
    Invalid {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        source: ContainerError,
    },
}

#[cfg(feature = "zstd-fast")]
impl OpenError {
    /// Reads the file at `path` and parses its bytes with `parse`.
    ///
    /// ```
    /// use smolv_codec::container::{Bundle, OpenError};
    /// let error = OpenError::read("no/such/file.smvb".as_ref(), Bundle::from_vec).unwrap_err();
    /// assert!(error.to_string().starts_with("no/such/file.smvb: "), "{error}");
    /// ```
    #[inline]
    pub fn read<T>(
        path: &std::path::Path,
        parse: impl FnOnce(Vec<u8>) -> Result<T, ContainerError>,
    ) -> Result<T, Self> {
        let bytes = std::fs::read(path).map_err(|source| Self::Io { path: path.to_owned(), source })?;
        parse(bytes).map_err(|source| Self::Invalid { path: path.to_owned(), source })
    }
}

/// Why [`Bundle::get`](super::Bundle::get) and [`Bundle::decode`](super::Bundle::decode) found no valid shader.
///
/// ```
/// # use smolv_codec::container::{Bundle, BundleBuilder, LookupError};
/// # let (spirv, _, container) = smolv_codec::container::doc_example_container()?;
/// # let bytes = BundleBuilder::new().add("blur.comp", container).build()?;
/// let bundle = Bundle::parse(&bytes)?;
/// assert!(matches!(bundle.get("sky.comp"), Err(LookupError::NotFound(_))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LookupError {
    /// No entry has that name.
    #[error(transparent)]
    NotFound(#[from] NotFound),
    /// The entry is not a valid container, or does not decode.
    #[error(transparent)]
    Invalid(#[from] ContainerError),
}

/// Up to three of `candidates` close to `name`, closest first.
#[inline]
pub(crate) fn suggest<'n>(name: &str, candidates: impl Iterator<Item = &'n str>) -> Vec<String> {
    let mut scored: Vec<(usize, &str)> = candidates
        .map(|c| (strsim::levenshtein(name, c), c))
        .filter(|(d, c)| *d <= name.len().max(c.len()) / 2 || c.contains(name))
        .collect();
    scored.sort();
    scored.iter().take(3).map(|(_, c)| (*c).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_miss_names_close_names_as_data_and_its_debug_has_no_stray_comma() {
        let names = ["triangle.wgsl#vs_main", "triangle.wgsl#fs_main", "sky.wgsl#fs_main"].into_iter();
        let missing = NotFound::new("triangle.wgsl#vs_mian", names.clone());
        assert_eq!(missing.suggestions, ["triangle.wgsl#vs_main", "triangle.wgsl#fs_main"]);
        assert_eq!(
            missing.to_string(),
            "no shader named \"triangle.wgsl#vs_mian\" in this set, did you mean \"triangle.wgsl#vs_main\" or \
             \"triangle.wgsl#fs_main\"?"
        );
        // What `fn main() -> Result<…>` prints for an error that reaches it.
        let debug = format!("{missing:?}");
        assert!(debug.contains(r#"suggestions: ["triangle.wgsl#vs_main", "triangle.wgsl#fs_main"]"#), "{debug}");
        assert!(!debug.contains("\", did you mean"), "{debug}");
        let far = NotFound::new("water.frag", names);
        assert!(far.suggestions.is_empty());
        assert_eq!(far.to_string(), "no shader named \"water.frag\" in this set");
    }
}
