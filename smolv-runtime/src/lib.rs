//! # smolv-runtime
//!
//! The runtime half of [smolv](https://github.com/smolv-rs/smolv), the shader asset pipeline for
//! Rust + Vulkan games: `smolv-build` compiles and packs shaders, [`include_shaders!`] embeds them, and this
//! crate unpacks, decodes and specializes them (`docs/glossary.md`).
//!
//! ## A first crate
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
//! Bundles (`cargo smolv pack`, [`container::BundleBuilder`]) load the same way:
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
//! The [SMOL-V](https://github.com/aras-p/smol-v) codec (`no_std`, byte-exact with the C++ encoder),
//! and [`relative_ids`]: SPIR-V with relative ids, smaller after `xz`, with a smaller decoder.
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
//! - `std` (default): `std::error::Error`, shaders and shader sets. Without
//!   it the crate is `no_std` + `alloc` (codec, reflection, specializer).
//! - `macros` (default): `include_shader!` and `include_shaders!`.
//! - `lz4` (default): LZ4 decoding, for sets smolv-build packed with LZ4.
//! - `zstd` (default): zstd decoding (its small `thin` build), for sets packed with zstd and for
//!   bundles and containers. `zstd-fast`: the full-speed build, instead of `zstd` (with
//!   `default-features = false`).
//! - `vulkan`: the ash layer; its module docs open with a quick start.
//! - `hot-reload`: the `hot_reload` module `smolv-reload` publishes through, and embedded shaders
//!   that know their sources and recipe (so off by default: no source paths in release builds).
//! - `wgpu`: the wgpu layer (the `wgpu` module). `wgpu-spirv` adds wgpu's
//!   SPIR-V input, for shaders the build shipped as SPIR-V.
//! - `serde`: derives for the reflection types.
#![cfg_attr(not(feature = "std"), no_std)]
// Only the Vulkan layer calls unsafe code (ash); it opts in module by module.
#![deny(unsafe_code)]
#![deny(missing_docs)]

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
/// How a set's modules are stored and framed ([`smolv_format`]).
pub use smolv_format::{Codec, Framing};

/// bytemuck, whose `Pod` and `Zeroable` the generated types (`include_types!`) implement.
/// A storage buffer read back, as the shader's element type (`buffer Data { Element data[]; }`):
///
/// ```text
/// smolv_runtime::include_types!();
/// let view = readback.slice(..).get_mapped_range(); // wgpu: mapped for reading
/// let elements: &[shaders::DataElement] = smolv_runtime::bytemuck::try_cast_slice(&view)?;
/// ```
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
#[cfg(feature = "macros")]
pub use smolv_macros::include_shader;

/// Embeds every shader built by `smolv-build` as one [`ShaderSet`] (or a
/// `ShaderSet<Raw>`, [`shader::Raw`]).
#[cfg(feature = "macros")]
pub use smolv_macros::include_shaders;

/// Includes the Rust types smolv-build generated from the shaders'
/// reflection (`OUT_DIR/smolv/types.rs`).
#[cfg(feature = "macros")]
pub use smolv_macros::include_types;

/// What the macros expand to; not a stable API.
#[doc(hidden)]
#[cfg(feature = "macros")]
pub mod __private {
    #[cfg(feature = "lz4")]
    pub use crate::embed::WGSL_LZ4;
    #[cfg(feature = "zstd-fast")]
    pub use crate::embed::WGSL_ZSTD;
    pub use crate::embed::unpack::{ModuleUnpacker, RAW, RELATIVE_IDS, SMOLV, SMOLV_MODULE, Unpacker};
    #[cfg(feature = "lz4")]
    pub use crate::embed::unpack::{RELATIVE_IDS_LZ4, RELATIVE_IDS_LZ4_MODULE, SMOLV_LZ4, SMOLV_LZ4_MODULE};
    #[cfg(feature = "zstd-fast")]
    pub use crate::embed::unpack::{SMOLV_ZSTD, SMOLV_ZSTD_DICTIONARY, SMOLV_ZSTD_MODULE};
    pub use crate::embed::{
        EmbeddedEntry, EmbeddedModule, EmbeddedSet, RelativeIdsModule, WGSL, WgslEntry, WgslModule, WgslSet,
        WgslUnpacker, le_words, spirv_module,
    };
    pub use crate::shader::{LazyShaders, leaked_embedded_set};
    pub use bytemuck;
    pub use include_bytes_aligned::include_bytes_aligned;
}

