//! Compiling one job: the cache lookup, the frontend, the optimizer, specialization, the cache entry.

use std::path::PathBuf;

use crate::cache::{BodyReader, BodyWriter, Cache, FileHashes, Key, KeyBuilder};
use crate::compile::frontend::{self, CompiledModule};
use crate::compile::optimize::{self, Failure, Recipe};
use crate::compile::portable::PortablePaths;
use crate::compile::worker::Compilers;
use crate::error::Diagnostic;
use crate::options::Language;
use crate::options::{HlslOptions, Optimization};
use crate::settings::Settings;
use crate::source::Job;

/// What one job produced, from the compiler or the cache.
pub(crate) struct JobOutput {
    pub(crate) modules: Vec<CompiledModule>,
    /// Every file read, with the blake3 of the bytes the compiler got.
    pub(crate) dependencies: Vec<(PathBuf, [u8; 32])>,
    /// Include candidates that did not exist (one appearing shadows a file).
    pub(crate) missing: Vec<PathBuf>,
    pub(crate) warnings: Vec<String>,
    pub(crate) cached: bool,
    /// Whether the same inputs always give this output (see [`Failure`]).
    pub(crate) cacheable: bool,
}

pub(crate) struct Context<'a> {
    pub(crate) settings: &'a Settings,
    pub(crate) cache: &'a Cache,
    /// [`compiler_identity`], computed once per build.
    pub(crate) identity: String,
    /// [`slang_identity`], for Slang jobs; empty without `slangc`.
    pub(crate) slang_identity: String,
    pub(crate) hashes: FileHashes,
    pub(crate) paths: PortablePaths,
    pub(crate) compilers: &'a Compilers,
}

/// What turns source into SPIR-V, for cache keys: the compilers and the optimizer.
pub(crate) fn compiler_identity(settings: &Settings, cache: &Cache) -> String {
    frontend::compiler_identity() + &optimize::identity(settings, cache)
}

/// What compiles Slang, for the keys of Slang jobs only.
pub(crate) fn slang_identity(settings: &Settings, cache: &Cache) -> String {
    settings.slangc.as_deref().map(|slangc| frontend::slangc_identity(slangc, cache)).unwrap_or_default()
}

impl Context<'_> {
    pub(crate) fn identity_of(&self, job: &Job) -> String {
        match job.language {
            Language::Slang => format!("{}{}", self.identity, self.slang_identity),
            Language::Wesl => format!("{}wesl {};", self.identity, frontend::WESL_VERSION),
            _ => self.identity.clone(),
        }
    }
}

/// The job's cache key: everything that decides its output.
pub(crate) fn job_key(job: &Job, settings: &Settings, paths: &PortablePaths, identity: &str, source: &[u8]) -> Key {
    let mut key = KeyBuilder::new("smolv-build module v4");
    key.text(identity)
        .text(&job.name)
        .text(&paths.portable(&job.path))
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
    // Only what can change the job's output, so that other keys stay.
    if matches!(job.language, Language::Wgsl | Language::Wesl) && !settings.wgsl_adjust_coordinate_space {
        key.text("wgsl: keep the position's y");
    }
    if job.language == Language::Wesl {
        // Which directories imports can reach; files are checked by hash.
        for (name, value) in &job.wesl_features {
            key.text(&format!("wesl feature {name}={value}"));
        }
        for (name, dir) in &settings.wesl_packages {
            key.text(&format!("wesl package {name}")).text(&paths.portable(dir));
        }
    }
    if matches!(job.language, Language::Glsl | Language::Hlsl) && !settings.binding_bases.is_empty() {
        key.text(&format!("binding bases {:?}", settings.binding_bases));
    }
    if matches!(job.language, Language::Glsl | Language::Hlsl) && settings.hlsl != HlslOptions::default() {
        key.text(&format!("hlsl {:?}", settings.hlsl));
    }
    for define in &job.defines {
        key.text(&define.name).text(define.value.as_deref().unwrap_or(""));
    }
    for (id, value) in &job.spec_constants {
        key.text(&format!("spec {id}={value:?}"));
    }
    for dir in &settings.include_dirs {
        key.text(&paths.portable(dir));
    }
    if !settings.strip_debug {
        key.text(&format!("debug info names files under {}", paths.root().display()));
    }
    key.field(source).finish()
}

