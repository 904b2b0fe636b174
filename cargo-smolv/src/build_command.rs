//! `build`: smolv-build's shader build and cache, outside Cargo.

use std::path::PathBuf;

use smolv_build::report::{LanguageReport, PackingReport, WgpuReport};
use smolv_build::{Language, Report};

use crate::io::FileError;
use crate::shader_args::{ShaderArgs, config};

/// Arguments of `cargo smolv build`.
#[derive(clap::Args)]
pub(crate) struct BuildArgs {
    /// Directory of GLSL, HLSL, WGSL, WESL and Slang shaders.
    dir: PathBuf,
    /// Where to write containers, the bundle, the manifest and the report.
    #[arg(short, long, value_name = "OUTDIR")]
    output: PathBuf,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    shaders: ShaderArgs,
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
    languages: Vec<JsonLanguage>,
    remote_hits: usize,
    remote_misses: usize,
    remote_uploads: usize,
    remote_bytes_down: u64,
    remote_bytes_up: u64,
    remote_seconds: f64,
    /// For a wgpu target: WGSL against SPIR-V and what shipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    wgpu: Option<&'a WgpuReport>,
    /// The build's warnings, one line each.
    warnings: &'a [String],
}

/// One language's pass rate.
#[derive(serde::Serialize)]
struct JsonLanguage {
    language: Language,
    shaders: usize,
    compiled: usize,
    failed: usize,
    pass_rate: f64,
}

impl From<&LanguageReport> for JsonLanguage {
    fn from(report: &LanguageReport) -> Self {
        Self {
            language: report.language,
            shaders: report.shaders,
            compiled: report.compiled,
            failed: report.failed,
            pass_rate: (report.pass_rate() * 10.0).round() / 10.0,
        }
    }
}

#[derive(serde::Serialize, Default)]
struct JsonShader<'a> {
    name: &'a str,
    path: String,
    language: Option<Language>,
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
            language: m.language,
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
        language: f.language,
        error: Some(f.errors.join("\n")),
        ..JsonShader::default()
    }));
    let report = JsonReport {
        shaders,
        dictionary_bytes: report.dictionary_bytes,
        total_shipped_bytes: report.total_bundle_bytes,
        cache_hits: report.cache_hits,
        compiled: report.compiled,
        packing: report.packing.as_ref(),
        languages: report.languages.iter().map(JsonLanguage::from).collect(),
        remote_hits: report.remote_hits,
        remote_misses: report.remote_misses,
        remote_uploads: report.remote_uploads,
        remote_bytes_down: report.remote_bytes_down,
        remote_bytes_up: report.remote_bytes_up,
        remote_seconds: report.remote_seconds,
        wgpu: report.wgpu.as_ref(),
        warnings: &report.warnings,
    };
    serde_json::to_string_pretty(&report).unwrap_or_default()
}

pub(crate) fn build(args: &BuildArgs) -> Result<(), FileError> {
    let config = config(&args.dir, &args.output, &args.shaders);
    let report = crate::quiet_stdout::compile(&config, Some("building")).map_err(|e| FileError::new(&args.dir, e))?;
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
    report.failures.iter().flat_map(|failure| &failure.errors).for_each(|error| eprintln!("{error}"));
    Err(FileError::new(
        &args.dir,
        format!(
            "{} of {} shaders failed to compile",
            report.failures.len(),
            report.failures.len() + report.compiled + report.cache_hits
        ),
    ))
}
