//! # smolv-build
//!
//! The build-time half of [smolv](https://github.com/smolv-rs/smolv): compiles
//! a crate's GLSL, HLSL, WGSL and Slang shaders (or takes precompiled SPIR-V) in
//! `build.rs`, optimizes them for size, SMOL-V encodes them, packs them the
//! way that makes the binary smallest, and caches everything by content
//! hash, so unchanged shaders are never compiled twice.
//!
//! ## Tutorial
//!
//! Add the crates:
//!
//! ```sh
//! cargo add smolv-runtime
//! cargo add --build smolv-build
//! ```
//!
//! Put shaders in `shaders/`, for example `shaders/lit.frag`:
//!
//! ```glsl
//! #version 450
//! #include "common.glsl"   // next to the shader, or in an include dir
//! layout(location = 0) in vec3 normal;
//! layout(location = 0) out vec4 color;
//! void main() { color = vec4(shade(normal), 1.0); }
//! ```
//!
//! and compile them from `build.rs`:
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     smolv_build::Config::new().shader_dir("shaders").compile();
//! }
//! ```
//!
//! Every shader becomes an artifact in `OUT_DIR`; `smolv_runtime::include_shader!`
//! embeds it and decodes it at run time. A shader that does not compile
//! fails the build with every error at `path:line:col`, each a Cargo error
//! (`cargo::error=`).
//!
//! If the shader compiler crashes (glslang 2023.1 segfaults on some
//! invalid shaders), the build script dies, and Cargo's output of it names
//! the shaders that were compiling. Build again: smolv-build then compiles
//! those alone, each in a separate process, and the one that crashes the
//! compiler becomes an ordinary error naming it.
//!
//! ## What it does
//!
//! | step | how |
//! |---|---|
//! | find | `.vert .frag .comp .geom .tesc .tese .mesh .task .rgen .rchit .rmiss .rahit .rint .rcall` are GLSL of that stage; `.glsl`/`.hlsl` name their stage with a double extension (`blur.comp.hlsl`) or `#pragma shader_stage(compute)`, and are include files otherwise; `.wgsl` gives one module per entry point (`sky.wgsl#fs_main`), and so does `.slang`, per `[shader("…")]` entry point (`tri.slang#vs_main`; a `.slang` file without one is a module for `import`); `.spv`/`.spirv` are precompiled SPIR-V, stage and entry point from their first `OpEntryPoint` (`blur.comp.spv`); [`Config::language`] states that stage-named files are HLSL (glslc's `-x hlsl`) |
//! | compile | shaderc for GLSL and HLSL (cargo feature `shaderc`), naga for WGSL (feature `wgsl`), the `slangc` binary for Slang ([`Config::slangc`], `SMOLV_SLANGC`, else `PATH`), which writes the depfile that tracks its imports |
//! | optimize | the SPIRV-Tools `-Os` recipe, run as the `spirv-opt` binary for every language (shaderc's in-process size level for GLSL/HLSL only when `spirv-opt` is missing; see [Optimizer](crate#optimizer)) |
//! | encode | SMOL-V, stripped of debug info in release builds |
//! | pack | what the binary embeds: raw SPIR-V, SMOL-V, or SMOL-V + LZ4 (HC 12) or zstd (level 19, optionally with a trained dictionary), per module or as one stream; by default the smallest total of stored bytes *and* the decoder code the packing links ([`Packing`], [`SizeGoal`]) |
//! | bundle | zstd level 19 containers with blake3 hashes, with a dictionary when that makes the total smaller: the asset-file form, for tools |
//! | cache | blake3 over sources, includes and imports (and the include paths searched before them), defines, options, the compilers as linked (the shaderc library's bytes, naga's exact version, `slangc -v`, `spirv-opt --version`) and smolv-build's own sources; one directory per workspace; optionally a second level on a Bazel HTTP remote cache shared by CI and developers ([`Config::remote_cache`], feature `remote-cache`) |
//! | emit | the embedded set (`embedded/`), containers, a bundle and `manifest.json` in `OUT_DIR/smolv`, `smolv-report.{txt,json}` in `OUT_DIR`, `cargo:rerun-if-changed` for every source, include and directory, `cargo:rerun-if-env-changed` for every variable read |
//!
//! ## HLSL trees named by stage, and Slang
//!
//! HLSL written for `dxc -spirv` or `glslc -x hlsl` often names files by
//! stage like GLSL (`triangle.vert`); state their language, and glslc's
//! HLSL options, on the builder:
//!
//! ```no_run
//! // build.rs
//! use smolv_build::{Config, Language, ResourceKind};
//! Config::new()
//!     .shader_dir("shaders")
//!     .language("shaders/hlsl", Language::Hlsl) // glslc -x hlsl
//!     .hlsl_entry_point("main") // -fentry-point
//!     .hlsl_io_mapping(true) // -fhlsl-iomap
//!     .binding_base(ResourceKind::Texture, 16) // -ftexture-binding-base
//!     .compile();
//! ```
//!
//! `.slang` files are compiled by `slangc`, one module per entry point,
//! then optimized like every other language. Slang marks its SPIR-V as
//! source language 11, which SPIRV-Tools before 2023.2 rejects, so that
//! operand of `OpSource` is rewritten to Unknown. Without `slangc`, a
//! `.slang` file is an error that says how to install it.
//!
//! The [`Report`] counts, per language, how many shaders compiled
//! ([`Report::languages`]).
//!
//! ## Packing
//!
//! A decoder is code in the binary too, so the build weighs it: small sets
//! ship as raw SPIR-V (no decoder at all), larger ones as SMOL-V + LZ4 or
//! zstd, whichever makes stored bytes plus decoder code smallest. The report
//! says what was chosen and what it saved:
//!
//! ```text
//! packing smolv-lz4 (stream): shaders 74.0 KB → 13.5 KB, decoder +16.3 KB, net −44.2 KB
//! ```
//!
//! [`Config::packing`] (or `SMOLV_PACKING`) forces a packing, and
//! [`Config::size_goal`] (or `SMOLV_SIZE_GOAL=download`) weighs sizes after
//! `xz -9` instead, for games whose store or installer compresses them.
//!
//! ## Optimizer
//!
//! Every module goes through the `spirv-opt` binary rather than an
//! in-process SPIRV-Tools: it needs no C++ build for WGSL users, a crash in
//! it (2023.1 segfaults on some valid modules, including several of
//! glslang's test shaders) cannot take the build down, and the recipe is
//! exactly `spirv-opt -Os`. When it fails, the module ships unoptimized and
//! the build prints a warning. When `spirv-opt` is not installed, GLSL and
//! HLSL fall back to shaderc's size level (the same recipe, in-process) and
//! WGSL ships unoptimized, with a warning.
//!
//! ## Linking shaderc
//!
//! The `shaderc` feature links the shaderc C++ library. Point
//! `SHADERC_LIB_DIR` at a directory holding `libshaderc_combined.a` (the
//! smolv repository's `scripts/setup.sh` builds one from Debian's static
//! archives), or enable smolv-build's `shaderc-build-from-source` feature
//! (rather than shaderc's own `build-from-source`: smolv-build's build script
//! finds the library shaderc-sys links and keys its cache on its bytes, and
//! its feature tells it that there is none to find). WGSL-only crates can
//! turn the feature off: `default-features = false, features = ["wgsl"]`.
// One exception, in `tokens`: joining Cargo's jobserver.
#![deny(unsafe_code)]
#![deny(missing_docs)]
// The examples are build scripts, and a build script's `main` is the point.
#![allow(clippy::needless_doctest_main)]

