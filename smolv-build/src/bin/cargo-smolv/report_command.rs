//! `report`: what every smolv-using crate of the workspace ships.

use std::path::{Path, PathBuf};
use std::process::Command;

use cargo_metadata::{DependencyKind, MetadataCommand, Package};
use smolv_build::{PackingReport, Report};

use crate::io::FileError;

/// Arguments of `cargo smolv report`.
#[derive(clap::Args)]
pub(crate) struct ReportArgs {
    /// Print the report as JSON (schema in docs/cli.md).
    #[arg(long)]
    json: bool,
    /// The workspace's Cargo.toml (default: found from the current directory).
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
}

#[derive(serde::Serialize)]
struct CrateReport {
    name: String,
    manifest_path: String,
    report_path: String,
    modules: usize,
    spirv_bytes: usize,
    optimized_bytes: usize,
    smolv_bytes: usize,
    compressed_bytes: usize,
    dictionary_bytes: usize,
    shipped_bytes: usize,
    packing: Option<PackingReport>,
    shaders: Vec<smolv_build::ModuleReport>,
}

#[derive(serde::Serialize, Default)]
struct Total {
    crates: usize,
    modules: usize,
    spirv_bytes: usize,
    optimized_bytes: usize,
    smolv_bytes: usize,
    dictionary_bytes: usize,
    shipped_bytes: usize,
}

fn uses_smolv_build(package: &Package) -> bool {
    package.dependencies.iter().any(|d| d.name == "smolv-build" && d.kind == DependencyKind::Build)
}

/// The newest `smolv-report.json` of `package` anywhere under the target
/// directory (any profile, any target triple).
fn find_report(target: &Path, package: &str) -> Option<PathBuf> {
    let prefix = format!("{package}-");
    let mut newest: Option<(std::time::SystemTime, PathBuf)> = None;
    let mut build_dirs = Vec::new();
    for level1 in std::fs::read_dir(target).into_iter().flatten().flatten().map(|e| e.path()) {
        build_dirs.push(level1.join("build"));
        for level2 in std::fs::read_dir(&level1).into_iter().flatten().flatten().map(|e| e.path()) {
            build_dirs.push(level2.join("build"));
        }
    }
    for build in build_dirs {
        for dir in std::fs::read_dir(&build).into_iter().flatten().flatten().map(|e| e.path()) {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let Some(hash) = name.strip_prefix(&prefix) else { continue };
            if hash.contains('-') {
                continue; // another package whose name extends this one
            }
            let report = dir.join("out").join("smolv-report.json");
            if let Ok(modified) = std::fs::metadata(&report).and_then(|m| m.modified()) {
                if newest.as_ref().is_none_or(|(t, _)| modified > *t) {
                    newest = Some((modified, report));
                }
            }
        }
    }
    newest.map(|(_, path)| path)
}

fn build_package(manifest: &Path, package: &str) -> Result<(), FileError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "-p", package, "--manifest-path"])
        .arg(manifest)
        .status()
        .map_err(|e| FileError::new(manifest, format!("cannot run cargo: {e}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(FileError::new(
            manifest,
            format!("cargo build -p {package} failed; fix the build, then run the report again"),
        ))
    }
}

