//! The build, start to finish:
//! scan → compile → optimize → (cache) → reflect → encode → compress →
//! containers and bundle, and the embedded set's packing → `OUT_DIR` →
//! Cargo directives and report.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use smolv_runtime::container::{BundleBuilder, Codec, assemble};
use smolv_runtime::reflect::ShaderStage;

use crate::cache::{BodyReader, BodyWriter, Cache, FileHashes, Key, KeyBuilder};
use crate::config::{Config, Optimization, SpirvVersion, TargetEnv};
use crate::emit::{
    self, Artifacts, Directives, EmbeddedFiles, Manifest, ManifestEmbeddedModule, ManifestEmbeddedSet, ManifestModule,
};
use crate::encode::{Packed, ZstdForms, compress_forms, encode_module};
use crate::error::{Diagnostic, Error};
use crate::frontend::{self, CompiledModule};
use crate::optimize;
use crate::packing::{self, PackInput, Packing, SizeGoal};
use crate::reflect::{names_read, reflect};
use crate::report::{FailedShader, ModuleReport, Report, packing_report};
use crate::source::{Job, Sources};

/// Environment variables the build reads; Cargo reruns it when they change.
/// The `SMOLV_REMOTE_CACHE*` ones are left out: they change where entries
/// come from, never the output (and Cargo would keep the header's value in
/// its fingerprint files).
const ENV_KNOBS: [&str; 6] =
    ["SMOLV_CACHE_DIR", "SMOLV_REPORT", "SMOLV_SPIRV_OPT", "CARGO_TARGET_DIR", "SMOLV_PACKING", "SMOLV_SIZE_GOAL"];

/// Resolved settings every job shares.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) target_env: TargetEnv,
    pub(crate) spirv_version: SpirvVersion,
    pub(crate) optimization: Optimization,
    pub(crate) strip_debug: bool,
    pub(crate) include_dirs: Vec<PathBuf>,
    pub(crate) spirv_opt: Option<PathBuf>,
    pub(crate) auto_map_locations: bool,
    pub(crate) auto_bind_uniforms: bool,
}