// What to build: the builder, its option types, and what they resolve to.
mod config;
mod options;
mod settings;

// The build's steps, in the order data flows through them (`run` drives
// them): find the shaders and make jobs,
mod source;

// compile each job (cache lookup, frontend, optimizer; crashes isolated,
// compiler chatter kept off a build script's stdout),
mod compile;
mod frontend;
mod isolate;
mod optimize;
mod quiet_stdout;

// reflect, SMOL-V encode and compress, pack the embedded set and bundle,
mod artifacts;
mod bundle;
mod encode;
mod packing;
mod reflect;

// what hot reload needs to compile one module again as the build did,
mod recipe;

// write OUT_DIR, the Cargo directives and the report.
mod emit;
mod report;

// Beside them: the content-hash cache (and the paths it records), the errors, the external tools,
// the driver, and the worker tokens it runs jobs on.
mod cache;
mod error;
mod portable;
mod remote_cache;
mod run;
mod tokens;
mod tool;

pub use bundle::{PackOptions, PackedBundle, PackedEntry, pack_bundle};
pub use config::Config;
pub use error::{Diagnostic, Error};
pub use options::{Define, DictionaryMode, Optimization, ResourceKind, SpirvVersion, TargetEnv, Variant};
/// ```
/// use smolv_build::{Config, Framing, Packing};
/// let mut config = Config::new();
/// config.shader_dir("shaders").packing(Packing::Zstd { framing: Framing::Stream });
/// assert_eq!(Framing::Stream.name(), "stream");
/// ```
pub use packing::Framing;
/// ```
/// use smolv_build::Packing;
/// let packing = Packing::parse("lz4-stream").unwrap();
/// assert_eq!(packing.name(), "lz4-stream");
/// assert!(Packing::NAMES.iter().all(|name| Packing::parse(name).is_some()));
/// ```
pub use packing::Packing;
/// ```
/// use smolv_build::{Config, SizeGoal};
/// let goal = SizeGoal::parse("download").unwrap();
/// let mut config = Config::new();
/// config.shader_dir("shaders").size_goal(goal);
/// assert_eq!(goal.name(), "download");
/// ```
pub use packing::SizeGoal;
pub use recipe::{Recompiled, ShaderRecipe};
pub use remote_cache::RemoteCacheMode;
pub use report::{CandidateReport, FailedShader, LanguageReport, ModuleReport, PackingReport, Report};
pub use source::Language;

