//! The size report: what each step of the build did to each module.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::compile::all::Built;
use crate::options::Language;
use crate::pack::artifacts::Artifacts;
use crate::pack::packing::{PackedSet, WGPU_FRONT_ENDS, WgpuFrontEnds};
use crate::pack::wgsl::WgpuChoice;

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
#[non_exhaustive]
pub struct ModuleReport {
    /// Module name (`lit.frag`, `lit.frag@shadows`, `sky.wgsl#fs_main`).
    pub name: String,
    /// The source file.
    pub source: PathBuf,
    /// The language it was compiled as (absent in older reports).
    #[serde(default)]
    pub language: Option<Language>,
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
#[non_exhaustive]
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
    /// What the binary carries: data, dictionary, names and tables.
    pub stored_bytes: usize,
    /// Estimated decoder code the packing links.
    pub decoder_bytes: usize,
    /// `stored_bytes + decoder_bytes − spirv_bytes`: negative when smolv wins.
    pub net_bytes: i64,
    /// Every packing that was built, simplest first (zstd's only where they could win).
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
#[non_exhaustive]
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
    /// `stored_xz_bytes` plus the decoder after `xz -9`: what the download goal weighs.
    pub download_bytes: Option<usize>,
    /// Whether this is the packing that ships.
    pub chosen: bool,
}

/// `74.0 KB` (1 KB = 1000 bytes).
fn kilobytes(bytes: usize) -> String {
    format!("{:.1} KB", bytes as f64 / 1000.0)
}

/// `+3.5 KB` or `−44.2 KB`.
fn signed_kilobytes(bytes: i64) -> String {
    let sign = if bytes < 0 { '\u{2212}' } else { '+' };
    format!("{sign}{}", kilobytes(usize::try_from(bytes.unsigned_abs()).unwrap_or(usize::MAX)))
}

impl PackingReport {
    /// One line of sizes (KB are 1000 bytes; a negative net beats raw SPIR-V).
    ///
    /// ```
    /// let mut packing = smolv_build::report::PackingReport::default();
    /// packing.codec = "smolv-lz4".into();
    /// packing.layout = "stream".into();
    /// (packing.spirv_bytes, packing.stored_bytes, packing.decoder_bytes) = (74_004, 13_547, 16_300);
    /// packing.net_bytes = 13_547 + 16_300 - 74_004;
    /// assert_eq!(packing.summary(), "packing smolv-lz4 (stream): shaders 74.0 KB → 13.5 KB, decoder +16.3 KB, net −44.2 KB");
    /// ```
    ///
    /// The `download` goal adds its estimate after `xz -9` against raw SPIR-V's:
    ///
    /// ```
    /// use smolv_build::report::{CandidateReport, PackingReport};
    /// let mut raw = CandidateReport::default();
    /// (raw.codec, raw.download_bytes) = ("spirv".into(), Some(12_300));
    /// let mut relative = CandidateReport::default();
    /// (relative.codec, relative.download_bytes, relative.chosen) = ("spirv-relative-ids".into(), Some(10_700), true);
    /// let mut packing = PackingReport::default();
    /// (packing.codec, packing.layout, packing.goal) = ("spirv-relative-ids".into(), "module".into(), "download".into());
    /// (packing.spirv_bytes, packing.stored_bytes, packing.decoder_bytes) = (71_000, 72_000, 2_500);
    /// packing.net_bytes = 72_000 + 2_500 - 71_000;
    /// packing.candidates = vec![raw, relative];
    /// assert!(packing.summary().ends_with("net +3.5 KB; after xz -9: 12.3 KB \u{2192} 10.7 KB, net \u{2212}1.6 KB"));
    /// ```
    pub fn summary(&self) -> String {
        let [spirv, stored, decoder] = [self.spirv_bytes, self.stored_bytes, self.decoder_bytes].map(kilobytes);
        let (Self { codec, layout, .. }, net) = (self, signed_kilobytes(self.net_bytes));
        let mut line =
            format!("packing {codec} ({layout}): shaders {spirv} \u{2192} {stored}, decoder +{decoder}, net {net}");
        let download_bytes = |pick: fn(&CandidateReport) -> bool| {
            self.candidates.iter().find(|c| pick(c)).and_then(|c| c.download_bytes)
        };
        let raw_and_chosen = download_bytes(|c| c.codec == "spirv").zip(download_bytes(|c| c.chosen));
        if let Some((raw, chosen)) = raw_and_chosen.filter(|_| self.goal == "download") {
            let net = signed_kilobytes(
                i64::try_from(chosen).unwrap_or(i64::MAX).saturating_sub(i64::try_from(raw).unwrap_or(0)),
            );
            line += &format!("; after xz -9: {} \u{2192} {}, net {net}", kilobytes(raw), kilobytes(chosen));
        }
        line
    }

