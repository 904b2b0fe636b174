//! # smolv-codec
//!
//! The codecs of [smolv](https://github.com/smolv-rs/smolv), the shader
//! toolchain for Rust games: what the build (`smolv-build`) encodes,
//! specializes and packs with, and what the runtime (`smolv-runtime`)
//! decodes with. Games do not depend on this crate: `smolv-runtime`
//! re-exports each module under the same name (`smolv_runtime::smolv`,
//! `smolv_runtime::container`, ...). It sits between the vocabulary the
//! crates share (`smolv-format`) and the game-facing runtime, as
//! `zstd-safe` sits between `zstd-sys` and `zstd`.
//!
//! - [`smolv`]: the [SMOL-V](https://github.com/aras-p/smol-v) codec, a
//!   `no_std`-capable encoder that writes exactly the bytes of the
//!   reference C++ encoder, and a decoder that reads every SMOL-V version
//!   ever written and never panics on bad input;
//! - [`relative_ids`]: SPIR-V with its ids stored relative to each result;
//! - [`specialize`]: specialization constants folded into a module, its
//!   branches resolved and its dead code removed;
//! - [`container`] (with `std`): shader containers and bundles, the asset
//!   files smolv ships shaders in.
//!
//! ```
//! use smolv_codec::{decode, encode, DecodeOptions, EncodeOptions};
//!
//! # let spirv_bytes: Vec<u8> = smolv_codec::doc_example_module()
//! #     .iter().flat_map(|w| w.to_le_bytes()).collect();
//! // let spirv_bytes = std::fs::read("shader.spv")?;
//! let smolv = encode(&spirv_bytes[..], &EncodeOptions::new().strip_debug(true))?;
//! let words: Vec<u32> = decode(&smolv, &DecodeOptions::new())?;
//! assert_eq!(words[0], 0x0723_0203); // SPIR-V magic
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Features
//! - `std` (default): `std::error::Error` for the error types, and the
//!   [`container`] module. Without it the crate is `no_std` and needs only
//!   `alloc`.
//! - `zstd-fast` (default): zstd for containers and bundles (their payloads and
//!   dictionaries).
//! - `serde`: derives for [`specialize::Value`].
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

#[cfg(feature = "std")]
pub mod container;
mod options;
pub mod relative_ids;
pub mod smolv;
pub mod specialize;

pub use options::DecodeOptions;
pub use smolv::{
    DecodeError, EncodeError, EncodeOptions, NameFilter, SmolvInfo, SpirvInput, decode, decode_into, decoded_len,
    encode, encode_into, inspect,
};

/// A tiny valid SPIR-V 1.0 compute module (an empty `main`), used by the
/// documentation examples; its words for `static` examples.
#[doc(hidden)]
pub use smolv_format::{DOC_EXAMPLE_WORDS, doc_example_module};
