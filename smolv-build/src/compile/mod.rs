//! The compile stage: source → SPIR-V for each job (`all` is its entry); it never reads later stages.

pub(crate) mod all;
pub(crate) mod frontend;
mod job;
pub(crate) mod optimize;
pub(crate) mod portable;
pub(crate) mod quiet_stdout;
pub(crate) mod target_check;
pub(crate) mod tool;
pub(crate) mod translate;
pub(crate) mod worker;

/// The naga the workspace pins (a test checks the lock file); every cache key names it.
pub(crate) const NAGA_VERSION: &str = "30.0.1";

pub(crate) use job::{
    Context, JobOutput, compile_job, compile_uncached, compiler_identity, current_key, slang_identity,
};
