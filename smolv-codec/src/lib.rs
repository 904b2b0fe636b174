//! # smolv-codec
//!
//! The codecs of [smolv](https://github.com/smolv-rs/smolv), which `smolv-runtime` re-exports:
//!
//! - [`smolv`]: the [SMOL-V](https://github.com/aras-p/smol-v) codec;
//! - [`relative_ids`]: SPIR-V with its ids stored relative to each result;
//! - [`specialize`]: specialization constants folded into a module;
//! - [`container`] (with `std`): shader containers and bundles.
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
//! - `std` (default): `std::error::Error` and [`container`]; without it the crate is `no_std` + `alloc`.
//! - `zstd-fast` (default): zstd for containers and bundles.
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

/// The documentation examples' SPIR-V module, and its words.
#[doc(hidden)]
pub use smolv_format::{DOC_EXAMPLE_WORDS, doc_example_module};
