//! `OUT_DIR/smolv/manifest.json`: what smolv-build wrote.

use std::path::PathBuf;

use crate::codec::{Codec, Framing};
use crate::reflect::{Interface, Reflection};
use crate::wgsl::WgslCodec;

/// The manifest format this smolv-format reads and writes ([`Manifest::format`]).
///
/// ```
/// assert_eq!(smolv_format::MANIFEST_FORMAT, 2);
/// ```
pub const MANIFEST_FORMAT: u32 = 2;

/// What smolv-build wrote; `Recipe` is what each module's `recipe` reads as (smolv-build's `ShaderRecipe`).
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use smolv_format::{Codec, Manifest, MANIFEST_FORMAT};
/// let json = r#"{
///   "format": 2, "bundle": "shaders.smvb", "dictionary": null, "strip_debug": true,
///   "embedded": { "codec": "spirv", "layout": "module", "goal": "installed",
///                 "directory": "embedded/set.smvd", "data": "embedded/set.data", "dictionary": null,
///                 "spirv_bytes": 0, "stored_bytes": 0, "decoder_bytes": 0 },
///   "modules": []
/// }"#;
/// let manifest: Manifest = serde_json::from_str(json)?;
/// assert_eq!(manifest.format, MANIFEST_FORMAT);
/// assert_eq!(manifest.embedded.codec, Codec::Spirv);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Manifest<Recipe = ManifestRecipe> {
    /// Manifest format version ([`MANIFEST_FORMAT`]).
    pub format: u32,
    /// The bundle of every module, relative to the artifact directory.
    pub bundle: String,
    /// The shared dictionary file, if the containers use one.
    pub dictionary: Option<String>,
    /// Whether debug info was stripped from what ships.
    pub strip_debug: bool,
    /// Whether what ships keeps the names reflection reads.
    #[cfg_attr(feature = "serde", serde(default))]
    pub interface_names: bool,
    /// The embedded set.
    pub embedded: ManifestEmbeddedSet,
    /// Every module, sorted by name.
    pub modules: Vec<ManifestModule<Recipe>>,
    /// The WGSL a wgpu build shipped instead of SPIR-V, if any (its modules are not in [`embedded`](Self::embedded)).
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub wgsl: Option<ManifestWgsl>,
}

/// The WGSL a build for wgpu shipped: one stream of minified text.
///
/// ```
/// use smolv_format::{ManifestWgsl, ManifestWgslModule, WgslCodec};
/// let wgsl = ManifestWgsl {
///     codec: WgslCodec::WgslLz4,
///     data: "embedded/wgsl.data".into(),
///     unpacked_bytes: 90,
///     check: 0x1234_5678,
///     stored_bytes: 70,
///     modules: vec![ManifestWgslModule {
///         name: "fill.comp".into(),
///         text: "wgsl/0000-fill.comp.wgsl".into(),
///         offset: 0,
///         len: 90,
///     }],
/// };
/// assert_eq!(wgsl.modules[0].len, wgsl.unpacked_bytes);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifestWgsl {
    /// How the stream is stored.
    pub codec: WgslCodec,
    /// The stream as stored, relative to the artifact directory.
    pub data: String,
    /// Bytes of text the stream unpacks to.
    pub unpacked_bytes: usize,
    /// xxHash32 (seed 0) of the unpacked text.
    pub check: u32,
    /// What the binary carries: the stream, the names and the table.
    pub stored_bytes: usize,
    /// Each module shipped as WGSL, sorted by name.
    pub modules: Vec<ManifestWgslModule>,
}

/// One module shipped as WGSL.
///
/// ```
/// let module = smolv_format::ManifestWgslModule {
///     name: "sky.frag".into(),
///     text: "wgsl/0001-sky.frag.wgsl".into(),
///     offset: 120,
///     len: 300,
/// };
/// assert!(module.text.ends_with(".wgsl"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifestWgslModule {
    /// Module name, as in [`Manifest::modules`].
    pub name: String,
    /// Its minified WGSL on its own, relative to the artifact directory.
    pub text: String,
    /// Where its text starts in the unpacked stream.
    pub offset: usize,
    /// Bytes of its text.
    pub len: usize,
}

