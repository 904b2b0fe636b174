//! Worker processes: the in-process compilers (glslang, naga and
//! wesl), the linked SPIRV-Tools optimizer, and naga's translation to WGSL
//! for wgpu targets, run in child processes, so that a compiler crash, abort, stack overflow, hang or
//! runaway allocation ends a worker, not the build.
//!
//! The worker is this same program, started again with [`MARKER`] set:
//! - under a build script, the build script itself. On Linux it serves
//!   before the build script's `main` (`enter`, a constructor), so it never
//!   runs the user's code: what `main` does before `Config::compile` runs
//!   once per build. `enter`'s docs say why a constructor of our own, and
//!   how the linker is made to keep it. The guarantee covers `main`: the
//!   program's other constructors (a `#[ctor]` in the build script's own
//!   crate, say) still run in every worker. Elsewhere, or where `enter`
//!   cannot find its `.init_array` (a static program), it reaches
//!   [`Config::try_compile`](crate::Config::try_compile) again
//!   (`compile()` calls it), and there serves instead of building
//!   ([`serve_if_asked`]);
//! - anywhere else, a program whose `main` calls
//!   [`Config::worker_main`](crate::Config::worker_main) first (the
//!   `cargo-smolv` CLI, or a game through `smolv_reload::worker_main`),
//!   which serves there, once Rust's runtime is set up.
//!
//! Without either (a test harness, a program without the hook), or with
//! `SMOLV_WORKERS=0`, the compilers run in this process, as they did
//! before workers.
//!
//! A worker answers one request at a time (compile a job, translate a
//! module to WGSL, or optimize a module), and serves request after request until its standard
//! input closes (`pool`), speaking length-prefixed frames over its stdin
//! and a private copy of its stdout (`protocol`); its own standard output
//! is pointed at stderr, so compiler chatter cannot corrupt a frame
//! (`serve`). It dies with its parent (`PR_SET_PDEATHSIG` on Linux, and
//! the closed pipe everywhere), has an address-space cap (`RLIMIT_AS` on
//! unix) and a time limit per request, the limits of every tool the build
//! runs ([`Limits`]). On Linux it runs in a process group of its own,
//! which a time-out kills whole; elsewhere, without a death signal to
//! stand in for the build's Ctrl-C, it stays in the build's group, and a
//! time-out kills the worker alone. A worker that dies or overruns is
//! replaced for the requests after it, and what it was doing is never
//! cached: a compile is an error naming the shader and how the worker
//! ended; a translation is a warning saying the same, and the module ships
//! as SPIR-V; an optimization is tried once more (but after a time-out),
//! then the module ships unoptimized with a warning. An idle worker that died is noticed (`try_wait`) before it is
//! given a request, and a request that meets a broken pipe goes to another
//! worker once (`pool`).
//!
//! A build's pool lives for the build. Hot reload keeps one for as long as
//! its watcher runs ([`CompilerPool`](crate::recipe::CompilerPool)), so an
//! edit does not start the game's binary again: one worker is kept
//! started, and one that dies (on a request, or killed while idle) is
//! replaced in the background (`keeper`). Every worker is started by the
//! pool's keeper thread, since the death signal a worker asks for fires
//! when the *thread* that started it ends.

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
/// Set in a worker's environment: its parent's process id, so that a
/// worker whose parent died before it could ask to die with it exits.
const PARENT_VAR: &str = "SMOLV_BUILD_WORKER_PARENT";
/// Set in a worker's environment: its address-space cap in bytes.
const MEMORY_VAR: &str = "SMOLV_BUILD_WORKER_MEMORY";
/// `0` compiles in the build's own process (no workers).
const WORKERS_VAR: &str = "SMOLV_WORKERS";
/// Test hook, debug builds only: `name=milliseconds` makes a worker sleep
/// that long before compiling a file named `name` (`optimize=milliseconds`:
/// before each optimization), to reach the time limit.
#[cfg(debug_assertions)]
const TEST_DELAY_VAR: &str = "SMOLV_WORKER_TEST_DELAY";
/// Test hook, debug builds only: `translate` makes a worker abort on every
/// translation to WGSL, as a naga crash would; `optimize` on every
/// optimization, as a SPIRV-Tools crash would.
#[cfg(debug_assertions)]
pub(crate) const TEST_ABORT_VAR: &str = "SMOLV_WORKER_TEST_ABORT";
// Test hook, debug builds only: `SMOLV_WORKER_TEST_CRASH=name` makes the
// process that compiles a file named `name`, or whose source contains it
// (a worker, or the build's own with `SMOLV_WORKERS=0`), die of SIGSEGV, as
// a compiler crash would; see `frontend::test_crash`.
/// Test hook, debug builds only: a file each worker appends its process id
/// to once it has greeted.
#[cfg(debug_assertions)]
pub(crate) const TEST_STARTED_VAR: &str = "SMOLV_WORKER_TEST_STARTED";
/// Test hook, debug builds only: a file that a child of the worker,
/// started with each request, appends to until it is killed.
#[cfg(debug_assertions)]
const TEST_GRANDCHILD_VAR: &str = "SMOLV_WORKER_TEST_GRANDCHILD";
/// Test hook, debug builds only: set, a worker closes its standard input
/// before its first answer, and waits to be killed after it.
#[cfg(debug_assertions)]
const TEST_DEAF_VAR: &str = "SMOLV_WORKER_TEST_DEAF";

