//! Finding shader sources and turning them into compile jobs.
//!
//! A job is one source compiled with one set of defines. GLSL and HLSL jobs
//! produce one module; WGSL jobs produce one module per entry point.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use smolv_runtime::reflect::ShaderStage;

use crate::error::Error;
use crate::options::Define;
use crate::settings::Inputs;

/// A shading language.
///
/// ```
/// use smolv_build::Language;
/// // As the JSON reports name it.
/// assert_eq!(serde_json::to_string(&Language::Wgsl)?, "\"wgsl\"");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// GLSL, compiled by shaderc.
    Glsl,
    /// HLSL, compiled by shaderc.
    Hlsl,
    /// WGSL, compiled by naga.
    Wgsl,
    /// Precompiled SPIR-V (`.spv`, `.spirv`): stage and entry point come
    /// from its first `OpEntryPoint`; it is optimized and stripped like a
    /// compiled module. Defines do not apply to it.
    Spirv,
}

/// One compilation: a source, its stage (GLSL/HLSL), and its defines.
#[derive(Clone, Debug)]
pub(crate) struct Job {
    /// Module name: the path relative to its shader root, `/`-separated,
    /// plus `@variant` for variants.
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) language: Language,
    /// Known for GLSL and HLSL; WGSL and SPIR-V take it from the module.
    pub(crate) stage: Option<ShaderStage>,
    pub(crate) entry_point: String,
    pub(crate) defines: Vec<Define>,
    pub(crate) variant: Option<String>,
    /// Specialization constants frozen at build time.
    pub(crate) spec_constants: Vec<(u32, smolv_runtime::specialize::Value)>,
}

/// Scanned inputs: the jobs, and every directory and file Cargo should
/// watch.
pub(crate) struct Sources {
    pub(crate) jobs: Vec<Job>,
    pub(crate) watched: Vec<PathBuf>,
    /// Things worth telling the user, like an `.hlsl` file skipped for
    /// naming no stage.
    pub(crate) warnings: Vec<String>,
}

/// The stage a file extension names (`.vert`, `.frag`, ...).
pub(crate) fn stage_from_extension(ext: &str) -> Option<ShaderStage> {
    Some(match ext {
        "vert" => ShaderStage::Vertex,
        "frag" => ShaderStage::Fragment,
        "comp" => ShaderStage::Compute,
        "geom" => ShaderStage::Geometry,
        "tesc" => ShaderStage::TessellationControl,
        "tese" => ShaderStage::TessellationEvaluation,
        "mesh" => ShaderStage::Mesh,
        "task" => ShaderStage::Task,
        "rgen" => ShaderStage::RayGeneration,
        "rchit" => ShaderStage::ClosestHit,
        "rmiss" => ShaderStage::Miss,
        "rahit" => ShaderStage::AnyHit,
        "rint" => ShaderStage::Intersection,
        "rcall" => ShaderStage::Callable,
        _ => return None,
    })
}

/// The stage a `#pragma shader_stage(...)` names.
fn stage_from_pragma_name(name: &str) -> Option<ShaderStage> {
    Some(match name {
        "vertex" => ShaderStage::Vertex,
        "fragment" => ShaderStage::Fragment,
        "compute" => ShaderStage::Compute,
        "geometry" => ShaderStage::Geometry,
        "tesscontrol" => ShaderStage::TessellationControl,
        "tesseval" => ShaderStage::TessellationEvaluation,
        "mesh" => ShaderStage::Mesh,
        "task" => ShaderStage::Task,
        other => return stage_from_extension(other),
    })
}

/// Reads `#pragma shader_stage(<stage>)` from source text.
pub(crate) fn stage_from_pragma(source: &str) -> Option<ShaderStage> {
    source.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix("#")?.trim_start().strip_prefix("pragma")?;
        let rest = rest.trim_start().strip_prefix("shader_stage")?.trim_start().strip_prefix('(')?;
        stage_from_pragma_name(rest.split(')').next()?.trim())
    })
}

/// Classifies a file: its language and, for GLSL/HLSL, its stage (from the
/// extension, a double extension like `blur.comp.hlsl`, or a pragma).
/// `Ok(None)` means "not a shader to compile" (an include-only `.glsl`, a
/// header, or an unrelated file). `.spv` and `.spirv` files are precompiled
/// modules.
fn classify(path: &Path) -> Result<Option<(Language, Option<ShaderStage>)>, Error> {
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let mut parts = file_name.rsplit('.');
    let ext = parts.next().unwrap_or_default();
    let inner_ext = parts.next().filter(|_| file_name.matches('.').count() >= 2);
    let language = match ext {
        "wgsl" => return Ok(Some((Language::Wgsl, None))),
        "spv" | "spirv" => return Ok(Some((Language::Spirv, None))),
        "hlsl" => Language::Hlsl,
        "glsl" => Language::Glsl,
        other => return Ok(stage_from_extension(other).map(|stage| (Language::Glsl, Some(stage)))),
    };
    if let Some(stage) = inner_ext.and_then(stage_from_extension) {
        return Ok(Some((language, Some(stage))));
    }
    let source = std::fs::read_to_string(path)
        .map_err(|e| Error::io(path, e, "check that the shader file is readable UTF-8 text"))?;
    // A .glsl/.hlsl file that names no stage is an include file.
    Ok(stage_from_pragma(&source).map(|stage| (language, Some(stage))))
}

