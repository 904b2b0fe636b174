//! `cargo smolv`: the command-line face of the smolv shader toolchain (also runs as `cargo-smolv <COMMAND>`).
//! Exit codes: 0 on success, 1 when an input could not be processed, 2 on a usage error.

mod build_command;
mod cache_command;
mod codec_commands;
mod io;
mod pack_command;
mod pipelines_command;
mod prepare_command;
mod quiet_stdout;
mod report_command;
mod shader_args;
mod stats_command;
mod types_command;
mod ui;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The environment variable `name`: the CLI's one reader.
#[allow(clippy::disallowed_methods, reason = "the CLI's one reader of the environment")]
pub(crate) fn env_var_os(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name)
}

/// A command of the Cargo that runs `cargo smolv` (`CARGO`), else of `cargo` on `PATH`.
pub(crate) fn cargo_command() -> std::process::Command {
    std::process::Command::new(env_var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Cargo's view: `cargo smolv ...` arrives as `cargo-smolv smolv ...`.
#[derive(Parser)]
#[command(bin_name = "cargo", version, about = None)]
enum CargoCli {
    /// SMOL-V shader tools.
    Smolv(SmolvCli),
}

#[derive(clap::Args)]
#[command(
    version,
    about = "smolv shader tools: build shader trees, encode and decode SMOL-V, measure sizes.",
    after_help = "Examples:\n  \
        cargo smolv build shaders -o target/shaders --strip-debug\n  \
        cargo smolv build shaders -o target/shaders --json > report.json\n  \
        cargo smolv build hlsl-shaders -o target/shaders -x hlsl -fhlsl-iomap\n  \
        cargo smolv build shaders -o target/shaders --remote-cache http://cache:8080 --remote-cache-mode read-only\n  \
        cargo smolv build shaders -o target/shaders -DMAX_LIGHTS=16 --variant lit.frag@shadows:SHADOWS=1\n  \
        cargo smolv types shaders -o shader_types.rs --variant lit.frag@shadows:SHADOWS=1\n  \
        cargo smolv stats assets/shaders\n  \
        cargo smolv report --json\n  \
        cargo smolv pack assets/shaders -o assets/shaders.smvb\n  \
        cargo smolv verify assets/shaders.smvb\n  \
        cargo smolv cache trim --max-size 2G\n  \
        cargo smolv prepare\n  \
        cargo smolv prepare --check -- --workspace\n  \
        cargo smolv unpack assets/shaders.smvb -o /tmp/spirv\n  \
        cargo smolv encode --strip-debug lit.frag.spv -o lit.frag.smolv\n  \
        cargo smolv decode lit.frag.smolv -o lit.frag.spv\n  \
        cargo smolv decode --legacy-2016-08-31 unity.smolv -o unity.spv\n\n\
        Exit codes: 0 success, 1 an input could not be processed, 2 usage error."
)]
struct SmolvCli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Encode a SPIR-V module as SMOL-V.
    Encode(codec_commands::EncodeArgs),
    /// Decode SMOL-V back to a SPIR-V module.
    Decode(codec_commands::DecodeArgs),
    /// Compile, optimize, encode and compress a shader tree, with the build cache.
    Build(build_command::BuildArgs),
    /// The Rust types `include_types!` includes for a shader tree: structs for every block, and each shader's
    /// bindings, push constants, workgroup size, spec constants and vertex inputs. Takes `build`'s shader options.
    Types(types_command::TypesArgs),
    /// Size table for existing SPIR-V files: raw, SMOL-V, +zstd, +dictionary, solid.
    Stats(stats_command::StatsArgs),
    /// What every smolv-using crate of the workspace ships (from their build reports).
    Report(report_command::ReportArgs),
    /// Write a bundle file (.smvb) of shader sources and SPIR-V files.
    Pack(pack_command::PackArgs),
    /// Read a bundle file (.smvb) back into SPIR-V files.
    Unpack(pack_command::UnpackArgs),
    /// Decode every entry of bundles, check hashes, run spirv-val when installed.
    Verify(pack_command::VerifyArgs),
    /// Size (`stats`), clear (`clean`) or trim (`trim --max-size`) the build cache, least recently used first.
    Cache(cache_command::CacheArgs),
    /// Write each crate's prepared directory (.smolv, to commit): its shaders compiled, for builds without the
    /// compilers. `--check` fails when it is stale.
    Prepare(prepare_command::PrepareArgs),
    /// Pipeline recordings (docs/warmup.md): `show` (by scope, with use counts and shaders), `merge`, and
    /// `check` against a shader set.
    Pipelines(pipelines_command::PipelinesArgs),
}

fn main() -> ExitCode {
    // First: this program is also the shader compiler worker its builds start.
    smolv_build::Config::worker_main();
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Accept `cargo-smolv encode ...` as well as Cargo's `cargo-smolv smolv encode ...`.
    if args.get(1).is_none_or(|a| a != "smolv") {
        args.insert(1, "smolv".into());
    }
    let CargoCli::Smolv(cli) = CargoCli::parse_from(args);
    let result = match cli.command {
        Command::Encode(args) => codec_commands::encode(&args),
        Command::Decode(args) => codec_commands::decode(&args),
        Command::Build(args) => build_command::build(&args),
        Command::Types(args) => types_command::types(&args),
        Command::Stats(args) => stats_command::stats(&args),
        Command::Report(args) => report_command::report(&args),
        Command::Pack(args) => pack_command::pack(&args),
        Command::Unpack(args) => pack_command::unpack(&args),
        Command::Verify(args) => pack_command::verify(&args),
        Command::Cache(args) => cache_command::cache(&args),
        Command::Prepare(args) => prepare_command::prepare(&args),
        Command::Pipelines(args) => pipelines_command::pipelines(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{}: {error}", ui::error_label());
            ExitCode::FAILURE
        }
    }
}
