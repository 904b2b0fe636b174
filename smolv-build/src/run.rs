//! The build, start to finish, on a resolved [`Plan`]: find the shaders,
//! compile, pack, then write; each stage returns data, only the last writes.

use crate::compile::all::compile_all;
use crate::error::Error;
use crate::output::emit::Directives;
use crate::output::report::Report;
use crate::output::{self, Build};
use crate::pack::pack;
use crate::settings::Plan;
use crate::source::Sources;

/// Runs the build `plan` describes.
pub(crate) fn run(plan: &Plan) -> Result<Report, Error> {
    let sources = Sources::scan(&plan.inputs);
    // Roots first (Cargo scans each recursively), before anything is written.
    let directives = Directives::new(plan.directives).around(&plan.out_dir);
    let settings = &plan.settings;
    let roots = settings.include_dirs.iter().chain(settings.wesl_packages.iter().map(|(_, dir)| dir));
    let found = sources.as_ref().map(|sources| sources.watched.as_slice()).unwrap_or_default();
    roots.chain(found).for_each(|root| directives.watch_root(root));
    let sources = match sources {
        Ok(sources) => sources,
        Err(error) => return output::write(plan, directives, Build::Unscanned(error)),
    };
    if sources.jobs.is_empty() {
        return output::write(plan, directives, Build::NoShaders);
    }
    let (compiled, compilers) = compile_all(plan, &sources);
    let packed = compiled.packs(plan.keep_going).then(|| pack(plan, &compiled, compilers));
    output::write(plan, directives, Build::Compiled { sources: &sources, compiled, packed })
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
        let spirv = || std::fs::read(out.join(crate::pack::naming::artifact_name(0, "a.frag", "spv"))).unwrap();
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
        let bytes: Vec<u8> = smolv_format::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
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
