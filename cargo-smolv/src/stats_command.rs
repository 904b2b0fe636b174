//! `stats`: what SMOL-V and zstd would do to existing SPIR-V files.

use std::path::{Path, PathBuf};

use smolv_build::DictionaryMode;
use smolv_build::bundle::compress_set;
use smolv_runtime::EncodeOptions;

use crate::io::FileError;

/// Arguments of `cargo smolv stats`.
#[derive(clap::Args)]
pub(crate) struct StatsArgs {
    /// SPIR-V files, or directories searched for them (recognised by the
    /// SPIR-V magic, whatever their extension).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Drop debug info before encoding.
    #[arg(long)]
    strip_debug: bool,
    /// zstd level.
    #[arg(long, default_value_t = 19)]
    zstd_level: i32,
    /// Print the table as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct FileStats {
    path: String,
    spirv_bytes: usize,
    smolv_bytes: usize,
    smolv_zstd_bytes: usize,
    smolv_zstd_dictionary_bytes: usize,
}

#[derive(serde::Serialize)]
struct Totals {
    files: Vec<FileStats>,
    spirv_bytes: usize,
    smolv_bytes: usize,
    smolv_zstd_bytes: usize,
    dictionary_bytes: usize,
    smolv_zstd_dictionary_bytes: usize,
    solid_smolv_zstd_bytes: usize,
}

/// Every SPIR-V module under `paths`, sorted.
pub(crate) fn find_spirv(paths: &[PathBuf]) -> Result<Vec<(PathBuf, Vec<u8>)>, FileError> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            std::fs::read_dir(path).map_err(|e| FileError::new(path, format!("cannot list directory: {e}")))?;
            found.extend(files_under(path).into_iter().filter_map(|path| {
                let bytes = std::fs::read(&path).ok()?;
                is_spirv(&bytes).then_some((path, bytes))
            }));
        } else {
            let bytes = crate::io::read_input(path)?;
            if !is_spirv(&bytes) {
                return Err(FileError::new(path, "not a SPIR-V module (it does not start with 0x07230203)"));
            }
            found.push((path.clone(), bytes));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// Every file below `dir`, recursively, sorted.
pub(crate) fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for path in std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()) {
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

pub(crate) fn is_spirv(bytes: &[u8]) -> bool {
    let magic = 0x0723_0203u32;
    bytes.len() >= 20 && (bytes[..4] == magic.to_le_bytes() || bytes[..4] == magic.to_be_bytes())
}

pub(crate) fn stats(args: &StatsArgs) -> Result<(), FileError> {
    let modules = find_spirv(&args.paths)?;
    if modules.is_empty() {
        return Err(FileError::new(&args.paths[0], "no SPIR-V modules found"));
    }
    let options = EncodeOptions::new().strip_debug(args.strip_debug);
    let bar = crate::ui::progress(modules.len(), "encoding");
    let mut smolv = Vec::new();
    for (path, bytes) in &modules {
        smolv.push(smolv_runtime::encode(&bytes[..], &options).map_err(|e| FileError::new(path, e))?);
        bar.inc(1);
    }
    bar.set_message("compressing");
    let level = args.zstd_level;
    let compress_failed = |e: smolv_build::Error| FileError::new(&args.paths[0], e);
    let alone = compress_set(&smolv, level, DictionaryMode::Off).map_err(compress_failed)?;
    let shared = compress_set(&smolv, level, DictionaryMode::Auto).map_err(compress_failed)?;
    let solid = zstd::bulk::compress(&smolv.concat(), level).map_err(|e| FileError::new(&args.paths[0], e))?;
    bar.finish_and_clear();
    let files: Vec<FileStats> = modules
        .iter()
        .enumerate()
        .map(|(i, (path, bytes))| FileStats {
            path: path.display().to_string(),
            spirv_bytes: bytes.len(),
            smolv_bytes: smolv[i].len(),
            smolv_zstd_bytes: alone.payloads[i].len(),
            smolv_zstd_dictionary_bytes: shared.payloads[i].len(),
        })
        .collect();
    let sum = |f: fn(&FileStats) -> usize| files.iter().map(f).sum::<usize>();
    let totals = Totals {
        spirv_bytes: sum(|f| f.spirv_bytes),
        smolv_bytes: sum(|f| f.smolv_bytes),
        smolv_zstd_bytes: sum(|f| f.smolv_zstd_bytes),
        dictionary_bytes: shared.dictionary_len(),
        smolv_zstd_dictionary_bytes: sum(|f| f.smolv_zstd_dictionary_bytes) + shared.dictionary_len(),
        solid_smolv_zstd_bytes: solid.len(),
        files,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&totals).unwrap_or_default());
    } else {
        print_table(&totals);
    }
    Ok(())
}

fn print_table(t: &Totals) {
    let pct = |n: usize| 100.0 * n as f64 / t.spirv_bytes.max(1) as f64;
    let width = t.files.iter().map(|f| f.path.len()).max().unwrap_or(4).clamp(4, 60);
    println!("{:<width$} {:>10} {:>10} {:>10} {:>10}", "file", "SPIR-V", "SMOL-V", "+zstd", "+dict");
    for f in &t.files {
        println!(
            "{:<width$} {:>10} {:>10} {:>10} {:>10}",
            f.path, f.spirv_bytes, f.smolv_bytes, f.smolv_zstd_bytes, f.smolv_zstd_dictionary_bytes
        );
    }
    println!("{} files, {} bytes of SPIR-V:", t.files.len(), t.spirv_bytes);
    println!("  SMOL-V                          {:>10}  {:5.1}%", t.smolv_bytes, pct(t.smolv_bytes));
    println!("  SMOL-V + zstd, each file alone  {:>10}  {:5.1}%", t.smolv_zstd_bytes, pct(t.smolv_zstd_bytes));
    println!(
        "  SMOL-V + zstd + dictionary      {:>10}  {:5.1}%  (dictionary {} bytes, included)",
        t.smolv_zstd_dictionary_bytes,
        pct(t.smolv_zstd_dictionary_bytes),
        t.dictionary_bytes
    );
    println!(
        "  SMOL-V, one solid zstd blob     {:>10}  {:5.1}%",
        t.solid_smolv_zstd_bytes,
        pct(t.solid_smolv_zstd_bytes)
    );
}
