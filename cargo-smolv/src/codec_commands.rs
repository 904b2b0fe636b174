//! `encode` and `decode`: one file in, one file out.

use std::path::PathBuf;

use smolv_runtime::{DecodeOptions, EncodeOptions};

use crate::io::{FileError, read_input, write_output};

/// Arguments of `cargo smolv encode`.
#[derive(clap::Args)]
pub(crate) struct EncodeArgs {
    /// SPIR-V module to encode (`-` for standard input).
    input: PathBuf,
    /// Where to write the SMOL-V (`-` for standard output).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Drop debug info (names, source, line info); the output decodes to a
    /// smaller but equivalent module.
    #[arg(long)]
    strip_debug: bool,
    /// With --strip-debug, keep OpNames that start with this prefix (repeatable).
    #[arg(long, value_name = "PREFIX", requires = "strip_debug")]
    keep_name: Vec<String>,
}

/// Arguments of `cargo smolv decode`.
#[derive(clap::Args)]
pub(crate) struct DecodeArgs {
    /// SMOL-V file to decode (`-` for standard input).
    input: PathBuf,
    /// Where to write the SPIR-V (`-` for standard output).
    #[arg(short, long, value_name = "OUT")]
    output: PathBuf,
    /// Read version-0 data in the 2016-08-31 dialect (Unity 2017-2020).
    #[arg(long = "legacy-2016-08-31")]
    legacy_2016_08_31: bool,
}

pub(crate) fn encode(args: &EncodeArgs) -> Result<(), FileError> {
    let spirv = read_input(&args.input)?;
    let mut options = EncodeOptions::new().strip_debug(args.strip_debug);
    if !args.keep_name.is_empty() {
        let prefixes = args.keep_name.clone();
        options = options.keep_names(move |name| prefixes.iter().any(|p| name.starts_with(p.as_str())));
    }
    let smolv = smolv_runtime::encode(&spirv[..], &options).map_err(|e| FileError::new(&args.input, e))?;
    write_output(&args.output, &smolv)?;
    eprintln!(
        "encoded {}: {} bytes of SPIR-V -> {} bytes of SMOL-V ({:.1}%)",
        args.input.display(),
        spirv.len(),
        smolv.len(),
        // Never 0 bytes: the encoder checked the SPIR-V header.
        100.0 * smolv.len() as f64 / spirv.len() as f64
    );
    Ok(())
}

pub(crate) fn decode(args: &DecodeArgs) -> Result<(), FileError> {
    let smolv = read_input(&args.input)?;
    let options = DecodeOptions::new().legacy_2016_08_31(args.legacy_2016_08_31);
    let words = smolv_runtime::decode(&smolv, &options).map_err(|e| FileError::new(&args.input, e))?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    write_output(&args.output, &bytes)?;
    eprintln!("decoded {}: {} bytes of SMOL-V -> {} bytes of SPIR-V", args.input.display(), smolv.len(), bytes.len());
    Ok(())
}
