//! The pack stage: compiled SPIR-V → what ships. Reflect each module
//! (`reflect`), SMOL-V encode it and compress the zstd forms (`encode`),
//! choose and write the embedded set (`packing`), assemble the containers
//! and the bundle (`bundle`), record how to compile each module again
//! (`recipe`), and gather it all for the output stage (`artifacts`).
//!
//! It reads the earlier stages (options, source, compile) and the cache;
//! it never reads the output stage.

pub(crate) mod artifacts;
pub(crate) mod bundle;
pub(crate) mod encode;
pub(crate) mod packing;
pub(crate) mod recipe;
pub(crate) mod reflect;
pub(crate) mod wgsl;
pub(crate) mod zstd_memo;
