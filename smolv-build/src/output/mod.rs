//! The output stage: write the artifacts and the manifest into `OUT_DIR`,
//! print the Cargo directives (`emit`), and describe the build (`report`).
//!
//! It reads every earlier stage; nothing but the driver reads it.

pub(crate) mod emit;
pub(crate) mod report;
pub(crate) mod types;
