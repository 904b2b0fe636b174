//! # smolv-macros
//!
//! Procedural macros of the [smolv](https://github.com/smolv-rs/smolv) shader
//! pipeline. They embed the artifacts that `smolv-build` writes to `OUT_DIR`;
//! use them through `smolv-runtime`, which re-exports them.
//!
//! The embedding macros (`include_shader!`, `include_shaders!`) are not in
//! this release yet; this crate currently exports nothing.
#![forbid(unsafe_code)]
