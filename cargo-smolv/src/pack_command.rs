//! `pack`, `unpack` and `verify`: write, read and check bundles (`.smvb` asset files).

use std::path::{Component, Path, PathBuf};
use std::process::Command;

use smolv_build::bundle::{BundleOptions, write_bundle};
use smolv_build::{Config, TargetEnv};
use smolv_format::spirv::words_from_bytes;
use smolv_runtime::container::Bundle;

use crate::io::{FileError, write_output};
use crate::ui;

/// Arguments of `cargo smolv pack`.
#[derive(clap::Args)]
pub(crate) struct PackArgs {
    /// Directory of shader sources to compile, and/or SPIR-V files
    /// (recognised by their magic, whatever their extension).
    dir: PathBuf,
    /// The bundle file to write.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Drop debug info. Without it, `unpack` gives back the SPIR-V files bit for bit.
    #[arg(long)]
    strip_debug: bool,
    /// Target environment for compiled sources.
    #[arg(long, value_name = "ENV", default_value = "vulkan1.0", value_parser = crate::shader_args::parse_target_env)]
    target_env: TargetEnv,
    /// Directories searched by #include.
    #[arg(short = 'I', long = "include-dir", value_name = "DIR")]
    include_dirs: Vec<PathBuf>,
    /// zstd level.
    #[arg(long, default_value_t = 19)]
    zstd_level: i32,
    /// Print what the bundle holds as JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of `cargo smolv unpack`.
#[derive(clap::Args)]
pub(crate) struct UnpackArgs {
    /// The bundle file to read.
    input: PathBuf,
    /// Directory to write the SPIR-V files into.
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
}

/// Arguments of `cargo smolv verify`.
#[derive(clap::Args)]
pub(crate) struct VerifyArgs {
    /// Bundles to check.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Skip spirv-val even when it is installed.
    #[arg(long)]
    no_spirv_val: bool,
    /// Print the results as JSON.
    #[arg(long)]
    json: bool,
}

fn shader_sources_exist(dir: &Path) -> bool {
    const SOURCE_EXTENSIONS: [&str; 17] = [
        "vert", "frag", "comp", "geom", "tesc", "tese", "mesh", "task", "rgen", "rchit", "rmiss", "rahit", "rint",
        "rcall", "glsl", "hlsl", "wgsl",
    ];
    crate::stats_command::files_under(dir)
        .iter()
        .any(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| SOURCE_EXTENSIONS.contains(&e)))
}

pub(crate) fn pack(args: &PackArgs) -> Result<(), FileError> {
    if !args.dir.is_dir() {
        return Err(FileError::new(&args.dir, "not a directory"));
    }
    let mut modules: Vec<(String, Vec<u32>)> = Vec::new();
    for path in crate::stats_command::files_under(&args.dir) {
        let Some(words) = std::fs::read(&path).ok().and_then(|bytes| words_from_bytes(&bytes).ok()) else { continue };
        let name = path.strip_prefix(&args.dir).unwrap_or(&path);
        let name = name.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        modules.push((name, words));
    }
    if shader_sources_exist(&args.dir) {
        modules.extend(compile_sources(args)?);
    }
    if modules.is_empty() {
        return Err(FileError::new(&args.dir, "no shader sources or SPIR-V files found"));
    }
    let bar = ui::progress(modules.len(), "writing the bundle");
    let options = BundleOptions::new().zstd_level(args.zstd_level).strip_debug(args.strip_debug);
    let bundle = write_bundle(&modules, &options).map_err(|e| FileError::new(&args.dir, e))?;
    bar.finish_and_clear();
    write_output(&args.output, &bundle.bytes)?;
    let spirv: usize = bundle.entries.iter().map(|e| e.spirv_bytes).sum();
    if args.json {
        let json = serde_json::json!({
            "bundle": args.output.display().to_string(),
            "bundle_bytes": bundle.bytes.len(),
            "dictionary_bytes": bundle.dictionary_bytes,
            "spirv_bytes": spirv,
            "entries": bundle.entries,
        });
        println!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
    }
    eprintln!(
        "wrote {} shaders into bundle {}: {} bytes of SPIR-V -> {} bytes ({:.1}%, dictionary {} bytes)",
        bundle.entries.len(),
        args.output.display(),
        spirv,
        bundle.bytes.len(),
        100.0 * bundle.bytes.len() as f64 / spirv.max(1) as f64,
        bundle.dictionary_bytes
    );
    Ok(())
}

/// The optimized modules, by name, of the sources in `pack`'s directory.
fn compile_sources(args: &PackArgs) -> Result<Vec<(String, Vec<u32>)>, FileError> {
    let temporary = crate::io::private_temp_dir("cargo-smolv-pack-", &args.output)?;
    let out = temporary.path();
    let mut config = Config::new();
    config.missing_language_advice(crate::shader_args::MISSING_LANGUAGE_ADVICE);
    config.shader_dir(&args.dir).out_dir(out).target_env(args.target_env).strip_debug(false).cargo_directives(false);
    args.include_dirs.iter().for_each(|dir| {
        config.include_dir(dir);
    });
    crate::quiet_stdout::compile(&config, Some("compiling")).map_err(|e| FileError::new(&args.dir, e))?;
    let dir = out.join(smolv_format::ARTIFACT_DIR);
    let text = std::fs::read_to_string(dir.join(smolv_format::MANIFEST_FILE))
        .map_err(|e| FileError::new(&dir, format!("cannot read the build manifest: {e}")))?;
    let manifest: smolv_format::Manifest =
        serde_json::from_str(&text).map_err(|e| FileError::new(&dir, format!("bad build manifest: {e}")))?;
    manifest
        .modules
        .iter()
        .map(|m| {
            let path = dir.join(&m.optimized_spirv);
            let bytes = std::fs::read(&path).map_err(|e| FileError::new(&path, e))?;
            Ok((m.name.clone(), words_from_bytes(&bytes).map_err(|e| FileError::new(&path, e))?))
        })
        .collect()
}

