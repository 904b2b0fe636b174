//! Paths as the cache records them: relative to the build's root (the deepest directory holding every
//! shader and include directory), so that checkouts at different paths share entries; outside it
//! `<root>/../…` when the root has no symbolic links, else absolute.

use std::path::{Component, Path, PathBuf};

/// How a path under the root begins in keys and entries.
const ROOT: &str = "<root>";

/// The build's root, and the conversions between local and recorded paths.
#[derive(Clone, Debug)]
pub(crate) struct PortablePaths {
    root: PathBuf,
    /// The root with symbolic links resolved, where that differs.
    canonical_root: Option<PathBuf>,
}

impl PortablePaths {
    /// The root of a build that compiles `files` and searches `dirs`.
    pub(crate) fn new<'a>(files: impl IntoIterator<Item = &'a Path>, dirs: impl IntoIterator<Item = &'a Path>) -> Self {
        let parents = files.into_iter().map(|file| absolute(file).parent().map(Path::to_owned).unwrap_or_default());
        let root = parents.chain(dirs.into_iter().map(absolute)).reduce(|root, dir| {
            root.components().zip(dir.components()).take_while(|(a, b)| a == b).map(|(a, _)| a).collect()
        });
        let root = root.unwrap_or_else(|| absolute(Path::new(".")));
        let canonical_root = root.canonicalize().ok().filter(|canonical| *canonical != root);
        Self { root, canonical_root }
    }

    /// Whether `recorded` (from [`portable`](Self::portable)) is relative.
    pub(crate) fn is_relative(recorded: &str) -> bool {
        recorded.starts_with(ROOT)
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `path` as keys and entries record it.
    pub(crate) fn portable(&self, path: &Path) -> String {
        let path = absolute(path);
        let relative = path
            .strip_prefix(&self.root)
            .map(Path::to_owned)
            .ok()
            .or_else(|| {
                self.canonical_root.as_deref().and_then(|root| path.strip_prefix(root).ok().map(Path::to_owned))
            })
            .or_else(|| self.canonical_root.is_none().then(|| upward(&self.root, &path)).flatten());
        match relative {
            Some(relative) => relative.components().fold(String::from(ROOT), |text, component| {
                format!("{text}/{}", component.as_os_str().to_string_lossy())
            }),
            None => path.to_string_lossy().into_owned(),
        }
    }

    /// Whether an entry written with root `writer_root` may use its absolute paths.
    pub(crate) fn absolute_paths_usable(&self, writer_root: &str) -> bool {
        writer_root == self.root.to_string_lossy()
    }

    /// A path recorded by [`portable`](Self::portable), on this machine.
    pub(crate) fn local(&self, recorded: &str) -> PathBuf {
        match recorded.strip_prefix(ROOT) {
            Some(rest) => {
                rest.split('/').filter(|part| !part.is_empty()).fold(self.root.clone(), |path, part| path.join(part))
            }
            None => PathBuf::from(recorded),
        }
    }

    /// `text` (a warning) with this machine's root replaced by the placeholder.
    pub(crate) fn portable_text(&self, text: &str) -> String {
        let root = format!("{}/", self.root.to_string_lossy().trim_end_matches('/'));
        if root.len() > 1 { text.replace(&root, &format!("{ROOT}/")) } else { text.to_owned() }
    }

    /// A text from an entry with the placeholder replaced by this root.
    pub(crate) fn local_text(&self, text: &str) -> String {
        text.replace(&format!("{ROOT}/"), &format!("{}/", self.root.to_string_lossy().trim_end_matches('/')))
    }
}

/// `path` made absolute against the current directory, lexically.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// `path` relative to `root` by way of `..`, if they share a prefix.
fn upward(root: &Path, path: &Path) -> Option<PathBuf> {
    let (root, path): (Vec<Component<'_>>, Vec<Component<'_>>) =
        (root.components().collect(), path.components().collect());
    let common = root.iter().zip(&path).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return None;
    }
    let ups = std::iter::repeat_n(Component::ParentDir, root.len() - common);
    Some(ups.chain(path[common..].iter().copied()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_under_the_root_are_recorded_relative_and_found_again_elsewhere() {
        let a = PortablePaths::new(
            [Path::new("/home/ana/game/shaders/lit.frag"), Path::new("/home/ana/game/shaders/post/blur.comp")],
            [Path::new("/home/ana/game/include")],
        );
        assert_eq!(a.root(), Path::new("/home/ana/game"));
        let recorded = a.portable(Path::new("/home/ana/game/shaders/../include/light.glsl"));
        assert_eq!(recorded, "<root>/shaders/../include/light.glsl");
        // Outside the root (which has no symbolic links): by way of `..`.
        assert_eq!(a.portable(Path::new("/home/ana/common/x.hlsli")), "<root>/../common/x.hlsli");

        let b =
            PortablePaths::new([Path::new("/builds/7/game/shaders/lit.frag")], [Path::new("/builds/7/game/include")]);
        assert_eq!(b.local(&recorded), Path::new("/builds/7/game/shaders/../include/light.glsl"));
        assert_eq!(b.local("<root>/../common/x.hlsli"), Path::new("/builds/7/game/../common/x.hlsli"));
        assert_eq!(b.local("/usr/include/common.glsl"), Path::new("/usr/include/common.glsl"));
        assert!(b.absolute_paths_usable("/builds/7/game") && !b.absolute_paths_usable("/home/ana/game"));
        assert_eq!(b.portable(&b.local(&recorded)), recorded, "the same record on both machines");
    }

    #[test]
    fn warnings_carry_the_placeholder_between_machines() {
        let a = PortablePaths::new([Path::new("/home/ana/game/shaders/lit.frag")], []);
        let b = PortablePaths::new([Path::new("/builds/7/game/shaders/lit.frag")], []);
        let warning = a.portable_text("/home/ana/game/shaders/lit.frag:3: warning: unused variable");
        assert_eq!(b.local_text(&warning), "/builds/7/game/shaders/lit.frag:3: warning: unused variable");
    }

    #[test]
    fn a_root_of_slash_round_trips() {
        let paths = PortablePaths::new([Path::new("/a/x.frag"), Path::new("/b/y.frag")], []);
        assert_eq!(paths.root(), Path::new("/"));
        assert_eq!(paths.portable(Path::new("/a/x.frag")), "<root>/a/x.frag");
        assert_eq!(paths.local(&paths.portable(Path::new("/a/x.frag"))), Path::new("/a/x.frag"));
        assert_eq!(paths.portable_text("/a/x.frag: warning"), "/a/x.frag: warning");
    }
}