    /// One line with every candidate's total for the goal, decoder included.
    ///
    /// ```
    /// use smolv_build::report::{CandidateReport, PackingReport};
    /// let mut raw = CandidateReport::default();
    /// (raw.packing, raw.installed_bytes) = ("raw".into(), 21_240);
    /// let mut smolv = CandidateReport::default();
    /// (smolv.packing, smolv.installed_bytes, smolv.chosen) = ("smolv".into(), 8_365, true);
    /// let mut packing = PackingReport::default();
    /// (packing.goal, packing.candidates) = ("installed".into(), vec![raw, smolv]);
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
#[non_exhaustive]
pub struct FailedShader {
    /// Module name.
    pub name: String,
    /// The source file.
    pub source: PathBuf,
    /// The language it was compiled as (absent in older reports).
    #[serde(default)]
    pub language: Option<Language>,
    /// Every error, formatted `path:line:col: error: message`.
    pub errors: Vec<String>,
}

/// How many shaders (compile jobs) of one [`Language`] compiled.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct LanguageReport {
    /// The language.
    pub language: Language,
    /// Shaders of the language.
    pub shaders: usize,
    /// How many of them compiled.
    pub compiled: usize,
    /// How many failed (listed in [`Report::failures`]).
    pub failed: usize,
}

impl LanguageReport {
    /// The share that compiled, in percent (100 for no shaders).
    ///
    /// ```
    /// use smolv_build::report::LanguageReport;
    /// // One entry of `languages` in smolv-report.json.
    /// let hlsl: LanguageReport =
    ///     serde_json::from_str(r#"{"language": "hlsl", "shaders": 308, "compiled": 265, "failed": 43}"#)?;
    /// assert_eq!(format!("{:.1}", hlsl.pass_rate()), "86.0");
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn pass_rate(&self) -> f64 {
        if self.shaders == 0 { 100.0 } else { percent(self.compiled, self.shaders) }
    }

    /// `HLSL 265 of 308 compiled (86.0%)`.
    pub fn summary(&self) -> String {
        format!("{} {} of {} compiled ({:.1}%)", self.language, self.compiled, self.shaders, self.pass_rate())
    }
}

/// What a build produced, written to `OUT_DIR` as `smolv-report.{txt,json}`.
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
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
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
    /// The bundle file's size (`shaders.smvb`): payloads plus dictionary. JSON key
    /// `total_shipped_bytes`, repeated as `total_bundle_bytes` ([`to_json`](Report::to_json)).
    #[serde(rename = "total_shipped_bytes")]
    pub total_bundle_bytes: usize,
    /// The embedded set's packing (absent in older reports).
    #[serde(default)]
    pub packing: Option<PackingReport>,
    /// Compile jobs served from the cache.
    pub cache_hits: usize,
    /// Compile jobs actually compiled.
    pub compiled: usize,
    /// Entries the [remote cache](crate::Config::remote_cache) served after a local miss.
    #[serde(default)]
    pub remote_hits: usize,
    /// Remote lookups that found nothing, or an entry that failed verification.
    #[serde(default)]
    pub remote_misses: usize,
    /// Entries uploaded to the remote cache.
    #[serde(default)]
    pub remote_uploads: usize,
    /// Bytes downloaded from the remote cache (records and blobs).
    #[serde(default)]
    pub remote_bytes_down: u64,
    /// Bytes uploaded to the remote cache (records and blobs).
    #[serde(default)]
    pub remote_bytes_up: u64,
    /// Time spent in remote-cache requests, summed over worker threads.
    #[serde(default)]
    pub remote_seconds: f64,
    /// Warnings: the compilers', the optimizer's and the pack stage's.
    pub warnings: Vec<String>,
    /// Shaders that failed, with [`Config::keep_going`](crate::Config::keep_going).
    pub failures: Vec<FailedShader>,
    /// Per language, how many shaders compiled, in [`Language`] order.
    #[serde(default)]
    pub languages: Vec<LanguageReport>,
    /// Where the artifacts were written.
    pub out_dir: PathBuf,
    /// The generated Rust types (absent where the build wrote nothing).
    #[serde(default)]
    pub types: Option<TypesReport>,
    /// For a wgpu target: WGSL against SPIR-V, and what shipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wgpu: Option<WgpuReport>,
}

