//! The compile stage: source → SPIR-V for each job (`all` is its entry).
//! It reads what to build (`options`, `settings`) and the jobs (`source`);
//! it never reads the later stages.

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

/// The naga that compiles WGSL and translates SPIR-V to WGSL, as the
/// workspace pins it (a test checks the lock file); every cache key names it.
pub(crate) const NAGA_VERSION: &str = "30.0.1";

pub(crate) use job::{
    Context, JobOutput, compile_job, compile_uncached, compiler_identity, current_key, slang_identity,
};
