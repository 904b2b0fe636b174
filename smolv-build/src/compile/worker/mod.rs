//! Worker processes (this program again, with [`MARKER`] set) for the in-process compilers, SPIRV-Tools
//! and naga, so that a crash or a hang ends a worker, not the build; unless it cannot serve (a build
//! script, or [`Config::worker_main`](crate::Config::worker_main)) or `SMOLV_WORKERS=0`.

mod enter;
mod keeper;
mod pool;
mod protocol;
mod serve;

use std::sync::atomic::{AtomicBool, Ordering};

use crate::compile::frontend::{self, Compiled};
#[cfg(feature = "optimizer")]
use crate::compile::optimize::{Once, Recipe};
use crate::compile::tool::Limits;
use crate::compile::translate::{self, Refused};
use crate::error::Diagnostic;
use crate::settings::Settings;
use crate::source::Job;

pub(crate) use serve::serve_if_asked;

/// Set in a worker's environment: the protocol version it must speak.
const MARKER: &str = "SMOLV_BUILD_WORKER";
/// Set in a worker's environment: its parent's process id.
const PARENT_VAR: &str = "SMOLV_BUILD_WORKER_PARENT";
/// Set in a worker's environment: its address-space cap in bytes.
const MEMORY_VAR: &str = "SMOLV_BUILD_WORKER_MEMORY";
/// `0` compiles in the build's own process (no workers).
const WORKERS_VAR: &str = "SMOLV_WORKERS";
// Test hooks, debug builds only (`SMOLV_WORKER_TEST_CRASH` is `frontend`'s).
/// `name=ms`: sleep before compiling a file named `name` (`optimize=ms`).
#[cfg(debug_assertions)]
const TEST_DELAY_VAR: &str = "SMOLV_WORKER_TEST_DELAY";
/// `translate` or `optimize`: abort on each, as a crash would.
#[cfg(debug_assertions)]
pub(crate) const TEST_ABORT_VAR: &str = "SMOLV_WORKER_TEST_ABORT";
/// A file each worker appends its process id to once it has greeted.
#[cfg(debug_assertions)]
pub(crate) const TEST_STARTED_VAR: &str = "SMOLV_WORKER_TEST_STARTED";
/// A file that a child of the worker appends to until it is killed.
#[cfg(debug_assertions)]
const TEST_GRANDCHILD_VAR: &str = "SMOLV_WORKER_TEST_GRANDCHILD";
/// Set: close stdin before the first answer, and wait to be killed after it.
#[cfg(debug_assertions)]
const TEST_DEAF_VAR: &str = "SMOLV_WORKER_TEST_DEAF";

/// Whether this program's `main` called [`main_hook`].
static HOOKED: AtomicBool = AtomicBool::new(false);

/// The hook behind [`Config::worker_main`](crate::Config::worker_main).
pub(crate) fn main_hook() {
    serve_if_asked();
    HOOKED.store(true, Ordering::Release);
}

/// Whether [`ShaderRecipe::compile`](crate::recipe::ShaderRecipe::compile) runs the compilers in worker processes:
/// once `main` called [`Config::worker_main`](crate::Config::worker_main), unless `SMOLV_WORKERS=0`.
///
/// ```
/// // A test harness never called the hook.
/// assert!(!smolv_build::recipe::compiles_in_workers());
/// ```
pub fn compiles_in_workers() -> bool {
    HOOKED.load(Ordering::Acquire) && crate::env::var_os(WORKERS_VAR).is_none_or(|v| v != "0")
}

pub(crate) enum Compilers {
    InProcess,
    Workers(pool::Workers),
}

#[derive(Debug)]
pub(crate) enum Translation {
    /// naga's answer, which may be cached.
    Answer(Result<String, Refused>),
    /// The worker crashed, ran out of time or could not start: never cached.
    NoAnswer(Refused),
}

impl Compilers {
    /// Workers when this program can serve as one, else in-process.
    pub(crate) fn start(build_script: bool) -> Self {
        Self::choose(build_script, 0)
    }

    /// A pool kept across compiles, with one worker kept started.
    pub(crate) fn kept() -> Self {
        Self::choose(false, 1)
    }

    fn choose(build_script: bool, warm: usize) -> Self {
        if crate::env::var_os(WORKERS_VAR).is_some_and(|v| v == "0") {
            return Self::InProcess;
        }
        let can_serve = HOOKED.load(Ordering::Acquire) || (build_script && under_a_build_script());
        match this_program() {
            Some(exe) if can_serve => Self::Workers(pool::Workers::new(exe, Limits::from_env(), warm)),
            _ => Self::InProcess,
        }
    }

    /// Compiles `job`: in a worker if its frontend runs in-process.
    pub(crate) fn compile(&self, job: &Job, source: &[u8], settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
        let in_process = job.language.compiles_in_process();
        match (self, std::str::from_utf8(source)) {
            (Self::Workers(workers), Ok(text)) if in_process => workers.compile(job, text, settings),
            // Not UTF-8: the frontend refuses it before any compiler runs.
            _ => frontend::compile(job, source, settings),
        }
    }

    /// Runs `recipe` on `spirv` with the linked SPIRV-Tools, once.
    #[cfg(feature = "optimizer")]
    pub(crate) fn optimize(&self, spirv: &[u32], recipe: &Recipe) -> Result<Vec<u32>, Once> {
        match self {
            Self::Workers(workers) => workers.optimize(spirv, recipe),
            Self::InProcess => crate::compile::optimize::linked::optimize(spirv, recipe).map_err(Once::Failed),
        }
    }

    pub(crate) fn translate(&self, spirv: &[u32]) -> Translation {
        match self {
            Self::Workers(workers) => workers.translate(spirv),
            _ => Translation::Answer(translate::to_wgsl(spirv)),
        }
    }
}

/// This program's binary (on Linux, even after a rebuild replaced the file).
fn this_program() -> Option<std::path::PathBuf> {
    #[cfg(target_os = "linux")]
    {
        let proc = std::path::Path::new("/proc/self/exe");
        if proc.exists() {
            return Some(proc.to_owned());
        }
    }
    std::env::current_exe().ok()
}

fn under_a_build_script() -> bool {
    ["OUT_DIR", "TARGET", "HOST", "NUM_JOBS"].iter().all(|var| crate::env::cargo_var_os(var).is_some())
}

#[cfg(test)]
pub(crate) mod tests {
    /// Compilers in workers that are this test binary (as a build
    /// script's are the build script), with `hooks` set in their
    /// environment.
    #[cfg(all(target_os = "linux", feature = "optimizer"))]
    pub(crate) fn test_workers(hooks: &[(&'static str, &std::path::Path)]) -> super::Compilers {
        super::Compilers::Workers(super::pool::tests::this_test_binary(std::time::Duration::from_secs(60), hooks))
    }
}