pub(crate) fn report(args: &ReportArgs) -> Result<(), FileError> {
    let mut command = MetadataCommand::new();
    command.no_deps();
    if let Some(path) = &args.manifest_path {
        command.manifest_path(path);
    }
    let here = args.manifest_path.clone().unwrap_or_else(|| PathBuf::from("Cargo.toml"));
    let metadata = command.exec().map_err(|e| FileError::new(&here, format!("cargo metadata failed: {e}")))?;
    let target = metadata.target_directory.clone().into_std_path_buf();
    let workspace_manifest = metadata.workspace_root.join("Cargo.toml").into_std_path_buf();
    let packages: Vec<&Package> = metadata.workspace_packages().into_iter().filter(|p| uses_smolv_build(p)).collect();
    if packages.is_empty() {
        return Err(FileError::new(&workspace_manifest, "no workspace package has smolv-build as a build-dependency"));
    }
    let mut crates = Vec::new();
    for package in packages {
        let name = package.name.to_string();
        let path = match find_report(&target, &name) {
            Some(path) => path,
            None => {
                let spinner = crate::ui::spinner("building");
                let built = build_package(&workspace_manifest, &name);
                spinner.finish_and_clear();
                built?;
                find_report(&target, &name)
                    .ok_or_else(|| FileError::new(&target, format!("{name} built, but wrote no smolv-report.json")))?
            }
        };
        let text = std::fs::read_to_string(&path).map_err(|e| FileError::new(&path, e))?;
        let report: Report =
            serde_json::from_str(&text).map_err(|e| FileError::new(&path, format!("not a smolv report: {e}")))?;
        crates.push(CrateReport {
            name,
            manifest_path: package.manifest_path.to_string(),
            report_path: path.display().to_string(),
            modules: report.modules.len(),
            spirv_bytes: report.total_spirv_bytes,
            optimized_bytes: report.total_optimized_bytes,
            smolv_bytes: report.total_smolv_bytes,
            compressed_bytes: report.total_compressed_bytes,
            dictionary_bytes: report.dictionary_bytes,
            shipped_bytes: report.total_shipped_bytes,
            packing: report.packing,
            shaders: report.modules,
        });
    }
    let mut total = Total { crates: crates.len(), ..Total::default() };
    for c in &crates {
        total.modules += c.modules;
        total.spirv_bytes += c.spirv_bytes;
        total.optimized_bytes += c.optimized_bytes;
        total.smolv_bytes += c.smolv_bytes;
        total.dictionary_bytes += c.dictionary_bytes;
        total.shipped_bytes += c.shipped_bytes;
    }
    if args.json {
        let json = serde_json::json!({ "crates": crates, "total": total });
        println!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
        return Ok(());
    }
    let pct = |part: usize, whole: usize| 100.0 * part as f64 / whole.max(1) as f64;
    for c in &crates {
        println!("{} ({} modules, report {})", c.name, c.modules, c.report_path);
        println!("  {:<28} {:>10} {:>10} {:>10} {:>10}", "module", "SPIR-V", "optimized", "SMOL-V", "zstd");
        for s in &c.shaders {
            println!(
                "  {:<28} {:>10} {:>10} {:>10} {:>10}",
                s.name, s.spirv_bytes, s.optimized_bytes, s.smolv_bytes, s.compressed_bytes
            );
        }
        println!("  dictionary {} bytes", c.dictionary_bytes);
        match &c.packing {
            Some(packing) => println!("  {}\n  {}\n", packing.summary(), packing.candidates_line()),
            None => println!("  packing: not in this report (built by an older smolv-build)\n"),
        }
    }
    println!(
        "{:<20} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7}",
        "crate", "modules", "SPIR-V", "optimized", "SMOL-V", "dictionary", "bundle", "ratio"
    );
    for c in &crates {
        println!(
            "{:<20} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6.1}%",
            c.name,
            c.modules,
            c.spirv_bytes,
            c.optimized_bytes,
            c.smolv_bytes,
            c.dictionary_bytes,
            c.shipped_bytes,
            pct(c.shipped_bytes, c.spirv_bytes)
        );
    }
    println!(
        "{:<20} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6.1}%",
        "total",
        total.modules,
        total.spirv_bytes,
        total.optimized_bytes,
        total.smolv_bytes,
        total.dictionary_bytes,
        total.shipped_bytes,
        pct(total.shipped_bytes, total.spirv_bytes)
    );
    println!();
    for c in crates.iter().filter_map(|c| Some((&c.name, c.packing.as_ref()?))) {
        println!("{:<20} {}", c.0, c.1.summary());
    }
    Ok(())
}
