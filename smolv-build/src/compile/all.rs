//! The compile stage of one build: every job compiled (cache, workers), the results gathered.

use std::path::PathBuf;
use std::sync::Arc;

use crate::cache::remote::Session;
use crate::cache::{Cache, FileHashes};
use crate::compile::frontend::CompiledModule;
use crate::compile::portable::PortablePaths;
use crate::compile::quiet_stdout::QuietStdout;
use crate::compile::target_check;
use crate::compile::worker::Compilers;
use crate::compile::{Context, JobOutput, compile_job, compiler_identity, current_key, slang_identity};
use crate::error::{Diagnostic, Error};
use crate::options::{Language, Target};
use crate::settings::Plan;
use crate::source::{Job, Sources};
use crate::tokens::Threads;

/// A compiled module, with its job and what the job read.
pub(crate) struct Built<'a> {
    pub(crate) module: CompiledModule,
    pub(crate) job: &'a Job,
    pub(crate) cached: bool,
    pub(crate) dependencies: Arc<[PathBuf]>,
}

pub(crate) enum JobResult {
    Compiled {
        cached: bool,
        dependencies: Arc<[PathBuf]>,
        /// Include candidates that did not exist (see [`JobOutput`]).
        missing: Vec<PathBuf>,
    },
    /// Its errors, each naming the variant where the job is one.
    Failed(Vec<Diagnostic>),
}

/// Everything the compile stage made, and what the later stages go on with.
pub(crate) struct Compiled<'a> {
    pub(crate) cache: Cache,
    pub(crate) remote: Session,
    pub(crate) threads: Result<Threads, Error>,
    /// The warning a prepared directory that keeps debug info gets.
    pub(crate) preparing_warning: Option<String>,
    /// Per job, in the order of the sources.
    pub(crate) jobs: Vec<(&'a Job, JobResult)>,
    /// Every job's warnings, in job order, then those of the target check.
    pub(crate) warnings: Vec<String>,
    /// The compiled modules, by name.
    pub(crate) modules: Vec<Built<'a>>,
}

impl Compiled<'_> {
    pub(crate) fn diagnostics(&self) -> Vec<Diagnostic> {
        let errors = |result: &JobResult| match result {
            JobResult::Failed(errors) => errors.clone(),
            JobResult::Compiled { .. } => Vec::new(),
        };
        self.jobs.iter().flat_map(|(_, result)| errors(result)).collect()
    }

    pub(crate) fn packs(&self, keep_going: bool) -> bool {
        self.threads.is_ok() && !self.modules.is_empty() && self.goes_on(keep_going)
    }

    /// Whether no job gave an error, or `keep_going` lets the build go on.
    pub(crate) fn goes_on(&self, keep_going: bool) -> bool {
        keep_going
            || self.jobs.iter().all(|(_, result)| !matches!(result, JobResult::Failed(errors) if !errors.is_empty()))
    }
}

/// Compiles every job of `sources`; also the compilers packing goes on with.
pub(crate) fn compile_all<'a>(plan: &Plan, sources: &'a Sources) -> (Compiled<'a>, Compilers) {
    let settings = &plan.settings;
    let remote = Session::start(&plan.remote_cache, crate::env::var);
    let cache = Cache::new(plan.cache_dir.clone())
        .with_remote(remote.client())
        .with_prepared(plan.prepared_dir.as_deref(), plan.prepare_session.as_deref());
    let preparing_warning = (cache.is_preparing() && !settings.strip_debug).then(|| {
        format!(
            "prepared entries of this build keep debug info, whose SPIR-V names the shaders by absolute path: they \
             serve only checkouts at {}; Config::strip_debug(true) makes them serve every checkout",
            plan.inputs.base.display()
        )
    });
    let compilers = Compilers::start(plan.directives);
    let cx = Context {
        settings,
        cache: &cache,
        identity: compiler_identity(settings, &cache),
        slang_identity: if sources.jobs.iter().any(|job| job.language == Language::Slang) {
            slang_identity(settings, &cache)
        } else {
            String::new()
        },
        hashes: FileHashes::default(),
        paths: PortablePaths::new(
            sources.jobs.iter().map(|job| job.path.as_path()),
            // WESL packages are searched like include directories.
            settings.include_dirs.iter().chain(settings.wesl_packages.iter().map(|(_, dir)| dir)).map(PathBuf::as_path),
        ),
        compilers: &compilers,
    };
    if cache.has_remote() {
        let keys: Vec<_> = sources.jobs.iter().filter_map(|job| current_key(job, &cx)).collect();
        cache.prefetch(&keys);
    }
    let threads = Threads::new(plan.threads);
    let outputs: Vec<Result<JobOutput, Vec<Diagnostic>>> = match &threads {
        Ok(threads) => {
            // Under a build script, compiler chatter stays off Cargo's stdout.
            let _quiet = plan.directives.then(QuietStdout::begin);
            threads.each(&sources.jobs, |job| compile_job(job, &cx))
        }
        Err(_) => Vec::new(),
    };
    drop(cx);
    let mut jobs = Vec::new();
    let mut warnings = Vec::new();
    let mut modules: Vec<Built<'_>> = Vec::new();
    for (job, output) in sources.jobs.iter().zip(outputs) {
        let result = match output {
            Ok(output) => {
                warnings.extend(output.warnings);
                let dependencies: Arc<[PathBuf]> = output.dependencies.iter().map(|(path, _)| path.clone()).collect();
                modules.extend(output.modules.into_iter().map(|module| Built {
                    module,
                    job,
                    cached: output.cached,
                    dependencies: dependencies.clone(),
                }));
                JobResult::Compiled { cached: output.cached, dependencies, missing: output.missing }
            }
            Err(mut errors) => {
                if let Some(variant) = &job.variant {
                    errors.iter_mut().for_each(|d| d.message = format!("{} (in variant {variant:?})", d.message));
                }
                JobResult::Failed(errors)
            }
        };
        jobs.push((job, result));
    }
    // A Vulkan device refuses newer modules (naga, for wgpu, takes any).
    if plan.packing.target == Target::Vulkan {
        let compiled = modules.iter().map(|built| target_check::Checked {
            name: &built.module.name,
            language: built.job.language,
            spirv: &built.module.spirv,
        });
        warnings.extend(target_check::newer_than_target(compiled, plan.device));
    }
    modules.sort_by(|a, b| a.module.name.cmp(&b.module.name));
    let compiled = Compiled { cache, remote, threads, preparing_warning, jobs, warnings, modules };
    // Idle workers end here, unless packing translates to WGSL in them.
    let compilers = if plan.packing.target.may_ship_wgsl() && compiled.goes_on(plan.keep_going) {
        compilers
    } else {
        drop(compilers);
        Compilers::InProcess
    };
    (compiled, compilers)
}
