//! # smolv-runtime
//!
//! The runtime half of [smolv](https://github.com/smolv-rs/smolv), the shader
//! asset pipeline for Rust + Vulkan games. Shaders travel
//! `source → compile → optimize → encode → pack` at build time
//! (`smolv-build`, where packing compresses), are embedded in the binary
//! by [`include_shaders!`], and travel `unpack → decode → specialize →
//! pipeline` at run time, here (`docs/glossary.md` defines each word).
//!
//! ## A first crate
//!
//! Three files: shaders are compiled by `build.rs`, embedded by
//! [`include_shaders!`], and decoded to SPIR-V words here.
//!
//! ```toml
//! # Cargo.toml
//! [dependencies]
//! smolv-runtime = "0.1"
//!
//! [build-dependencies]
//! smolv-build = "0.1"
//! ```
//!
//! ```text
//! // build.rs: compiles every shader under shaders/ (GLSL, HLSL, WGSL,
//! // Slang or .spv) and packs them as small as the binary allows.
//! fn main() {
//!     smolv_build::Config::new().shader_dir("shaders").compile();
//! }
//! ```
//!
//! ```text
//! // src/main.rs
//! smolv_runtime::include_shaders!(static SHADERS);
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     for shader in SHADERS.shaders() {
//!         let words: Vec<u32> = shader.decode()?; // SPIR-V, for vkCreateShaderModule
//!         println!("{}: {} words", shader.name(), words.len());
//!     }
//!     let post = SHADERS.get("post.frag")?; // a typo names the closest shaders
//!     println!("{post:?} is packed as {}", SHADERS.packing());
//!     Ok(())
//! }
//! ```
//!
//! (Those two are `text` here because they need the build script's
//! output; `example-game` and the `external_crate` test build exactly this
//! crate.) Shaders shipped as asset files load the same way, from a bundle
//! that `cargo smolv pack` or [`container::BundleBuilder`] wrote:
//!
//! ```
//! use smolv_runtime::ShaderSet;
//! # use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
//! # use smolv_runtime::reflect::{Reflection, ShaderStage};
//! # let spirv = smolv_runtime::doc_example_module();
//! # let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
//! # let bundle = BundleBuilder::new().add("blur.comp", container).build()?;
//! # let dir = std::env::temp_dir().join(format!("smolv-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let path = dir.join("shaders.smvb");
//! # std::fs::write(&path, bundle)?;
//! let shaders = ShaderSet::open(&path)?; // for example "assets/shaders.smvb"
//! let blur = shaders.get("blur.comp")?;
//! assert_eq!(blur.decode()?, spirv);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## The codecs
//!
//! This crate holds the [SMOL-V](https://github.com/aras-p/smol-v) codec:
//! a pure-Rust, `no_std`-capable encoder that writes exactly the bytes of
//! the reference C++ encoder, and a decoder that reads every SMOL-V
//! version ever written and never panics on bad input. Beside it,
//! [`relative_ids`]: SPIR-V with its ids stored relative to each result,
//! as large as the SPIR-V but 22–33% smaller than it again after `xz`.
//! Converting it back is a few hundred bytes of code and a 367-byte table
//! (about 1 KB of the binary after `xz`, with its glue); with LZ4 on top,
//! its decoder is about 6 KB smaller than SMOL-V's with LZ4.
//!
//! ```
//! use smolv_runtime::{decode, encode, DecodeOptions, EncodeOptions};
//!
//! # let spirv_bytes: Vec<u8> = smolv_runtime::doc_example_module()
//! #     .iter().flat_map(|w| w.to_le_bytes()).collect();
//! // let spirv_bytes = std::fs::read("shader.spv")?;
//! let smolv = encode(&spirv_bytes[..], &EncodeOptions::new().strip_debug(true))?;
//! let words: Vec<u32> = decode(&smolv, &DecodeOptions::new())?;
//! assert_eq!(words[0], 0x0723_0203); // SPIR-V magic
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Features
//! - `std` (default): `std::error::Error` for the error types, shaders and
//!   shader sets. Without it the crate is `no_std` and needs only `alloc`
//!   (the codec, reflection and the specializer).
//! - `macros` (default): `include_shader!` and `include_shaders!`.
//! - `lz4` (default): LZ4 decoding, for shaders smolv-build packed with LZ4
//!   (over SMOL-V or over SPIR-V with relative ids).
//! - `zstd` (default): zstd decoding in zstd's small (`thin`) build, for
//!   shaders packed with zstd and for bundle and container files.
//!   `zstd-fast` is the full-speed build; Cargo features add up, so name it
//!   instead of `zstd`, with `default-features = false`. (In the code,
//!   `cfg(feature = "zstd-fast")` means "zstd is available": `zstd` turns it
//!   on.)
//! - `vulkan`: the ash layer (not a default, so that a crate that only
//!   decodes compiles no ash): `smolv-runtime = { version = "0.1",
//!   features = ["vulkan"] }`. Its module docs open with a quick start:
//!   under 50 lines from `include_shader!` to a drawn pipeline (`vulkan`,
//!   "Quick start"; the README has the same, with the shaders).
//! - `hot-reload`: the hook the `smolv-reload` crate publishes recompiled
//!   shaders through (the `hot_reload` module), and embedded shaders that
//!   know their source file, includes and build recipe. Off by default, so that
//!   release builds carry no source paths; the watcher and compiler are
//!   not here because smolv-build depends on this crate.
//! - `wgpu`: the wgpu layer (the `wgpu` module): shader modules,
//!   bind-group and vertex layouts, overrides and hot reload for wgpu
//!   programs. `wgpu-spirv` adds wgpu's SPIR-V input, for shaders the build
//!   shipped as SPIR-V.
//! - `serde`: derives for the reflection types.
//!
//! Whatever is enabled, a binary links only the decoders its embedded
//! shaders use: the macros name them, and nothing else does.
#![cfg_attr(not(feature = "std"), no_std)]
// Only the Vulkan layer calls unsafe code (ash); it opts in module by module.
#![deny(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

#[cfg(feature = "std")]
mod embed;
pub mod interface;
#[cfg(any(feature = "vulkan", feature = "wgpu"))]
mod pipeline_cache_file;
pub mod reflect;
#[cfg(feature = "std")]
pub mod shader;
#[cfg(feature = "std")]
mod shader_error;

// The codecs are smolv-codec's (what smolv-build encodes and specializes
// with), under this crate's names.
#[cfg(feature = "std")]
pub use smolv_codec::container;
pub use smolv_codec::{relative_ids, smolv, specialize};
#[cfg(feature = "vulkan")]
pub mod vulkan;
#[cfg(feature = "wgpu")]
pub mod wgpu;

/// Hot reload's hook (feature `hot-reload`): see [`shader::hot_reload`].
#[cfg(feature = "hot-reload")]
pub use shader::hot_reload;
#[cfg(feature = "std")]
pub use shader::{SetPacking, Shader, ShaderSet};
#[cfg(feature = "std")]
pub use shader_error::{ShaderError, ShaderErrorKind};
/// How a set's modules are stored and framed: the vocabulary smolv-build,
/// the macros and this crate share ([`smolv_format`]).
pub use smolv_format::{Codec, Framing};

/// bytemuck, whose `Pod` and `Zeroable` the generated types
/// (`include_types!`) implement, re-exported: a program views bytes as
/// those types, or the types as bytes, without a bytemuck dependency of its
/// own, and with the very version the types were built against.
///
/// A storage buffer read back from the GPU arrives as bytes; viewed as the
/// shader's element type (the names come from the shader: a
/// `buffer Data { Element data[]; }` block's elements are
/// `shaders::DataElement`):
///
/// ```text
/// smolv_runtime::include_types!();
/// let view = readback.slice(..).get_mapped_range(); // wgpu: mapped for reading
/// let elements: &[shaders::DataElement] = smolv_runtime::bytemuck::try_cast_slice(&view)?;
/// ```
///
/// `try_cast_slice` fails, rather than panicking as `cast_slice` does, when
/// the bytes are not a whole number of elements or are not aligned for
/// them. Mapped GPU memory is aligned; bytes of any other origin can be
/// read element by element with `bytemuck::pod_read_unaligned`.
///
/// ```
/// use smolv_runtime::bytemuck;
/// // Eight bytes as a storage buffer of two `float`s holds them.
/// let stored = [1.5f32.to_bits(), (-2.0f32).to_bits()];
/// let bytes: &[u8] = bytemuck::cast_slice(&stored);
/// let floats: &[f32] = bytemuck::try_cast_slice(bytes)?;
/// assert_eq!(floats, [1.5, -2.0]);
/// // Six bytes are not a whole number of `f32`s: an error, not a panic.
/// assert!(bytemuck::try_cast_slice::<u8, f32>(&bytes[..6]).is_err());
/// // Bytes at any alignment, one element at a time.
/// assert_eq!(bytemuck::pod_read_unaligned::<f32>(&bytes[4..8]), -2.0);
/// # Ok::<(), bytemuck::PodCastError>(())
/// ```
pub use bytemuck;

/// Embeds one shader built by `smolv-build`, as a `&'static Shader`.
///
/// The argument is the module name: the path below the shader directory,
/// then `@variant` for a variant and `#entry` for a WGSL entry point:
/// `"lit.frag"`, `"lit.frag@shadows"`, `"sky.wgsl#fs_main"`. A name that
/// does not exist is a compile error listing the closest ones. (The
/// examples need a build script, so they are not doctests; the workspace's
/// `tests/tests/embed.rs` runs them.)
///
/// ```text
/// static LIT: &smolv_runtime::Shader = smolv_runtime::include_shader!("lit.frag");
/// let words = LIT.decode()?;
/// ```
#[cfg(feature = "macros")]
pub use smolv_macros::include_shader;

/// Embeds every shader built by `smolv-build` as one [`ShaderSet`],
/// packed the way the build chose (raw SPIR-V, SPIR-V with relative ids,
/// alone or + LZ4, SMOL-V, or SMOL-V + LZ4 or zstd; see `docs/format.md`,
/// "Embedded sets").
///
/// `include_shaders!(static ALL);` declares the `static` with the type the
/// packing calls for: a small set that the build ships as raw SPIR-V is a
/// `ShaderSet<Raw>` ([`shader::Raw`]), whose shaders are a name and words
/// and decode without fail, so the binary links no more than a table of
/// `include_bytes!` would; every other set is a [`ShaderSet`]. The same
/// code (`get`, `shaders`, `name`, `decode()?`) reads either.
///
/// ```text
/// smolv_runtime::include_shaders!(static ALL);
/// let sky = ALL.get("sky.wgsl#fs_main")?.decode()?;
/// ```
///
/// With no arguments it is an expression of type [`ShaderSet`] for every
/// packing, for code that names the type:
///
/// ```text
/// static ALL: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();
/// ```
#[cfg(feature = "macros")]
pub use smolv_macros::include_shaders;

/// Includes the Rust types smolv-build generated from the shaders'
/// reflection (`OUT_DIR/smolv/types.rs`): a `#[repr(C)]`, `Pod` struct for
/// every block, and a module per shader (`lit_frag`) with its bindings,
/// push constants, workgroup size, spec constants and vertex inputs.
/// `cargo smolv types shaders` prints the same code.
///
/// ```text
/// smolv_runtime::include_types!();
/// let frame = lit_frag::Frame::new(time, view_proj); // padding is private and zero
/// queue_write(frame.as_bytes());
/// ```
#[cfg(feature = "macros")]
pub use smolv_macros::include_types;

/// What the macros expand to; not a stable API.
#[doc(hidden)]
#[cfg(feature = "macros")]
pub mod __private {
    pub use crate::embed::RelativeIdsModule;
    #[cfg(feature = "lz4")]
    pub use crate::embed::WGSL_LZ4;
    #[cfg(feature = "zstd-fast")]
    pub use crate::embed::WGSL_ZSTD;
    pub use crate::embed::unpack::{ModuleUnpacker, RAW, RELATIVE_IDS, SMOLV, SMOLV_MODULE, Unpacker};
    #[cfg(feature = "lz4")]
    pub use crate::embed::unpack::{RELATIVE_IDS_LZ4, RELATIVE_IDS_LZ4_MODULE, SMOLV_LZ4, SMOLV_LZ4_MODULE};
    #[cfg(feature = "zstd-fast")]
    pub use crate::embed::unpack::{SMOLV_ZSTD, SMOLV_ZSTD_DICTIONARY, SMOLV_ZSTD_MODULE};
    pub use crate::embed::{EmbeddedEntry, EmbeddedModule, EmbeddedSet};
    pub use crate::embed::{WGSL, WgslEntry, WgslUnpacker};
    pub use crate::embed::{WgslModule, WgslSet};
    pub use crate::embed::{le_words, spirv_module};
    pub use crate::shader::{LazyShaders, leaked_embedded_set};
    /// The generated types' `Pod` and `Zeroable` impls name it here, so
    /// the user's crate need not depend on bytemuck.
    pub use bytemuck;
    pub use include_bytes_aligned::include_bytes_aligned;
}

/// The generated wgpu items (`include_types!`): its input where
/// smolv-runtime has the `wgpu` feature, nothing otherwise, so that the
/// generated file compiles in every crate. Not a stable API.
#[doc(hidden)]
#[cfg(feature = "wgpu")]
#[macro_export]
macro_rules! __wgpu_items {
    ($($items:tt)*) => { $($items)* };
}

/// Without the `wgpu` feature the generated wgpu items are left out.
/// Not a stable API.
#[doc(hidden)]
#[cfg(not(feature = "wgpu"))]
#[macro_export]
macro_rules! __wgpu_items {
    ($($items:tt)*) => {};
}

/// The generated Vulkan items (`include_types!`: each program's typed
/// descriptor sets): its input where smolv-runtime has the `vulkan`
/// feature, nothing otherwise, so that the generated file compiles in
/// every crate. Not a stable API.
#[doc(hidden)]
#[cfg(feature = "vulkan")]
#[macro_export]
macro_rules! __vulkan_items {
    ($($items:tt)*) => { $($items)* };
}

/// Without the `vulkan` feature the generated Vulkan items are left out.
/// Not a stable API.
#[doc(hidden)]
#[cfg(not(feature = "vulkan"))]
#[macro_export]
macro_rules! __vulkan_items {
    ($($items:tt)*) => {};
}

/// The LZ4 unpacker for `include_shaders!`, or a compile error naming the
/// feature to turn on. Not a stable API.
#[doc(hidden)]
#[cfg(all(feature = "macros", feature = "lz4"))]
#[macro_export]
macro_rules! __smolv_lz4 {
    ($name:ident) => {
        &$crate::__private::$name
    };
}

#[doc(hidden)]
#[cfg(all(feature = "macros", not(feature = "lz4")))]
#[macro_export]
macro_rules! __smolv_lz4 {
    ($name:ident) => {
        ::core::compile_error!(
            "smolv-build packed these shaders with LZ4: enable smolv-runtime's `lz4` feature, \
             or choose another packing with smolv_build::Config::packing"
        )
    };
}

/// An embedded set's [`ShaderSet`] for `include_shaders!`: with a
/// `static` shader per module when the macro says so (small sets) or with
/// the `hot-reload` feature (each shader carries its origin), else with
/// shaders made on first access ([`__private::LazyShaders`]). Not a stable
/// API.
#[doc(hidden)]
#[cfg(all(feature = "macros", feature = "hot-reload"))]
#[macro_export]
macro_rules! __smolv_set {
    ($static:tt; $set:expr; $count:expr; [$($shader:expr),*]) => {{
        static SHADERS: [$crate::Shader; $count] = [$($shader),*];
        $crate::ShaderSet::embedded($set, &SHADERS)
    }};
}

#[doc(hidden)]
#[cfg(all(feature = "macros", not(feature = "hot-reload")))]
#[macro_export]
macro_rules! __smolv_set {
    (true; $set:expr; $count:expr; [$($shader:expr),*]) => {{
        static SHADERS: [$crate::Shader; $count] = [$($shader),*];
        $crate::ShaderSet::embedded($set, &SHADERS)
    }};
    (false; $set:expr; $count:expr; [$($shader:expr),*]) => {{
        static SHADERS: $crate::__private::LazyShaders = $crate::__private::LazyShaders::new($set);
        $crate::ShaderSet::made(&SHADERS)
    }};
}

/// One embedded shader for the macros: with the `hot-reload` feature and a
/// recipe in the manifest, with its origin; otherwise without (the origin's
/// tokens are dropped here, so they never reach the binary). Not a stable
/// API.
#[doc(hidden)]
#[cfg(all(feature = "macros", feature = "hot-reload"))]
#[macro_export]
macro_rules! __smolv_shader {
    (alone $module:expr; $source:literal, [$($include:literal),*], $recipe:literal) => {{
        static ORIGIN: $crate::hot_reload::Origin =
            $crate::hot_reload::Origin::new($source, &[$($include),*], $recipe);
        $crate::Shader::embedded_reloadable($module, &ORIGIN)
    }};
    (in_set $set:expr, $index:expr; $source:literal, [$($include:literal),*], $recipe:literal) => {{
        static ORIGIN: $crate::hot_reload::Origin =
            $crate::hot_reload::Origin::new($source, &[$($include),*], $recipe);
        $crate::Shader::in_set_reloadable($set, $index, &ORIGIN)
    }};
    (raw $name:literal, $words:expr; $source:literal, [$($include:literal),*], $recipe:literal) => {{
        static ORIGIN: $crate::hot_reload::Origin =
            $crate::hot_reload::Origin::new($source, &[$($include),*], $recipe);
        $crate::Shader::raw_reloadable($name, $words, &ORIGIN)
    }};
    (relative_ids $name:literal, $words:expr; $source:literal, [$($include:literal),*], $recipe:literal) => {{
        static ORIGIN: $crate::hot_reload::Origin =
            $crate::hot_reload::Origin::new($source, &[$($include),*], $recipe);
        static MODULE: $crate::__private::RelativeIdsModule = $crate::__private::RelativeIdsModule::new($name, $words);
        $crate::Shader::relative_ids_reloadable(&MODULE, &ORIGIN)
    }};
    (raw_in_set $name:literal, $words:expr; $source:literal, [$($include:literal),*], $recipe:literal) => {{
        static ORIGIN: $crate::hot_reload::Origin =
            $crate::hot_reload::Origin::new($source, &[$($include),*], $recipe);
        $crate::shader::RawShader::reloadable($name, $words, &ORIGIN)
    }};
    (in_wgsl_set $set:expr, $index:expr; $source:literal, [$($include:literal),*], $recipe:literal) => {{
        static ORIGIN: $crate::hot_reload::Origin =
            $crate::hot_reload::Origin::new($source, &[$($include),*], $recipe);
        $crate::Shader::in_wgsl_set_reloadable($set, $index, &ORIGIN)
    }};
    (wgsl $name:literal, $text:expr; $source:literal, [$($include:literal),*], $recipe:literal) => {{
        static ORIGIN: $crate::hot_reload::Origin =
            $crate::hot_reload::Origin::new($source, &[$($include),*], $recipe);
        static MODULE: $crate::__private::WgslModule = $crate::__private::WgslModule::new($name, $text);
        $crate::Shader::wgsl_module_reloadable(&MODULE, &ORIGIN)
    }};
    (raw_in_set $name:literal, $words:expr;) => {
        $crate::shader::RawShader::new($name, $words)
    };
    (in_wgsl_set $set:expr, $index:expr;) => {
        $crate::Shader::in_wgsl_set($set, $index)
    };
    (wgsl $name:literal, $text:expr;) => {{
        static MODULE: $crate::__private::WgslModule = $crate::__private::WgslModule::new($name, $text);
        $crate::Shader::wgsl_module(&MODULE)
    }};
    (alone $module:expr;) => {
        $crate::Shader::embedded($module)
    };
    (in_set $set:expr, $index:expr;) => {
        $crate::Shader::in_set($set, $index)
    };
    (raw $name:literal, $words:expr;) => {
        $crate::Shader::raw($name, $words)
    };
    (relative_ids $name:literal, $words:expr;) => {{
        static MODULE: $crate::__private::RelativeIdsModule = $crate::__private::RelativeIdsModule::new($name, $words);
        $crate::Shader::relative_ids(&MODULE)
    }};
}

#[doc(hidden)]
#[cfg(all(feature = "macros", not(feature = "hot-reload")))]
#[macro_export]
macro_rules! __smolv_shader {
    (alone $module:expr; $($origin:tt)*) => {
        $crate::Shader::embedded($module)
    };
    (in_set $set:expr, $index:expr; $($origin:tt)*) => {
        $crate::Shader::in_set($set, $index)
    };
    (raw $name:literal, $words:expr; $($origin:tt)*) => {
        $crate::Shader::raw($name, $words)
    };
    (raw_in_set $name:literal, $words:expr; $($origin:tt)*) => {
        $crate::shader::RawShader::new($name, $words)
    };
    (in_wgsl_set $set:expr, $index:expr; $($origin:tt)*) => {
        $crate::Shader::in_wgsl_set($set, $index)
    };
    (wgsl $name:literal, $text:expr; $($origin:tt)*) => {{
        static MODULE: $crate::__private::WgslModule = $crate::__private::WgslModule::new($name, $text);
        $crate::Shader::wgsl_module(&MODULE)
    }};
    (relative_ids $name:literal, $words:expr; $($origin:tt)*) => {{
        static MODULE: $crate::__private::RelativeIdsModule = $crate::__private::RelativeIdsModule::new($name, $words);
        $crate::Shader::relative_ids(&MODULE)
    }};
}

/// The zstd unpackers for `include_shaders!`, or a compile error naming the
/// feature to turn on. Not a stable API.
#[doc(hidden)]
#[cfg(all(feature = "macros", feature = "zstd-fast"))]
#[macro_export]
macro_rules! __smolv_zstd {
    ($name:ident) => {
        &$crate::__private::$name
    };
}

#[doc(hidden)]
#[cfg(all(feature = "macros", not(feature = "zstd-fast")))]
#[macro_export]
macro_rules! __smolv_zstd {
    ($name:ident) => {
        ::core::compile_error!(
            "smolv-build packed these shaders with zstd: enable smolv-runtime's `zstd` feature, \
             or choose another packing with smolv_build::Config::packing"
        )
    };
}

pub use smolv_codec::{
    DecodeError, DecodeOptions, EncodeError, EncodeOptions, NameFilter, SmolvInfo, SpirvInput, decode, decode_into,
    decoded_len, encode, encode_into, inspect,
};

/// A tiny valid SPIR-V 1.0 compute module (an empty `main`), used by the
/// documentation examples; its words for `static` examples.
#[doc(hidden)]
pub use smolv_format::{DOC_EXAMPLE_WORDS, doc_example_module};
