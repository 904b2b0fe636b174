//! `build`: smolv-build's shader build and cache, outside Cargo.

use std::path::PathBuf;

use smolv_build::{Config, Packing, PackingReport, Report, SizeGoal, TargetEnv};

use crate::io::FileError;

/// Arguments of `cargo smolv build`.
#[derive(clap::Args)]
pub(crate) struct BuildArgs {
    /// Directory of GLSL, HLSL and WGSL shaders.
    dir: PathBuf,
    /// Where to write containers, the bundle, the manifest and the report.
    #[arg(short, long, value_name = "OUTDIR")]
    output: PathBuf,
    /// Target environment.
    #[arg(long, value_name = "ENV", default_value = "vulkan1.2", value_parser = parse_target_env)]
    target_env: TargetEnv,
    /// Drop debug info (names, source, line info) from what ships.
    #[arg(long)]
    strip_debug: bool,
    /// Directories searched by #include.
    #[arg(short = 'I', long = "include-dir", value_name = "DIR")]
    include_dirs: Vec<PathBuf>,
    /// Cache directory (default: SMOLV_CACHE_DIR, else Cargo's target dir).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    json: bool,
    /// How the embedded set is packed (default: SMOLV_PACKING, else auto, the smallest total).
    #[arg(long, value_name = "PACKING", value_parser = parse_packing)]
    packing: Option<Packing>,
    /// What auto packing makes smallest: the installed binary, or the download after xz -9
    /// (default: SMOLV_SIZE_GOAL, else installed).
    #[arg(long, value_name = "GOAL", value_parser = parse_goal)]
    goal: Option<SizeGoal>,
    /// Give GLSL/HLSL inputs and outputs without a location one (like glslc -fauto-map-locations).
    #[arg(long)]
    auto_map_locations: bool,
    /// Give GLSL/HLSL resources without a binding one, in set 0 (like glslc -fauto-bind-uniforms).
    #[arg(long)]
    auto_bind_uniforms: bool,
}

pub(crate) fn parse_target_env(text: &str) -> Result<TargetEnv, String> {
    TargetEnv::parse(text).ok_or_else(|| format!("{text:?} is not one of vulkan1.0, vulkan1.1, vulkan1.2, vulkan1.3"))
}

fn parse_packing(text: &str) -> Result<Packing, String> {
    Packing::parse(text).ok_or_else(|| format!("{text:?} is not one of {}", Packing::NAMES.join(", ")))
}

fn parse_goal(text: &str) -> Result<SizeGoal, String> {
    SizeGoal::parse(text).ok_or_else(|| format!("{text:?} is not one of installed, download"))
}

/// The stable `--json` schema of `cargo smolv build`.
#[derive(serde::Serialize)]
struct JsonReport<'a> {
    shaders: Vec<JsonShader<'a>>,
    dictionary_bytes: usize,
    total_shipped_bytes: usize,
    cache_hits: usize,
    compiled: usize,
    packing: Option<&'a PackingReport>,
}

#[derive(serde::Serialize)]
struct JsonShader<'a> {
    name: &'a str,
    path: String,
    entry: &'a str,
    ok: bool,
    error: Option<String>,
    spirv_bytes: usize,
    optimized_bytes: usize,
    smolv_bytes: usize,
    compressed_bytes: usize,
}

fn json(report: &Report) -> String {
    let mut shaders: Vec<JsonShader<'_>> = report
        .modules
        .iter()
        .map(|m| JsonShader {
            name: &m.name,
            path: m.source.display().to_string(),
            entry: &m.entry_point,
            ok: true,
            error: None,
            spirv_bytes: m.spirv_bytes,
            optimized_bytes: m.optimized_bytes,
            smolv_bytes: m.smolv_bytes,
            compressed_bytes: m.compressed_bytes,
        })
        .collect();
    shaders.extend(report.failures.iter().map(|f| JsonShader {
        name: &f.name,
        path: f.source.display().to_string(),
        entry: "",
        ok: false,
        error: Some(f.errors.join("\n")),
        spirv_bytes: 0,
        optimized_bytes: 0,
        smolv_bytes: 0,
        compressed_bytes: 0,
    }));
    let report = JsonReport {
        shaders,
        dictionary_bytes: report.dictionary_bytes,
        total_shipped_bytes: report.total_shipped_bytes,
        cache_hits: report.cache_hits,
        compiled: report.compiled,
        packing: report.packing.as_ref(),
    };
    serde_json::to_string_pretty(&report).unwrap_or_default()
}

pub(crate) fn build(args: &BuildArgs) -> Result<(), FileError> {
    let mut config = Config::new();
    config
        .shader_dir(&args.dir)
        .out_dir(&args.output)
        .target_env(args.target_env)
        .strip_debug(args.strip_debug)
        .cargo_directives(false)
        .auto_map_locations(args.auto_map_locations)
        .auto_bind_uniforms(args.auto_bind_uniforms)
        .keep_going(true);
    args.include_dirs.iter().for_each(|dir| {
        config.include_dir(dir);
    });
    if let Some(dir) = &args.cache_dir {
        config.cache_dir(dir);
    }
    if let Some(jobs) = args.jobs {
        config.jobs(jobs);
    }
    if let Some(packing) = args.packing {
        config.packing(packing);
    }
    if let Some(goal) = args.goal {
        config.size_goal(goal);
    }
    let spinner = crate::ui::spinner("building");
    let result = config.try_compile();
    spinner.finish_and_clear();
    let report = result.map_err(|e| FileError::new(&args.dir, e))?;
    if args.json {
        println!("{}", json(&report));
    } else {
        print!("{}", report.to_text());
    }
    for warning in &report.warnings {
        eprintln!("{}: {warning}", crate::ui::warning_label());
    }
    if report.failures.is_empty() {
        return Ok(());
    }
    for failure in &report.failures {
        for error in &failure.errors {
            eprintln!("{error}");
        }
    }
    Err(FileError::new(
        &args.dir,
        format!(
            "{} of {} shaders failed to compile",
            report.failures.len(),
            report.failures.len() + report.compiled + report.cache_hits
        ),
    ))
}