/// What one job produced, from the compiler or the cache.
struct JobOutput {
    modules: Vec<CompiledModule>,
    /// Every file read, with the blake3 of the bytes the compiler got.
    dependencies: Vec<(PathBuf, [u8; 32])>,
    /// Include candidates that did not exist, searched before the file
    /// found: if one appears it shadows that file, so the entry is stale.
    missing: Vec<PathBuf>,
    warnings: Vec<String>,
    cached: bool,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The packing and goal: the [`Config`] setters, else `SMOLV_PACKING` and
/// `SMOLV_SIZE_GOAL` (looked up with `var`), else the defaults. A variable
/// naming nothing known is an error rather than a silent default.
fn packing_options(config: &Config, var: impl Fn(&str) -> Option<String>) -> Result<packing::Options, Error> {
    let packing = match (config.packing, var("SMOLV_PACKING")) {
        (Some(packing), _) => packing,
        (None, Some(text)) => Packing::parse(text.trim()).ok_or_else(|| {
            Error::Config(format!("SMOLV_PACKING={text:?} is not one of {}", Packing::NAMES.join(", ")))
        })?,
        (None, None) => Packing::default(),
    };
    let goal = match (config.size_goal, var("SMOLV_SIZE_GOAL")) {
        (Some(goal), _) => goal,
        (None, Some(text)) => SizeGoal::parse(text.trim())
            .ok_or_else(|| Error::Config(format!("SMOLV_SIZE_GOAL={text:?} is not one of installed, download")))?,
        (None, None) => SizeGoal::default(),
    };
    Ok(packing::Options { packing, goal, zstd_level: config.zstd_level })
}

/// Finds the shared cache directory (see [`Config::cache_dir`]).
fn cache_dir(config: &Config, out_dir: &Path) -> PathBuf {
    if let Some(dir) = config.cache_dir.clone() {
        return dir;
    }
    default_cache_dir(out_dir)
}

/// The cache directory when none is configured: `SMOLV_CACHE_DIR`, else
/// `smolv-cache` in Cargo's target directory (found from `out_dir`, else
/// from `cargo metadata`), else in `out_dir`.
pub(crate) fn default_cache_dir(out_dir: &Path) -> PathBuf {
    if let Some(dir) = env("SMOLV_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(target) = env("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("smolv-cache");
    }
    // Cargo marks its target directory with CACHEDIR.TAG.
    if let Some(target) = out_dir.ancestors().find(|dir| dir.join("CACHEDIR.TAG").is_file()) {
        return target.join("smolv-cache");
    }
    if let Ok(metadata) = cargo_metadata::MetadataCommand::new().no_deps().exec() {
        return metadata.target_directory.into_std_path_buf().join("smolv-cache");
    }
    out_dir.join("smolv-cache")
}

pub(crate) fn run(config: &Config) -> Result<Report, Error> {
    let base = env("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    let out_dir = match (&config.out_dir, env("OUT_DIR")) {
        (Some(dir), _) => base.join(dir),
        (None, Some(dir)) => PathBuf::from(dir),
        (None, None) => {
            return Err(Error::Config(
                "OUT_DIR is not set: call smolv-build from a build script, or set Config::out_dir".into(),
            ));
        }
    };
    let directives = Directives::new(config.cargo_directives.unwrap_or(config.out_dir.is_none()));
    ENV_KNOBS.iter().for_each(|var| directives.rerun_if_env_changed(var));
    let packing = packing_options(config, env)?;

    let settings = Settings {
        target_env: config.target_env,
        spirv_version: config.spirv_version.unwrap_or(config.target_env.default_spirv_version()),
        optimization: config.optimization,
        strip_debug: config.strip_debug.unwrap_or_else(|| env("PROFILE").as_deref() == Some("release")),
        include_dirs: config.include_dirs.iter().map(|d| base.join(d)).collect(),
        spirv_opt: optimize::find_spirv_opt(config.spirv_opt.as_deref()),
        auto_map_locations: config.auto_map_locations,
        auto_bind_uniforms: config.auto_bind_uniforms,
    };
    settings.include_dirs.iter().for_each(|dir| directives.rerun_if_changed(dir));

    let sources = Sources::scan(config, &base)?;
    sources.watched.iter().for_each(|path| directives.rerun_if_changed(path));
    if sources.jobs.is_empty() {
        emit::remove_artifacts(&out_dir);
        return Err(Error::NoShaders { searched: describe_inputs(config) });
    }

    let remote = crate::remote_cache::Session::start(&config.remote_cache, env);
    let cache = Cache::new(cache_dir(config, &out_dir)).with_remote(remote.client());
    let threads = config.jobs.or_else(|| env("NUM_JOBS").and_then(|n| n.parse().ok())).unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Internal(format!("cannot start worker threads: {e}")))?;
    let identity = build_identity(&settings, &cache);
    let hashes = FileHashes::default();
    if cache.has_remote() {
        // Remote lookups wait on the network: ask for every job's entry at once.
        let keys: Vec<Key> = (sources.jobs.iter())
            .filter_map(|job| std::fs::read(&job.path).ok().map(|source| job_key(job, &settings, &identity, &source)))
            .collect();
        cache.prefetch(&keys);
    }

    let outputs: Vec<Result<JobOutput, Vec<Diagnostic>>> = pool
        .install(|| sources.jobs.par_iter().map(|job| build_job(job, &settings, &cache, &identity, &hashes)).collect());

