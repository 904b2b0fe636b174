//! `cargo smolv types`: the Rust types `include_types!` includes for a shader tree.

use std::path::PathBuf;

use crate::io::FileError;
use crate::shader_args::{ShaderArgs, config};

/// Arguments of `cargo smolv types`.
#[derive(clap::Args)]
pub(crate) struct TypesArgs {
    /// Directory of GLSL, HLSL, WGSL and Slang shaders.
    dir: PathBuf,
    /// Where to write the Rust source (default: standard output).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Where the build writes its artifacts (default: a temporary directory, removed after).
    #[arg(long, value_name = "OUTDIR")]
    out_dir: Option<PathBuf>,
    #[command(flatten)]
    shaders: ShaderArgs,
}

pub(crate) fn types(args: &TypesArgs) -> Result<(), FileError> {
    match &args.out_dir {
        Some(out_dir) => generate(args, out_dir),
        None => {
            let temporary = crate::io::private_temp_dir("cargo-smolv-types-", &args.dir)?;
            generate(args, temporary.path())
        }
    }
}

fn generate(args: &TypesArgs, out_dir: &std::path::Path) -> Result<(), FileError> {
    let config = config(&args.dir, out_dir, &args.shaders);
    let report = crate::quiet_stdout::compile(&config, None).map_err(|e| FileError::new(&args.dir, e))?;
    report.failures.iter().flat_map(|failure| &failure.errors).for_each(|error| eprintln!("{error}"));
    let Some(types) = &report.types else {
        return Err(FileError::new(&args.dir, "no shader compiled, so there are no types; see the errors above"));
    };
    for problem in &types.problems {
        eprintln!("{}: {problem}", crate::ui::warning_label());
    }
    let code = std::fs::read_to_string(&types.file).map_err(|e| FileError::new(&types.file, e.to_string()))?;
    match &args.output {
        Some(file) => std::fs::write(file, code).map_err(|e| FileError::new(file, format!("cannot write: {e}")))?,
        None => print!("{code}"),
    }
    eprintln!(
        "types: {} modules, {} blocks, {} structs, generated in {:.1} ms",
        types.modules, types.blocks, types.structs, types.milliseconds
    );
    Ok(())
}
