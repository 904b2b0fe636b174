//! The size report: what each stage of the pipeline did to each module.

use std::fmt::Write as _;
use std::path::PathBuf;

/// Sizes of one module through the pipeline, in bytes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModuleReport {
    /// Module name (`lit.frag`, `lit.frag@shadows`, `sky.wgsl#fs_main`).
    pub name: String,
    /// The source file.
    pub source: PathBuf,
    /// Pipeline stage.
    pub stage: String,
    /// Entry point.
    pub entry_point: String,
    /// The source file's size.
    pub source_bytes: usize,
    /// SPIR-V straight out of the compiler, unoptimized.
    pub spirv_bytes: usize,
    /// SPIR-V after the size optimizer.
    pub optimized_bytes: usize,
    /// SMOL-V (stripped as configured).
    pub smolv_bytes: usize,
    /// SMOL-V after zstd (with the shared dictionary, if any).
    pub compressed_bytes: usize,
    /// The container as embedded: compressed payload plus header and reflection.
    pub container_bytes: usize,
    /// Whether the compiled module came from the cache.
    pub cached: bool,
}

/// A shader that did not compile.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FailedShader {
    /// Module name.
    pub name: String,
    /// The source file.
    pub source: PathBuf,
    /// Every error, formatted `path:line:col: error: message`.
    pub errors: Vec<String>,
}

/// What a build produced. Written to `OUT_DIR` as `smolv-report.txt` and
/// `smolv-report.json`; `SMOLV_REPORT=1` also prints it as Cargo warnings.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    /// One row per module, in name order.
    pub modules: Vec<ModuleReport>,
    /// Size of the shared zstd dictionary (0 if none).
    pub dictionary_bytes: usize,
    /// Sum of source sizes (a source with variants counts once per module).
    pub total_source_bytes: usize,
    /// Sum of unoptimized SPIR-V.
    pub total_spirv_bytes: usize,
    /// Sum of optimized SPIR-V.
    pub total_optimized_bytes: usize,
    /// Sum of SMOL-V.
    pub total_smolv_bytes: usize,
    /// Sum of compressed payloads.
    pub total_compressed_bytes: usize,
    /// What ships: compressed payloads plus the dictionary.
    pub total_shipped_bytes: usize,
    /// Compile jobs served from the cache.
    pub cache_hits: usize,
    /// Compile jobs actually compiled.
    pub compiled: usize,
    /// Warnings from compilers and the optimizer.
    pub warnings: Vec<String>,
    /// Shaders that failed, with [`Config::keep_going`](crate::Config::keep_going);
    /// otherwise a failure is an [`Error`](crate::Error) instead.
    pub failures: Vec<FailedShader>,
    /// Where the artifacts were written.
    pub out_dir: PathBuf,
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { 100.0 * part as f64 / whole as f64 }
}

impl Report {
    pub(crate) fn total(&mut self) {
        let sum = |f: fn(&ModuleReport) -> usize| self.modules.iter().map(f).sum::<usize>();
        self.total_source_bytes = sum(|m| m.source_bytes);
        self.total_spirv_bytes = sum(|m| m.spirv_bytes);
        self.total_optimized_bytes = sum(|m| m.optimized_bytes);
        self.total_smolv_bytes = sum(|m| m.smolv_bytes);
        self.total_compressed_bytes = sum(|m| m.compressed_bytes);
        self.total_shipped_bytes = self.total_compressed_bytes + self.dictionary_bytes;
    }

    /// The report as a fixed-width table.
    pub fn to_text(&self) -> String {
        let width = self.modules.iter().map(|m| m.name.len()).max().unwrap_or(6).max(6);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<width$} {:>9} {:>9} {:>9} {:>9} {:>9}  {:>6}",
            "module", "source", "SPIR-V", "optimized", "SMOL-V", "shipped", "ratio"
        );
        let mut row = |name: &str, sizes: [usize; 5]| {
            let [source, spirv, optimized, smolv, shipped] = sizes;
            let _ = writeln!(
                out,
                "{name:<width$} {source:>9} {spirv:>9} {optimized:>9} {smolv:>9} {shipped:>9}  {:>5.1}%",
                percent(shipped, spirv)
            );
        };
        for m in &self.modules {
            row(&m.name, [m.source_bytes, m.spirv_bytes, m.optimized_bytes, m.smolv_bytes, m.compressed_bytes]);
        }
        row(
            &format!("total ({} modules)", self.modules.len()),
            [
                self.total_source_bytes,
                self.total_spirv_bytes,
                self.total_optimized_bytes,
                self.total_smolv_bytes,
                self.total_shipped_bytes,
            ],
        );
        let _ = writeln!(
            out,
            "dictionary: {} bytes (included in the shipped total); {} compiled, {} from cache",
            self.dictionary_bytes, self.compiled, self.cache_hits
        );
        out
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}