    let mut report = Report { out_dir: out_dir.clone(), warnings: sources.warnings.clone(), ..Report::default() };
    let mut diagnostics = Vec::new();
    let mut failed = 0;
    let mut modules: Vec<(CompiledModule, &Job, bool)> = Vec::new();
    for (job, output) in sources.jobs.iter().zip(outputs) {
        match output {
            Ok(output) => {
                output.dependencies.iter().for_each(|(path, _)| directives.rerun_if_changed(path));
                // A missing path itself cannot be watched (Cargo reruns on every
                // build for a path that does not exist); its directory, watched
                // recursively, sees a shadowing file appear.
                output
                    .missing
                    .iter()
                    .filter_map(|path| path.parent().filter(|dir| dir.is_dir()))
                    .for_each(|dir| directives.rerun_if_changed(dir));
                report.warnings.extend(output.warnings);
                if output.cached {
                    report.cache_hits += 1;
                } else {
                    report.compiled += 1;
                }
                modules.extend(output.modules.into_iter().map(|m| (m, job, output.cached)));
            }
            Err(mut errors) => {
                directives.rerun_if_changed(&job.path);
                failed += 1;
                if let Some(variant) = &job.variant {
                    errors.iter_mut().for_each(|d| d.message = format!("{} (in variant {variant:?})", d.message));
                }
                report.failures.push(FailedShader {
                    name: job.name.clone(),
                    source: job.path.clone(),
                    errors: errors.iter().map(ToString::to_string).collect(),
                });
                diagnostics.extend(errors);
            }
        }
    }
    report.warnings.iter().for_each(|w| directives.warning(w));
    if !diagnostics.is_empty() && !config.keep_going {
        emit::remove_artifacts(&out_dir);
        return Err(Error::Compile { diagnostics, failed, total: sources.jobs.len() });
    }
    if modules.is_empty() {
        emit::remove_artifacts(&out_dir);
        return Ok(report);
    }
    modules.sort_by(|a, b| a.0.name.cmp(&b.0.name));

    let artifacts = pool.install(|| package(&modules, config, &settings, &packing, &cache, &mut report))?;
    remote.finish(&mut report).iter().for_each(|w| directives.warning(w));
    report.total();
    emit::write_artifacts(&out_dir, &artifacts, &report)?;
    if env("SMOLV_REPORT").is_some_and(|v| v != "0") {
        directives.warning(&report.to_text());
    }
    Ok(report)
}

fn describe_inputs(config: &Config) -> String {
    let mut parts: Vec<String> = config.shader_dirs.iter().map(|d| d.display().to_string()).collect();
    parts.extend(config.shader_files.iter().map(|f| f.display().to_string()));
    parts.extend(config.shader_globs.iter().cloned());
    if parts.is_empty() { "(no shader_dir, shader or shader_glob configured)".to_owned() } else { parts.join(", ") }
}

/// Versions of everything that turns source into SPIR-V.
fn build_identity(settings: &Settings, cache: &Cache) -> String {
    let mut identity = format!("smolv-build-{};{}", env!("CARGO_PKG_VERSION"), frontend::compiler_identity());
    if let Some(tool) = &settings.spirv_opt {
        identity.push_str(&optimize::spirv_opt_identity(tool, cache));
    }
    identity
}

fn job_key(job: &Job, settings: &Settings, identity: &str, source: &[u8]) -> Key {
    let mut key = KeyBuilder::new("smolv-build module v2");
    key.text(identity)
        .text(&job.name)
        .text(&job.path.to_string_lossy())
        .text(&format!("{:?}/{:?}/{}", job.language, job.stage, job.entry_point))
        .text(&format!(
            "{:?}/{:?}/{:?}/{}/{:?}/{}/{}",
            settings.target_env,
            settings.spirv_version,
            settings.optimization,
            settings.strip_debug,
            settings.spirv_opt.is_some(),
            settings.auto_map_locations,
            settings.auto_bind_uniforms
        ));
    for define in &job.defines {
        key.text(&define.name).text(define.value.as_deref().unwrap_or(""));
    }
    for (id, value) in &job.spec_constants {
        key.text(&format!("spec {id}={value:?}"));
    }
    for dir in &settings.include_dirs {
        key.text(&dir.to_string_lossy());
    }
    key.field(source).finish()
}

