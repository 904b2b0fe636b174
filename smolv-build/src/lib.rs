//! # smolv-build
//!
//! The build-time half of [smolv](https://github.com/smolv-rs/smolv): compiles a crate's GLSL, HLSL, WGSL, WESL
//! and Slang shaders (or takes SPIR-V) in `build.rs`, optimizes them for size, SMOL-V encodes them, packs them the
//! way that makes the binary smallest, and caches everything by content hash.
//!
//! ## Tutorial
//!
//! A crate that embeds one shader, start to finish. `Cargo.toml`:
//!
//! ```toml
//! [dependencies]
//! smolv-runtime = "0.1"
//!
//! [build-dependencies]
//! smolv-build = "0.1"
//! ```
//!
//! Put shaders in `shaders/`, for example `shaders/lit.frag`:
//!
//! ```glsl
//! #version 450
//! layout(location = 0) in vec3 normal;
//! layout(location = 0) out vec4 color;
//! void main() { color = vec4(normalize(normal) * 0.5 + 0.5, 1.0); }
//! ```
//!
//! compile them from `build.rs`:
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     smolv_build::Config::new().shader_dir("shaders").compile();
//! }
//! ```
//!
//! and embed them in `src/main.rs` (the macros read what the build wrote to `OUT_DIR`):
//!
//! ```text
//! // src/main.rs
//! static LIT: &smolv_runtime::Shader = smolv_runtime::include_shader!("lit.frag");
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let words = LIT.decode()?; // SPIR-V words for vkCreateShaderModule
//!     let reflection = LIT.reflection()?; // stage, bindings, push constants
//!     println!("{}: {} words, {:?}", LIT.name(), words.len(), reflection.stage);
//!     Ok(())
//! }
//! ```
//!
//! A shader that does not compile fails the build with every error at `path:line:col`. The compilers run in
//! worker processes, so a crash fails only that shader (`docs/reliability.md`).
//!
//! ## What it does
//!
//! | step | how |
//! |---|---|
//! | find | `.vert .frag .comp .geom .tesc .tese .mesh .task .rgen .rchit .rmiss .rahit .rint .rcall` are GLSL of that stage; `.glsl`/`.hlsl` name their stage with a double extension (`blur.comp.hlsl`) or `#pragma shader_stage(compute)`, and are include files otherwise; `.wgsl` gives one module per entry point (`sky.wgsl#fs_main`), and so does `.wesl` (`lit.wesl#fs`; a `.wesl` file without an `@vertex`, `@fragment` or `@compute` function is a module for `import`) and `.slang`, per `[shader("…")]` entry point (`tri.slang#vs_main`; a `.slang` file without one is a module for `import`); `.spv`/`.spirv` are precompiled SPIR-V, stage and entry point from their first `OpEntryPoint` (`blur.comp.spv`); [`Config::language`] states that stage-named files are HLSL (glslc's `-x hlsl`) |
//! | compile | glslang for GLSL and HLSL (cargo feature `glsl`: the `glslang-sys` crate, built from source by the C++ compiler Cargo finds), naga for WGSL (feature `wgsl`), the `wesl` crate then naga for WESL (feature `wesl`, off by default; imports from the shader directory and [`Config::wesl_package`], `@if` from [`Config::wesl_feature`] and [`Variant::wesl_feature`]), the `slangc` binary for Slang ([`Config::slangc`], `SMOLV_SLANGC`, else `PATH`), which writes the depfile that tracks its imports |
//! | optimize | the SPIRV-Tools `-Os` recipe for every language, in process in the worker processes (feature `optimizer`), after HLSL's legalization where the front end left HLSL unlegalized; or a `spirv-opt` binary named by [`Config::spirv_opt`] (see [Optimizer](crate#optimizer)) |
//! | encode | SMOL-V, stripped of debug info in release builds |
//! | pack | what the binary embeds: raw SPIR-V, SPIR-V with relative ids (smolv's own transform) alone or + LZ4, SMOL-V alone or + LZ4 (HC 12) or zstd (level 19, optionally with a trained dictionary), per module or as one stream; for a wgpu target ([`Config::for_wgpu`]), minified WGSL translated by naga when that makes the game smaller; by default the smallest total of stored bytes *and* the decoder code the packing links ([`Packing`], [`SizeGoal`]) |
//! | bundle | zstd level 19 containers with blake3 hashes, with a dictionary when that makes the total smaller: the asset-file form, for tools |
//! | cache | blake3 over sources, includes and imports (and the include paths searched before them), defines, options, the compilers as linked (glslang-sys's, spirv-tools' and naga's exact versions, `slangc -v`, or an explicit `spirv-opt --version`) and smolv-build's own sources; one directory per workspace; optionally a second level on a Bazel HTTP remote cache shared by CI and developers ([`Config::remote_cache`], feature `remote-cache`) |
//! | emit | the embedded set (`embedded/`), containers, a bundle and `manifest.json` in `OUT_DIR/smolv`, `smolv-report.{txt,json}` in `OUT_DIR`, `cargo:rerun-if-changed` for each shader root (Cargo scans a directory recursively) and each include outside them, `cargo:rerun-if-env-changed` for every variable read; a per-shader log in `OUT_DIR/smolv-build.log` |
//!
//! ## HLSL trees named by stage, Slang and WESL
//!
//! HLSL trees that name files by stage (`triangle.vert`) state their language, and glslc's HLSL options:
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
//! `.slang` files are compiled by `slangc`, one module per entry point; `.wesl` files are linked by the `wesl`
//! crate (feature `wesl`) into WGSL for naga:
//!
//! ```no_run
//! // build.rs
//! use smolv_build::{Config, Variant};
//! Config::new()
//!     .shader_dir("shaders") // lit.wesl: `import package::lib::light::shade;`
//!     .wesl_package("noise", "vendor/noise") // `import noise::hash::pcg;`
//!     .wesl_feature("fog", true) // `@if(fog)` in every WESL shader
//!     .variants("lit.wesl", [Variant::new("shadows").wesl_feature("shadows", true)])
//!     .compile();
//! ```
//!
//! ## Packing
//!
//! A decoder is code in the binary too, so the build picks the packing whose stored bytes plus decoder are
//! smallest, and the report says what it saved:
//!
//! ```text
//! packing relative-ids-lz4 (stream): shaders 74.0 KB → 18.2 KB, decoder +10.5 KB, net −45.3 KB
//! ```
//!
//! [`Config::packing`] forces a packing; [`Config::size_goal`] can weigh sizes after `xz -9` instead.
//!
//! ## Optimizer
//!
//! SPIRV-Tools (feature `optimizer`) runs `-Os`, or `-O` with [`Optimization::Performance`]; unlegalized HLSL is
//! legalized even with [`Optimization::None`]. A module it crashes on twice, or refuses, ships unoptimized with a
//! warning, as do all without the feature or a [`spirv-opt`](Config::spirv_opt). WGSL-only crates can drop
//! glslang's C++ build: `default-features = false, features = ["wgsl"]`.
//!
//! ## Environment
//!
//! Each setter wins over its variable. Under a build script, those that change the output are watched.
//!
//! | variable | what it says | reruns the build |
//! |---|---|---|
//! | `SMOLV_CACHE_DIR` | the cache directory ([`Config::cache_dir`]) | yes |
//! | `CARGO_TARGET_DIR` | where the cache is without `SMOLV_CACHE_DIR`: `smolv-cache` in it | yes |
//! | `SMOLV_REPORT` | set, and not `0`: also print the size report as Cargo warnings | yes |
//! | `SMOLV_SPIRV_OPT` | the `spirv-opt` binary to run ([`Config::spirv_opt`]) | yes |
//! | `SMOLV_SLANGC` | the `slangc` binary ([`Config::slangc`]), else `slangc` on `PATH` | yes |
//! | `SMOLV_GLSLC` | nothing since [`Config::glslc`] was deprecated | yes |
//! | `SMOLV_PACKING` | the packing ([`Config::packing`]) | yes |
//! | `SMOLV_SIZE_GOAL` | the size goal ([`Config::size_goal`]) | yes |
//! | `SMOLV_TARGET` | `vulkan`, `wgpu`, `wgpu-wgsl` or `wgpu-spirv` ([`Config::for_wgpu`]) | yes |
//! | `SMOLV_PREPARE` | the session of `cargo smolv prepare` | yes |
//! | `DEP_SMOLV_RUNTIME_CODECS` | set by Cargo from smolv-runtime's `links` metadata: the codecs it unpacks | yes |
//! | `DEP_SMOLV_RUNTIME_ZSTD` | likewise: its zstd build, `thin` or `fast` | yes |
//! | `DEP_SMOLV_RUNTIME_WGPU` | likewise: whether its wgpu layer takes `spirv` or `wgsl` | yes |
//! | `SMOLV_REMOTE_CACHE` | the remote cache ([`Config::remote_cache`]): where entries come from, never what they are | no |
//! | `SMOLV_REMOTE_CACHE_MODE` | `read-write`, `read-only` or `off` | no |
//! | `SMOLV_REMOTE_CACHE_HEADER` | a `Name: value` header for it, never printed | no |
//! | `SMOLV_REMOTE_CACHE_TIME_LIMIT` | seconds it may add to the build | no |
//! | `SMOLV_WORKERS` | `0`: the compilers run in the build's own process | no |
//! | `SMOLV_WORKER_TIMEOUT` | seconds a worker or a tool may spend on one shader (120) | no |
//! | `SMOLV_WORKER_MEMORY_MB` | a worker's or a tool's address-space cap (4096) | no |
//!
//! ## Not a stable API
//!
//! The hidden `recipe` module is public only for `smolv-reload`.
// One exception, in `tokens`: joining Cargo's jobserver.
#![deny(unsafe_code)]
#![deny(missing_docs)]
// The examples are build scripts, and a build script's `main` is the point.
#![allow(clippy::needless_doctest_main)]

