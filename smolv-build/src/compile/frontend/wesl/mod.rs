//! WESL through the `wesl` crate: linked into one WGSL module that naga compiles; errors `locate`d.

mod files;
mod locate;
mod mangle;

use wesl::syntax::PathOrigin;
use wesl::{CompileOptions, Feature, Features, ModulePath};

use super::Compiled;
use super::wgsl;
use crate::error::Diagnostic;
use crate::settings::Settings;
use crate::source::Job;
use files::Files;
use locate::Linked;

#[cfg(test)]
use super::WESL_VERSION;

/// The job's own module path: `package::` and its name's components.
fn module_path(job: &Job) -> ModulePath {
    let relative = job.name.split('@').next().unwrap_or_default();
    let relative = relative.strip_suffix(".wesl").unwrap_or(relative);
    ModulePath::new(PathOrigin::Absolute, relative.split('/').map(str::to_owned).collect())
}

/// The wesl crate's options: `@if` with the job's features (one not set is off).
fn options(job: &Job) -> CompileOptions {
    let mut features = Features { default: Feature::Disable, ..Features::default() };
    for (name, value) in &job.wesl_features {
        features.flags.insert(name.clone(), Feature::from(*value));
    }
    CompileOptions { features, ..CompileOptions::default() }
}

pub(super) fn compile(job: &Job, source: &str, settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    let files = Files::new(job.root(), &settings.wesl_packages, (&job.path, source));
    let root = module_path(job);
    let linked = wesl::compile_sourcemap(&root, &files, &mangle::PathMangler, &options(job))
        .map_err(|e| vec![locate::wesl_error(e, &files, &job.path)])?;
    let output = linked.to_string();
    let (module, info) = wgsl::parse(&output, &job.path.to_string_lossy()).map_err(|e| {
        let context = Linked { output: &output, result: &linked, root: &root, files: &files, shader: &job.path };
        vec![locate::naga_error(e, &context)]
    })?;
    let modules = wgsl::entry_point_modules(job, &module, &info, settings)?;
    let (dependencies, missing) = files.finish();
    Ok(Compiled { modules, dependencies, missing, warnings: Vec::new() })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn job(name: &str, path: &Path) -> Job {
        Job::for_test(name, path, crate::Language::Wesl)
    }

    #[test]
    fn the_wesl_identity_is_the_exact_version_cargo_resolved() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).unwrap();
        let header = "name = \"wesl\"\nversion = \"";
        let locked = lock.split(header).nth(1).and_then(|rest| rest.split('"').next());
        assert_eq!(locked, Some(WESL_VERSION), "Cargo.lock resolves another wesl");
        let manifest = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap();
        assert!(manifest.contains(&format!("wesl = {{ version = \"={WESL_VERSION}\"")), "pin wesl exactly");
    }

    #[test]
    fn the_module_path_is_the_name_below_the_root() {
        let shader = Path::new("/g/shaders/lit/main.wesl");
        let job = job("lit/main.wesl@shadows", shader);
        assert_eq!(module_path(&job).to_string(), "package::lit::main");
    }

    #[test]
    fn imports_across_directories_and_features_link_into_one_module_per_entry_point() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/tint.wesl"), "fn tint(c: vec3f) -> vec3f { return c * 0.5; }\n").unwrap();
        let source = "import package::lib::tint::tint;\n\
                      @if(bright) const GAIN = 2.0;\n@else const GAIN = 1.0;\n\
                      @fragment fn fs() -> @location(0) vec4f { return vec4f(tint(vec3f(GAIN)), 1.0); }\n\
                      @vertex fn vs() -> @builtin(position) vec4f { return vec4f(0.0); }\n";
        let path = dir.path().join("main.wesl");
        std::fs::write(&path, source).unwrap();
        let settings = crate::compile::job::tests::settings();
        let mut job = job("main.wesl", &path);
        job.wesl_features.push(("bright".to_owned(), true));
        let compiled = compile(&job, source, &settings).unwrap_or_else(|e| panic!("{e:?}"));
        let names: Vec<&str> = compiled.modules.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["main.wesl#fs", "main.wesl#vs"]);
        assert_eq!(compiled.dependencies.len(), 1);
        assert_eq!(compiled.dependencies[0].0, dir.path().join("lib/tint.wesl"));
    }

    /// Compiles `main.wesl` (`source`), which imports `scale` from
    /// `lib/util.wesl` (`util`), in a new directory; its errors.
    fn errors_of(util: &str, source: &str) -> (tempfile::TempDir, PathBuf, Vec<Diagnostic>) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("lib")).unwrap();
        std::fs::write(dir.path().join("lib/util.wesl"), util).unwrap();
        let path = dir.path().join("main.wesl");
        std::fs::write(&path, source).unwrap();
        let errors = compile(&job("main.wesl", &path), source, &crate::compile::job::tests::settings()).unwrap_err();
        (dir, path, errors)
    }

    /// A shader that calls `scale` from `lib/util.wesl`.
    const CALLS_SCALE: &str = "import package::lib::util::scale;\n\
                               @fragment fn fs() -> @location(0) vec4f { return vec4f(scale(vec3f(1.0)), 1.0); }\n";

    #[test]
    fn a_type_error_in_an_imported_file_is_reported_there() {
        let util = "fn scale(c: vec3f) -> vec3f {\n    let k = 2.0;\n    return c * true;\n}\n";
        let (dir, _, errors) = errors_of(util, CALLS_SCALE);
        assert_eq!(errors[0].path, dir.path().join("lib/util.wesl"), "{errors:?}");
        assert_eq!((errors[0].line, errors[0].column), (3, 12), "at `c * true`: {errors:?}");
        assert!(errors[0].message.contains("Operation Multiply"), "naga's whole chain: {errors:?}");
        assert!(errors[0].message.contains("'package::lib::util::scale'"), "readable names: {errors:?}");
    }

    #[test]
    fn a_type_error_in_the_shader_itself_is_reported_at_its_line() {
        let source = "import package::lib::util::scale;\n\n@fragment fn fs() -> @location(0) vec4f {\n    \
                      let c = scale(vec3f(1.0));\n    return vec4f(c, 1.0) + 1u;\n}\n";
        let (_dir, path, errors) = errors_of("fn scale(c: vec3f) -> vec3f { return c * 2.0; }\n", source);
        assert_eq!((errors[0].path.as_path(), errors[0].line), (path.as_path(), 5), "{errors:?}");
    }

    #[test]
    fn an_unknown_name_in_an_imported_file_is_reported_there() {
        let util = "fn scale(c: vec3f) -> vec3f {\n    return c * gain;\n}\n";
        let (dir, _, errors) = errors_of(util, CALLS_SCALE);
        assert_eq!(errors[0].path, dir.path().join("lib/util.wesl"), "{errors:?}");
        assert_eq!((errors[0].line, errors[0].column), (2, 16), "{errors:?}");
    }
}
