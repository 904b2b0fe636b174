//! The names of the files smolv-build writes under `OUT_DIR`.

/// Name of the artifact directory inside `OUT_DIR`.
///
/// ```
/// let manifest = std::path::Path::new("target/out").join(smolv_format::ARTIFACT_DIR).join(smolv_format::MANIFEST_FILE);
/// assert!(manifest.ends_with("smolv/manifest.json"));
/// ```
pub const ARTIFACT_DIR: &str = "smolv";

/// Name of the manifest inside [`ARTIFACT_DIR`].
///
/// ```
/// assert_eq!(smolv_format::MANIFEST_FILE, "manifest.json");
/// ```
pub const MANIFEST_FILE: &str = "manifest.json";

/// Name of the bundle of every module inside [`ARTIFACT_DIR`].
///
/// ```
/// assert!(smolv_format::BUNDLE_FILE.ends_with(".smvb"));
/// ```
pub const BUNDLE_FILE: &str = "shaders.smvb";

/// Name of the embedded set's directory inside [`ARTIFACT_DIR`].
///
/// ```
/// assert!(smolv_format::EMBEDDED_DIRECTORY_FILE.starts_with("embedded/"));
/// ```
pub const EMBEDDED_DIRECTORY_FILE: &str = "embedded/set.smvd";

/// Name of the embedded set's data inside [`ARTIFACT_DIR`].
///
/// ```
/// assert!(smolv_format::EMBEDDED_DATA_FILE.starts_with("embedded/"));
/// ```
pub const EMBEDDED_DATA_FILE: &str = "embedded/set.data";

/// Name of the embedded set's zstd dictionary inside [`ARTIFACT_DIR`].
///
/// ```
/// assert!(smolv_format::EMBEDDED_DICTIONARY_FILE.starts_with("embedded/"));
/// ```
pub const EMBEDDED_DICTIONARY_FILE: &str = "embedded/set.zdict";

/// Name of the WGSL stream ([`crate::WgslCodec`]) inside [`ARTIFACT_DIR`].
///
/// ```
/// assert!(smolv_format::EMBEDDED_WGSL_FILE.starts_with("embedded/"));
/// ```
pub const EMBEDDED_WGSL_FILE: &str = "embedded/wgsl.data";

/// Name of the generated Rust types inside [`ARTIFACT_DIR`].
///
/// ```
/// assert!(smolv_format::TYPES_FILE.ends_with(".rs"));
/// ```
pub const TYPES_FILE: &str = "types.rs";