fn read_source(job: &Job) -> Result<Vec<u8>, Vec<Diagnostic>> {
    std::fs::read(&job.path)
        .map_err(|e| vec![Diagnostic::whole_file(&job.path, format!("cannot read the shader: {e}"))])
}

/// The job's key, from its source as it is now.
pub(crate) fn current_key(job: &Job, cx: &Context<'_>) -> Option<Key> {
    read_source(job).ok().map(|source| job_key(job, cx.settings, &cx.paths, &cx.identity_of(job), &source))
}

/// Compiles one job, or takes it from the cache; records it in a build that prepares.
pub(crate) fn compile_job(job: &Job, cx: &Context<'_>) -> Result<JobOutput, Vec<Diagnostic>> {
    let settings = cx.settings;
    let source = read_source(job)?;
    let key = job_key(job, settings, &cx.paths, &cx.identity_of(job), &source);
    let output = match cx.cache.get_valid(&key, |body| read_entry(body, &cx.hashes, &cx.paths)) {
        Some(output) => output,
        None => {
            let output = compile_uncached(job, &source, settings, cx.compilers)?;
            let root = cx.paths.root().to_string_lossy();
            if let Some(body) = write_entry(&output, &cx.paths, &root).filter(|_| output.cacheable) {
                cx.cache.put(&key, &body);
            }
            output
        }
    };
    if cx.cache.is_preparing() {
        prepare(job, &key, &output, cx)?;
    }
    Ok(output)
}

/// What a prepared entry records as its writer's root: no machine's path.
const PREPARED_ROOT: &str = "";

/// Records `output`, the job's under `key`, for the prepared directory.
fn prepare(job: &Job, key: &Key, output: &JobOutput, cx: &Context<'_>) -> Result<(), Vec<Diagnostic>> {
    let why = if !output.cacheable {
        "it could not be optimized in this build (see the warning above), so its output is not the one every \
         build gives"
    } else {
        match write_entry(output, &cx.paths, PREPARED_ROOT) {
            Some(body) if cx.cache.prepare(key, &body) => return Ok(()),
            Some(_) => {
                "its entry could not be recorded in the session directory that SMOLV_PREPARE names (it cannot be \
                 written, or the entry is over the cache's 64 MiB limit)"
            }
            None => "its entry is too large to record",
        }
    };
    Err(vec![Diagnostic::whole_file(
        &job.path,
        format!("{} cannot be prepared: {why}; run `cargo smolv prepare` again", job.name),
    )])
}

/// Compiles `source` (the bytes of `job.path`) without the cache, for the build and hot reload.
pub(crate) fn compile_uncached(
    job: &Job,
    source: &[u8],
    settings: &Settings,
    compilers: &Compilers,
) -> Result<JobOutput, Vec<Diagnostic>> {
    let compiled = compilers.compile(job, source, settings)?;
    let mut warnings = compiled.warnings;
    let mut modules = compiled.modules;
    let cacheable = optimize_modules(job, &mut modules, settings, compilers, &mut warnings)?;
    if !job.spec_constants.is_empty() {
        for module in &mut modules {
            let input = module.optimized.as_ref().unwrap_or(&module.spirv);
            let specialized = smolv_codec::specialize::Specializer::analyze(input)
                .and_then(|analysis| analysis.specialize(&job.spec_constants))
                .map_err(|e| vec![Diagnostic::whole_file(&job.path, format!("specializing {}: {e}", module.name))])?;
            module.optimized = Some(specialized);
        }
    }
    // The hash of the bytes the compiler read, not of the file now.
    let mut dependencies = vec![(job.path.clone(), *blake3::hash(source).as_bytes())];
    dependencies.extend(compiled.dependencies);
    dependencies.sort();
    dependencies.dedup();
    Ok(JobOutput { modules, dependencies, missing: compiled.missing, warnings, cached: false, cacheable })
}

