//! Finding shader sources and turning them into compile jobs: one per source and set of defines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use smolv_format::reflect::ShaderStage;

use crate::error::Error;
use crate::options::{Define, Language};
use crate::settings::Inputs;

/// One compilation: a source, its stage (GLSL/HLSL), and its defines.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Job {
    /// The path below its shader root, `/`-separated, plus `@variant` for variants.
    pub(crate) name: String,
    pub(crate) path: PathBuf,
    pub(crate) language: Language,
    /// Known for GLSL and HLSL; WGSL and SPIR-V take it from the module.
    pub(crate) stage: Option<ShaderStage>,
    pub(crate) entry_point: String,
    pub(crate) defines: Vec<Define>,
    pub(crate) variant: Option<String>,
    pub(crate) spec_constants: Vec<(u32, smolv_codec::specialize::Value)>,
    /// WESL's `@if` features, in the order set (a later value wins).
    #[serde(default)]
    pub(crate) wesl_features: Vec<(String, bool)>,
}

impl Job {
    /// The directory the job's source was found in (its path less its name's components).
    pub(crate) fn root(&self) -> PathBuf {
        let relative = self.name.split('@').next().unwrap_or_default();
        let depth = relative.split('/').count();
        self.path.ancestors().nth(depth).map(Path::to_owned).unwrap_or_default()
    }
}

#[cfg(test)]
impl Job {
    /// A job with entry point `main` and no stage, define, variant or feature.
    pub(crate) fn for_test(name: &str, path: impl Into<PathBuf>, language: Language) -> Self {
        Self {
            name: name.to_owned(),
            path: path.into(),
            language,
            stage: None,
            entry_point: "main".to_owned(),
            defines: Vec::new(),
            variant: None,
            spec_constants: Vec::new(),
            wesl_features: Vec::new(),
        }
    }
}

/// Scanned inputs: the jobs, and the roots Cargo should watch.
pub(crate) struct Sources {
    pub(crate) jobs: Vec<Job>,
    /// The shader roots (directories, globs' fixed leading directories, files named alone).
    pub(crate) watched: Vec<PathBuf>,
    pub(crate) warnings: Vec<String>,
}

/// Reads `#pragma shader_stage(<stage>)` from source text.
pub(crate) fn stage_from_pragma(source: &str) -> Option<ShaderStage> {
    source.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix("#")?.trim_start().strip_prefix("pragma")?;
        let rest = rest.trim_start().strip_prefix("shader_stage")?.trim_start().strip_prefix('(')?;
        ShaderStage::from_name_or_extension(rest.split(')').next()?.trim())
    })
}

/// A file's language and, for GLSL/HLSL, its stage; `Ok(None)` for an include or a module for `import`.
fn classify(path: &Path) -> Result<Option<(Language, Option<ShaderStage>)>, Error> {
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let mut parts = file_name.rsplit('.');
    let ext = parts.next().unwrap_or_default();
    let inner_ext = parts.next().filter(|_| file_name.matches('.').count() >= 2);
    let read = || {
        std::fs::read_to_string(path)
            .map_err(|e| Error::io(path, e, "check that the shader file is readable UTF-8 text"))
    };
    let language = match ext {
        "wgsl" => return Ok(Some((Language::Wgsl, None))),
        // A WESL file without entry points is a module for `import`.
        "wesl" => return Ok(has_wesl_entry_point(&read()?).then_some((Language::Wesl, None))),
        "spv" | "spirv" => return Ok(Some((Language::Spirv, None))),
        // A Slang file without entry points is a module for `import`.
        "slang" => return Ok(has_slang_entry_point(&read()?).then_some((Language::Slang, None))),
        "hlsl" => Language::Hlsl,
        "glsl" => Language::Glsl,
        other => return Ok(ShaderStage::from_extension(other).map(|stage| (Language::Glsl, Some(stage)))),
    };
    if let Some(stage) = inner_ext.and_then(ShaderStage::from_extension) {
        return Ok(Some((language, Some(stage))));
    }
    // A .glsl/.hlsl file that names no stage is an include file.
    Ok(stage_from_pragma(&read()?).map(|stage| (language, Some(stage))))
}

/// Whether Slang source has a `[shader("…")]` attribute (an entry point).
pub(crate) fn has_slang_entry_point(source: &str) -> bool {
    source.match_indices('[').any(|(at, _)| {
        let rest = source[at + 1..].trim_start();
        rest.strip_prefix("shader").is_some_and(|rest| rest.trim_start().starts_with('('))
    })
}

