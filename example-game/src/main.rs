//! Rock Storm, the smolv example game: a small Vulkan arena shooter whose shaders travel the
//! whole smolv path, from `build.rs` to pipeline libraries and a compute particle simulation.
//!
//! ```text
//! example-game [--headless | --window] [--frames N] [--screenshot PATH] ...
//! ```
//!
//! Exit codes: 0 played; 1 could not run (the message says what to
//! install or change); 2 bad command line; 3 the validation layer reported
//! problems.
#![allow(
    clippy::cast_possible_truncation,
    reason = "the example game converts window sizes, frame counts and timings it bounds itself"
)]

mod cli;
mod error;
mod game;
mod gpu;
mod headless;
mod pilot;
mod reload;
mod render;
mod report;
mod screenshot;
mod shader_types;
mod shaders;
mod warmup;
mod window;

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use cli::Args;
use error::GameError;
use gpu::Validation;

/// What a run leaves to print.
pub(crate) struct Outcome {
    pub(crate) table: String,
    pub(crate) validation_messages: usize,
}

/// The validation setting the command line asks for.
pub(crate) fn validation_mode(args: &Args) -> Validation {
    match (args.validation, args.no_validation) {
        (true, _) => Validation::Required,
        (_, true) => Validation::Off,
        _ => Validation::Auto,
    }
}

fn main() -> ExitCode {
    // Hot reload compiles in worker processes of this binary.
    #[cfg(feature = "hot-reload")]
    smolv_reload::worker_main();
    cold_shader_cache();
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => return usage_error(&e),
    };
    match play(&args) {
        Ok(outcome) => {
            print!("{}", outcome.table);
            if outcome.validation_messages > 0 {
                return fail(&GameError::Validation(outcome.validation_messages));
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}

/// Loads the shaders, starts the watcher if asked, and plays.
fn play(args: &Args) -> Result<Outcome, GameError> {
    let mut shaders = shaders::Shaders::load()?;
    let mut reload = reload::HotReload::start(args)?;
    if args.is_headless() {
        headless::run(args, &mut shaders, reload.as_mut())
    } else {
        window::run(args, &mut shaders, reload.as_mut())
    }
}

/// The environment variable `name`: the game's one reader.
#[allow(clippy::disallowed_methods, reason = "the game's one reader of the environment")]
pub(crate) fn env_var_os(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name)
}

/// Turns Mesa's on-disk shader cache off, unless the user chose: the table compares pipelines
/// built twice from the same shaders, which the cache would load instead of compiling. Mesa reads
/// the variable when the driver loads, so this runs first, before any thread exists.
#[allow(unsafe_code)]
fn cold_shader_cache() {
    // `MESA_GLSL_CACHE_DISABLE` is the older name, still read.
    if ["MESA_SHADER_CACHE_DISABLE", "MESA_GLSL_CACHE_DISABLE"].iter().all(|name| env_var_os(name).is_none()) {
        // SAFETY: the process has one thread yet.
        unsafe { std::env::set_var("MESA_SHADER_CACHE_DISABLE", "true") };
    }
}

/// Prints clap's message and the usage line; exit code 2 (0 for `--help` and `--version`).
fn usage_error(error: &clap::Error) -> ExitCode {
    let _ = error.print();
    if !error.use_stderr() {
        return ExitCode::SUCCESS;
    }
    if !error.to_string().contains("Usage:") {
        eprintln!("\n{}", Args::command().render_usage());
    }
    ExitCode::from(2)
}

fn fail(error: &GameError) -> ExitCode {
    eprintln!("example-game: {error}");
    ExitCode::from(if matches!(error, GameError::Validation(_)) { 3 } else { 1 })
}