/// The generated wgpu items, or nothing without the `wgpu` feature. Not a stable API.
#[doc(hidden)]
#[cfg(feature = "wgpu")]
#[macro_export]
macro_rules! __wgpu_items {
    ($($items:tt)*) => { $($items)* };
}

#[doc(hidden)]
#[cfg(not(feature = "wgpu"))]
#[macro_export]
macro_rules! __wgpu_items {
    ($($items:tt)*) => {};
}

/// The generated Vulkan items, or nothing without the `vulkan` feature. Not a stable API.
#[doc(hidden)]
#[cfg(feature = "vulkan")]
#[macro_export]
macro_rules! __vulkan_items {
    ($($items:tt)*) => { $($items)* };
}

#[doc(hidden)]
#[cfg(not(feature = "vulkan"))]
#[macro_export]
macro_rules! __vulkan_items {
    ($($items:tt)*) => {};
}

/// The LZ4 unpacker, or a compile error naming the feature. Not a stable API.
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

/// An embedded set's [`ShaderSet`]: a `static` shader per module (small sets, `hot-reload`),
/// else [`__private::LazyShaders`]. Not a stable API.
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

/// One embedded shader, with the origin `__smolv_origin!` makes of the tokens after `;`. Not a stable API.
#[doc(hidden)]
#[cfg(feature = "macros")]
#[macro_export]
macro_rules! __smolv_shader {
    (alone $module:expr; $($origin:tt)*) => {
        $crate::Shader::embedded_from($module, $crate::__smolv_origin!($($origin)*))
    };
    (in_set $set:expr, $index:expr; $($origin:tt)*) => {
        $crate::Shader::in_set_from($set, $index, $crate::__smolv_origin!($($origin)*))
    };
    (raw $name:literal, $words:expr; $($origin:tt)*) => {
        $crate::Shader::raw_from($name, $words, $crate::__smolv_origin!($($origin)*))
    };
    (raw_in_set $name:literal, $words:expr; $($origin:tt)*) => {
        $crate::shader::RawShader::from_parts($name, $words, $crate::__smolv_origin!($($origin)*))
    };
    (in_wgsl_set $set:expr, $index:expr; $($origin:tt)*) => {
        $crate::Shader::in_wgsl_set_from($set, $index, $crate::__smolv_origin!($($origin)*))
    };
    (wgsl $name:literal, $text:expr; $($origin:tt)*) => {{
        static MODULE: $crate::__private::WgslModule = $crate::__private::WgslModule::new($name, $text);
        $crate::Shader::wgsl_module_from(&MODULE, $crate::__smolv_origin!($($origin)*))
    }};
    (relative_ids $name:literal, $words:expr; $($origin:tt)*) => {{
        static MODULE: $crate::__private::RelativeIdsModule = $crate::__private::RelativeIdsModule::new($name, $words);
        $crate::Shader::relative_ids_from(&MODULE, $crate::__smolv_origin!($($origin)*))
    }};
}

/// An embedded shader's origin for `__smolv_shader!` (`hot-reload`). Not a stable API.
#[doc(hidden)]
#[cfg(all(feature = "macros", feature = "hot-reload"))]
#[macro_export]
macro_rules! __smolv_origin {
    () => {
        ::core::option::Option::None
    };
    ($source:literal, [$($include:literal),*], $recipe:literal) => {{
        static ORIGIN: $crate::hot_reload::Origin =
            $crate::hot_reload::Origin::new($source, &[$($include),*], $recipe);
        ::core::option::Option::Some(&ORIGIN)
    }};
}

/// Without `hot-reload` the origin's tokens are dropped, never reaching the binary. Not a stable API.
#[doc(hidden)]
#[cfg(all(feature = "macros", not(feature = "hot-reload")))]
#[macro_export]
macro_rules! __smolv_origin {
    ($($origin:tt)*) => {
        ::core::option::Option::None
    };
}

/// The zstd unpackers, or a compile error naming the feature. Not a stable API.
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

/// A tiny SPIR-V compute module (an empty `main`) for doc examples.
#[doc(hidden)]
pub use smolv_format::{DOC_EXAMPLE_WORDS, doc_example_module};
