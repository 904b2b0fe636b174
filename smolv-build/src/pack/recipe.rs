//! How to compile one shader again exactly as the build did, for hot reload; one per manifest module.

use std::path::{Path, PathBuf};

use smolv_format::reflect::Interface;

use crate::compile::compile_uncached;
use crate::compile::worker::Compilers;
use crate::error::{Diagnostic, Error};
use crate::pack::encode::{Strip, encode_module};
use crate::pack::reflect::{interface, reflect};
use crate::settings::Settings;
use crate::source::Job;

/// The compilers a hot-reload watcher keeps for [`ShaderRecipe::compile_with`]: one idle worker kept started where
/// [`compiles_in_workers`](crate::recipe::compiles_in_workers), else this process's. Dropping it ends its workers.
///
/// ```
/// let pool = smolv_build::recipe::CompilerPool::new();
/// // A test harness never called `Config::worker_main`: in this process.
/// assert!(!pool.in_workers());
/// ```
pub struct CompilerPool {
    compilers: Compilers,
}

impl CompilerPool {
    /// Worker processes if this program can serve as one, else in-process compilers; returns at once.
    pub fn new() -> Self {
        Self { compilers: Compilers::kept() }
    }

    /// Whether compiles run in worker processes rather than in this process.
    ///
    /// ```
    /// assert_eq!(
    ///     smolv_build::recipe::CompilerPool::new().in_workers(),
    ///     smolv_build::recipe::compiles_in_workers()
    /// );
    /// ```
    pub fn in_workers(&self) -> bool {
        matches!(self.compilers, Compilers::Workers(_))
    }
}

impl Default for CompilerPool {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for CompilerPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompilerPool").field("in_workers", &self.in_workers()).finish_non_exhaustive()
    }
}

/// What the build knew about one module, enough to compile it again elsewhere with the same result.
///
/// ```
/// use smolv_build::recipe::ShaderRecipe;
/// use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE, Manifest};
/// # let dir = tempfile::tempdir()?;
/// # let spirv: Vec<u8> = smolv_format::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
/// # std::fs::create_dir(dir.path().join("shaders"))?;
/// # std::fs::write(dir.path().join("shaders/fill.comp.spv"), spirv)?;
/// # let mut config = smolv_build::Config::new();
/// # config.shader_dir(dir.path().join("shaders")).cache_dir(dir.path().join("cache")).cargo_directives(false);
/// # let out_dir = dir.path().join("out");
/// # config.out_dir(&out_dir).try_compile()?;
/// let manifest: Manifest<ShaderRecipe> = serde_json::from_slice(&std::fs::read(out_dir.join(ARTIFACT_DIR).join(MANIFEST_FILE))?)?;
/// let recipe = manifest.modules[0].recipe.clone().expect("this smolv-build records recipes");
/// let again = recipe.compile().map_err(|errors| format!("{errors:?}"))?;
/// // The same words the embedded shader decodes to.
/// let built = smolv_runtime::ShaderSet::from_vec(std::fs::read(out_dir.join(ARTIFACT_DIR).join(&manifest.bundle))?)?;
/// assert_eq!(again.module(&recipe.name), Some(&built.get("fill.comp.spv")?.decode()?[..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ShaderRecipe {
    /// The module's name (`lit.frag`, `lit.frag@shadows`, `sky.wgsl#fs_main`).
    pub name: String,
    /// The shader directory the source was found in: what [`relocate`](Self::relocate) replaces.
    pub root: PathBuf,
    /// The source file.
    pub source: PathBuf,
    /// Every other file the compiler read (includes, imports).
    pub includes: Vec<PathBuf>,
    job: Job,
    settings: Settings,
    /// The typed interface the build read (see [`interface`](Self::interface)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    interface: Option<Interface>,
    /// The generated Rust type of each block ([`block_type`](Self::block_type)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    block_types: Vec<String>,
}

/// The modules one recompiled job produced, as `Shader::decode` gives them for a build of the same source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Recompiled {
    /// `(module name, SPIR-V words)`, in the order the frontend made them.
    pub modules: Vec<(String, Vec<u32>)>,
    /// `(module name, typed interface)` of each module whose interface could be read, as the build reads it.
    pub interfaces: Vec<(String, Interface)>,
    /// Every other file the compiler read this time.
    pub includes: Vec<PathBuf>,
    /// The compiler's and the optimizer's warnings.
    pub warnings: Vec<String>,
}