/// One module in the manifest.
///
/// ```
/// use smolv_format::reflect::{Reflection, ShaderStage};
/// use smolv_format::{ManifestEmbeddedModule, ManifestModule};
/// let module: ManifestModule = ManifestModule {
///     name: "fill.comp".into(),
///     artifact: "modules/0000-fill.comp.smvc".into(),
///     optimized_spirv: "spirv/0000-fill.comp.spv".into(),
///     source: "shaders/fill.comp".into(),
///     variant: None,
///     recipe: None,
///     reflection: Reflection::new(ShaderStage::Compute, "main"),
///     interface: None,
///     spirv_bytes: 160,
///     container_bytes: 96,
///     embedded: ManifestEmbeddedModule {
///         data: "embedded/modules/0000-fill.comp.data".into(),
///         unpacked_bytes: 160,
///         spirv_bytes: 160,
///         check: 0,
///     },
/// };
/// assert_eq!(module.embedded.spirv_bytes, module.spirv_bytes);
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifestModule<Recipe = ManifestRecipe> {
    /// Module name, the key `include_shader!` takes.
    pub name: String,
    /// Its container, relative to the artifact directory.
    pub artifact: String,
    /// The optimized SPIR-V before encoding and stripping, relative to the artifact directory.
    pub optimized_spirv: String,
    /// The source file.
    pub source: PathBuf,
    /// The variant, if this module is one.
    pub variant: Option<String>,
    /// How to compile it again exactly as the build did, for hot reload.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub recipe: Option<Recipe>,
    /// Reflection of the shipped SPIR-V.
    pub reflection: Reflection,
    /// The typed interface before stripping; `None` where [`Interface::from_spirv`](crate::reflect::Interface) failed.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub interface: Option<Interface>,
    /// Size of the decoded SPIR-V.
    pub spirv_bytes: usize,
    /// Size of the container.
    pub container_bytes: usize,
    /// The module as `include_shader!` embeds it.
    pub embedded: ManifestEmbeddedModule,
}

/// The part of a module's recipe every reader understands: where it came from.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// let json = r#"{ "name": "lit.frag", "root": "shaders", "source": "shaders/lit.frag",
///                 "includes": ["shaders/common.glsl"], "job": {}, "settings": {} }"#;
/// let recipe: smolv_format::ManifestRecipe = serde_json::from_str(json)?;
/// assert_eq!(recipe.includes, [std::path::Path::new("shaders/common.glsl")]);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifestRecipe {
    /// The module's name (`lit.frag`, `lit.frag@shadows`, `sky.wgsl#fs_main`).
    pub name: String,
    /// The shader directory (or glob root) the source was found in.
    pub root: PathBuf,
    /// The source file.
    pub source: PathBuf,
    /// Every other file the compiler read (includes, Slang imports).
    pub includes: Vec<PathBuf>,
}

/// One module on its own, packed with the embedded set's codec.
///
/// ```
/// let module = smolv_format::ManifestEmbeddedModule {
///     data: "embedded/modules/0000-fill.comp.data".into(),
///     unpacked_bytes: 160,
///     spirv_bytes: 160,
///     check: 0x1234_5678,
/// };
/// assert!(module.data.starts_with("embedded/"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifestEmbeddedModule {
    /// The packed module, relative to the artifact directory.
    pub data: String,
    /// Bytes it unpacks to (SMOL-V, or SPIR-V where [`Codec::unpacks_to_spirv`]).
    pub unpacked_bytes: usize,
    /// Bytes of SPIR-V it decodes to.
    pub spirv_bytes: usize,
    /// xxHash32 (seed 0) of the decoded SPIR-V.
    pub check: u32,
}

/// The embedded set: what `include_shaders!` puts in the binary.
///
/// ```
/// use smolv_format::{Codec, Framing, ManifestEmbeddedSet};
/// let set = ManifestEmbeddedSet {
///     codec: Codec::SmolvLz4,
///     framing: Framing::Stream,
///     goal: "installed".into(),
///     directory: "embedded/set.smvd".into(),
///     data: "embedded/set.data".into(),
///     dictionary: None,
///     spirv_bytes: 74_000,
///     stored_bytes: 13_500,
///     decoder_bytes: 16_300,
/// };
/// println!("{} ({}): {} bytes stored", set.codec, set.framing, set.stored_bytes);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifestEmbeddedSet {
    /// How each module's bytes are stored; the JSON holds its name.
    pub codec: Codec,
    /// One by one or as one stream (the JSON's `layout`).
    #[cfg_attr(feature = "serde", serde(rename = "layout"))]
    pub framing: Framing,
    /// The size goal it was chosen for: `installed` or `download`.
    pub goal: String,
    /// The `SMVD` directory, relative to the artifact directory.
    pub directory: String,
    /// The data, relative to the artifact directory.
    pub data: String,
    /// The zstd dictionary, for codec `smolv-zstd-dictionary` only.
    pub dictionary: Option<String>,
    /// Bytes of SPIR-V the set decodes to.
    pub spirv_bytes: usize,
    /// What the binary carries: data, dictionary, names and tables.
    pub stored_bytes: usize,
    /// Estimated bytes of decoder code the codec links.
    pub decoder_bytes: usize,
}
