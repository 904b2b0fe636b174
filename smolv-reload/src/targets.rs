//! The shaders a reloader watches, with their recipes and the files they were compiled from.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use notify::RecursiveMode;
use smolv_build::recipe::ShaderRecipe;
use smolv_runtime::Shader;

/// A path as the file watcher reports it: canonical where the file exists.
pub(crate) fn normal(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_owned())
}

/// One watched shader.
pub(crate) struct Target {
    pub(crate) shader: &'static Shader,
    pub(crate) recipe: ShaderRecipe,
    /// Its source and every file its last compile read, normalized.
    files: BTreeSet<PathBuf>,
}

impl Target {
    pub(crate) fn new(shader: &'static Shader, recipe: ShaderRecipe) -> Self {
        let mut target = Self { shader, recipe, files: BTreeSet::new() };
        let includes = target.recipe.includes.clone();
        target.read(&includes);
        target
    }

    /// Records what the last compile read: its source and `includes`.
    pub(crate) fn read(&mut self, includes: &[PathBuf]) {
        self.files = std::iter::once(&self.recipe.source).chain(includes).map(|p| normal(p)).collect();
    }

    /// Adds files a failed compile named (dropping none).
    pub(crate) fn also_read<'a>(&mut self, files: impl IntoIterator<Item = &'a Path>) {
        self.files.extend(files.into_iter().filter(|file| file.is_file()).map(normal));
    }

    /// Whether an edit of `changed` (normalized paths) touches it.
    pub(crate) fn touched_by(&self, changed: &BTreeSet<PathBuf>) -> bool {
        self.files.iter().any(|file| changed.contains(file))
    }
}

/// Every watched shader.
pub(crate) struct Targets {
    pub(crate) list: Vec<Target>,
    /// The targets held back in the last edit, which the next edit compiles again.
    pub(crate) held_back: BTreeSet<usize>,
}

impl Targets {
    /// Every target of `list`, none held back.
    pub(crate) fn new(list: Vec<Target>) -> Self {
        Self { list, held_back: BTreeSet::new() }
    }

    /// The targets an edit of `changed` touches, and those held back, grouped by compile.
    pub(crate) fn touched_groups(&self, changed: &BTreeSet<PathBuf>) -> Vec<Vec<usize>> {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let touched = |(index, target): &(usize, &Target)| target.touched_by(changed) || self.held_back.contains(index);
        for (index, target) in self.list.iter().enumerate().filter(touched) {
            match groups.iter_mut().find(|group| self.list[group[0]].recipe.same_job(&target.recipe)) {
                Some(group) => group.push(index),
                None => groups.push(vec![index]),
            }
        }
        groups
    }

    /// Every file some target's last compile read.
    pub(crate) fn files(&self) -> impl Iterator<Item = &Path> {
        self.list.iter().flat_map(|t| t.files.iter().map(PathBuf::as_path))
    }

    /// What to watch: every shader root, recursively, and the directory of every file outside them.
    pub(crate) fn watch_list(&self) -> Vec<(PathBuf, RecursiveMode)> {
        let roots: BTreeSet<PathBuf> =
            self.list.iter().map(|t| normal(&t.recipe.root)).filter(|root| root.is_dir()).collect();
        let mut list: Vec<(PathBuf, RecursiveMode)> =
            roots.iter().map(|root| (root.clone(), RecursiveMode::Recursive)).collect();
        let outside: BTreeSet<PathBuf> = self
            .files()
            .filter(|file| !roots.iter().any(|root| file.starts_with(root)))
            .filter_map(|file| file.parent().map(Path::to_owned))
            .filter(|dir| dir.is_dir())
            .collect();
        list.extend(outside.into_iter().map(|dir| (dir, RecursiveMode::NonRecursive)));
        list
    }
}