// The stages, in the order of the data (`tests/stages.rs` checks that no
// module imports from a later stage): what to build,
mod options;
mod settings;
// find the shaders,
mod source;
// compile them (cached),
mod compile;
// reflect, encode and pack them,
mod pack;
// write OUT_DIR, the Cargo directives and the report.
mod output;

// Leaves every stage may use.
pub mod cache;
mod env;
mod error;

// The driver.
mod config;
mod run;
mod tokens;

// At the root: what a build script needs (tests/root.rs counts it).
pub use config::Config;
pub use error::{Diagnostic, Error};
/// ```
/// use smolv_build::{Config, Framing, Packing};
/// Config::new().shader_dir("shaders").packing(Packing::Zstd { framing: Framing::Stream });
/// assert_eq!(Framing::Stream.name(), "stream");
/// ```
pub use options::Framing;
/// ```
/// use smolv_build::Packing;
/// let packing = Packing::parse("lz4-stream").unwrap();
/// assert_eq!(packing.name(), "lz4-stream");
/// assert!(Packing::NAMES.iter().all(|name| Packing::parse(name).is_some()));
/// ```
pub use options::Packing;
/// ```
/// use smolv_build::{Config, SizeGoal};
/// let goal = SizeGoal::parse("download").unwrap();
/// Config::new().shader_dir("shaders").size_goal(goal);
/// assert_eq!(goal.name(), "download");
/// ```
pub use options::SizeGoal;
pub use options::{Define, DictionaryMode, Language, Optimization, ResourceKind, SpirvVersion, TargetEnv, Variant};
pub use output::report::Report;