impl Recompiled {
    /// The words of the module named `name`, if this job made it.
    ///
    /// ```
    /// let mut recompiled = smolv_build::recipe::Recompiled::default();
    /// recompiled.modules.push(("fill.comp".to_owned(), vec![0x0723_0203]));
    /// assert_eq!(recompiled.module("fill.comp"), Some(&[0x0723_0203][..]));
    /// assert_eq!(recompiled.module("sky.wgsl#fs_main"), None);
    /// ```
    pub fn module(&self, name: &str) -> Option<&[u32]> {
        self.modules.iter().find(|(n, _)| n == name).map(|(_, words)| &words[..])
    }

    /// The typed interface of the module named `name`, if it could be read.
    ///
    /// ```
    /// let mut recompiled = smolv_build::recipe::Recompiled::default();
    /// recompiled.interfaces.push(("fill.comp".to_owned(), Default::default()));
    /// assert!(recompiled.interface("fill.comp").is_some_and(|i| i.blocks.is_empty()));
    /// assert!(recompiled.interface("sky.wgsl#fs_main").is_none());
    /// ```
    pub fn interface(&self, name: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|(n, _)| n == name).map(|(_, interface)| interface)
    }
}

/// `path` with the prefix `from` replaced by `to`, if any.
fn moved(path: &Path, from: &Path, to: &Path) -> PathBuf {
    match path.strip_prefix(from) {
        Ok(rest) if rest.as_os_str().is_empty() => to.to_owned(),
        Ok(rest) => to.join(rest),
        Err(_) => path.to_owned(),
    }
}

impl ShaderRecipe {
    pub(crate) fn new(
        module_name: &str,
        job: &Job,
        settings: &Settings,
        dependencies: &[PathBuf],
        interface: Option<Interface>,
    ) -> Self {
        Self {
            name: module_name.to_owned(),
            root: job.root(),
            source: job.path.clone(),
            includes: dependencies.iter().filter(|path| **path != job.path).cloned().collect(),
            job: job.clone(),
            settings: settings.clone(),
            interface,
            block_types: Vec::new(),
        }
    }

    /// Records the generated Rust type of each block (the output stage names them).
    pub(crate) fn set_block_types(&mut self, types: Vec<String>) {
        self.block_types = types;
    }

    /// The typed interface the build read and made the Rust types from (`None` if unread or older).
    ///
    /// ```no_run
    /// # fn get(recipe: &smolv_build::recipe::ShaderRecipe) {
    /// for block in recipe.interface().map_or(&[][..], |i| &i.blocks[..]) {
    ///     println!("{} at set {:?}, binding {:?}", block.kind.name(), block.set, block.binding);
    /// }
    /// # }
    /// ```
    pub fn interface(&self) -> Option<&Interface> {
        self.interface.as_ref()
    }

    /// The generated Rust type of [`Interface::blocks`]`[index]` (`Frame`, `lit_frag::PushConstants`), if any.
    ///
    /// ```no_run
    /// # fn get(recipe: &smolv_build::recipe::ShaderRecipe) {
    /// if let Some(rust) = recipe.block_type(0) {
    ///     println!("the first block is filled through `{rust}`");
    /// }
    /// # }
    /// ```
    pub fn block_type(&self, index: usize) -> Option<&str> {
        self.block_types.get(index).map(String::as_str)
    }

    /// Reads a recipe from its JSON, as the manifest holds it.
    ///
    /// ```
    /// let error = smolv_build::recipe::ShaderRecipe::from_json("{}").unwrap_err();
    /// assert!(error.to_string().contains("rebuild"), "{error}");
    /// ```
    pub fn from_json(json: &str) -> Result<Self, Error> {
        serde_json::from_str(json).map_err(|e| {
            Error::Config(format!(
                "a shader's hot-reload recipe cannot be read ({e}); rebuild with matching smolv-build and \
                 smolv-reload versions"
            ))
        })
    }

    /// The recipe as JSON, for [`from_json`](Self::from_json).
    ///
    /// ```no_run
    /// # fn get(recipe: &smolv_build::recipe::ShaderRecipe) -> Result<(), smolv_build::Error> {
    /// let again = smolv_build::recipe::ShaderRecipe::from_json(&recipe.to_json())?;
    /// assert_eq!(&again, recipe);
    /// # Ok(()) }
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Whether `other` is another entry point of the same job: one [`compile`](Self::compile) serves both.
    ///
    /// ```no_run
    /// # fn get(a: &smolv_build::recipe::ShaderRecipe) {
    /// assert!(a.same_job(a));
    /// # }
    /// ```
    pub fn same_job(&self, other: &Self) -> bool {
        self.job == other.job && self.settings == other.settings
    }