/// Whether WESL source has `@vertex`, `@fragment` or `@compute` outside `//` comments.
pub(crate) fn has_wesl_entry_point(source: &str) -> bool {
    source.lines().map(|line| line.split("//").next().unwrap_or_default()).any(|code| {
        code.match_indices('@').any(|(at, _)| {
            let word = code[at + 1..].trim_start();
            let word = &word[..word.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(word.len())];
            matches!(word, "vertex" | "fragment" | "compute")
        })
    })
}

/// A [`Config::language`](crate::Config::language) override, resolved against the crate root.
#[derive(Clone, Debug)]
pub(crate) struct LanguageOverride {
    /// As configured, for messages.
    pub(crate) pattern: String,
    pub(crate) language: Language,
    /// The directory (everything below it) or file, unless a glob.
    path: PathBuf,
    glob: Option<glob::Pattern>,
}

impl LanguageOverride {
    /// `pattern` (relative to `base`) stated to hold `language`.
    pub(crate) fn new(base: &Path, pattern: &str, language: Language) -> Result<Self, Error> {
        if !matches!(language, Language::Glsl | Language::Hlsl) {
            return Err(Error::Config(format!(
                "Config::language({pattern:?}, {language}): only GLSL and HLSL can be stated (glslc's `-x glsl` \
                 and `-x hlsl`); WGSL, Slang and SPIR-V files are known by their extension"
            )));
        }
        let path = base.join(pattern);
        let glob = pattern.contains(['*', '?', '[']).then(|| glob::Pattern::new(&path.to_string_lossy()));
        let glob = glob.transpose().map_err(|e| Error::Config(format!("bad language glob {pattern:?}: {e}")))?;
        Ok(Self { pattern: pattern.to_owned(), language, path, glob })
    }

    /// Whether `path` (as the scan found it) is covered.
    fn covers(&self, path: &Path) -> bool {
        match &self.glob {
            Some(glob) => glob.matches_path(path),
            None => {
                path.starts_with(&self.path)
                    || matches!((path.canonicalize(), self.path.canonicalize()), (Ok(p), Ok(r)) if p.starts_with(&r))
            }
        }
    }
}