fn build_job(
    job: &Job,
    settings: &Settings,
    cache: &Cache,
    identity: &str,
    hashes: &FileHashes,
) -> Result<JobOutput, Vec<Diagnostic>> {
    let source = std::fs::read(&job.path)
        .map_err(|e| vec![Diagnostic::whole_file(&job.path, format!("cannot read the shader: {e}"))])?;
    let key = job_key(job, settings, identity, &source);
    if let Some(output) = cache.get_valid(&key, |body| read_entry(body, hashes)) {
        return Ok(output);
    }
    let compiled = frontend::compile(job, &source, settings)?;
    let mut warnings = compiled.warnings;
    let mut modules = compiled.modules;
    for module in &mut modules {
        if module.optimized.is_none() && settings.optimization != Optimization::None {
            module.optimized = match &settings.spirv_opt {
                Some(tool) => match optimize::optimize(&module.spirv, settings.optimization, settings.target_env, tool)
                {
                    Ok(optimized) => Some(optimized),
                    Err(why) => {
                        warnings.push(format!("{}: not optimized, shipping it as compiled: {why}", module.name));
                        None
                    }
                },
                None => {
                    warnings.push(format!(
                        "{}: spirv-opt not found, so it is not size-optimized; install SPIRV-Tools \
                         (apt-get install spirv-tools) or set SMOLV_SPIRV_OPT",
                        module.name
                    ));
                    None
                }
            };
        }
    }
    if !job.spec_constants.is_empty() {
        for module in &mut modules {
            let input = module.optimized.as_ref().unwrap_or(&module.spirv);
            let specialized = smolv_runtime::specialize::Specializer::analyze(input)
                .and_then(|analysis| analysis.specialize(&job.spec_constants))
                .map_err(|e| vec![Diagnostic::whole_file(&job.path, format!("specializing {}: {e}", module.name))])?;
            module.optimized = Some(specialized);
        }
    }
    // The hashes of the bytes the compiler read, not of the files now: a
    // file edited during the compile must not be cached under its new hash.
    let mut dependencies = vec![(job.path.clone(), *blake3::hash(&source).as_bytes())];
    dependencies.extend(compiled.dependencies);
    dependencies.sort();
    dependencies.dedup();
    let output = JobOutput { modules, dependencies, missing: compiled.missing, warnings, cached: false };
    cache.put(&key, &write_entry(&output));
    Ok(output)
}

/// Cache entry body: dependencies with their hashes, warnings, modules.
fn write_entry(output: &JobOutput) -> Vec<u8> {
    let mut w = BodyWriter::default();
    w.u32(output.dependencies.len() as u32);
    for (path, hash) in &output.dependencies {
        w.text(&path.to_string_lossy()).bytes(hash);
    }
    w.u32(output.missing.len() as u32);
    for path in &output.missing {
        w.text(&path.to_string_lossy());
    }
    w.u32(output.warnings.len() as u32);
    output.warnings.iter().for_each(|warning| {
        w.text(warning);
    });
    w.u32(output.modules.len() as u32);
    for m in &output.modules {
        w.text(&m.name).text(m.stage.name()).text(&m.entry_point).words(&m.spirv);
        match &m.optimized {
            Some(optimized) => w.u32(1).words(optimized),
            None => w.u32(0),
        };
    }
    w.0
}

