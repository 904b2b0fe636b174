//! The size report: what each step of the build did to each module.

use std::fmt::Write as _;
use std::path::PathBuf;

/// Sizes of one module through the build, in bytes.
///
/// ```no_run
/// // A tool reading the report a build script wrote to its OUT_DIR.
/// let text = std::fs::read_to_string("target/debug/build/game-0123abcd/out/smolv-report.json")?;
/// let report: smolv_build::Report = serde_json::from_str(&text)?;
/// for module in &report.modules {
///     println!("{} ({}): {} → {} bytes", module.name, module.stage, module.spirv_bytes, module.smolv_bytes);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModuleReport {
    /// Module name (`lit.frag`, `lit.frag@shadows`, `sky.wgsl#fs_main`).
    pub name: String,
    /// The source file.
    pub source: PathBuf,
    /// Shader stage.
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
    /// SMOL-V after zstd (with the bundle's shared dictionary, if any).
    pub compressed_bytes: usize,
    /// The container as embedded: compressed payload plus header and reflection.
    pub container_bytes: usize,
    /// Whether the compiled module came from the cache.
    pub cached: bool,
}

/// The embedded set's packing: what was chosen, what it costs, and every
/// candidate it was chosen from.
///
/// ```no_run
/// let report = smolv_build::Config::new().shader_dir("shaders").compile();
/// if let Some(packing) = &report.packing {
///     println!("cargo:warning={}", packing.summary());
///     for candidate in &packing.candidates {
///         println!("cargo:warning={}: {} bytes installed", candidate.packing, candidate.installed_bytes);
///     }
/// }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PackingReport {
    /// The chosen packing, as `SMOLV_PACKING` names it (`lz4-stream`).
    pub packing: String,
    /// Its codec, as the manifest names it (`smolv-lz4`).
    pub codec: String,
    /// `module` or `stream`.
    pub layout: String,
    /// The [`SizeGoal`](crate::SizeGoal): `installed` or `download`.
    pub goal: String,
    /// Bytes of SPIR-V the set decodes to: what embedding it raw would store.
    pub spirv_bytes: usize,
    /// What the binary carries: data, dictionary (as shipped), names, and
    /// 24 bytes of table per module.
    pub stored_bytes: usize,
    /// Estimated decoder code the packing links.
    pub decoder_bytes: usize,
    /// `stored_bytes + decoder_bytes − spirv_bytes`: negative when smolv
    /// makes the binary smaller than raw SPIR-V would.
    pub net_bytes: i64,
    /// Every packing that was built, simplest first.
    pub candidates: Vec<CandidateReport>,
}

/// One candidate packing's sizes.
///
/// ```no_run
/// let report = smolv_build::Config::new().shader_dir("shaders").compile();
/// let packing = report.packing.expect("a set was packed");
/// let chosen = packing.candidates.iter().find(|c| c.chosen).expect("one candidate ships");
/// assert_eq!(chosen.packing, packing.packing);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CandidateReport {
    /// The packing, as `SMOLV_PACKING` names it.
    pub packing: String,
    /// Its codec, as the manifest names it.
    pub codec: String,
    /// `module` or `stream`.
    pub layout: String,
    /// Data, dictionary (as shipped), names and tables.
    pub stored_bytes: usize,
    /// Estimated decoder code it links.
    pub decoder_bytes: usize,
    /// `stored_bytes + decoder_bytes`: what the installed goal weighs.
    pub installed_bytes: usize,
    /// The stored bytes after `xz -9`, estimated for the download goal only.
    pub stored_xz_bytes: Option<usize>,
    /// `stored_xz_bytes` plus the decoder after `xz -9`: what the download
    /// goal weighs.
    pub download_bytes: Option<usize>,
    /// Whether this is the packing that ships.
    pub chosen: bool,
}

/// `74.0 KB` (1 KB = 1000 bytes).
fn kilobytes(bytes: usize) -> String {
    format!("{:.1} KB", bytes as f64 / 1000.0)
}

impl PackingReport {
    /// One line: `packing smolv-lz4 (stream): shaders 74.0 KB → 13.5 KB,
    /// decoder +16.3 KB, net −44.2 KB` (KB are 1000 bytes; a negative net
    /// means the binary is smaller than with raw SPIR-V).
    ///
    /// ```
    /// let packing = smolv_build::PackingReport {
    ///     codec: "smolv-lz4".into(),
    ///     layout: "stream".into(),
    ///     spirv_bytes: 74_004,
    ///     stored_bytes: 13_547,
    ///     decoder_bytes: 16_300,
    ///     net_bytes: 13_547 + 16_300 - 74_004,
    ///     ..Default::default()
    /// };
    /// assert_eq!(packing.summary(), "packing smolv-lz4 (stream): shaders 74.0 KB → 13.5 KB, decoder +16.3 KB, net −44.2 KB");
    /// ```
    pub fn summary(&self) -> String {
        let sign = if self.net_bytes < 0 { '\u{2212}' } else { '+' };
        format!(
            "packing {} ({}): shaders {} \u{2192} {}, decoder +{}, net {sign}{}",
            self.codec,
            self.layout,
            kilobytes(self.spirv_bytes),
            kilobytes(self.stored_bytes),
            kilobytes(self.decoder_bytes),
            kilobytes(usize::try_from(self.net_bytes.unsigned_abs()).unwrap_or(usize::MAX)),
        )
    }