/// Where an entry is unpacked: its name, plus `.spv` for compiled shaders; `None` if it would escape `root`.
fn unpack_path(root: &Path, name: &str) -> Option<PathBuf> {
    let relative = Path::new(name);
    if name.is_empty() || relative.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let file = if name.ends_with(".spv") || name.ends_with(".spirv") { name.to_owned() } else { format!("{name}.spv") };
    Some(root.join(file))
}

pub(crate) fn unpack(args: &UnpackArgs) -> Result<(), FileError> {
    let bundle = Bundle::open(&args.input).map_err(|e| FileError::new(&args.input, e))?;
    let bar = ui::progress(bundle.len(), "reading the bundle");
    for name in bundle.names() {
        let path = unpack_path(&args.output, name)
            .ok_or_else(|| FileError::new(&args.input, format!("entry {name:?} is not a safe relative file name")))?;
        let words = bundle.decode(name).map_err(|e| FileError::new(&args.input, format!("{name}: {e}")))?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| FileError::new(parent, e))?;
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        write_output(&path, &bytes)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    eprintln!("unpacked {} shaders into {}", bundle.len(), args.output.display());
    Ok(())
}

#[derive(serde::Serialize)]
struct EntryResult {
    bundle: String,
    name: String,
    ok: bool,
    problem: Option<String>,
}

/// `spirv-val`'s verdict on one module, or `None` when it is not installed.
fn spirv_val(words: &[u32]) -> Option<Result<(), String>> {
    let minor = (words.get(1).copied().unwrap_or(0) >> 8) & 0xFF;
    // A new file of a random name, removed on drop.
    let mut file = tempfile::Builder::new().prefix("cargo-smolv-verify-").suffix(".spv").tempfile().ok()?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::io::Write::write_all(&mut file, &bytes).ok()?;
    let output = Command::new("spirv-val").args(["--target-env", &format!("spv1.{minor}")]).arg(file.path()).output();
    let output = output.ok()?;
    Some(if output.status.success() {
        Ok(())
    } else {
        let text = format!("{}{}", String::from_utf8_lossy(&output.stderr), String::from_utf8_lossy(&output.stdout));
        Err(format!("spirv-val: {}", text.lines().next().unwrap_or("failed")))
    })
}

pub(crate) fn verify(args: &VerifyArgs) -> Result<(), FileError> {
    let mut results = Vec::new();
    let mut validator_missing = false;
    for input in &args.inputs {
        let entry = |name: &str, problem: Option<String>| EntryResult {
            bundle: input.display().to_string(),
            name: name.to_owned(),
            ok: problem.is_none(),
            problem,
        };
        let bundle = match Bundle::open(input) {
            Ok(bundle) => bundle,
            Err(e) => {
                results.push(entry("", Some(e.to_string())));
                continue;
            }
        };
        let bar = ui::progress(bundle.len(), "verifying");
        for name in bundle.names() {
            let problem = match bundle.decode(name) {
                Err(e) => Some(e.to_string()),
                Ok(_) if args.no_spirv_val => None,
                Ok(words) => {
                    let verdict = spirv_val(&words);
                    validator_missing |= verdict.is_none();
                    verdict.and_then(Result::err)
                }
            };
            results.push(entry(name, problem));
            bar.inc(1);
        }
        bar.finish_and_clear();
    }
    if validator_missing {
        eprintln!("{}: spirv-val is not installed, so modules were only decoded and hash-checked", ui::warning_label());
    }
    let failed: Vec<&EntryResult> = results.iter().filter(|r| !r.ok).collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results).unwrap_or_default());
    } else {
        for r in &failed {
            let entry = if r.name.is_empty() { String::new() } else { format!(" {}", r.name) };
            eprintln!("{}: {}{entry}: {}", ui::error_label(), r.bundle, r.problem.as_deref().unwrap_or_default());
        }
        println!("{} entries checked, {} failed", results.len(), failed.len());
    }
    match failed.first() {
        None => Ok(()),
        Some(first) => {
            Err(FileError::new(Path::new(&first.bundle), format!("{} entries failed verification", failed.len())))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpack_paths_never_escape_the_output_directory() {
        let root = Path::new("/out");
        assert_eq!(unpack_path(root, "a/b.spv"), Some(PathBuf::from("/out/a/b.spv")));
        assert_eq!(unpack_path(root, "lit.frag"), Some(PathBuf::from("/out/lit.frag.spv")));
        for hostile in ["../x.spv", "/etc/passwd", "a/../../x", ""] {
            assert_eq!(unpack_path(root, hostile), None, "{hostile}");
        }
    }
}