/// Runs the optimizer on each module; whether the modules may be cached.
fn optimize_modules(
    job: &Job,
    modules: &mut [CompiledModule],
    settings: &Settings,
    compilers: &Compilers,
    warnings: &mut Vec<String>,
) -> Result<bool, Vec<Diagnostic>> {
    let mut cacheable = true;
    for module in modules {
        // Optimized for the environment the module's version needs.
        let env = settings.target_env.accepting(module.spirv.get(1).copied().unwrap_or(0));
        let recipe = Recipe { level: settings.optimization, env, legalize: module.needs_legalization };
        if module.optimized.is_some() || recipe.is_empty() {
            continue;
        }
        let name = &module.name;
        let unlegalized = if recipe.legalize { " (nor legalized: it may fail Vulkan's validation)" } else { "" };
        module.optimized = match optimize::optimize(&module.spirv, &recipe, settings, compilers) {
            Ok(optimized) => Some(optimized),
            Err(Failure::Refused(why)) if recipe.legalize => {
                // Legalized alone, it may still ship, unoptimized.
                let legalize = Recipe { level: Optimization::None, ..recipe };
                let legal = (recipe.level != Optimization::None)
                    .then(|| optimize::optimize(&module.spirv, &legalize, settings, compilers).ok())
                    .flatten();
                let Some(legal) = legal else {
                    return Err(vec![Diagnostic::whole_file(
                        &job.path,
                        format!(
                            "{name}: SPIRV-Tools cannot legalize this HLSL ({why}); simplify how resources are \
                             passed and aliased"
                        ),
                    )]);
                };
                warnings.push(format!("{name}: not optimized, shipping it legalized only: {why}"));
                Some(legal)
            }
            Err(failure) => {
                cacheable &= matches!(failure, Failure::Refused(_));
                warnings.push(match failure {
                    Failure::Refused(why) => format!("{name}: not optimized, shipping it as compiled: {why}"),
                    Failure::Transient(why) => format!(
                        "{name}: not optimized in this build, shipping it as compiled{unlegalized}: {why}; it is not \
                         cached, so the next build optimizes it again"
                    ),
                    Failure::Unavailable => format!(
                        "{name}: not optimized, shipping it as compiled{unlegalized}: this smolv-build was built \
                         without its `optimizer` feature, and no spirv-opt binary is configured (Config::spirv_opt, \
                         SMOLV_SPIRV_OPT); enable the feature to optimize it. It is not cached, so a build with the \
                         optimizer optimizes it"
                    ),
                });
                None
            }
        };
    }
    Ok(cacheable)
}

/// Cache entry body, with portable paths; `None` if something does not fit.
fn write_entry(output: &JobOutput, paths: &PortablePaths, writer_root: &str) -> Option<Vec<u8>> {
    let mut w = BodyWriter::default();
    w.text(writer_root);
    w.list(&output.dependencies, |w, (path, hash)| w.text(&paths.portable(path)).bytes(hash));
    w.list(&output.missing, |w, path| w.text(&paths.portable(path)));
    w.list(&output.warnings, |w, warning| w.text(&paths.portable_text(warning)));
    w.list(&output.modules, |w, module| module.write(w));
    w.finish()
}