/// Reads an entry back; `None` (a miss) if it is malformed or any
/// dependency changed since it was written, or a file now exists where an
/// include was searched for and not found (it would shadow the one used).
fn read_entry(body: &[u8], hashes: &FileHashes) -> Option<JobOutput> {
    let mut r = BodyReader::new(body);
    let mut dependencies = Vec::new();
    for _ in 0..r.u32()? {
        let path = PathBuf::from(r.text()?);
        let hash: [u8; 32] = r.bytes()?.try_into().ok()?;
        if hashes.get(&path)? != hash {
            return None;
        }
        dependencies.push((path, hash));
    }
    let mut missing = Vec::new();
    for _ in 0..r.u32()? {
        let path = PathBuf::from(r.text()?);
        if path.is_file() {
            return None;
        }
        missing.push(path);
    }
    let warnings = (0..r.u32()?).map(|_| r.text()).collect::<Option<Vec<_>>>()?;
    let mut modules = Vec::new();
    for _ in 0..r.u32()? {
        let name = r.text()?;
        let stage_name = r.text()?;
        let stage = ShaderStage::ALL.into_iter().find(|s| s.name() == stage_name)?;
        let entry_point = r.text()?;
        let spirv = r.words()?;
        let optimized = if r.u32()? == 1 { Some(r.words()?) } else { None };
        modules.push(CompiledModule { name, stage, entry_point, spirv, optimized });
    }
    r.is_empty().then_some(JobOutput { modules, dependencies, missing, warnings, cached: true })
}

/// Reflects, encodes, compresses and assembles every module, and packs the
/// embedded set.
fn package(
    modules: &[(CompiledModule, &Job, bool)],
    config: &Config,
    settings: &Settings,
    packing: &packing::Options,
    cache: &Cache,
    report: &mut Report,
) -> Result<Artifacts, Error> {
    let encoded: Vec<_> = modules
        .par_iter()
        .map(|(module, _, _)| {
            let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
            let reflection = reflect(shipped, module.stage, &module.entry_point);
            encode_module(shipped, settings.strip_debug, Some(names_read(&reflection))).map(|e| (e, reflection))
        })
        .collect::<Result<_, _>>()
        .map_err(Error::Internal)?;
    let smolv: Vec<Vec<u8>> = encoded.iter().map(|(e, _)| e.smolv.clone()).collect();
    let zstd = zstd_forms(&smolv, config, cache)?;
    let packed = zstd.preferred();
    let dictionary_id = packed.dictionary.as_ref().map_or(0, |d| d.id());
    let codec = if packed.dictionary.is_some() { Codec::SmolvZstdDictionary } else { Codec::SmolvZstd };

    let inputs: Vec<PackInput> = modules
        .iter()
        .zip(&encoded)
        .map(|((module, _, _), (encoded, _))| {
            PackInput::new(module.name.clone(), encoded.smolv.clone(), &encoded.decoded)
        })
        .collect();
    let embedded = packing::pack_cached(&inputs, &zstd, packing, config.dictionary, cache)?;

    let mut bundle = BundleBuilder::new();
    if let Some(dictionary) = &packed.dictionary {
        bundle = bundle.dictionary(dictionary.clone());
    }
    let mut manifest_modules = Vec::new();
    let mut containers = Vec::new();
    let mut optimized = Vec::new();
    for (index, (((module, job, cached), (encoded, reflection)), payload)) in
        modules.iter().zip(&encoded).zip(&packed.payloads).enumerate()
    {
        let container = assemble(codec, &encoded.decoded, dictionary_id, reflection, payload)
            .map_err(|e| Error::Internal(format!("{}: {e}", module.name)))?;
        let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
        let input = &inputs[index];
        report.modules.push(ModuleReport {
            name: module.name.clone(),
            source: job.path.clone(),
            stage: module.stage.name().to_owned(),
            entry_point: module.entry_point.clone(),
            source_bytes: std::fs::metadata(&job.path).map_or(0, |m| m.len() as usize),
            spirv_bytes: module.spirv.len() * 4,
            optimized_bytes: shipped.len() * 4,
            smolv_bytes: encoded.smolv.len(),
            compressed_bytes: payload.len(),
            container_bytes: container.len(),
            cached: *cached,
        });
        manifest_modules.push(ManifestModule {
            name: module.name.clone(),
            artifact: emit::artifact_name(index, &module.name, "smvc"),
            optimized_spirv: emit::artifact_name(index, &module.name, "spv"),
            source: job.path.clone(),
            variant: job.variant.clone(),
            reflection: reflection.clone(),
            spirv_bytes: encoded.decoded.len() * 4,
            container_bytes: container.len(),
            embedded: ManifestEmbeddedModule {
                data: emit::artifact_name(index, &module.name, "data"),
                unpacked_bytes: packing::unpacked_len(embedded.scheme.codec, input),
                spirv_bytes: input.spirv.len(),
                check: input.check,
            },
        });
        bundle.push(module.name.clone(), container.clone());
        containers.push(container);
        optimized.push(shipped.iter().flat_map(|w| w.to_le_bytes()).collect());
    }
    report.dictionary_bytes = packed.dictionary.as_ref().map_or(0, |d| d.as_bytes().len());
    let dictionary_bytes = packed.dictionary.as_ref().map(|d| d.as_bytes().to_vec());
    let spirv_bytes = inputs.iter().map(|m| m.spirv.len()).sum();
    let packing_report = packing_report(&embedded, spirv_bytes);
    let manifest_embedded = ManifestEmbeddedSet {
        codec: packing_report.codec.clone(),
        layout: packing_report.layout.clone(),
        goal: packing_report.goal.clone(),
        directory: emit::EMBEDDED_DIRECTORY_FILE.to_owned(),
        data: emit::EMBEDDED_DATA_FILE.to_owned(),
        dictionary: embedded.dictionary.as_ref().map(|_| emit::EMBEDDED_DICTIONARY_FILE.to_owned()),
        spirv_bytes,
        stored_bytes: packing_report.stored_bytes,
        decoder_bytes: packing_report.decoder_bytes,
    };
    report.packing = Some(packing_report);
    Ok(Artifacts {
        manifest: Manifest {
            format: emit::MANIFEST_FORMAT,
            bundle: emit::BUNDLE_FILE.to_owned(),
            dictionary: dictionary_bytes.as_ref().map(|_| "dictionary.zdict".to_owned()),
            strip_debug: settings.strip_debug,
            embedded: manifest_embedded,
            modules: manifest_modules,
        },
        containers,
        optimized,
        dictionary: dictionary_bytes,
        bundle: bundle.build().map_err(|e| Error::Internal(e.to_string()))?,
        embedded: EmbeddedFiles {
            directory: embedded.directory,
            data: embedded.data,
            dictionary: embedded.dictionary,
            modules: embedded.modules,
        },
    })
}

