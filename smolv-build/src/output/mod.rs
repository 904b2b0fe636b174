//! The output stage, the build's last: the report, the Rust types, and the
//! one writer of Cargo directives and of `OUT_DIR` (`write`, through `emit`
//! and `build_log`). Only the driver reads it.

pub(crate) mod build_log;
pub(crate) mod emit;
pub(crate) mod report;
pub(crate) mod types;
mod write;

pub(crate) use write::{Build, write};
