//! The build, start to finish, on a resolved [`Plan`]:
//! [`source`](crate::source) (find the shaders) → [`compile`](crate::compile)
//! (frontend, optimizer; cached) → [`artifacts`](crate::pack::artifacts) (encode,
//! compress, pack, bundle) → [`emit`](crate::output::emit) (`OUT_DIR`, Cargo
//! directives, report).

use std::path::PathBuf;

use rayon::prelude::*;

use crate::cache::{Cache, FileHashes};
use crate::compile::build_log;
use crate::compile::portable::PortablePaths;
use crate::compile::quiet_stdout::QuietStdout;
use crate::compile::target_check;
use crate::compile::worker::Compilers;
use crate::compile::{Context, JobOutput, compile_job, compiler_identity, current_key, slang_identity};
use crate::error::Diagnostic;
use crate::error::Error;
use crate::options::{Language, Target};
use crate::output::emit::{self, Directives};
use crate::output::report::{FailedShader, Report};
use crate::pack::artifacts::{Built, build_artifacts};
use crate::settings::Plan;
use crate::source::Sources;
use crate::tokens::{JobLog, Tokens};

/// Runs the build `plan` describes.
pub(crate) fn run(plan: &Plan) -> Result<Report, Error> {
    let directives = Directives::new(plan.directives).around(&plan.out_dir);
    let settings = &plan.settings;
    // Roots first: Cargo scans each recursively, so what lies below them
    // (shaders, includes, files added later) needs no directive of its own.
    settings.include_dirs.iter().for_each(|dir| directives.watch_root(dir));
    settings.wesl_packages.iter().for_each(|(_, dir)| directives.watch_root(dir));

    let sources = Sources::scan(&plan.inputs)?;
    sources.watched.iter().for_each(|path| directives.watch_root(path));
    if sources.jobs.is_empty() {
        emit::remove_artifacts(&plan.out_dir);
        return Err(Error::NoShaders { searched: plan.inputs.describe() });
    }

    let remote = crate::cache::remote::Session::start(&plan.remote_cache, crate::env::var);
    let cache = Cache::new(plan.cache_dir.clone())
        .with_remote(remote.client())
        .with_prepared(plan.prepared_dir.as_deref(), plan.prepare_session.as_deref());
    if cache.is_preparing() && !settings.strip_debug {
        directives.warning(&format!(
            "prepared entries of this build keep debug info, whose SPIR-V names the shaders by absolute path: they \
             serve only checkouts at {}; Config::strip_debug(true) makes them serve every checkout",
            plan.inputs.base.display()
        ));
    }
    if plan.directives {
        build_log::clear(&plan.out_dir);
    }
    // Under a build script, the script itself serves as the worker.
    let compilers = Compilers::start(plan.directives);
    let cx = Context {
        settings,
        cache: &cache,
        identity: compiler_identity(settings, &cache),
        // Asked only when there is Slang to compile.
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
        // Remote lookups wait on the network: ask for every job's entry at once.
        let keys: Vec<_> = sources.jobs.iter().filter_map(|job| current_key(job, &cx)).collect();
        cache.prefetch(&keys);
    }
    let pool = thread_pool(plan.threads)?;
    // Each job runs on a token: Cargo's `-j` is shared by every build script.
    let tokens = Tokens::from_env();
    // Under a build script, whatever the compilers print stays off the
    // stdout Cargo reads directives from.
    let quiet = plan.directives.then(QuietStdout::begin);
    let outputs: Vec<Result<JobOutput, Vec<Diagnostic>>> = pool.install(|| {
        sources
            .jobs
            .par_iter()
            .enumerate()
            .map(|(index, job)| {
                let _token = tokens.acquire();
                let _log = JobLog::start(index);
                compile_job(job, &cx)
            })
            .collect()
    });
    drop(quiet);
    let mut report = Report { out_dir: plan.out_dir.clone(), warnings: sources.warnings.clone(), ..Report::default() };
    let mut diagnostics = Vec::new();
    let mut failed = 0;
    let mut modules: Vec<Built<'_>> = Vec::new();
    // One line per shader for the build's log: Cargo shows a build
    // script's output only when it fails, and then it should read as the
    // errors alone.
    let mut progress = String::new();
    report.count_languages(sources.jobs.iter().zip(&outputs).map(|(job, output)| (job.language, output.is_ok())));
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
                let done = if output.cached { "from cache" } else { "compiled" };
                progress.push_str(&format!("{done} {}\n", job.path.display()));
                let dependencies: std::sync::Arc<[std::path::PathBuf]> =
                    output.dependencies.iter().map(|(path, _)| path.clone()).collect();
                modules.extend(output.modules.into_iter().map(|module| Built {
                    module,
                    job,
                    cached: output.cached,
                    dependencies: dependencies.clone(),
                }));
            }
            Err(mut errors) => {
                directives.rerun_if_changed(&job.path);
                failed += 1;
                progress.push_str(&format!("failed {}\n", job.path.display()));
                if let Some(variant) = &job.variant {
                    errors.iter_mut().for_each(|d| d.message = format!("{} (in variant {variant:?})", d.message));
                }
                report.failures.push(FailedShader {
                    name: job.name.clone(),
                    source: job.path.clone(),
                    language: Some(job.language),
                    errors: errors.iter().map(ToString::to_string).collect(),
                });
                diagnostics.extend(errors);
            }
        }
    }
    // A Vulkan device of the target's version refuses newer modules (a
    // wgpu target hands SPIR-V to naga, which takes any version).
    if plan.packing.target == Target::Vulkan {
        let compiled = modules.iter().map(|built| target_check::Checked {
            name: &built.module.name,
            language: built.job.language,
            spirv: &built.module.spirv,
        });
        report.warnings.extend(target_check::newer_than_target(compiled, plan.device));
    }
    // Idle workers end here, unless packing translates to WGSL in them.
    let compilers = if plan.packing.target.may_ship_wgsl() && (diagnostics.is_empty() || plan.keep_going) {
        compilers
    } else {
        drop(compilers);
        Compilers::InProcess
    };
    report.warnings.iter().for_each(|w| directives.warning(w));
    if !diagnostics.is_empty() && !plan.keep_going {
        emit::remove_artifacts(&plan.out_dir);
        // What did compile is uploaded all the same (waited for here).
        report.add_remote(remote.finish()).iter().for_each(|w| directives.warning(w));
        let error = Error::Compile { diagnostics, failed, total: sources.jobs.len() };
        // The whole text, naga's annotated snippets included, for the log
        // that `Config::compile` names; its `cargo::error` lines are one
        // line per error.
        if plan.directives {
            build_log::write(&plan.out_dir, &format!("{progress}\n{error}"));
        }
        return Err(error);
    }
    // keep_going under a build script: the failures do not fail the build,
    // so Cargo shows them as warnings.
    diagnostics.iter().for_each(|d| directives.warning(&d.to_string()));
    if modules.is_empty() {
        emit::remove_artifacts(&plan.out_dir);
        report.add_remote(remote.finish()).iter().for_each(|w| directives.warning(w));
        return Ok(report);
    }
    modules.sort_by(|a, b| a.module.name.cmp(&b.module.name));

    // Packing splits its work across threads by itself: as many as it has
    // tokens for now.
    let mut artifacts = if tokens.limited() {
        let lease = tokens.lease(pool.current_num_threads());
        thread_pool(lease.len())?.install(|| build_artifacts(&modules, plan, &cache, &compilers))?
    } else {
        pool.install(|| build_artifacts(&modules, plan, &cache, &compilers))?
    };
    // The last idle workers end here, not when the build's outputs are
    // written.
    drop(compilers);
    report.add_artifacts(&modules, &artifacts);
    // A wgpu target's shaders that ship as SPIR-V because naga refused them.
    artifacts.warnings.iter().for_each(|w| directives.warning(w));
    if artifacts.run_again {
        directives.run_again(&plan.out_dir);
    }
    report.warnings.extend(artifacts.warnings.iter().cloned());
    report.add_remote(remote.finish()).iter().for_each(|w| directives.warning(w));
    report.total();
    let generated = generate_types(&modules, &artifacts, plan.packing.target != Target::Vulkan, &plan.programs);
    // Hot reload names the type a changed block no longer matches.
    for (module, types) in artifacts.manifest.modules.iter_mut().zip(&generated.block_types) {
        if let Some(recipe) = &mut module.recipe {
            recipe.set_block_types(types.clone());
        }
    }
    generated.problems.iter().for_each(|p| directives.warning(&format!("smolv types: {p}")));
    report.types = Some(generated.report);
    if let Some(types) = &mut report.types {
        types.file = plan.out_dir.join(smolv_format::ARTIFACT_DIR).join(emit::TYPES_FILE);
    }
    emit::write_artifacts(&plan.out_dir, &artifacts, &generated.code, &report)?;
    if plan.print_report {
        directives.warning(&report.to_text());
    }
    Ok(report)
}