/// Reads an entry back; `None` (a miss) if it is malformed or stale.
fn read_entry(body: &[u8], hashes: &FileHashes, paths: &PortablePaths) -> Option<JobOutput> {
    let mut r = BodyReader::new(body);
    // Absolute paths name the writer's files: only its root may trust them.
    let writer_root = r.text()?;
    let usable = |recorded: &str| PortablePaths::is_relative(recorded) || paths.absolute_paths_usable(&writer_root);
    let dependencies = r.list(|r| {
        let recorded = r.text()?;
        let path = usable(&recorded).then(|| paths.local(&recorded))?;
        let hash: [u8; 32] = r.bytes()?.try_into().ok()?;
        (hashes.get(&path)? == hash).then_some((path, hash))
    })?;
    let missing = r.list(|r| {
        let recorded = r.text()?;
        let path = paths.local(&recorded);
        (usable(&recorded) && !path.is_file()).then_some(path)
    })?;
    let warnings = r.list(|r| r.text().map(|w| paths.local_text(&w)))?;
    let modules = r.list(CompiledModule::read)?;
    r.is_empty().then_some(JobOutput { modules, dependencies, missing, warnings, cached: true, cacheable: true })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use smolv_format::reflect::ShaderStage;

    fn module(name: &str) -> CompiledModule {
        let spirv = smolv_format::doc_example_module();
        CompiledModule {
            name: name.into(),
            stage: ShaderStage::Compute,
            entry_point: "main".into(),
            spirv,
            optimized: None,
            needs_legalization: false,
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
            cacheable: true,
        };
        let paths = PortablePaths::new([include.as_path()], []);
        let body = write_entry(&output, &paths, &paths.root().to_string_lossy()).unwrap();
        assert!(read_entry(&body, &FileHashes::default(), &paths).is_none(), "the edit must be a miss");
        std::fs::write(&include, "old").unwrap();
        let back = read_entry(&body, &FileHashes::default(), &paths).expect("unchanged file is a hit");
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
            cacheable: true,
        };
        let paths = PortablePaths::new([shadow.as_path()], []);
        let body = write_entry(&output, &paths, &paths.root().to_string_lossy()).unwrap();
        assert!(read_entry(&body, &FileHashes::default(), &paths).is_some());
        std::fs::write(&shadow, "// shadows the include").unwrap();
        assert!(read_entry(&body, &FileHashes::default(), &paths).is_none());
    }

    #[test]
    fn an_entry_written_in_one_checkout_is_read_in_another_against_its_files() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for dir in [&a, &b] {
            std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
            std::fs::write(dir.path().join("shaders/common.glsl"), "same").unwrap();
        }
        let include = a.path().join("shaders/common.glsl");
        let output = JobOutput {
            modules: vec![module("a")],
            dependencies: vec![(include.clone(), *blake3::hash(b"same").as_bytes())],
            missing: vec![a.path().join("shaders/shadow.glsl")],
            warnings: vec![format!("{}: warning: unused", include.display())],
            cached: false,
            cacheable: true,
        };
        let in_a = PortablePaths::new([include.as_path()], []);
        let body = write_entry(&output, &in_a, &in_a.root().to_string_lossy()).unwrap();
        let in_b = PortablePaths::new([b.path().join("shaders/lit.frag").as_path()], []);
        let back = read_entry(&body, &FileHashes::default(), &in_b).expect("the same files in B: a hit");
        let b_include = b.path().join("shaders/common.glsl");
        assert_eq!(back.dependencies[0].0, b_include, "dependencies are B's files, for rerun-if-changed");
        assert_eq!(back.warnings, [format!("{}: warning: unused", b_include.display())]);
        std::fs::write(b.path().join("shaders/shadow.glsl"), "// shadows").unwrap();
        assert!(read_entry(&body, &FileHashes::default(), &in_b).is_none(), "a shadowing file in B is a miss");
        std::fs::remove_file(b.path().join("shaders/shadow.glsl")).unwrap();
        std::fs::write(&b_include, "edited in B").unwrap();
        assert!(read_entry(&body, &FileHashes::default(), &in_b).is_none(), "B's edit is a miss");
    }

    pub(crate) fn settings() -> Settings {
        Settings {
            target_env: crate::TargetEnv::Vulkan1_2,
            spirv_version: crate::SpirvVersion::V1_5,
            optimization: Optimization::Size,
            strip_debug: false,
            keep_interface_names: false,
            include_dirs: Vec::new(),
            spirv_opt: None,
            auto_map_locations: false,
            auto_bind_uniforms: false,
            wgsl_adjust_coordinate_space: true,
            binding_bases: Vec::new(),
            hlsl: HlslOptions::default(),
            slangc: None,
            wesl_packages: Vec::new(),
            missing_language_advice: None,
        }
    }

    #[test]
    #[cfg(unix)]
    fn absolute_paths_in_an_entry_are_trusted_only_by_a_build_with_the_same_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("real/shaders")).unwrap();
        std::fs::create_dir_all(dir.path().join("common")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
        let include = dir.path().join("common/x.glsl");
        std::fs::write(&include, "same").unwrap();
        // A root with a symbolic link in it: `..` from it is not what it
        // seems, so the include outside it is recorded absolute.
        let a = PortablePaths::new([dir.path().join("link/shaders/a.frag").as_path()], []);
        assert!(!PortablePaths::is_relative(&a.portable(&include)));
        let output = JobOutput {
            modules: vec![module("a")],
            dependencies: vec![(include.clone(), *blake3::hash(b"same").as_bytes())],
            missing: Vec::new(),
            warnings: Vec::new(),
            cached: false,
            cacheable: true,
        };
        let body = write_entry(&output, &a, &a.root().to_string_lossy()).unwrap();
        assert!(read_entry(&body, &FileHashes::default(), &a).is_some(), "the same build: a hit");
        let elsewhere = PortablePaths::new([dir.path().join("real/shaders/a.frag").as_path()], []);
        assert!(
            read_entry(&body, &FileHashes::default(), &elsewhere).is_none(),
            "another root must not trust the writer's absolute paths"
        );
    }

    /// A GLSL fragment-shader job for the file at `path`.
    pub(crate) fn fragment_job(path: impl Into<PathBuf>) -> Job {
        Job { stage: Some(ShaderStage::Fragment), ..Job::for_test("a.frag", path, Language::Glsl) }
    }

    /// What `settings` and `cache` give a build: one compiling in-process.
    fn context<'a>(settings: &'a Settings, cache: &'a Cache, paths: PortablePaths) -> Context<'a> {
        static IN_PROCESS: Compilers = Compilers::InProcess;
        Context {
            settings,
            cache,
            identity: "test compilers".to_owned(),
            slang_identity: String::new(),
            hashes: FileHashes::default(),
            paths,
            compilers: &IN_PROCESS,
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_module_spirv_opt_did_not_get_to_judge_is_never_cached() {
        use crate::compile::optimize::tests::{fake_spirv_opt, runs};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fill.comp.spv");
        let words = smolv_format::doc_example_module();
        std::fs::write(&path, words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
        let job = Job::for_test("fill.comp.spv", &path, Language::Spirv);
        // (spirv-opt's script, whether the second build is a cache hit, spirv-opt's runs in both builds)
        let cases = [
            ("kill -9 $$", false, 4),
            ("kill -SEGV $$", false, 4),
            ("echo 'error: line 9: Invalid capability' >&2\nexit 1", true, 1),
            ("cat", true, 1),
        ];
        for (script, cached, expected_runs) in cases {
            let tools = tempfile::tempdir().unwrap();
            let settings = Settings { spirv_opt: Some(fake_spirv_opt(tools.path(), script)), ..settings() };
            let cache = Cache::new(tools.path().join("cache"));
            let cx = context(&settings, &cache, PortablePaths::new([path.as_path()], []));
            let first = compile_job(&job, &cx).unwrap();
            assert!(!first.cached);
            assert_eq!(first.modules[0].optimized, None.or((script == "cat").then(|| words.clone())), "{script}");
            if !cached {
                assert!(
                    first.warnings.iter().any(|w| w.contains("it is not cached")),
                    "{script}: {:?}",
                    first.warnings
                );
            }
            let second = compile_job(&job, &cx).unwrap();
            assert_eq!(second.cached, cached, "{script}: {:?}", second.warnings);
            assert_eq!(runs(tools.path()), expected_runs, "{script}");
        }
    }

    /// A WESL job (this crate's tests build without the `wesl` feature)
    /// served from a prepared directory, and what happens once its source
    /// changes.
    #[cfg(not(feature = "wesl"))]
    #[test]
    fn a_prepared_entry_serves_a_shader_this_build_cannot_compile_until_its_source_changes() {
        let dir = tempfile::tempdir().unwrap();
        let shaders = dir.path().join("game/shaders");
        std::fs::create_dir_all(&shaders).unwrap();
        let path = shaders.join("sky.wesl");
        std::fs::write(&path, "fn main() {}").unwrap();
        let job = Job::for_test("sky.wesl", &path, Language::Wesl);
        let settings = settings();
        let paths = PortablePaths::new([path.as_path()], []);
        let prepared = dir.path().join("game/.smolv");
        let session = dir.path().join("session");

        // What a machine with the compilers records: an entry with no path of its own.
        let preparing =
            Cache::new(dir.path().join("cache-a")).with_prepared(Some(prepared.as_path()), Some(session.as_path()));
        let cx = context(&settings, &preparing, paths.clone());
        let output = JobOutput {
            modules: vec![module("sky.wesl")],
            dependencies: vec![(path.clone(), *blake3::hash(b"fn main() {}").as_bytes())],
            missing: Vec::new(),
            warnings: Vec::new(),
            cached: false,
            cacheable: true,
        };
        prepare(&job, &current_key(&job, &cx).unwrap(), &output, &cx).unwrap();
        let staged = crate::cache::prepared::staged(&session).unwrap();
        assert_eq!(staged.len(), 1);
        staged[0].write().unwrap();
        let entry = std::fs::read(prepared.join(current_key(&job, &cx).unwrap().hex())).unwrap();
        let root = dir.path().to_string_lossy().into_owned();
        assert!(!entry.windows(root.len()).any(|w| w == root.as_bytes()), "a prepared entry names no machine's path");

        // A build without the compiler and with an empty cache: served from the directory.
        let cache = Cache::new(dir.path().join("cache-b")).with_prepared(Some(prepared.as_path()), None);
        let cx = context(&settings, &cache, paths);
        let served = compile_job(&job, &cx).expect("served from the prepared directory");
        assert!(served.cached);
        assert_eq!(served.modules[0].spirv, output.modules[0].spirv);
        assert_eq!(served.dependencies, output.dependencies);

        // Edited: it needs compiling, and the error says what would.
        std::fs::write(&path, "fn main() { }").unwrap();
        let cx = Context { hashes: FileHashes::default(), ..cx };
        let errors = compile_job(&job, &cx).err().expect("an edited shader needs compiling");
        let message = errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        assert!(message.contains("sky.wesl") && message.contains("WESL support is not enabled"), "{message}");
        assert!(message.contains("`wesl` feature") && message.contains("`cargo smolv prepare`"), "{message}");
    }

    #[test]
    fn a_module_that_could_not_be_optimized_fails_a_build_that_prepares() {
        let dir = tempfile::tempdir().unwrap();
        let job = fragment_job(dir.path().join("a.frag"));
        let settings = settings();
        let session = dir.path().join("session");
        let cache = Cache::new(dir.path().join("cache"))
            .with_prepared(Some(dir.path().join(".smolv").as_path()), Some(session.as_path()));
        let cx = context(&settings, &cache, PortablePaths::new([job.path.as_path()], []));
        // What compile_uncached gives when the optimizer crashed on it.
        let output = JobOutput {
            modules: vec![module("a.frag")],
            dependencies: Vec::new(),
            missing: Vec::new(),
            warnings: Vec::new(),
            cached: false,
            cacheable: false,
        };
        let key = KeyBuilder::new("test").text("a.frag").finish();
        let errors = prepare(&job, &key, &output, &cx).expect_err("not what every build gives: not prepared");
        let message = errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n");
        assert!(message.contains("a.frag cannot be prepared: it could not be optimized"), "{message}");
        assert!(crate::cache::prepared::staged(&session).unwrap()[0].is_empty());
        assert!(prepare(&job, &key, &JobOutput { cacheable: true, ..output }, &cx).is_ok());
        assert_eq!(crate::cache::prepared::staged(&session).unwrap()[0].len(), 1);
    }

    /// A precompiled-SPIR-V job for `words`, written to `dir`.
    fn spirv_job(dir: &std::path::Path, words: &[u32]) -> Job {
        let path = dir.join("module.comp.spv");
        std::fs::write(&path, words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
        Job::for_test("module.comp.spv", &path, Language::Spirv)
    }

    /// Compiles `job` twice with `compilers` and a fresh cache: the two
    /// outputs.
    fn compile_twice(job: &Job, compilers: &Compilers) -> (JobOutput, JobOutput) {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let settings = settings();
        let cx = Context {
            settings: &settings,
            cache: &cache,
            identity: compiler_identity(&settings, &cache),
            slang_identity: String::new(),
            hashes: FileHashes::default(),
            paths: PortablePaths::new([job.path.as_path()], []),
            compilers,
        };
        let first = compile_job(job, &cx).unwrap();
        (first, compile_job(job, &cx).unwrap())
    }

    #[cfg(feature = "optimizer")]
    #[test]
    fn a_module_is_optimized_in_process_and_cached() {
        let dir = tempfile::tempdir().unwrap();
        let words = crate::compile::optimize::tests::corpus_module("dota2/1021831.spv");
        let job = spirv_job(dir.path(), &words);
        let (first, second) = compile_twice(&job, &Compilers::InProcess);
        assert!(first.warnings.is_empty(), "{:?}", first.warnings);
        let optimized = first.modules[0].optimized.as_ref().expect("optimized");
        assert!(optimized.len() < words.len(), "{} → {} words", words.len(), optimized.len());
        assert!(second.cached);
        assert_eq!(second.modules[0].optimized.as_ref(), Some(optimized));
    }

    /// The documentation's module with its entry point naming no function:
    /// well-formed, and invalid.
    #[cfg(feature = "optimizer")]
    fn invalid_module() -> Vec<u32> {
        let mut module = smolv_format::doc_example_module();
        let entry = (5..module.len()).find(|&i| module[i] & 0xffff == 15).expect("OpEntryPoint");
        module[entry + 2] = 999;
        module
    }

    #[cfg(feature = "optimizer")]
    #[test]
    fn a_module_spirv_tools_refuses_ships_as_compiled_and_is_cached() {
        let dir = tempfile::tempdir().unwrap();
        let job = spirv_job(dir.path(), &invalid_module());
        let (first, second) = compile_twice(&job, &Compilers::InProcess);
        assert_eq!(first.modules[0].optimized, None);
        assert!(
            first
                .warnings
                .iter()
                .any(|w| w.contains("not optimized, shipping it as compiled: SPIRV-Tools -Os refused")),
            "{:?}",
            first.warnings
        );
        assert!(first.cacheable);
        assert!(second.cached, "a verdict on the module is cached");
        assert_eq!(second.warnings, first.warnings);
    }

    #[cfg(not(feature = "optimizer"))]
    #[test]
    fn without_the_optimizer_a_module_ships_as_compiled_and_is_not_cached() {
        let dir = tempfile::tempdir().unwrap();
        let words = smolv_format::doc_example_module();
        let job = spirv_job(dir.path(), &words);
        let (first, second) = compile_twice(&job, &Compilers::InProcess);
        assert_eq!(first.modules[0].optimized, None);
        assert!(
            first.warnings.iter().any(|w| w.contains("without its `optimizer` feature") && w.contains("not cached")),
            "{:?}",
            first.warnings
        );
        assert!(!first.cacheable);
        assert!(!second.cached, "a build with the optimizer must find nothing to reuse");
    }

    /// An optimizer that crashes in a worker every time: tried once more in
    /// a new worker, the module ships as compiled, nothing is cached, and
    /// the build goes on. The test hook exists in debug builds only.
    #[cfg(all(target_os = "linux", feature = "optimizer", debug_assertions))]
    #[test]
    fn an_optimizer_crash_in_a_worker_is_tried_once_more_and_never_cached() {
        let dir = tempfile::tempdir().unwrap();
        let started = dir.path().join("started");
        let abort = std::path::PathBuf::from("optimize");
        let compilers = crate::compile::worker::tests::test_workers(&[
            (crate::compile::worker::TEST_ABORT_VAR, &abort),
            (crate::compile::worker::TEST_STARTED_VAR, &started),
        ]);
        let job = spirv_job(dir.path(), &smolv_format::doc_example_module());
        let (first, second) = compile_twice(&job, &compilers);
        assert_eq!(first.modules[0].optimized, None);
        let warning = first.warnings.iter().find(|w| w.contains("not optimized in this build")).expect("a warning");
        assert!(
            warning.contains("SIGABRT") && warning.contains("(twice)") && warning.contains("not cached"),
            "{warning}"
        );
        assert!(!first.cacheable);
        assert!(!second.cached);
        assert_eq!(crate::compile::tool::tests::lines(&started), 4, "each build tried it in two workers");
    }

    #[cfg(feature = "optimizer")]
    #[test]
    fn hlsl_is_legalized_even_unoptimized_and_one_that_cannot_be_is_an_error() {
        use crate::compile::optimize::linked::tests::{unlegalized_module, valid};
        let job = fragment_job("a.frag");
        let unlegalized = unlegalized_module();
        for optimization in [Optimization::None, Optimization::Size] {
            let settings = Settings { optimization, ..settings() };
            let mut modules =
                vec![CompiledModule { spirv: unlegalized.clone(), needs_legalization: true, ..module("a") }];
            let mut warnings = Vec::new();
            let cacheable =
                optimize_modules(&job, &mut modules, &settings, &Compilers::InProcess, &mut warnings).unwrap();
            assert!(cacheable && warnings.is_empty(), "{warnings:?}");
            assert!(valid(modules[0].optimized.as_ref().expect("legalized")), "{optimization:?}");
        }
        let mut modules = vec![CompiledModule { spirv: invalid_module(), needs_legalization: true, ..module("a") }];
        let errors = optimize_modules(&job, &mut modules, &settings(), &Compilers::InProcess, &mut Vec::new());
        let errors = errors.unwrap_err();
        assert!(errors[0].message.contains("cannot legalize this HLSL"), "{}", errors[0].message);
    }

    #[test]
    fn the_key_changes_when_the_compiler_identity_changes() {
        let job = fragment_job("shaders/a.frag");
        let paths = PortablePaths::new([job.path.as_path()], []);
        let key = |identity: &str| job_key(&job, &settings(), &paths, identity, b"#version 450\nvoid main() {}\n");
        let linked = "glslang-sys 0.9.2+e1b562a;naga 30.0.1;";
        assert_eq!(key(linked), key(linked));
        assert_ne!(key(linked), key("glslang-sys 0.9.3+0123456;naga 30.0.1;"));
        assert_ne!(key(linked), key("glslang-sys 0.9.2+e1b562a;naga 30.0.2;"));
        assert_ne!(key(linked), key(&format!("{linked}SPIRV-Tools v2023.2")), "another spirv-opt");
    }

    #[test]
    fn keys_name_paths_relative_to_the_root_unless_debug_info_names_them() {
        let key = |root: &str, strip_debug: bool| {
            let job = fragment_job(format!("{root}/shaders/a.frag"));
            let settings =
                Settings { strip_debug, include_dirs: vec![PathBuf::from(format!("{root}/include"))], ..settings() };
            let paths = PortablePaths::new([job.path.as_path()], settings.include_dirs.iter().map(PathBuf::as_path));
            job_key(&job, &settings, &paths, "identity", b"#version 450\nvoid main() {}\n")
        };
        assert_eq!(key("/home/ana/game", true), key("/builds/7/game", true), "stripped: shared between checkouts");
        assert_ne!(key("/home/ana/game", false), key("/builds/7/game", false), "debug info holds the paths");
        assert_ne!(key("/home/ana/game", true), key("/home/ana/game", false));
    }

    #[test]
    fn the_identity_names_what_actually_compiles() {
        let identity = frontend::compiler_identity();
        // With or without the `glsl` feature: the same keys for GLSL jobs.
        assert!(identity.contains("glslang-sys 0.9.2+e1b562a;"), "glslang-sys's exact version: {identity}");
        #[cfg(feature = "wgsl")]
        assert!(identity.contains("naga 30.0.1;"), "naga's exact version: {identity}");
        assert!(!identity.contains("naga-30;"), "not a major version alone: {identity}");
    }
}