/// What a build for wgpu weighed: WGSL against SPIR-V, each with its naga front end, as **estimated** installed
/// bytes over wgpu's defaults (docs/size.md#wgpu-targets).
///
/// ```
/// let mut wgpu = smolv_build::report::WgpuReport::default();
/// (wgpu.shipped, wgpu.wgsl_codec) = ("wgsl".into(), "wgsl-lz4".into());
/// (wgpu.wgsl_bytes, wgpu.wgsl_stored_bytes) = (9_000, 3_000);
/// (wgpu.wgsl_estimated_bytes, wgpu.spirv_estimated_bytes) = (40_000, 52_000);
/// assert_eq!(
///     wgpu.summary(),
///     "wgpu: ships wgsl; WGSL 9.0 KB \u{2192} 3.0 KB (wgsl-lz4), 0 modules as SPIR-V; estimated \
///      installed bytes over wgpu's defaults: wgsl+naga-wgsl 40000 B, spirv+naga-spv 52000 B"
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct WgpuReport {
    /// `wgsl` or `spirv`: what ships.
    pub shipped: String,
    /// The WGSL stream's codec (`wgsl`, `wgsl-lz4`, `wgsl-zstd`).
    pub wgsl_codec: String,
    /// Bytes of minified WGSL, over the modules naga translated.
    pub wgsl_bytes: usize,
    /// What the WGSL path stores: the stream, names and table.
    pub wgsl_stored_bytes: usize,
    /// Modules naga refused: they ship as SPIR-V on either path.
    pub refused_modules: usize,
    /// Modules whose translation failed in a worker: SPIR-V this build, retried next.
    #[serde(default)]
    pub failed_modules: usize,
    /// The WGSL path, estimated: WGSL and its decoder, plus any SPIR-V set and front end.
    #[serde(default)]
    pub wgsl_estimated_bytes: u64,
    /// The SPIR-V path, estimated: every module's set, its decoder and front end.
    #[serde(default)]
    pub spirv_estimated_bytes: u64,
}

impl WgpuReport {
    /// One line, with the size test's names for the two paths (see the type's example).
    pub fn summary(&self) -> String {
        let [wgsl, stored] = [self.wgsl_bytes, self.wgsl_stored_bytes].map(kilobytes);
        let Self { shipped, wgsl_codec, wgsl_estimated_bytes: wgsl_total, spirv_estimated_bytes: spirv_total, .. } =
            self;
        format!(
            "wgpu: ships {shipped}; WGSL {wgsl} \u{2192} {stored} ({wgsl_codec}), {} modules as SPIR-V; estimated installed \
             bytes over wgpu's defaults: wgsl+naga-wgsl {wgsl_total} B, spirv+naga-spv {spirv_total} B",
            self.refused_modules + self.failed_modules
        )
    }
}

/// The two paths' totals over the cheapest front end (wgpu's defaults), not the SPIR-V one the choice uses.
pub(crate) fn wgpu_estimates(choice: &WgpuChoice, front_ends: WgpuFrontEnds) -> (u64, u64) {
    let cheapest = front_ends.wgsl_over_spirv.min(front_ends.both_over_spirv).min(0);
    let over_cheapest = |total: i64| u64::try_from(total.saturating_sub(cheapest)).unwrap_or(0);
    (over_cheapest(choice.wgsl_total), over_cheapest(choice.spirv_total))
}