/// Upkeep of the shared build cache: what `cargo smolv cache` runs.
///
/// Entries are touched on every hit, so [`trim`](cache_maintenance::trim)
/// evicts the least recently used first (ccache's `max_size` model).
pub mod cache_maintenance {
    pub use crate::cache::{CacheStats, clean, parse_size, stats, trim};

    /// The cache directory builds use outside a build script:
    /// `SMOLV_CACHE_DIR`, else `smolv-cache` in Cargo's target directory
    /// (`CARGO_TARGET_DIR`, else the workspace's, from `cargo metadata`),
    /// else `target/smolv-cache`.
    ///
    /// ```no_run
    /// let dir = smolv_build::cache_maintenance::cache_dir();
    /// println!("the build cache is in {}", dir.display());
    /// ```
    pub fn cache_dir() -> std::path::PathBuf {
        crate::settings::default_cache_dir(std::path::Path::new("target"))
    }
}

/// The SMOL-V codec, for build scripts that encode SPIR-V themselves.
///
/// ```
/// use smolv_build::codec::{encode, EncodeOptions};
/// # let spirv = smolv_runtime::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new().strip_debug(true))?;
/// # let _ = smolv;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use smolv_runtime::codec;

/// A set of SMOL-V modules compressed together (see [`compress_set`]):
/// everything needed to decompress them again.
///
/// ```
/// use smolv_build::{compress_set, DictionaryMode};
/// # let spirv = smolv_runtime::doc_example_module();
/// let smolv = smolv_runtime::encode(&spirv[..], &Default::default())?;
/// let set = compress_set(&[smolv], 19, DictionaryMode::Auto)?;
/// assert_eq!(set.payloads.len(), 1);
/// assert_eq!(set.dictionary, None, "one module is too little to train a dictionary on");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressedSet {
    /// The shared zstd dictionary the payloads need, if one was worth it.
    pub dictionary: Option<Vec<u8>>,
    /// Each module's compressed payload: one zstd frame with the content
    /// size, without checksum or dictionary id.
    pub payloads: Vec<Vec<u8>>,
}

impl CompressedSet {
    /// Size of the shared dictionary, 0 if there is none.
    ///
    /// ```
    /// let set = smolv_build::CompressedSet { dictionary: Some(vec![0; 1024]), payloads: Vec::new() };
    /// assert_eq!(set.dictionary_len(), 1024);
    /// ```
    pub fn dictionary_len(&self) -> usize {
        self.dictionary.as_ref().map_or(0, Vec::len)
    }
}

/// Compresses SMOL-V modules as the build does: zstd at `level`, with a
/// shared dictionary chosen by `mode`.
///
/// ```
/// use smolv_build::{compress_set, DictionaryMode};
/// # let spirv = smolv_runtime::doc_example_module();
/// let smolv = smolv_runtime::encode(&spirv[..], &Default::default())?;
/// let set = compress_set(&[smolv.clone(), smolv.clone()], 19, DictionaryMode::Auto)?;
/// assert_eq!(set.payloads.len(), 2);
/// // Everything to decompress them is in the set.
/// let mut zstd = match &set.dictionary {
///     Some(dictionary) => zstd::bulk::Decompressor::with_dictionary(dictionary)?,
///     None => zstd::bulk::Decompressor::new()?,
/// };
/// assert_eq!(zstd.decompress(&set.payloads[0], smolv.len())?, smolv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compress_set(smolv: &[Vec<u8>], level: i32, mode: DictionaryMode) -> Result<CompressedSet, Error> {
    let packed = encode::pack(smolv, level, mode).map_err(Error::Internal)?;
    Ok(CompressedSet { dictionary: packed.dictionary.map(|d| d.as_bytes().to_vec()), payloads: packed.payloads })
}

/// Compiles every shader in `dir` with default settings; panics with a
/// readable report on failure. Shorthand for
/// `Config::new().shader_dir(dir).compile()`.
///
/// ```no_run
/// // build.rs
/// fn main() {
///     smolv_build::compile_shaders("shaders");
/// }
/// ```
pub fn compile_shaders(dir: impl AsRef<std::path::Path>) -> Report {
    Config::new().shader_dir(dir).compile()
}
