//! `report`: what every smolv-using crate of the workspace ships, from their build reports.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use cargo_metadata::{DependencyKind, Message, Metadata, MetadataCommand, Node, Package, PackageId};
use smolv_build::Report;
use smolv_build::report::PackingReport;

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
    /// Report the release build's shaders (default: the dev build's).
    #[arg(long)]
    release: bool,
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
    shaders: Vec<smolv_build::report::ModuleReport>,
}

#[derive(serde::Serialize)]
struct Total {
    crates: usize,
    modules: usize,
    spirv_bytes: usize,
    optimized_bytes: usize,
    smolv_bytes: usize,
    dictionary_bytes: usize,
    shipped_bytes: usize,
}

/// The workspace members whose build scripts link smolv-build, directly or through another crate.
fn smolv_packages(metadata: &Metadata) -> Vec<&Package> {
    let Some(resolve) = &metadata.resolve else { return Vec::new() };
    let nodes: BTreeMap<&PackageId, &Node> = resolve.nodes.iter().map(|node| (&node.id, node)).collect();
    let smolv_build: BTreeSet<&PackageId> =
        metadata.packages.iter().filter(|p| p.name.as_str() == "smolv-build").map(|p| &p.id).collect();
    let deps_of = |id: &PackageId, kind: DependencyKind| -> Vec<&PackageId> {
        nodes.get(id).map_or_else(Vec::new, |node| {
            node.deps.iter().filter(|dep| dep.dep_kinds.iter().any(|k| k.kind == kind)).map(|dep| &dep.pkg).collect()
        })
    };
    let runs_smolv_build = |member: &PackageId| {
        let mut pending = deps_of(member, DependencyKind::Build);
        let mut seen = BTreeSet::new();
        while let Some(id) = pending.pop() {
            if smolv_build.contains(id) {
                return true;
            }
            if seen.insert(id) {
                pending.extend(deps_of(id, DependencyKind::Normal));
            }
        }
        false
    };
    metadata.workspace_packages().into_iter().filter(|package| runs_smolv_build(&package.id)).collect()
}

/// Builds `packages` and returns each one's `OUT_DIR`, from Cargo's JSON messages.
fn build_out_dirs(
    manifest: &Path,
    packages: &[&Package],
    release: bool,
) -> Result<BTreeMap<PackageId, PathBuf>, FileError> {
    let mut command = crate::cargo_command();
    command.args(["build", "--quiet", "--message-format=json-render-diagnostics", "--manifest-path"]).arg(manifest);
    for package in packages {
        command.args(["-p", package.name.as_str()]);
    }
    if release {
        command.arg("--release");
    }
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| FileError::new(manifest, format!("cannot run cargo: {e}")))?;
    let mut out_dirs = BTreeMap::new();
    if let Some(stdout) = child.stdout.take() {
        for message in Message::parse_stream(BufReader::new(stdout)) {
            let message = message.map_err(|e| FileError::new(manifest, format!("cannot read cargo's output: {e}")))?;
            if let Message::BuildScriptExecuted(script) = message
                && packages.iter().any(|p| p.id == script.package_id)
            {
                out_dirs.insert(script.package_id, script.out_dir.into_std_path_buf());
            }
        }
    }
    let status = child.wait().map_err(|e| FileError::new(manifest, format!("cannot run cargo: {e}")))?;
    if !status.success() {
        let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
        return Err(FileError::new(
            manifest,
            format!("cargo build of {} failed; fix the build, then run the report again", names.join(", ")),
        ));
    }
    Ok(out_dirs)
}

pub(crate) fn report(args: &ReportArgs) -> Result<(), FileError> {
    let mut command = MetadataCommand::new();
    if let Some(path) = &args.manifest_path {
        command.manifest_path(path);
    }
    let here = args.manifest_path.clone().unwrap_or_else(|| PathBuf::from("Cargo.toml"));
    let metadata = command.exec().map_err(|e| FileError::new(&here, format!("cargo metadata failed: {e}")))?;
    let workspace_manifest = metadata.workspace_root.join("Cargo.toml").into_std_path_buf();
    let packages = smolv_packages(&metadata);
    if packages.is_empty() {
        return Err(FileError::new(&workspace_manifest, "no workspace package runs smolv-build in its build script"));
    }
    let spinner = crate::ui::spinner("building");
    let built = build_out_dirs(&workspace_manifest, &packages, args.release);
    spinner.finish_and_clear();
    let out_dirs = built?;
    let mut crates = Vec::new();
    for package in packages {
        let name = package.name.to_string();
        let Some(out_dir) = out_dirs.get(&package.id) else {
            return Err(FileError::new(
                package.manifest_path.as_std_path(),
                format!("cargo built {name} but reported no build script run for it"),
            ));
        };
        let path = out_dir.join("smolv-report.json");
        let text = std::fs::read_to_string(&path).map_err(|e| {
            FileError::new(
                &path,
                format!("{name}'s build script wrote no smolv report here ({e}); does it call smolv-build?"),
            )
        })?;
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
            shipped_bytes: report.total_bundle_bytes,
            packing: report.packing,
            shaders: report.modules,
        });
    }
    // The summary table's columns, summed into the total.
    let columns = |c: &CrateReport| {
        [c.modules, c.spirv_bytes, c.optimized_bytes, c.smolv_bytes, c.dictionary_bytes, c.shipped_bytes]
    };
    let sums = crates.iter().map(columns).fold([0; 6], |sum, row| std::array::from_fn(|i| sum[i] + row[i]));
    let [modules, spirv_bytes, optimized_bytes, smolv_bytes, dictionary_bytes, shipped_bytes] = sums;
    let total = Total {
        crates: crates.len(),
        modules,
        spirv_bytes,
        optimized_bytes,
        smolv_bytes,
        dictionary_bytes,
        shipped_bytes,
    };
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
    let rows = crates.iter().map(|c| (c.name.as_str(), columns(c)));
    for (name, [modules, spirv, optimized, smolv, dictionary, shipped]) in rows.chain([("total", sums)]) {
        let ratio = pct(shipped, spirv);
        println!(
            "{name:<20} {modules:>8} {spirv:>10} {optimized:>10} {smolv:>10} {dictionary:>10} {shipped:>10} {ratio:>6.1}%"
        );
    }
    println!();
    for c in crates.iter().filter_map(|c| Some((&c.name, c.packing.as_ref()?))) {
        println!("{:<20} {}", c.0, c.1.summary());
    }
    Ok(())
}
