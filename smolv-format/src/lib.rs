//! # smolv-format
//!
//! The vocabulary the crates of [smolv](https://github.com/smolv-rs/smolv)
//! share. smolv-build writes it, smolv-macros and smolv-runtime read it:
//!
//! - [`Codec`]: how one module's bytes are stored in an embedded set;
//! - [`Framing`]: whether a set's modules are compressed one by one or as
//!   one stream;
//! - the names of the files smolv-build writes under `OUT_DIR/smolv`
//!   ([`ARTIFACT_DIR`], [`MANIFEST_FILE`], ...);
//! - the [`Manifest`] (`manifest.json`) that lists them (feature `std`);
//! - [`reflect`]: what a module's SPIR-V says of its interface;
//! - [`spirv`]: the one reader of SPIR-V the crates share: header, words,
//!   instructions and literal strings.
//!
//! ```
//! use smolv_format::{Codec, Framing};
//!
//! // The names scripts and the manifest use, and the bytes the embedded
//! // set's directory stores (`docs/format.md`, "Embedded sets").
//! let codec = Codec::parse("smolv-lz4").expect("a known codec");
//! assert_eq!((codec, codec.byte()), (Codec::SmolvLz4, 2));
//! assert_eq!(Codec::from_byte(2), Some(codec));
//! assert_eq!(Framing::parse("stream"), Some(Framing::Stream));
//! ```
//!
//! ## Features
//!
//! - `std` (default): the [`Manifest`] types, whose paths are `PathBuf`s,
//!   and `std::error::Error` for [`reflect::ReflectionError`]. Without it
//!   the crate is `no_std` and needs only `alloc`.
//! - `serde`: derives for everything here; a [`Codec`] and a [`Framing`]
//!   (de)serialize as their names.
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

mod codec;
mod files;
#[cfg(feature = "std")]
mod manifest;
pub mod reflect;
pub mod spirv;
mod wgsl;

pub use codec::{Codec, Framing};
pub use files::{
    ARTIFACT_DIR, BUNDLE_FILE, EMBEDDED_DATA_FILE, EMBEDDED_DICTIONARY_FILE, EMBEDDED_DIRECTORY_FILE,
    EMBEDDED_WGSL_FILE, MANIFEST_FILE, TYPES_FILE,
};
#[cfg(feature = "std")]
pub use manifest::{
    MANIFEST_FORMAT, Manifest, ManifestEmbeddedModule, ManifestEmbeddedSet, ManifestModule, ManifestRecipe,
    ManifestWgsl, ManifestWgslModule,
};
pub use wgsl::WgslCodec;

/// A tiny valid SPIR-V 1.0 compute module (an empty `main` with
/// `LocalSize 1 1 1`), used by the documentation examples.
#[doc(hidden)]
pub fn doc_example_module() -> alloc::vec::Vec<u32> {
    DOC_EXAMPLE_WORDS.to_vec()
}

/// The words of [`doc_example_module`], for `static` examples.
#[doc(hidden)]
pub const DOC_EXAMPLE_WORDS: [u32; 39] = [
    0x0723_0203,
    0x0001_0000,
    0,
    5,
    0, // header: magic, 1.0, generator, bound, schema
    0x0002_0011,
    1, // OpCapability Shader
    0x0003_000E,
    0,
    1, // OpMemoryModel Logical GLSL450
    0x0005_000F,
    5,
    1,
    0x6E69_616D,
    0, // OpEntryPoint GLCompute %1 "main"
    0x0006_0010,
    1,
    17,
    1,
    1,
    1, // OpExecutionMode %1 LocalSize 1 1 1
    0x0004_0005,
    1,
    0x6E69_616D,
    0, // OpName %1 "main"
    0x0002_0013,
    2, // %2 = OpTypeVoid
    0x0003_0021,
    3,
    2, // %3 = OpTypeFunction %2
    0x0005_0036,
    2,
    1,
    0,
    3, // %1 = OpFunction %2 None %3
    0x0002_00F8,
    4,           // %4 = OpLabel
    0x0001_00FD, // OpReturn
    0x0001_0038, // OpFunctionEnd
];
