//! # smolv-build
//!
//! The build-time half of [smolv](https://github.com/smolv-rs/smolv), the
//! shader asset pipeline for Rust + Vulkan games.
//!
//! This release ships the `cargo smolv` command-line tool:
//!
//! ```sh
//! cargo install smolv-build
//! cargo smolv encode --strip-debug shader.spv -o shader.smolv
//! cargo smolv decode shader.smolv -o shader.spv
//! ```
//!
//! The codec itself lives in [`smolv_runtime`], re-exported here as
//! [`codec`] for build scripts that encode SPIR-V they produce themselves:
//!
//! ```
//! use smolv_build::codec::{encode, EncodeOptions};
//! # let spirv = smolv_runtime::doc_example_module();
//! let smolv = encode(&spirv[..], &EncodeOptions::new().strip_debug(true))?;
//! # let _ = smolv;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use smolv_runtime::codec;
