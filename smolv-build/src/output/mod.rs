//! The output stage, the build's last: the report (`report`), the Rust
//! types (`types`), and one writer (`write`) that prints every Cargo
//! directive and warning and writes or removes the files of `OUT_DIR`
//! (artifacts and manifest through `emit`, the failed build's log through
//! `build_log`), only where they changed.
//!
//! It reads every earlier stage; nothing but the driver reads it, and
//! nothing before it writes to `OUT_DIR`.

pub(crate) mod build_log;
pub(crate) mod emit;
pub(crate) mod report;
pub(crate) mod types;
mod write;

pub(crate) use write::{Build, write};
