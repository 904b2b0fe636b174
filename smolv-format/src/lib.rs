//! # smolv-format
//!
//! The vocabulary the crates of [smolv](https://github.com/smolv-rs/smolv) share: [`Codec`] and [`Framing`],
//! the files smolv-build writes ([`ARTIFACT_DIR`], ...), the [`Manifest`], [`reflect`] and the [`spirv`] reader.
//!
//! ```
//! use smolv_format::{Codec, Framing};
//!
//! let codec = Codec::parse("smolv-lz4").expect("a known codec");
//! assert_eq!((codec, codec.byte()), (Codec::SmolvLz4, 2));
//! assert_eq!(Codec::from_byte(2), Some(codec));
//! assert_eq!(Framing::parse("stream"), Some(Framing::Stream));
//! ```
//!
//! ## Features
//!
//! - `std` (default): the [`Manifest`] types and `std::error::Error`; without it, `no_std` + `alloc`.
//! - `serde`: derives for everything here.
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

/// A tiny valid SPIR-V 1.0 compute module, used by the documentation examples.
#[doc(hidden)]
pub fn doc_example_module() -> alloc::vec::Vec<u32> {
    DOC_EXAMPLE_WORDS.to_vec()
}

/// The words of [`doc_example_module`]: SPIR-V 1.0, bound 5, a `GLCompute` `%1 "main"` that only returns.
#[doc(hidden)]
pub const DOC_EXAMPLE_WORDS: [u32; 39] = [
    0x07230203, 0x00010000, 0, 5, 0, 0x00020011, 1, 0x0003000E, 0, 1, 0x0005000F, 5, 1, 0x6E69616D, 0, 0x00060010, 1,
    17, 1, 1, 1, 0x00040005, 1, 0x6E69616D, 0, 0x00020013, 2, 0x00030021, 3, 2, 0x00050036, 2, 1, 0, 3, 0x000200F8, 4,
    0x000100FD, 0x00010038,
];