/// Compresses the set with zstd, alone and with a dictionary, or takes both
/// from the cache: dictionary training and zstd -19 are the slowest steps
/// after compiling.
fn zstd_forms(smolv: &[Vec<u8>], config: &Config, cache: &Cache) -> Result<ZstdForms, Error> {
    let mut key = KeyBuilder::new("smolv-build pack v2");
    key.text(env!("CARGO_PKG_VERSION")).text(&format!("{}/{:?}", config.zstd_level, config.dictionary));
    smolv.iter().for_each(|m| {
        key.field(m);
    });
    let key = key.finish();
    if let Some(forms) = cache.get(&key).and_then(|body| read_forms(&body, smolv.len())) {
        return Ok(forms);
    }
    let forms = compress_forms(smolv, config.zstd_level, config.dictionary).map_err(Error::Internal)?;
    let mut w = BodyWriter::default();
    write_packed(&mut w, &forms.plain);
    match &forms.with_dictionary {
        Some(packed) => write_packed(w.u32(1).u32(u32::from(forms.prefer_dictionary)), packed),
        None => {
            w.u32(0);
        }
    }
    cache.put(&key, &w.0);
    Ok(forms)
}

fn write_packed(w: &mut BodyWriter, packed: &Packed) {
    w.bytes(packed.dictionary.as_ref().map(|d| d.as_bytes()).unwrap_or_default());
    packed.payloads.iter().for_each(|p| {
        w.bytes(p);
    });
}

