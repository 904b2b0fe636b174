//! The end of every build, failed ones included: the report, types, Cargo directives and `OUT_DIR`'s files.

use std::path::Path;

use crate::compile::all::{Compiled, JobResult};
use crate::error::Error;
use crate::options::Target;
use crate::output::build_log;
use crate::output::emit::{self, Directives, TYPES_FILE};
use crate::output::report::{FailedShader, Report};
use crate::output::types::for_build::generate_types;
use crate::pack::artifacts::Artifacts;
use crate::settings::Plan;
use crate::source::Sources;

/// How far a build came.
#[allow(clippy::large_enum_variant, reason = "one a build, moved once")]
pub(crate) enum Build<'a> {
    /// Its shaders could not be listed: nothing in `OUT_DIR` changes.
    Unscanned(Error),
    /// It found no shaders: the last build's artifacts go.
    NoShaders,
    /// It compiled; `packed` is what the pack stage made, where it ran.
    Compiled { sources: &'a Sources, compiled: Compiled<'a>, packed: Option<Result<Artifacts, Error>> },
}

/// What becomes of the build's log.
enum Log {
    Keep,
    Remove,
    Write(String),
}

/// What becomes of the artifacts in `OUT_DIR`: kept, removed, or replaced.
enum Files {
    Keep(Log),
    Remove(Log),
    Write { artifacts: Box<Artifacts>, types: String, log: Log },
}

/// Writes the files of `OUT_DIR`, then every Cargo directive and warning, in the order the build met them.
pub(crate) fn write(plan: &Plan, directives: Directives, build: Build<'_>) -> Result<Report, Error> {
    let (files, result) = finish(plan, &directives, build);
    let wrote_artifacts = matches!(files, Files::Write { .. });
    let result = files.write(&plan.out_dir, result);
    if let Ok(report) = &result
        && plan.print_report
        && wrote_artifacts
    {
        directives.warning(&report.to_text());
    }
    directives.print();
    result
}

