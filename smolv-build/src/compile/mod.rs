//! The compile stage: source → SPIR-V for each job. The cache lookup and
//! the entry that stores a result (`job`), one front end per language
//! (`frontend`), the size optimizer (`optimize`), external tools found and
//! identified (`tool`), the paths the cache records (`portable`), and the
//! guards around in-process compilers: worker processes that a crash ends
//! instead of the build (`worker`), their chatter kept off a build
//! script's stdout (`quiet_stdout`). `target_check` words the warning for
//! modules newer than the target environment takes. For wgpu targets,
//! `translate` turns SPIR-V into minified WGSL with naga, in the same
//! workers. `all` is the stage's entry: every job of a build, returning
//! what came of each.
//!
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

/// The naga that compiles WGSL and translates SPIR-V to WGSL, exactly: the
/// workspace pins it with `=` (a build script cannot see a dependency's
/// version), and a test checks that the pin, the lock file and this agree.
/// Every cache key names it, whatever features the build has.
pub(crate) const NAGA_VERSION: &str = "30.0.1";

pub(crate) use job::{
    Context, JobOutput, compile_job, compile_uncached, compiler_identity, current_key, slang_identity,
};