    /// One line with every candidate's total for the goal, decoder included.
    ///
    /// ```
    /// use smolv_build::{CandidateReport, PackingReport};
    /// let raw = CandidateReport { packing: "raw".into(), installed_bytes: 21_240, ..Default::default() };
    /// let smolv = CandidateReport { packing: "smolv".into(), installed_bytes: 8_365, chosen: true, ..Default::default() };
    /// let packing = PackingReport { goal: "installed".into(), candidates: vec![raw, smolv], ..Default::default() };
    /// assert_eq!(packing.candidates_line(), "goal installed (totals with decoder): raw 21.2 KB, smolv* 8.4 KB");
    /// ```
    pub fn candidates_line(&self) -> String {
        let totals: Vec<String> = self
            .candidates
            .iter()
            .map(|c| {
                let total = if self.goal == "download" { c.download_bytes } else { Some(c.installed_bytes) };
                let mark = if c.chosen { "*" } else { "" };
                format!("{}{mark} {}", c.packing, total.map_or_else(|| "?".to_owned(), kilobytes))
            })
            .collect();
        format!("goal {} (totals with decoder): {}", self.goal, totals.join(", "))
    }
}

/// A shader that did not compile.
///
/// ```no_run
/// use smolv_build::Config;
/// let mut config = Config::new();
/// config.shader_dir("shaders").out_dir("target/shaders").keep_going(true);
/// let report = config.try_compile()?;
/// for failed in &report.failures {
///     eprintln!("{} ({}):\n{}", failed.name, failed.source.display(), failed.errors.join("\n"));
/// }
/// # Ok::<(), smolv_build::Error>(())
/// ```
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
///
/// ```no_run
/// // build.rs
/// fn main() {
///     let report = smolv_build::Config::new().shader_dir("shaders").compile();
///     println!(
///         "cargo:warning={} modules: {} bytes of SPIR-V, {} compiled, {} from the cache",
///         report.modules.len(),
///         report.total_spirv_bytes,
///         report.compiled,
///         report.cache_hits
///     );
/// }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Report {
    /// One row per module, in name order.
    pub modules: Vec<ModuleReport>,
    /// Size of the bundle's shared zstd dictionary (0 if none).
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
    /// The bundle's size as an asset: compressed payloads plus the
    /// dictionary. What the binary embeds is in [`Report::packing`].
    pub total_shipped_bytes: usize,
    /// The embedded set's packing (absent in reports of older versions).
    #[serde(default)]
    pub packing: Option<PackingReport>,
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
    ///
    /// ```
    /// let report = smolv_build::Report::default();
    /// let text = report.to_text();
    /// assert!(text.starts_with("module ") && text.contains("total (0 modules)"));
    /// ```
    pub fn to_text(&self) -> String {
        let width = self.modules.iter().map(|m| m.name.len()).max().unwrap_or(6).max(6);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<width$} {:>9} {:>9} {:>9} {:>9} {:>9}  {:>6}",
            "module", "source", "SPIR-V", "optimized", "SMOL-V", "zstd", "ratio"
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
            "bundle dictionary: {} bytes (included in the zstd total); {} compiled, {} from cache",
            self.dictionary_bytes, self.compiled, self.cache_hits
        );
        if let Some(packing) = &self.packing {
            let _ = writeln!(out, "{}", packing.summary());
            let _ = writeln!(out, "{}", packing.candidates_line());
        }
        out
    }

    /// The report as pretty JSON.
    ///
    /// ```
    /// let report = smolv_build::Report::default();
    /// let back: smolv_build::Report = serde_json::from_str(&report.to_json())?;
    /// assert_eq!(back, report);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// The report of a packed set whose modules decode to `spirv_bytes`.
pub(crate) fn packing_report(set: &crate::packing::EmbeddedSet, spirv_bytes: usize) -> PackingReport {
    let chosen = set.chosen();
    let decoder_bytes = chosen.decoder().installed;
    let signed = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let candidates = set
        .candidates
        .iter()
        .map(|c| CandidateReport {
            packing: c.scheme.packing_name().to_owned(),
            codec: c.scheme.codec.name().to_owned(),
            layout: c.scheme.layout.name().to_owned(),
            stored_bytes: c.stored,
            decoder_bytes: c.decoder().installed,
            installed_bytes: c.installed_total(),
            stored_xz_bytes: c.stored_xz,
            download_bytes: c.download_total(),
            chosen: c.scheme == set.scheme,
        })
        .collect();
    PackingReport {
        packing: set.scheme.packing_name().to_owned(),
        codec: set.scheme.codec.name().to_owned(),
        layout: set.scheme.layout.name().to_owned(),
        goal: set.goal.name().to_owned(),
        spirv_bytes,
        stored_bytes: set.stored_len(),
        decoder_bytes,
        net_bytes: signed(set.stored_len()) + signed(decoder_bytes) - signed(spirv_bytes),
        candidates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packing(spirv_bytes: usize, stored_bytes: usize, decoder_bytes: usize) -> PackingReport {
        let net_bytes = (stored_bytes + decoder_bytes) as i64 - spirv_bytes as i64;
        PackingReport {
            packing: "lz4-stream".into(),
            codec: "smolv-lz4".into(),
            layout: "stream".into(),
            goal: "installed".into(),
            spirv_bytes,
            stored_bytes,
            decoder_bytes,
            net_bytes,
            candidates: Vec::new(),
        }
    }

    #[test]
    fn the_summary_line_has_the_documented_shape() {
        assert_eq!(
            packing(74_004, 13_547, 16_300).summary(),
            "packing smolv-lz4 (stream): shaders 74.0 KB \u{2192} 13.5 KB, decoder +16.3 KB, net \u{2212}44.2 KB"
        );
        assert!(packing(20_000, 21_000, 0).summary().ends_with("decoder +0.0 KB, net +1.0 KB"));
    }
}