impl Sources {
    /// Scans the configured directories, files and globs.
    pub(crate) fn scan(inputs: &Inputs) -> Result<Self, Error> {
        let base = inputs.base.as_path();
        let overrides = inputs.languages.iter().map(|(path, language)| LanguageOverride::new(base, path, *language));
        let overrides = overrides.collect::<Result<Vec<_>, _>>()?;
        let mut used = vec![false; overrides.len()];
        // name -> (path, language, stage); BTreeMap keeps a stable order.
        let mut found: BTreeMap<String, (PathBuf, Language, Option<ShaderStage>)> = BTreeMap::new();
        let mut watched = Vec::new();
        // Every directory scanned, subdirectories included; sets keep them sorted and once each.
        let mut scanned = BTreeSet::new();
        let mut leftovers = BTreeSet::new();
        // A directory configured twice is walked twice: its links once.
        let mut link_warnings = BTreeSet::new();
        // A file found in a tree (not named alone) may be an old output.
        let mut add = |name: String, path: PathBuf, in_tree: bool| -> Result<(), Error> {
            if let Some(source) = in_tree.then(|| leftover_output(&path)).flatten() {
                leftovers.insert((path, source));
            } else if let Some((language, stage)) = classify(&path)? {
                // The language of a GLSL or HLSL file after the overrides (the last wins).
                let glsl_or_hlsl = matches!(language, Language::Glsl | Language::Hlsl);
                let decided_by = glsl_or_hlsl.then(|| overrides.iter().rposition(|o| o.covers(&path))).flatten();
                decided_by.iter().for_each(|&index| used[index] = true);
                let language = decided_by.map_or(language, |index| overrides[index].language);
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
                return Err(Error::not_found(
                    &dir,
                    "Config::shader_dir must name an existing directory (relative paths start at the crate root)",
                ));
            }
            watched.push(dir.clone());
            let mut walk = Walk::default();
            walk.dir(&dir)?;
            scanned.append(&mut walk.dirs);
            link_warnings.append(&mut walk.warnings);
            for file in walk.files {
                add(relative_name(&file, &dir), file, true)?;
            }
        }
        for file in &inputs.shader_files {
            let file = base.join(file);
            if !file.is_file() {
                return Err(Error::not_found(&file, "Config::shader must name an existing file"));
            }
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            watched.push(file.clone());
            add(name, file, false)?;
        }
        for pattern in &inputs.shader_globs {
            let full = base.join(pattern).to_string_lossy().into_owned();
            let root = glob_root(Path::new(&full));
            let glob = glob::Pattern::new(&full).map_err(|e| Error::Config(format!("bad glob {pattern:?}: {e}")))?;
            watched.push(root.clone());
            scanned.insert(root.clone());
            let paths = if full.contains("**") {
                // The glob crate follows link loops: walk as for shader directories, then match as it does.
                let mut walk = Walk::default();
                if root.is_dir() {
                    walk.dir(&root)?;
                }
                link_warnings.append(&mut walk.warnings);
                let options = glob::MatchOptions { require_literal_separator: true, ..glob::MatchOptions::new() };
                walk.files.retain(|path| glob.matches_path_with(path, options));
                walk.files
            } else {
                // A fixed depth: a link loop cannot make it recurse.
                glob::glob(&full).map_err(|e| Error::Config(format!("bad glob {pattern:?}: {e}")))?.flatten().collect()
            };
            for path in paths.into_iter().filter(|p| p.is_file()) {
                add(relative_name(&path, &root), path, true)?;
            }
        }
        if let Some(unused) = overrides.iter().zip(&used).find(|(_, used)| !**used) {
            return Err(Error::Config(format!(
                "the language stated for {:?} ({}) covers no GLSL or HLSL shader; name a directory, glob or file \
                 (relative to the crate root) that holds shaders named by stage (`.vert`, `blur.comp.hlsl`)",
                unused.0.pattern, unused.0.language
            )));
        }
        let leftover_warnings = leftovers.iter().map(|(output, source)| {
            format!(
                "{} is skipped: it sits beside its source {}, so it looks like an old compiled output, and smolv \
                 compiles the source itself; delete it to silence this warning (or rename it, if it is a module \
                 of its own)",
                output.display(),
                source.display()
            )
        });
        let listed = scanned.iter().flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten());
        // Skipped as an include, though HLSL's are usually `.hlsli`.
        let hlsl_includes = listed
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|e| e == "hlsl") && matches!(classify(path), Ok(None)))
            .map(|path| {
                format!(
                    "{} names no shader stage, so it is treated as an include file; name it like \
                     `blur.comp.hlsl` or add `#pragma shader_stage(compute)` to compile it",
                    path.display()
                )
            });
        let warnings = link_warnings.into_iter().chain(leftover_warnings).chain(hlsl_includes).collect();
        let jobs = expand_jobs(inputs, found)?;
        Ok(Self { jobs, watched, warnings })
    }
}

/// `X.spv` or `X.spirv` beside a shader `X` that discovery compiles (`glslc tri.vert -o tri.vert.spv`): skipped.
fn leftover_output(path: &Path) -> Option<PathBuf> {
    path.extension().filter(|ext| *ext == "spv" || *ext == "spirv")?;
    let source = path.with_extension("");
    let compiled = source.extension().is_some() && source.is_file() && matches!(classify(&source), Ok(Some(_)));
    compiled.then_some(source)
}

/// Every file below a root, following links but entering each real directory once.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    /// Every directory entered, as the walk named it.
    dirs: BTreeSet<PathBuf>,
    /// Each directory entered: its canonical path, and the path first used.
    entered: std::collections::HashMap<PathBuf, PathBuf>,
    /// The canonical paths being walked now, outermost first: a link to one is a loop.
    open: Vec<PathBuf>,
    warnings: BTreeSet<String>,
}

