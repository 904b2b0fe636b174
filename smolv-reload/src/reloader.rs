//! The builder: what to watch, where the sources are, how to report.

use std::path::PathBuf;
use std::time::Duration;

use smolv_build::recipe::{CompilerPool, ShaderRecipe};
use smolv_runtime::{Shader, ShaderSet};

use crate::error::ReloadError;
use crate::targets::{Target, Targets};
use crate::watch::Watcher;

/// Sets up hot reload; [`start`](Self::start) begins watching.
///
/// ```text
/// static SHADERS: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();
///
/// let watcher = smolv_reload::Reloader::new().set(&SHADERS).start()?;
/// // ... each frame: rebuild pipelines whose shader's version changed.
/// ```
pub struct Reloader {
    /// Each watched shader, with the recipe given for it (else the one it was embedded with).
    watched: Vec<(&'static Shader, Option<ShaderRecipe>)>,
    shader_dir: Option<PathBuf>,
    debounce: Duration,
    print: bool,
}

impl Default for Reloader {
    fn default() -> Self {
        Self::new()
    }
}

impl Reloader {
    /// Nothing watched yet; a 20 ms debounce; events printed on stderr.
    ///
    /// ```
    /// let reloader = smolv_reload::Reloader::new();
    /// # let _ = reloader;
    /// ```
    pub fn new() -> Self {
        Self { watched: Vec::new(), shader_dir: None, debounce: Duration::from_millis(20), print: true }
    }

    /// Watches every shader of an embedded set (feature `hot-reload`).
    ///
    /// ```text
    /// static SHADERS: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();
    /// let mut reloader = smolv_reload::Reloader::new();
    /// reloader.set(&SHADERS);
    /// ```
    pub fn set(&mut self, set: &'static ShaderSet) -> &mut Self {
        self.watched.extend(set.shaders().iter().map(|shader| (shader, None)));
        self
    }

    /// Watches one shader (`include_shader!` with the `hot-reload` feature).
    ///
    /// ```text
    /// static POST: &smolv_runtime::Shader = smolv_runtime::include_shader!("post.frag");
    /// let mut reloader = smolv_reload::Reloader::new();
    /// reloader.shader(POST);
    /// ```
    pub fn shader(&mut self, shader: &'static Shader) -> &mut Self {
        self.watched.push((shader, None));
        self
    }

    /// Watches a shader with a recipe given here (a bundle's shader, from the build manifest).
    ///
    /// ```no_run
    /// # fn get(shader: &'static smolv_runtime::Shader, module: &smolv_format::ManifestModule<smolv_build::recipe::ShaderRecipe>) {
    /// let mut reloader = smolv_reload::Reloader::new();
    /// if let Some(recipe) = &module.recipe {
    ///     reloader.shader_with_recipe(shader, recipe.clone());
    /// }
    /// # }
    /// ```
    pub fn shader_with_recipe(&mut self, shader: &'static Shader, recipe: ShaderRecipe) -> &mut Self {
        self.watched.push((shader, Some(recipe)));
        self
    }

    /// Reads the sources (and includes below the root) from `dir` instead of [`root`](ShaderRecipe::root).
    ///
    /// ```
    /// let mut reloader = smolv_reload::Reloader::new();
    /// reloader.shader_dir("assets/shaders");
    /// ```
    pub fn shader_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.shader_dir = Some(dir.into());
        self
    }

    /// How long the files must be quiet before an edit is compiled; 20 ms by default.
    ///
    /// ```
    /// let mut reloader = smolv_reload::Reloader::new();
    /// reloader.debounce(std::time::Duration::from_millis(50));
    /// ```
    pub fn debounce(&mut self, quiet: Duration) -> &mut Self {
        self.debounce = quiet;
        self
    }

    /// Whether to keep quiet on stderr (events still arrive through [`Watcher::events`]).
    ///
    /// ```
    /// let mut reloader = smolv_reload::Reloader::new();
    /// reloader.quiet(true);
    /// ```
    pub fn quiet(&mut self, quiet: bool) -> &mut Self {
        self.print = !quiet;
        self
    }

    /// Resolves every shader's recipe and starts watching.
    ///
    /// # Errors
    /// A shader without an origin, a recipe that cannot be read, files that cannot be watched.
    ///
    /// ```no_run
    /// # fn get(reloader: &smolv_reload::Reloader) {
    /// match reloader.start() {
    ///     Ok(watcher) => std::mem::forget(watcher), // watch for the rest of the program
    ///     Err(why) => eprintln!("hot reload is off: {why}"),
    /// }
    /// # }
    /// ```
    pub fn start(&self) -> Result<Watcher, ReloadError> {
        let shader_dir = self
            .shader_dir
            .as_ref()
            .map(|dir| dir.canonicalize().map_err(|source| ReloadError::ShaderDir { path: dir.clone(), source }))
            .transpose()?;
        let target = |shader: &'static Shader, mut recipe: ShaderRecipe| {
            if let Some(dir) = &shader_dir {
                let root = recipe.root.clone();
                recipe.relocate(&root, dir);
            }
            Target::new(shader, recipe)
        };
        let mut list = Vec::new();
        for (shader, recipe) in &self.watched {
            list.push(target(shader, recipe.clone().map_or_else(|| recipe_of(shader), Ok)?));
        }
        if list.is_empty() {
            return Err(ReloadError::NothingToWatch);
        }
        let pool = CompilerPool::new();
        if !pool.in_workers() && !asked_in_process() {
            eprintln!(
                "smolv-reload: shaders compile in this process, where a compiler crash ends the program; call \
                 smolv_reload::worker_main() first in main to compile in worker processes"
            );
        }
        Watcher::start(Targets::new(list), pool, self.debounce, self.print)
    }
}

/// Whether `SMOLV_WORKERS=0` asks for the compilers in this process.
#[allow(clippy::disallowed_methods, reason = "smolv-reload's one reader of the environment")]
fn asked_in_process() -> bool {
    std::env::var_os("SMOLV_WORKERS").is_some_and(|workers| workers == "0")
}

/// The recipe `shader` was embedded with.
fn recipe_of(shader: &Shader) -> Result<ShaderRecipe, ReloadError> {
    let origin = shader.origin().ok_or_else(|| ReloadError::NoOrigin { name: shader.name().to_owned() })?;
    ShaderRecipe::from_json(origin.recipe())
        .map_err(|source| ReloadError::Recipe { name: shader.name().to_owned(), source })
}