    /// Moves every path below `from` (source, includes, include directories, WESL packages) below `to`.
    ///
    /// ```no_run
    /// # fn get(mut recipe: smolv_build::recipe::ShaderRecipe) {
    /// let from = recipe.root.clone();
    /// recipe.relocate(&from, std::path::Path::new("/tmp/shaders"));
    /// assert!(recipe.source.starts_with("/tmp/shaders"));
    /// # }
    /// ```
    pub fn relocate(&mut self, from: &Path, to: &Path) {
        self.root = moved(&self.root, from, to);
        self.source = moved(&self.source, from, to);
        self.job.path = moved(&self.job.path, from, to);
        for path in self.includes.iter_mut().chain(&mut self.settings.include_dirs) {
            *path = moved(path, from, to);
        }
        for (_, dir) in &mut self.settings.wesl_packages {
            *dir = moved(dir, from, to);
        }
    }

    /// Compiles the source as it is now, as the build did but uncached; errors are located (`path:line:col`).
    ///
    /// ```no_run
    /// # fn get(recipe: &smolv_build::recipe::ShaderRecipe) {
    /// match recipe.compile() {
    ///     Ok(recompiled) => println!("{} words", recompiled.module(&recipe.name).map_or(0, <[u32]>::len)),
    ///     Err(errors) => errors.iter().for_each(|e| eprintln!("shader error: {}", e.headline())),
    /// }
    /// # }
    /// ```
    pub fn compile(&self) -> Result<Recompiled, Vec<Diagnostic>> {
        self.compile_in(&Compilers::start(false))
    }

    /// [`compile`](Self::compile) with `pool`'s compilers, kept between compiles: what a watcher calls per edit.
    ///
    /// ```no_run
    /// # fn get(recipe: &smolv_build::recipe::ShaderRecipe) {
    /// let pool = smolv_build::recipe::CompilerPool::new();
    /// for _edit in 0..2 {
    ///     // The second compile reuses the first one's worker.
    ///     let _ = recipe.compile_with(&pool);
    /// }
    /// # }
    /// ```
    pub fn compile_with(&self, pool: &CompilerPool) -> Result<Recompiled, Vec<Diagnostic>> {
        self.compile_in(&pool.compilers)
    }

    fn compile_in(&self, compilers: &Compilers) -> Result<Recompiled, Vec<Diagnostic>> {
        let source = std::fs::read(&self.job.path)
            .map_err(|e| vec![Diagnostic::whole_file(&self.job.path, format!("cannot read the shader: {e}"))])?;
        let output = compile_uncached(&self.job, &source, &self.settings, compilers)?;
        let mut modules = Vec::with_capacity(output.modules.len());
        let mut interfaces = Vec::new();
        for module in &output.modules {
            let shipped = module.optimized.as_ref().unwrap_or(&module.spirv);
            let reflection = reflect(shipped, module.stage, &module.entry_point);
            let encoded = encode_module(shipped, Strip::of(&self.settings, &reflection))
                .map_err(|why| vec![Diagnostic::whole_file(&self.job.path, why)])?;
            modules.push((module.name.clone(), encoded.decoded));
            if let Some(interface) = interface(&module.spirv, shipped) {
                interfaces.push((module.name.clone(), interface));
            }
        }
        let includes =
            output.dependencies.into_iter().map(|(path, _)| path).filter(|path| *path != self.job.path).collect();
        Ok(Recompiled { modules, interfaces, includes, warnings: output.warnings })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relocating_moves_only_paths_below_the_old_root() {
        assert_eq!(
            moved(Path::new("/a/shaders/x.frag"), Path::new("/a/shaders"), Path::new("/t")),
            Path::new("/t/x.frag")
        );
        assert_eq!(moved(Path::new("/a/shaders"), Path::new("/a/shaders"), Path::new("/t")), Path::new("/t"));
        assert_eq!(
            moved(Path::new("/a/other/x.glsl"), Path::new("/a/shaders"), Path::new("/t")),
            Path::new("/a/other/x.glsl")
        );
        // A sibling whose name merely starts the same is not below it.
        assert_eq!(
            moved(Path::new("/a/shaders2/x"), Path::new("/a/shaders"), Path::new("/t")),
            Path::new("/a/shaders2/x")
        );
    }
}