impl Walk {
    /// Walks `dir`, unless its real path was entered already: then it is skipped with one warning.
    fn dir(&mut self, dir: &Path) -> Result<(), Error> {
        let real = dir.canonicalize().map_err(|e| Error::io(dir, e, "check the shader directory's permissions"))?;
        if let Some(first) = self.entered.get(&real) {
            let warning = if self.open.contains(&real) {
                format!(
                    "{} is skipped: it leads back to {}, which holds it, through a symbolic link, so following \
                     it would loop; remove the link, or point it outside the shader directory",
                    dir.display(),
                    first.display()
                )
            } else {
                format!(
                    "{} is skipped: it leads to {}, which was scanned already as {}; each shader is compiled once, \
                     under its first name",
                    dir.display(),
                    real.display(),
                    first.display()
                )
            };
            self.warnings.insert(warning);
            return Ok(());
        }
        self.entered.insert(real.clone(), dir.to_owned());
        self.open.push(real);
        self.dirs.insert(dir.to_owned());
        let entries =
            std::fs::read_dir(dir).map_err(|e| Error::io(dir, e, "check the shader directory's permissions"))?;
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                self.dir(&path)?;
            } else {
                self.files.push(path);
            }
        }
        self.open.pop();
        Ok(())
    }
}

fn relative_name(path: &Path, root: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// The directory part of a glob before its first wildcard.
fn glob_root(pattern: &Path) -> PathBuf {
    let fixed =
        |component: &std::path::Component<'_>| !component.as_os_str().to_string_lossy().contains(['*', '?', '[']);
    let root: PathBuf = pattern.components().take_while(fixed).collect();
    if root == pattern { root.parent().map(Path::to_owned).unwrap_or_default() } else { root }
}

/// One job per source, plus one per declared variant.
fn expand_jobs(
    inputs: &Inputs,
    found: BTreeMap<String, (PathBuf, Language, Option<ShaderStage>)>,
) -> Result<Vec<Job>, Error> {
    // Every shader a variant, a shader_define or a shader_wesl_feature names must exist.
    let variants = inputs.variants.iter().map(|(shader, v)| (shader, format!("variant {:?}", v.name)));
    let defines = inputs.shader_defines.iter().map(|(shader, d)| (shader, format!("shader_define {:?}", d.name)));
    let features =
        inputs.shader_wesl_features.iter().map(|(shader, (f, _))| (shader, format!("shader_wesl_feature {f:?}")));
    if let Some((shader, what)) =
        variants.chain(defines).chain(features).find(|(shader, _)| !found.contains_key(*shader))
    {
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
        let preprocessed = !matches!(language, Language::Wgsl | Language::Wesl);
        if !preprocessed && (own_defines.clone().next().is_some() || variant_defines.count() > 0) {
            return Err(Error::Config(if language == Language::Wesl {
                format!(
                    "{name} is WESL, which has no preprocessor, so defines cannot change it; set `@if` features \
                     with Config::shader_wesl_feature or Variant::wesl_feature instead"
                )
            } else {
                format!(
                    "{name} is WGSL, which has no preprocessor, so defines cannot change it; use a \
                     pipeline-overridable constant (`override`) and Variant::spec_constant instead"
                )
            }));
        }
        let own_features = inputs.shader_wesl_features.iter().filter(|(s, _)| *s == name).map(|(_, f)| f.clone());
        let variant_features = inputs.variants.iter().filter(|(s, v)| *s == name && !v.wesl_features.is_empty());
        let wesl = language == Language::Wesl;
        if !wesl && (own_features.clone().next().is_some() || variant_features.count() > 0) {
            return Err(Error::Config(format!(
                "{name} is {language}, not WESL, so `@if` features cannot change it; set defines \
                 (Config::shader_define, Variant::define) for GLSL, HLSL and Slang"
            )));
        }
        // The global ones where the language takes them, then the shader's own (checked above).
        let defines = inputs.defines.iter().filter(|_| preprocessed).cloned().chain(own_defines).collect();
        let wesl_features = inputs.wesl_features.iter().filter(|_| wesl).cloned().chain(own_features).collect();
        let entry_point = inputs.hlsl_entry_point.as_deref().filter(|_| language == Language::Hlsl);
        let base = Job {
            name: name.clone(),
            path,
            language,
            stage,
            entry_point: entry_point.unwrap_or("main").to_owned(),
            defines,
            variant: None,
            spec_constants: Vec::new(),
            wesl_features,
        };
        for (_, variant) in inputs.variants.iter().filter(|(s, _)| *s == name) {
            let mut job = base.clone();
            job.name = format!("{name}@{}", variant.name);
            job.defines.extend(variant.defines.iter().cloned());
            job.wesl_features.extend(variant.wesl_features.iter().cloned());
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
    fn the_root_is_the_path_less_the_name() {
        let job = |name: &str, path: &str| Job::for_test(name, path, Language::Glsl);
        assert_eq!(job("post/blur.comp", "/g/shaders/post/blur.comp").root(), Path::new("/g/shaders"));
        assert_eq!(job("lit.frag@shadows", "/g/shaders/lit.frag").root(), Path::new("/g/shaders"));
    }

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

    fn language_of(jobs: &[Job], name: &str) -> Language {
        jobs.iter().find(|j| j.name == name).unwrap_or_else(|| panic!("no job {name}")).language
    }

    #[test]
    fn a_stated_language_covers_a_directory_a_glob_or_a_file_and_the_last_wins() {
        let dir = tree(&["hlsl/a.vert", "hlsl/b.frag", "hlsl/legacy.frag", "glsl/c.frag", "mixed/d.ps.frag"]);
        let root = dir.path().to_string_lossy().into_owned();
        let mut config = crate::Config::new();
        config
            .shader_dir(dir.path())
            .language(format!("{root}/hlsl"), Language::Hlsl)
            .language(format!("{root}/**/*.ps.frag"), Language::Hlsl)
            .language(format!("{root}/hlsl/legacy.frag"), Language::Glsl);
        let jobs = scan(&config).unwrap().jobs;
        assert_eq!(language_of(&jobs, "hlsl/a.vert"), Language::Hlsl, "a directory");
        assert_eq!(language_of(&jobs, "hlsl/b.frag"), Language::Hlsl);
        assert_eq!(language_of(&jobs, "mixed/d.ps.frag"), Language::Hlsl, "a glob");
        assert_eq!(language_of(&jobs, "hlsl/legacy.frag"), Language::Glsl, "a file, stated last, wins");
        assert_eq!(language_of(&jobs, "glsl/c.frag"), Language::Glsl, "the rest keep their extension's language");
        let stage = jobs.iter().find(|j| j.name == "hlsl/a.vert").unwrap().stage;
        assert_eq!(stage, Some(ShaderStage::Vertex), "the stage still comes from the extension");
    }

    #[test]
    fn hlsl_jobs_take_the_configured_entry_point() {
        let dir = tree(&["a.vert", "b.frag"]);
        let mut config = crate::Config::new();
        config.shader_dir(dir.path()).language(dir.path().join("a.vert").to_string_lossy(), Language::Hlsl);
        config.hlsl_entry_point("VSMain");
        let jobs = scan(&config).unwrap().jobs;
        let entry = |name: &str| jobs.iter().find(|j| j.name == name).unwrap().entry_point.clone();
        assert_eq!((entry("a.vert").as_str(), entry("b.frag").as_str()), ("VSMain", "main"), "GLSL keeps main");
    }

    #[test]
    fn a_stated_language_must_cover_a_shader_and_be_glsl_or_hlsl() {
        let dir = tree(&["a.vert"]);
        std::fs::write(dir.path().join("sky.wgsl"), "@fragment fn fs() {}\n").unwrap();
        let mut config = crate::Config::new();
        config.shader_dir(dir.path()).language(dir.path().join("sky.wgsl").to_string_lossy(), Language::Hlsl);
        let Err(Error::Config(message)) = scan(&config) else { panic!("a WGSL file cannot be stated HLSL") };
        assert!(message.contains("covers no GLSL or HLSL shader"), "{message}");
        let mut config = crate::Config::new();
        config.shader_dir(dir.path()).language(dir.path().to_string_lossy(), Language::Wgsl);
        let Err(Error::Config(message)) = scan(&config) else { panic!("only GLSL and HLSL can be stated") };
        assert!(message.contains("only GLSL and HLSL"), "{message}");
    }

    #[test]
    fn slang_files_without_entry_points_are_modules_for_import() {
        assert!(has_slang_entry_point("[shader(\"vertex\")]\nfloat4 vs() : SV_Position { return 0; }"));
        assert!(has_slang_entry_point("[ shader ( \"compute\" ) ] [numthreads(1,1,1)] void cs() {}"));
        assert!(!has_slang_entry_point("module common;\npublic float3 tint(float3 c) { return c; }\nint a[2];"));
        let dir = tree(&[]);
        std::fs::write(dir.path().join("common.slang"), "module common;\n").unwrap();
        std::fs::write(dir.path().join("tri.slang"), "import common;\n[shader(\"vertex\")] float4 v() {}\n").unwrap();
        let mut config = crate::Config::new();
        config.shader_dir(dir.path()).define("QUALITY", "2");
        let jobs = scan(&config).unwrap().jobs;
        assert_eq!(jobs.len(), 1);
        assert_eq!((jobs[0].name.as_str(), jobs[0].language), ("tri.slang", Language::Slang));
        assert_eq!(jobs[0].defines.len(), 1, "Slang has a preprocessor, so defines apply");
    }

    #[test]
    fn wesl_files_without_an_entry_point_are_modules_for_import() {
        assert!(has_wesl_entry_point("@fragment fn fs() -> @location(0) vec4f { return vec4f(1.0); }"));
        assert!(has_wesl_entry_point("@compute @workgroup_size(64)\nfn main() {}"));
        assert!(!has_wesl_entry_point("// @vertex fn old() {}\nfn shade(n: vec3f) -> vec3f { return n; }"));
        assert!(!has_wesl_entry_point("@if(vertex_lighting) fn shade() {}\n@must_use fn f() -> f32 { return 1.0; }"));
        let dir = tree(&[]);
        std::fs::write(dir.path().join("light.wesl"), "fn shade() {}\n").unwrap();
        std::fs::write(dir.path().join("lit.wesl"), "@fragment fn fs() {}\n").unwrap();
        let mut config = crate::Config::new();
        config.shader_dir(dir.path()).define("QUALITY", "2").wesl_feature("fog", true);
        let jobs = scan(&config).unwrap().jobs;
        assert_eq!(jobs.len(), 1);
        assert_eq!((jobs[0].name.as_str(), jobs[0].language), ("lit.wesl", Language::Wesl));
        assert!(jobs[0].defines.is_empty(), "WESL has no preprocessor: global defines skip it");
        assert_eq!(jobs[0].wesl_features, [("fog".to_owned(), true)]);
    }

    #[test]
    fn an_old_output_beside_its_source_is_skipped_with_one_warning_naming_it() {
        let dir = tree(&["tri.vert", "tri.frag", "post/blur.comp"]);
        let spirv: Vec<u8> = smolv_format::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
        // glslc's names for the outputs of tri.vert, tri.frag and blur.comp,
        // and a precompiled module with no source beside it.
        for output in ["tri.vert.spv", "tri.frag.spv", "post/blur.comp.spirv", "fill.comp.spv"] {
            std::fs::write(dir.path().join(output), &spirv).unwrap();
        }
        let mut config = crate::Config::new();
        config.shader_dir(dir.path());
        let sources = scan(&config).unwrap();
        let names: Vec<&str> = sources.jobs.iter().map(|job| job.name.as_str()).collect();
        assert_eq!(names, ["fill.comp.spv", "post/blur.comp", "tri.frag", "tri.vert"]);
        for output in ["tri.vert.spv", "tri.frag.spv", "post/blur.comp.spirv"] {
            let path = dir.path().join(output).display().to_string();
            let about: Vec<&String> = sources.warnings.iter().filter(|w| w.contains(&path)).collect();
            assert_eq!(about.len(), 1, "one warning for {output}: {:?}", sources.warnings);
            assert!(about[0].contains("delete it"), "it says how to silence it: {}", about[0]);
        }
        assert_eq!(sources.warnings.len(), 3, "{:?}", sources.warnings);
        assert_eq!(sources.watched, [dir.path()], "one root for Cargo to watch, scanned recursively by Cargo");
        // Named on its own, a .spv is what the user asked for.
        let mut config = crate::Config::new();
        config.shader(dir.path().join("tri.vert.spv"));
        assert_eq!(scan(&config).unwrap().jobs[0].name, "tri.vert.spv");
    }

    #[test]
    fn a_spv_beside_a_file_that_is_not_compiled_is_kept() {
        // `blur.hlsl` names no stage, so discovery treats it as an include:
        // `blur.hlsl.spv` beside it is the only copy of the module.
        let dir = tree(&["blur.hlsl", "common.glsl"]);
        let spirv: Vec<u8> = smolv_format::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
        for output in ["blur.hlsl.spv", "common.glsl.spirv"] {
            std::fs::write(dir.path().join(output), &spirv).unwrap();
        }
        let mut config = crate::Config::new();
        config.shader_dir(dir.path());
        let sources = scan(&config).unwrap();
        let names: Vec<&str> = sources.jobs.iter().map(|job| job.name.as_str()).collect();
        assert_eq!(names, ["blur.hlsl.spv", "common.glsl.spirv"]);
        assert!(
            sources.warnings.iter().all(|w| !w.contains("is skipped")),
            "neither output is skipped: {:?}",
            sources.warnings
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_back_to_its_own_directory_is_skipped_with_one_warning() {
        let dir = tree(&["a.frag", "post/blur.comp"]);
        std::os::unix::fs::symlink(".", dir.path().join("all")).unwrap();
        let mut config = crate::Config::new();
        config.shader_dir(dir.path()).shader_dir(dir.path());
        let sources = scan(&config).unwrap();
        let names: Vec<&str> = sources.jobs.iter().map(|job| job.name.as_str()).collect();
        assert_eq!(names, ["a.frag", "post/blur.comp"], "each shader once, under its own name");
        assert_eq!(sources.warnings.len(), 1, "{:?}", sources.warnings);
        let link = dir.path().join("all").display().to_string();
        assert!(sources.warnings[0].contains(&link) && sources.warnings[0].contains("loop"), "{:?}", sources.warnings);
    }

    #[cfg(unix)]
    #[test]
    fn two_links_that_loop_neither_hang_the_scan_nor_multiply_the_shaders() {
        let dir = tree(&["a.frag", "deep/b.frag"]);
        let root = dir.path().to_owned();
        std::os::unix::fs::symlink(".", root.join("again")).unwrap();
        std::os::unix::fs::symlink("..", root.join("deep/up")).unwrap();
        // Two links to one directory outside any loop: compiled under the first name.
        std::os::unix::fs::symlink("deep", root.join("same")).unwrap();
        // Followed every time, these would give 2^40 paths: the scan runs
        // on a thread, so that a hang fails the test instead of stalling it.
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut config = crate::Config::new();
            config.shader_dir(&root);
            let _ =
                send.send(scan(&config).map(|s| (s.jobs.into_iter().map(|j| j.name).collect::<Vec<_>>(), s.warnings)));
        });
        let (names, warnings) =
            receive.recv_timeout(std::time::Duration::from_secs(60)).expect("the scan hung").unwrap();
        assert_eq!(names, ["a.frag", "deep/b.frag"]);
        assert_eq!(warnings.len(), 3, "one per link: {warnings:?}");
        let about = |link: &str| {
            warnings.iter().filter(|w| w.starts_with(&dir.path().join(link).display().to_string())).count()
        };
        assert_eq!((about("again"), about("deep/up"), about("same")), (1, 1, 1), "{warnings:?}");
        assert_eq!(warnings.iter().filter(|w| w.contains("loop")).count(), 2, "{warnings:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_glob_over_a_link_loop_matches_each_shader_once() {
        let dir = tree(&["a.frag", "ui/text.frag", "ui/deep/icon.frag", "ui/text.vert"]);
        std::os::unix::fs::symlink("..", dir.path().join("ui/up")).unwrap();
        let glob = |patterns: &[&str]| {
            let mut config = crate::Config::new();
            patterns.iter().for_each(|pattern| {
                config.shader_glob(format!("{}/{pattern}", dir.path().display()));
            });
            scan(&config).unwrap()
        };
        let sources = glob(&["**/*.frag"]);
        let names: Vec<&str> = sources.jobs.iter().map(|job| job.name.as_str()).collect();
        assert_eq!(names, ["a.frag", "ui/deep/icon.frag", "ui/text.frag"]);
        assert_eq!(sources.warnings.len(), 1, "{:?}", sources.warnings);
        assert!(sources.warnings[0].contains("loop"), "{:?}", sources.warnings);
        // `*` stays within one directory, as glob::glob has it.
        let names = |sources: Sources| sources.jobs.into_iter().map(|job| job.name).collect::<Vec<_>>();
        assert_eq!(names(glob(&["*.frag"])), ["a.frag"]);
        assert_eq!(names(glob(&["ui/*.vert"])), ["text.vert"]);
    }

    #[test]
    fn glob_root_is_the_fixed_prefix() {
        assert_eq!(glob_root(Path::new("/a/b/**/*.frag")), PathBuf::from("/a/b"));
        assert_eq!(glob_root(Path::new("/a/b/x.frag")), PathBuf::from("/a/b"));
    }
}