/// What the build generated into `OUT_DIR/smolv/types.rs` (`include_types!`).
///
/// ```no_run
/// // build.rs
/// let report = smolv_build::Config::new().shader_dir("shaders").compile();
/// if let Some(types) = &report.types {
///     println!("cargo:warning={} blocks typed in {:.1} ms", types.blocks, types.milliseconds);
/// }
/// ```
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct TypesReport {
    /// The generated file.
    pub file: PathBuf,
    /// Shader modules typed: one Rust module each.
    pub modules: usize,
    /// Uniform, storage and push-constant blocks typed, over every module.
    pub blocks: usize,
    /// Rust structs written; a struct shared by many modules counts once.
    pub structs: usize,
    /// Time spent generating, not counting compiling.
    pub milliseconds: f64,
    /// `module: member: why` for each member kept as bytes.
    pub problems: Vec<String>,
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { 100.0 * part as f64 / whole as f64 }
}

impl Report {
    /// Adds the pack stage's rows, dictionary and packing.
    pub(crate) fn add_artifacts(&mut self, modules: &[Built<'_>], artifacts: &Artifacts) {
        for ((Built { module, job, cached, .. }, sizes), container) in
            modules.iter().zip(&artifacts.sizes).zip(&artifacts.containers)
        {
            let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
            self.modules.push(ModuleReport {
                name: module.name.clone(),
                source: job.path.clone(),
                language: Some(job.language),
                stage: module.stage.name().to_owned(),
                entry_point: module.entry_point.clone(),
                source_bytes: std::fs::metadata(&job.path)
                    .map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX)),
                spirv_bytes: module.spirv.len() * 4,
                optimized_bytes: shipped.len() * 4,
                smolv_bytes: sizes.smolv,
                compressed_bytes: sizes.compressed,
                container_bytes: container.len(),
                cached: *cached,
            });
        }
        self.dictionary_bytes = artifacts.dictionary.as_ref().map_or(0, Vec::len);
        self.packing = Some(packing_report(&artifacts.embedded, artifacts.spirv_bytes));
        self.wgpu = artifacts.wgpu.as_ref().map(|wgpu| {
            let (wgsl_estimated_bytes, spirv_estimated_bytes) = wgpu_estimates(&wgpu.choice, WGPU_FRONT_ENDS);
            WgpuReport {
                shipped: format!("{:?}", wgpu.choice.path).to_lowercase(),
                wgsl_codec: wgpu.packed.codec.name().to_owned(),
                wgsl_bytes: wgpu.packed.unpacked_len,
                wgsl_stored_bytes: wgpu.packed.stored_len(),
                refused_modules: wgpu.refused,
                failed_modules: wgpu.unanswered,
                wgsl_estimated_bytes,
                spirv_estimated_bytes,
            }
        });
    }

    /// Adds what the remote cache did, and returns its warnings (to print).
    pub(crate) fn add_remote(&mut self, remote: crate::cache::remote::Finished) -> Vec<String> {
        if let Some(stats) = remote.stats {
            self.remote_hits = stats.hits;
            self.remote_misses = stats.misses;
            self.remote_uploads = stats.uploads;
            self.remote_bytes_down = stats.bytes_down;
            self.remote_bytes_up = stats.bytes_up;
            self.remote_seconds = stats.seconds;
        }
        self.warnings.extend(remote.warnings.iter().cloned());
        remote.warnings
    }

    /// Counts, per language, the jobs that compiled and those that failed.
    pub(crate) fn count_languages(&mut self, outcomes: impl IntoIterator<Item = (Language, bool)>) {
        let mut languages = std::collections::BTreeMap::new();
        for (language, compiled) in outcomes {
            let entry =
                languages.entry(language).or_insert(LanguageReport { language, shaders: 0, compiled: 0, failed: 0 });
            entry.shaders += 1;
            entry.compiled += usize::from(compiled);
            entry.failed += usize::from(!compiled);
        }
        self.languages = languages.into_values().collect();
    }

    pub(crate) fn total(&mut self) {
        let sum = |f: fn(&ModuleReport) -> usize| self.modules.iter().map(f).sum::<usize>();
        self.total_source_bytes = sum(|m| m.source_bytes);
        self.total_spirv_bytes = sum(|m| m.spirv_bytes);
        self.total_optimized_bytes = sum(|m| m.optimized_bytes);
        self.total_smolv_bytes = sum(|m| m.smolv_bytes);
        self.total_compressed_bytes = sum(|m| m.compressed_bytes);
        self.total_bundle_bytes = self.total_compressed_bytes + self.dictionary_bytes;
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
                self.total_bundle_bytes,
            ],
        );
        let _ = writeln!(
            out,
            "bundle dictionary: {} bytes (included in the zstd total); {} compiled, {} from cache",
            self.dictionary_bytes, self.compiled, self.cache_hits
        );
        let languages: Vec<String> = self.languages.iter().map(LanguageReport::summary).collect();
        let languages = (!languages.is_empty()).then(|| format!("languages: {}", languages.join(", ")));
        let packing = self.packing.iter().flat_map(|packing| [packing.summary(), packing.candidates_line()]);
        let wgpu = self.wgpu.as_ref().map(WgpuReport::summary);
        for line in languages.into_iter().chain(packing).chain(wgpu).chain(self.remote_line()) {
            let _ = writeln!(out, "{line}");
        }
        out
    }

    /// `remote cache: 12 hits, …; 40.1 KB down, 0.0 KB up in 0.05 s`, if one was used.
    pub fn remote_line(&self) -> Option<String> {
        let used = self.remote_hits + self.remote_misses + self.remote_uploads > 0 || self.remote_seconds > 0.0;
        let kb = |bytes: u64| kilobytes(usize::try_from(bytes).unwrap_or(usize::MAX));
        used.then(|| {
            format!(
                "remote cache: {} hits, {} misses, {} uploads; {} down, {} up in {:.2} s",
                self.remote_hits,
                self.remote_misses,
                self.remote_uploads,
                kb(self.remote_bytes_down),
                kb(self.remote_bytes_up),
                self.remote_seconds
            )
        })
    }

    /// The report as pretty JSON, `total_shipped_bytes` repeated as `total_bundle_bytes` at the end.
    ///
    /// ```
    /// let report = smolv_build::Report::default();
    /// let back: smolv_build::Report = serde_json::from_str(&report.to_json())?;
    /// assert_eq!(back, report);
    /// let json: serde_json::Value = serde_json::from_str(&report.to_json())?;
    /// assert_eq!(json["total_bundle_bytes"], json["total_shipped_bytes"]);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        #[derive(serde::Serialize)]
        struct WithAlias<'a> {
            #[serde(flatten)]
            report: &'a Report,
            total_bundle_bytes: usize,
        }
        serde_json::to_string_pretty(&WithAlias { report: self, total_bundle_bytes: self.total_bundle_bytes })
            .unwrap_or_default()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// The report of a packed set whose modules decode to `spirv_bytes`.