fn read_packed(r: &mut BodyReader<'_>, count: usize) -> Option<Packed> {
    let dictionary = match r.bytes()? {
        [] => None,
        bytes => Some(smolv_runtime::container::Dictionary::new(bytes.to_vec()).ok()?),
    };
    let payloads = (0..count).map(|_| r.bytes().map(<[u8]>::to_vec)).collect::<Option<Vec<_>>>()?;
    Some(Packed { dictionary, payloads })
}

fn read_forms(body: &[u8], count: usize) -> Option<ZstdForms> {
    let mut r = BodyReader::new(body);
    let plain = read_packed(&mut r, count)?;
    let (with_dictionary, prefer_dictionary) = match r.u32()? {
        0 => (None, false),
        _ => {
            let prefer = r.u32()? == 1;
            (Some(read_packed(&mut r, count)?), prefer)
        }
    };
    r.is_empty().then_some(ZstdForms { plain, with_dictionary, prefer_dictionary })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn packing_and_goal_come_from_setters_then_variables_then_defaults() {
        let mut config = Config::new();
        let defaults = packing_options(&config, vars(&[])).unwrap();
        assert_eq!((defaults.packing, defaults.goal), (Packing::Auto, SizeGoal::Installed));
        let from_env =
            packing_options(&config, vars(&[("SMOLV_PACKING", "zstd-stream"), ("SMOLV_SIZE_GOAL", "download")]))
                .unwrap();
        let zstd_stream = Packing::Zstd { layout: packing::Layout::Stream };
        assert_eq!((from_env.packing, from_env.goal), (zstd_stream, SizeGoal::Download));
        config.packing(Packing::Raw).size_goal(SizeGoal::Installed);
        let set = packing_options(&config, vars(&[("SMOLV_PACKING", "lz4"), ("SMOLV_SIZE_GOAL", "download")])).unwrap();
        assert_eq!((set.packing, set.goal), (Packing::Raw, SizeGoal::Installed), "setters win");
    }

    #[test]
    fn unknown_packing_or_goal_values_are_config_errors() {
        let config = Config::new();
        let error = packing_options(&config, vars(&[("SMOLV_PACKING", "brotli")])).unwrap_err();
        assert!(matches!(&error, Error::Config(why) if why.contains("\"brotli\"") && why.contains("lz4-stream")));
        let error = packing_options(&config, vars(&[("SMOLV_SIZE_GOAL", "tiny")])).unwrap_err();
        assert!(matches!(&error, Error::Config(why) if why.contains("installed, download")));
    }

    fn module(name: &str) -> CompiledModule {
        let spirv = smolv_runtime::doc_example_module();
        CompiledModule {
            name: name.into(),
            stage: ShaderStage::Compute,
            entry_point: "main".into(),
            spirv,
            optimized: None,
        }
    }

    #[test]
    fn entries_record_the_hash_of_what_was_read_not_of_the_file_afterwards() {
        let dir = tempfile::tempdir().unwrap();
        let include = dir.path().join("common.glsl");
        // The compiler read "old"; the file was edited before the entry was written.
        std::fs::write(&include, "new").unwrap();
        let output = JobOutput {
            modules: vec![module("a")],
            dependencies: vec![(include.clone(), *blake3::hash(b"old").as_bytes())],
            missing: Vec::new(),
            warnings: Vec::new(),
            cached: false,
        };
        let body = write_entry(&output);
        assert!(read_entry(&body, &FileHashes::default()).is_none(), "the edit must be a miss");
        std::fs::write(&include, "old").unwrap();
        let back = read_entry(&body, &FileHashes::default()).expect("unchanged file is a hit");
        assert_eq!(back.dependencies, output.dependencies);
    }

    #[test]
    fn a_file_appearing_at_a_searched_include_path_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let shadow = dir.path().join("common.glsl");
        let output = JobOutput {
            modules: vec![module("a")],
            dependencies: Vec::new(),
            missing: vec![shadow.clone()],
            warnings: Vec::new(),
            cached: false,
        };
        let body = write_entry(&output);
        assert!(read_entry(&body, &FileHashes::default()).is_some());
        std::fs::write(&shadow, "// shadows the include").unwrap();
        assert!(read_entry(&body, &FileHashes::default()).is_none());
    }

    #[cfg(feature = "shaderc")]
    #[test]
    fn an_include_shadowed_earlier_in_the_search_path_is_recompiled() {
        let dir = tempfile::tempdir().unwrap();
        let (shaders, include) = (dir.path().join("shaders"), dir.path().join("include"));
        std::fs::create_dir_all(&shaders).unwrap();
        std::fs::create_dir_all(&include).unwrap();
        let main = "#version 450\n#include \"common.glsl\"\nlayout(location = 0) out vec4 color;\n\
                    void main() { color = vec4(VALUE); }\n";
        std::fs::write(shaders.join("a.frag"), main).unwrap();
        std::fs::write(include.join("common.glsl"), "#define VALUE 0.25\n").unwrap();
        let mut config = Config::new();
        config
            .shader_dir(&shaders)
            .include_dir(&include)
            .out_dir(dir.path().join("out"))
            .cache_dir(dir.path().join("cache"))
            .cargo_directives(false)
            .optimization(Optimization::None);
        let out = dir.path().join("out").join(emit::ARTIFACT_DIR);
        let spirv = || std::fs::read(out.join(emit::artifact_name(0, "a.frag", "spv"))).unwrap();
        let first = config.try_compile().unwrap();
        assert_eq!((first.compiled, first.cache_hits), (1, 0));
        let first_spirv = spirv();
        let again = config.try_compile().unwrap();
        assert_eq!((again.compiled, again.cache_hits), (0, 1), "unchanged: a hit");
        std::fs::write(shaders.join("common.glsl"), "#define VALUE 0.75\n").unwrap();
        let shadowed = config.try_compile().unwrap();
        assert_eq!((shadowed.compiled, shadowed.cache_hits), (1, 0), "the shadowing file must be compiled");
        assert_ne!(first_spirv, spirv(), "the new file's value is used");
    }

    #[cfg(unix)]
    #[test]
    fn a_warm_build_does_not_run_spirv_opt() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (tool, log) = (dir.path().join("spirv-opt"), dir.path().join("log"));
        let script = format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo version >> '{}'; echo 'SPIRV-Tools fake'; exit 0; fi\ncat\n",
            log.display()
        );
        let temp = dir.path().join("spirv-opt.new");
        std::fs::write(&temp, script).unwrap();
        std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&temp, &tool).unwrap();
        let shaders = dir.path().join("shaders");
        std::fs::create_dir_all(&shaders).unwrap();
        let bytes: Vec<u8> = smolv_runtime::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(shaders.join("fill.spv"), bytes).unwrap();
        let mut config = Config::new();
        config
            .shader_dir(&shaders)
            .out_dir(dir.path().join("out"))
            .cache_dir(dir.path().join("cache"))
            .cargo_directives(false)
            .spirv_opt(&tool);
        let versions = || std::fs::read_to_string(&log).map_or(0, |l| l.lines().count());
        assert_eq!(config.try_compile().unwrap().compiled, 1);
        assert_eq!(versions(), 1);
        let warm = config.try_compile().unwrap();
        assert_eq!(warm.cache_hits, 1);
        assert_eq!(versions(), 1, "a warm build spawns no spirv-opt --version");
    }

    #[test]
    fn cargo_reruns_the_build_when_a_packing_variable_changes() {
        assert!(ENV_KNOBS.contains(&"SMOLV_PACKING") && ENV_KNOBS.contains(&"SMOLV_SIZE_GOAL"));
    }
}