/// What one build did, row by row: the parts of a [`Report`].
///
/// ```no_run
/// // build.rs
/// let report = smolv_build::Config::new().shader_dir("shaders").compile();
/// for module in &report.modules {
///     let row: &smolv_build::report::ModuleReport = module;
///     println!("cargo:warning={}: {} → {} bytes", row.name, row.spirv_bytes, row.compressed_bytes);
/// }
/// ```
pub mod report {
    pub use crate::output::report::{
        CandidateReport, FailedShader, LanguageReport, ModuleReport, PackingReport, TypesReport, WgpuReport,
    };
}

/// How to compile one module again exactly as the build did, for `smolv-reload`; not a stable API.
///
/// ```no_run
/// # fn get(manifest: smolv_format::Manifest<smolv_build::recipe::ShaderRecipe>) -> Result<(), Box<dyn std::error::Error>> {
/// let recipe = manifest.modules[0].recipe.clone().expect("this smolv-build records recipes");
/// let again = recipe.compile().map_err(|errors| format!("{errors:?}"))?;
/// # let _ = again; Ok(()) }
/// ```
#[doc(hidden)]
pub mod recipe {
    pub use crate::compile::worker::compiles_in_workers;
    pub use crate::pack::recipe::{CompilerPool, Recompiled, ShaderRecipe};
}

/// Bundles and compressed sets written outside a build script (`cargo smolv pack`, the benches).
///
/// ```
/// use smolv_build::bundle::{write_bundle, BundleOptions};
/// let bundle = write_bundle(&[("fill.comp".to_owned(), smolv_format::doc_example_module())], &BundleOptions::default())?;
/// assert_eq!(bundle.entries.len(), 1);
/// # Ok::<(), smolv_build::Error>(())
/// ```
pub mod bundle {
    pub use crate::pack::bundle::{
        BundleOptions, CompressedSet, WrittenBundle, WrittenEntry, compress_set, write_bundle,
    };
}

/// `Config::new().shader_dir(dir).compile()`: see [`Config::compile`].
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