pub(crate) fn packing_report(set: &PackedSet, spirv_bytes: usize) -> PackingReport {
    let chosen = set.chosen();
    let decoder_bytes = chosen.decoder().installed;
    let signed = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    let candidates = set
        .candidates
        .iter()
        .map(|c| CandidateReport {
            packing: c.scheme.packing_name().to_owned(),
            codec: c.scheme.codec.name().to_owned(),
            layout: c.scheme.framing.name().to_owned(),
            stored_bytes: c.stored,
            decoder_bytes: c.decoder().installed,
            installed_bytes: c.installed_total(),
            stored_xz_bytes: c.stored_xz,
            download_bytes: c.download_total(),
            chosen: c.scheme == set.shipped.scheme,
        })
        .collect();
    PackingReport {
        packing: set.shipped.scheme.packing_name().to_owned(),
        codec: set.shipped.scheme.codec.name().to_owned(),
        layout: set.shipped.scheme.framing.name().to_owned(),
        goal: set.goal.name().to_owned(),
        spirv_bytes,
        stored_bytes: set.shipped.stored_len(),
        decoder_bytes,
        net_bytes: signed(set.shipped.stored_len()) + signed(decoder_bytes) - signed(spirv_bytes),
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
    fn languages_are_counted_per_job_in_language_order() {
        let mut report = Report::default();
        let outcomes =
            [(Language::Hlsl, true), (Language::Glsl, true), (Language::Hlsl, false), (Language::Hlsl, true)];
        report.count_languages(outcomes);
        let rows: Vec<(Language, usize, usize, usize)> =
            report.languages.iter().map(|l| (l.language, l.shaders, l.compiled, l.failed)).collect();
        assert_eq!(rows, [(Language::Glsl, 1, 1, 0), (Language::Hlsl, 3, 2, 1)]);
        assert!(report.to_text().contains("languages: GLSL 1 of 1 compiled (100.0%), HLSL 2 of 3 compiled (66.7%)"));
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        assert_eq!(json["languages"][1]["language"], "hlsl");
        assert_eq!(json["languages"][1]["failed"], 1);
    }

    #[test]
    fn reports_of_older_versions_still_read() {
        let old = r#"{"modules": [], "dictionary_bytes": 0, "total_source_bytes": 0, "total_spirv_bytes": 0,
            "total_optimized_bytes": 0, "total_smolv_bytes": 0, "total_compressed_bytes": 0, "total_shipped_bytes": 0,
            "cache_hits": 0, "compiled": 0, "warnings": [], "failures": [], "out_dir": "out"}"#;
        let report: Report = serde_json::from_str(old).unwrap();
        assert!(report.languages.is_empty());
    }

    #[test]
    fn the_remote_line_shows_only_when_a_remote_was_used() {
        let mut report = Report::default();
        assert_eq!(report.remote_line(), None);
        assert!(!report.to_text().contains("remote cache"));
        report.remote_hits = 12;
        report.remote_bytes_down = 40_100;
        report.remote_seconds = 0.05;
        let line = "remote cache: 12 hits, 0 misses, 0 uploads; 40.1 KB down, 0.0 KB up in 0.05 s";
        assert_eq!(report.remote_line().as_deref(), Some(line));
        assert!(report.to_text().contains(line));
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        for field in ["remote_hits", "remote_misses", "remote_uploads", "remote_bytes_down", "remote_bytes_up"] {
            assert!(json[field].is_u64(), "{field} missing from {json}");
        }
        assert_eq!(json["remote_seconds"].as_f64(), Some(0.05));
    }

    #[test]
    fn reports_without_remote_fields_still_parse() {
        let mut json: serde_json::Value = serde_json::from_str(&Report::default().to_json()).unwrap();
        let object = json.as_object_mut().unwrap();
        object.retain(|name, _| !name.starts_with("remote_"));
        let report: Report = serde_json::from_value(json).unwrap();
        assert_eq!(report.remote_hits, 0);
    }

    #[test]
    fn wgpu_estimates_are_never_negative_and_keep_the_difference_the_choice_weighed() {
        use crate::pack::wgsl::WgpuPath;
        // wgpu's own examples: the choice's WGSL total is far below zero (it printed `-713277 B`).
        let choice = WgpuChoice { path: WgpuPath::Wgsl, wgsl_total: 31_723 - 745_000, spirv_total: 31_000 };
        let (wgsl, spirv) = wgpu_estimates(&choice, WGPU_FRONT_ENDS);
        assert_eq!((wgsl, spirv), (31_723, 776_000));
        assert_eq!(i64::try_from(spirv - wgsl).unwrap(), choice.spirv_total - choice.wgsl_total);
        // Front ends that all cost more than SPIR-V's keep the totals as they are.
        let dearer = WgpuFrontEnds { wgsl_over_spirv: 5, both_over_spirv: 9 };
        let refused = WgpuChoice { path: WgpuPath::Spirv, wgsl_total: 12, spirv_total: 10 };
        assert_eq!(wgpu_estimates(&refused, dearer), (12, 10));
        let wgpu = WgpuReport {
            shipped: "wgsl".into(),
            wgsl_estimated_bytes: wgsl,
            spirv_estimated_bytes: spirv,
            ..WgpuReport::default()
        };
        let report = Report { wgpu: Some(wgpu), ..Report::default() };
        let text = report.to_text();
        let line = text.lines().find(|line| line.starts_with("wgpu:")).unwrap();
        assert!(line.contains("estimated installed bytes"), "{line}");
        assert!(line.contains("wgsl+naga-wgsl 31723 B, spirv+naga-spv 776000 B"), "{line}");
        assert!(!line.split_whitespace().any(|word| word.starts_with(['-', '\u{2212}'])), "a negative figure: {line}");
        let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        assert_eq!(json["wgpu"]["wgsl_estimated_bytes"], 31_723);
        assert_eq!(json["wgpu"]["spirv_estimated_bytes"], 776_000);
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