struct GeneratedTypes {
    code: String,
    problems: Vec<String>,
    /// Per module, in manifest order: each block's Rust type.
    block_types: Vec<Vec<String>>,
    report: crate::report::TypesReport,
}

/// The Rust types of every module, from the SPIR-V as the front end wrote
/// it: before stripping, so release builds get the shader's names, and
/// before optimizing, since `spirv-opt -Os` drops the members a module
/// never reads, and the user fills every member the shader declares.
fn generate_types(
    modules: &[Built<'_>],
    artifacts: &crate::pack::artifacts::Artifacts,
    wgpu_items: bool,
    programs: &[(String, Vec<String>)],
) -> GeneratedTypes {
    use crate::output::types::{self, layout};
    use smolv_format::reflect::Interface;
    let started = std::time::Instant::now();
    let inputs: Vec<layout::ModuleInput> = modules
        .iter()
        .zip(&artifacts.manifest.modules)
        .map(|(built, module)| (built, module, Interface::from_spirv(&built.module.spirv).ok()))
        .map(|(built, module, interface)| layout::ModuleInput {
            name: module.name.clone(),
            source: built.job.path.clone(),
            mangling: match built.job.language {
                Language::Slang => layout::Mangling::Slang,
                // WESL's output is WGSL, compiled by naga.
                Language::Wgsl | Language::Wesl => layout::Mangling::Wgsl,
                // Ready SPIR-V is most often DXC's.
                Language::Spirv => layout::Mangling::Dxc,
                _ => layout::Mangling::None,
            },
            reflection: module.reflection.clone(),
            layouts: interface.as_ref().map(layout::from_interface).unwrap_or_default(),
            interface,
        })
        .collect();
    let generated = types::generate_with(&inputs, wgpu_items, programs);
    let report = crate::report::TypesReport {
        file: std::path::PathBuf::new(),
        modules: generated.modules,
        blocks: generated.blocks,
        structs: generated.structs,
        milliseconds: started.elapsed().as_secs_f64() * 1000.0,
        problems: generated.problems.clone(),
    };
    GeneratedTypes { code: generated.code, problems: generated.problems, block_types: generated.block_types, report }
}

/// Worker threads; 0 for one per core.
fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Internal(format!("cannot start worker threads: {e}")))
}

#[cfg(test)]
mod tests {
    use crate::Config;
    use crate::options::Optimization;

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
        let out = dir.path().join("out").join(smolv_format::ARTIFACT_DIR);
        let spirv = || std::fs::read(out.join(crate::pack::artifacts::artifact_name(0, "a.frag", "spv"))).unwrap();
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
}