/// The report, the directives and the files of `build`, nothing written yet.
fn finish(plan: &Plan, directives: &Directives, build: Build<'_>) -> (Files, Result<Report, Error>) {
    let (sources, compiled, packed) = match build {
        Build::Unscanned(error) => return (Files::Keep(Log::Keep), Err(error)),
        Build::NoShaders => {
            return (Files::Remove(Log::Keep), Err(Error::NoShaders { searched: plan.inputs.describe() }));
        }
        Build::Compiled { sources, compiled, packed } => (sources, compiled, packed),
    };
    let diagnostics = compiled.diagnostics();
    let Compiled { cache, remote, threads, preparing_warning, jobs, warnings, modules } = compiled;
    preparing_warning.iter().for_each(|warning| directives.warning(warning));
    // Every log is this build's: the last one goes unless this one fails.
    let log = || if plan.directives { Log::Remove } else { Log::Keep };
    if let Err(error) = threads {
        return (Files::Keep(log()), Err(error));
    }
    let mut report = Report { out_dir: plan.out_dir.clone(), warnings: sources.warnings.clone(), ..Report::default() };
    report
        .count_languages(jobs.iter().map(|(job, result)| (job.language, matches!(result, JobResult::Compiled { .. }))));
    // One line per shader for the build's log, not Cargo's output.
    let mut progress = String::new();
    let mut failed = 0;
    for (job, result) in &jobs {
        match result {
            JobResult::Compiled { cached, dependencies, missing } => {
                dependencies.iter().for_each(|path| directives.rerun_if_changed(path));
                // A missing path cannot be watched; its directory sees it appear.
                missing
                    .iter()
                    .filter_map(|path| path.parent().filter(|dir| dir.is_dir()))
                    .for_each(|dir| directives.rerun_if_changed(dir));
                let (count, done) =
                    if *cached { (&mut report.cache_hits, "from cache") } else { (&mut report.compiled, "compiled") };
                *count += 1;
                progress.push_str(&format!("{done} {}\n", job.path.display()));
            }
            JobResult::Failed(errors) => {
                directives.rerun_if_changed(&job.path);
                failed += 1;
                progress.push_str(&format!("failed {}\n", job.path.display()));
                report.failures.push(FailedShader {
                    name: job.name.clone(),
                    source: job.path.clone(),
                    language: Some(job.language),
                    errors: errors.iter().map(ToString::to_string).collect(),
                });
            }
        }
    }
    report.warnings.extend(warnings);
    report.warnings.iter().for_each(|w| directives.warning(w));
    if !diagnostics.is_empty() && !plan.keep_going {
        // What did compile is uploaded all the same (waited for here).
        report.add_remote(remote.finish()).iter().for_each(|w| directives.warning(w));
        let error = Error::Compile { diagnostics, failed, total: sources.jobs.len() };
        // The whole text, naga's snippets included; `cargo::error`s are one line each.
        let log = if plan.directives { Log::Write(format!("{progress}\n{error}")) } else { Log::Keep };
        return (Files::Remove(log), Err(error));
    }
    // keep_going: the failures show as warnings.
    diagnostics.iter().for_each(|d| directives.warning(&d.to_string()));
    if modules.is_empty() {
        report.add_remote(remote.finish()).iter().for_each(|w| directives.warning(w));
        return (Files::Remove(log()), Ok(report));
    }
    let mut artifacts = match packed {
        Some(Ok(artifacts)) => artifacts,
        Some(Err(error)) => return (Files::Keep(log()), Err(error)),
        None => return (Files::Keep(log()), Err(Error::Internal("compiled modules were not packed".to_owned()))),
    };
    report.add_artifacts(&modules, &artifacts);
    // A wgpu target's shaders that ship as SPIR-V because naga refused them.
    artifacts.warnings.iter().for_each(|w| directives.warning(w));
    if artifacts.run_again {
        directives.run_again(&plan.out_dir);
    }
    report.warnings.extend(artifacts.warnings.iter().cloned());
    report.add_remote(remote.finish()).iter().for_each(|w| directives.warning(w));
    // The cache is done with once the remote session is.
    drop(cache);
    report.total();
    let file = plan.out_dir.join(smolv_format::ARTIFACT_DIR).join(TYPES_FILE);
    let wgpu_items = plan.packing.target != Target::Vulkan;
    let (generated, types) = generate_types(&modules, &artifacts, wgpu_items, &plan.programs, file);
    // Hot reload names the type a changed block no longer matches.
    for (module, types) in artifacts.manifest.modules.iter_mut().zip(&generated.block_types) {
        if let Some(recipe) = &mut module.recipe {
            recipe.set_block_types(types.clone());
        }
    }
    generated.problems.iter().for_each(|p| directives.warning(&format!("smolv types: {p}")));
    report.types = Some(types);
    (Files::Write { artifacts: Box::new(artifacts), types: generated.code, log: log() }, Ok(report))
}

impl Files {
    /// Writes, or removes, what `self` says; then `result`, unless writing failed.
    fn write(self, out_dir: &Path, result: Result<Report, Error>) -> Result<Report, Error> {
        let (Files::Keep(log) | Files::Remove(log) | Files::Write { log, .. }) = &self;
        // Where a new log cannot be written, no older one stays either.
        if !matches!(log, Log::Keep) {
            build_log::clear(out_dir);
        }
        if let Log::Write(text) = log {
            build_log::write(out_dir, text);
        }
        match self {
            Files::Keep(_) => result,
            Files::Remove(_) => {
                emit::remove_artifacts(out_dir);
                result
            }
            // `finish` pairs files to write with a report only.
            Files::Write { artifacts, types, .. } => {
                result.and_then(|report| emit::write_artifacts(out_dir, &artifacts, &types, &report).map(|()| report))
            }
        }
    }
}