/// Whether a file is an `.hlsl` file without a stage, which is skipped as
/// an include; HLSL includes are usually `.hlsli`, so this deserves a word.
fn is_stageless_hlsl(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "hlsl") && matches!(classify(path), Ok(None))
}

impl Sources {
    /// Scans the configured directories, files and globs.
    pub(crate) fn scan(inputs: &Inputs) -> Result<Self, Error> {
        let base = inputs.base.as_path();
        // name -> (path, language, stage); BTreeMap keeps a stable order.
        let mut found: BTreeMap<String, (PathBuf, Language, Option<ShaderStage>)> = BTreeMap::new();
        let mut watched = Vec::new();
        let add = |name: String, path: PathBuf, found: &mut BTreeMap<String, (PathBuf, _, _)>| -> Result<(), Error> {
            if let Some((language, stage)) = classify(&path)? {
                if let Some((other, _, _)) = found.get(&name).filter(|(other, _, _)| *other != path) {
                    return Err(Error::Config(format!(
                        "two shaders are named {name:?}: {} and {}; module names are paths below their shader \
                         directory, so give one of them another name or directory",
                        other.display(),
                        path.display()
                    )));
                }
                found.insert(name, (path, language, stage));
            }
            Ok(())
        };
        for dir in &inputs.shader_dirs {
            let dir = base.join(dir);
            if !dir.is_dir() {
                return Err(Error::io(
                    &dir,
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                    "Config::shader_dir must name an existing directory (relative paths start at the crate root)",
                ));
            }
            let mut files = Vec::new();
            walk(&dir, &mut files, &mut watched)?;
            for file in files {
                add(relative_name(&file, &dir), file, &mut found)?;
            }
        }
        for file in &inputs.shader_files {
            let file = base.join(file);
            if !file.is_file() {
                return Err(Error::io(
                    &file,
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                    "Config::shader must name an existing file",
                ));
            }
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            watched.push(file.clone());
            add(name, file, &mut found)?;
        }
        for pattern in &inputs.shader_globs {
            let full = base.join(pattern).to_string_lossy().into_owned();
            let root = glob_root(Path::new(&full));
            let paths = glob::glob(&full).map_err(|e| Error::Config(format!("bad glob {pattern:?}: {e}")))?;
            watched.push(root.clone());
            for path in paths.flatten().filter(|p| p.is_file()) {
                add(relative_name(&path, &root), path, &mut found)?;
            }
        }
        let warnings = watched
            .iter()
            .filter(|dir| dir.is_dir())
            .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten().map(|e| e.path()))
            .filter(|path| is_stageless_hlsl(path))
            .map(|path| {
                format!(
                    "{} names no shader stage, so it is treated as an include file; name it like \
                     `blur.comp.hlsl` or add `#pragma shader_stage(compute)` to compile it",
                    path.display()
                )
            })
            .collect();
        let jobs = expand_jobs(inputs, found)?;
        Ok(Self { jobs, watched, warnings })
    }
}

/// Every file below `dir`; directories are recorded for Cargo to watch, so
/// that added files trigger a rebuild.
fn walk(dir: &Path, files: &mut Vec<PathBuf>, watched: &mut Vec<PathBuf>) -> Result<(), Error> {
    watched.push(dir.to_owned());
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e, "check the shader directory's permissions"))?;
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, files, watched)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}