/// Whether this program's `main` called [`main_hook`]: then it can serve
/// as a worker when started again.
static HOOKED: AtomicBool = AtomicBool::new(false);

/// The hook behind [`Config::worker_main`](crate::Config::worker_main):
/// serves and exits if this process is a worker, else records that this
/// program can be one.
pub(crate) fn main_hook() {
    serve_if_asked();
    HOOKED.store(true, Ordering::Release);
}

/// Whether [`ShaderRecipe::compile`](crate::recipe::ShaderRecipe::compile)
/// runs the compilers in worker processes: only once `main` called
/// [`Config::worker_main`](crate::Config::worker_main) (and
/// `SMOLV_WORKERS` is not `0`). Otherwise a compiler crash ends this
/// process, which a hot-reloading game should warn about.
///
/// ```
/// // A test harness never called the hook.
/// assert!(!smolv_build::recipe::compiles_in_workers());
/// ```
pub fn compiles_in_workers() -> bool {
    HOOKED.load(Ordering::Acquire) && crate::env::var_os(WORKERS_VAR).is_none_or(|v| v != "0")
}

/// How the frontends of in-process compilers run for one build (or one
/// hot-reload compile).
pub(crate) enum Compilers {
    /// In this process: a crash here ends the process.
    InProcess,
    /// In worker processes of this program.
    Workers(pool::Workers),
}

/// What became of a translation to WGSL.
#[derive(Debug)]
pub(crate) enum Translation {
    /// naga's answer: the WGSL, or why naga refused the module. The same
    /// words always get the same answer, so it may be cached.
    Answer(Result<String, Refused>),
    /// No answer: the worker translating it crashed, ran out of time or
    /// could not start. The module ships as SPIR-V, this is never cached,
    /// and the build runs again next time.
    NoAnswer(Refused),
}

impl Compilers {
    /// Workers when this program can serve as one (see the module docs),
    /// else in-process. `build_script`: called from `Config::try_compile`,
    /// which a build script reaches again when started as a worker.
    pub(crate) fn start(build_script: bool) -> Self {
        Self::choose(build_script, pool::Workers::new)
    }

    /// As [`start`](Self::start) outside a build script, with a pool kept
    /// across compiles: its workers live as long as it does, one is kept
    /// started, and one that dies is replaced in the background.
    pub(crate) fn kept() -> Self {
        Self::choose(false, pool::Workers::kept)
    }

    fn choose(build_script: bool, pool: fn(std::path::PathBuf, Limits) -> pool::Workers) -> Self {
        if crate::env::var_os(WORKERS_VAR).is_some_and(|v| v == "0") {
            return Self::InProcess;
        }
        let can_serve = HOOKED.load(Ordering::Acquire) || (build_script && under_a_build_script());
        match this_program() {
            Some(exe) if can_serve => Self::Workers(pool(exe, Limits::from_env())),
            _ => Self::InProcess,
        }
    }

    /// Compiles `job` (whose file holds `source`) with its frontend: in a
    /// worker if that frontend runs in-process, else here (the external
    /// tools are child processes already).
    pub(crate) fn compile(&self, job: &Job, source: &[u8], settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
        let in_process = job.language.compiles_in_process();
        match (self, std::str::from_utf8(source)) {
            (Self::Workers(workers), Ok(text)) if in_process => workers.compile(job, text, settings),
            // Not UTF-8: the frontend refuses it before any compiler runs.
            _ => frontend::compile(job, source, settings),
        }
    }

    /// Runs `recipe` on `spirv` with the linked SPIRV-Tools: in a worker if
    /// the build has them, else here. One try: the caller tries a
    /// transient failure once more.
    #[cfg(feature = "optimizer")]
    pub(crate) fn optimize(&self, spirv: &[u32], recipe: &Recipe) -> Result<Vec<u32>, Once> {
        match self {
            Self::Workers(workers) => workers.optimize(spirv, recipe),
            Self::InProcess => crate::compile::optimize::linked::optimize(spirv, recipe).map_err(Once::Failed),
        }
    }

    /// Translates `spirv` to minified WGSL with naga: in a worker if the
    /// build has them, else here.
    pub(crate) fn translate(&self, spirv: &[u32]) -> Translation {
        match self {
            Self::Workers(workers) => workers.translate(spirv),
            _ => Translation::Answer(translate::to_wgsl(spirv)),
        }
    }
}

/// This program's binary. On Linux `/proc/self/exe`, which stays this
/// very binary even after a rebuild replaced the file (a hot-reloading
/// game whose Rust code was rebuilt while it runs).
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

/// Whether this process runs as a Cargo build script: Cargo sets these for
/// build scripts only (a test or a `cargo run` gets none of `TARGET`,
/// `HOST` and `NUM_JOBS`).
fn under_a_build_script() -> bool {
    ["OUT_DIR", "TARGET", "HOST", "NUM_JOBS"].iter().all(|var| crate::env::cargo_var_os(var).is_some())
}

/// What compiles `job` in a worker, for messages.
fn compiler_name(job: &Job) -> &'static str {
    match job.language {
        crate::options::Language::Wgsl => "naga",
        crate::options::Language::Wesl => "wesl or naga",
        _ => "glslang",
    }
}

/// Where the worker binary is, for messages.
fn describe_exe(exe: &std::path::Path) -> String {
    exe.file_name().map_or_else(|| exe.display().to_string(), |name| name.to_string_lossy().into_owned())
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