fn relative_name(path: &Path, root: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The directory part of a glob before its first wildcard.
fn glob_root(pattern: &Path) -> PathBuf {
    let mut root = PathBuf::new();
    for component in pattern.components() {
        let text = component.as_os_str().to_string_lossy();
        if text.contains(['*', '?', '[']) {
            break;
        }
        root.push(component);
    }
    if root == pattern { root.parent().map(Path::to_owned).unwrap_or_default() } else { root }
}

/// One job per source, plus one per declared variant.
fn expand_jobs(
    inputs: &Inputs,
    found: BTreeMap<String, (PathBuf, Language, Option<ShaderStage>)>,
) -> Result<Vec<Job>, Error> {
    // Every shader a variant or a shader_define names must exist.
    let variants = inputs.variants.iter().map(|(shader, v)| (shader, format!("variant {:?}", v.name)));
    let defines = inputs.shader_defines.iter().map(|(shader, d)| (shader, format!("shader_define {:?}", d.name)));
    if let Some((shader, what)) = variants.chain(defines).find(|(shader, _)| !found.contains_key(*shader)) {
        let known: Vec<&str> = found.keys().map(String::as_str).collect();
        return Err(Error::Config(format!(
            "{what} names shader {shader:?}, which was not found; shaders are: {}",
            known.join(", ")
        )));
    }
    let mut jobs = Vec::new();
    for (name, (path, language, stage)) in found {
        let own_defines = inputs.shader_defines.iter().filter(|(s, _)| *s == name).map(|(_, d)| d.clone());
        let variant_defines = inputs.variants.iter().filter(|(s, v)| *s == name && !v.defines.is_empty());
        if language == Language::Wgsl && (own_defines.clone().next().is_some() || variant_defines.count() > 0) {
            return Err(Error::Config(format!(
                "{name} is WGSL, which has no preprocessor, so defines cannot change it; use a pipeline-overridable \
                 constant (`override`) and Variant::spec_constant instead"
            )));
        }
        let mut defines = if language == Language::Wgsl { Vec::new() } else { inputs.defines.clone() };
        defines.extend(own_defines);
        let base = Job {
            name: name.clone(),
            path,
            language,
            stage,
            entry_point: "main".to_owned(),
            defines,
            variant: None,
            spec_constants: Vec::new(),
        };
        for (_, variant) in inputs.variants.iter().filter(|(s, _)| *s == name) {
            let mut job = base.clone();
            job.name = format!("{name}@{}", variant.name);
            job.defines.extend(variant.defines.iter().cloned());
            job.variant = Some(variant.name.clone());
            job.spec_constants = variant.spec_constants.clone();
            jobs.push(job);
        }
        jobs.push(base);
    }
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pragma_names_the_stage() {
        assert_eq!(stage_from_pragma("#version 450\n#pragma shader_stage(compute)\n"), Some(ShaderStage::Compute));
        assert_eq!(stage_from_pragma("  #  pragma shader_stage( fragment )"), Some(ShaderStage::Fragment));
        assert_eq!(stage_from_pragma("// no pragma"), None);
    }

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "#version 450\nvoid main() {}\n").unwrap();
        }
        dir
    }

    fn scan(config: &crate::Config) -> Result<Sources, Error> {
        Sources::scan(&config.inputs(Path::new("/")))
    }

    #[test]
    fn two_shaders_of_one_name_are_an_error() {
        let (a, b) = (tree(&["lit.frag"]), tree(&["lit.frag"]));
        let mut config = crate::Config::new();
        config.shader_dir(a.path()).shader_dir(b.path());
        let Err(Error::Config(message)) = scan(&config) else { panic!("two lit.frag must not be accepted") };
        assert!(message.contains("two shaders are named \"lit.frag\""), "{message}");
        // The same file named twice is one shader.
        let mut config = crate::Config::new();
        config.shader_dir(a.path()).shader(a.path().join("lit.frag"));
        assert_eq!(scan(&config).unwrap().jobs.len(), 1);
    }

    #[test]
    fn a_define_for_an_unknown_shader_is_an_error() {
        let dir = tree(&["lit.frag"]);
        let mut config = crate::Config::new();
        config.shader_dir(dir.path()).shader_define("lit.farg", "FOG", "1");
        let Err(Error::Config(message)) = scan(&config) else { panic!("a define for no shader must not be accepted") };
        assert!(message.contains("\"lit.farg\"") && message.contains("lit.frag"), "{message}");
    }

    #[test]
    fn defines_on_wgsl_are_an_error_and_global_ones_skip_it() {
        let dir = tree(&["lit.frag"]);
        std::fs::write(dir.path().join("sky.wgsl"), "@fragment fn fs() {}\n").unwrap();
        let mut config = crate::Config::new();
        config.shader_dir(dir.path()).define("QUALITY", "2");
        let jobs = scan(&config).unwrap().jobs;
        let defines = |name: &str| jobs.iter().find(|j| j.name == name).unwrap().defines.len();
        assert_eq!((defines("lit.frag"), defines("sky.wgsl")), (1, 0));
        config.variants("sky.wgsl", [crate::Variant::new("night").define("NIGHT", "1")]);
        let Err(Error::Config(message)) = scan(&config) else { panic!("a WGSL define variant must not be accepted") };
        assert!(message.contains("sky.wgsl is WGSL"), "{message}");
    }

    #[test]
    fn glob_root_is_the_fixed_prefix() {
        assert_eq!(glob_root(Path::new("/a/b/**/*.frag")), PathBuf::from("/a/b"));
        assert_eq!(glob_root(Path::new("/a/b/x.frag")), PathBuf::from("/a/b"));
    }
}
