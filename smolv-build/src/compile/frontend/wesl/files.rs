//! Where WESL imports are read from (the shader's tree, and packages on disk), each once, with its blake3.

use std::borrow::Cow;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

use wesl::syntax::PathOrigin;
use wesl::{ModulePath, ResolveError, Resolver};

/// One file read: its path, the blake3 of its bytes, and its text.
type Read = (PathBuf, [u8; 32], String);

pub(super) struct Files<'a> {
    /// What `package::` names.
    root: PathBuf,
    packages: &'a [(String, PathBuf)],
    shader: (&'a Path, &'a str),
    read: RefCell<Vec<Read>>,
    /// `.wesl` candidates that did not exist where a `.wgsl` was taken.
    missing: RefCell<Vec<PathBuf>>,
}

/// `stem` with `suffix` appended (`a/lit.frag` + `.wesl`: `a/lit.frag.wesl`).
fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut path = stem.as_os_str().to_owned();
    path.push(suffix);
    PathBuf::from(path)
}

fn failure(path: &ModulePath, message: String) -> ResolveError {
    ResolveError::ModuleNotFound(path.clone(), message)
}

impl<'a> Files<'a> {
    pub(super) fn new(root: PathBuf, packages: &'a [(String, PathBuf)], shader: (&'a Path, &'a str)) -> Self {
        Self { root, packages, shader, read: RefCell::default(), missing: RefCell::default() }
    }

    /// The file that holds the module at `path` (`.wesl`, else `.wgsl`).
    pub(super) fn file(&self, path: &ModulePath) -> Result<PathBuf, ResolveError> {
        let base = match &path.origin {
            PathOrigin::Absolute => &self.root,
            // The last one set wins, as for every other setter.
            PathOrigin::Package(name) => match self.packages.iter().rev().find(|(n, _)| n == name) {
                Some((_, dir)) => dir,
                None => {
                    let known: Vec<&str> = self.packages.iter().map(|(name, _)| name.as_str()).collect();
                    return Err(failure(
                        path,
                        format!(
                            "no WESL package `{name}`; name its directory with Config::wesl_package (packages now: \
                             {}), or import a file of the shader directory with `package::`",
                            if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                        ),
                    ));
                }
            },
            PathOrigin::Relative(_) => return Err(failure(path, "a relative module path reached the resolver".into())),
        };
        if path.components.is_empty() {
            return Err(failure(
                path,
                "a package's items live in its modules: import `name::module::item`, which reads `module.wesl` in \
                 the package's directory"
                    .into(),
            ));
        }
        let stem = path.components.iter().fold(base.clone(), |dir, component| dir.join(component));
        let wesl = with_suffix(&stem, ".wesl");
        if wesl == self.shader.0 || wesl.is_file() {
            return Ok(wesl);
        }
        let wgsl = with_suffix(&stem, ".wgsl");
        if wgsl.is_file() {
            // A .wesl file appearing there would take its place.
            let mut missing = self.missing.borrow_mut();
            if !missing.contains(&wesl) {
                missing.push(wesl);
            }
            return Ok(wgsl);
        }
        Err(ResolveError::FileNotFound(wesl, format!("nor {}", wgsl.display())))
    }

    fn text(&self, path: &ModulePath, file: &Path) -> Result<String, ResolveError> {
        if file == self.shader.0 {
            return Ok(self.shader.1.to_owned());
        }
        if let Some((_, _, text)) = self.read.borrow().iter().find(|(read, _, _)| read == file) {
            return Ok(text.clone());
        }
        let bytes = std::fs::read(file).map_err(|e| failure(path, format!("cannot read {}: {e}", file.display())))?;
        let hash = *blake3::hash(&bytes).as_bytes();
        let text = String::from_utf8(bytes)
            .map_err(|e| failure(path, format!("{} is not UTF-8 text: {e}", file.display())))?;
        self.read.borrow_mut().push((file.to_owned(), hash, text.clone()));
        Ok(text)
    }

    /// Every file read besides the shader's own, and the missing candidates.
    pub(super) fn finish(self) -> (Vec<(PathBuf, [u8; 32])>, Vec<PathBuf>) {
        let read = self.read.into_inner().into_iter().map(|(path, hash, _)| (path, hash)).collect();
        (read, self.missing.into_inner())
    }
}

impl Resolver for Files<'_> {
    fn resolve_source<'b>(&'b self, path: &ModulePath) -> Result<Cow<'b, str>, ResolveError> {
        let file = self.file(path)?;
        self.text(path, &file).map(Cow::Owned)
    }

    fn display_name(&self, path: &ModulePath) -> Option<String> {
        self.file(path).ok().map(|file| file.display().to_string())
    }

    fn fs_path(&self, path: &ModulePath) -> Option<PathBuf> {
        self.file(path).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_files_below_the_root_or_a_package_and_wesl_shadows_wgsl() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("shaders");
        let noise = dir.path().join("vendor/noise");
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::create_dir_all(&noise).unwrap();
        std::fs::write(root.join("lib/util.wesl"), "fn a() {}").unwrap();
        std::fs::write(noise.join("hash.wgsl"), "fn h() {}").unwrap();
        let packages = vec![("noise".to_owned(), noise.clone())];
        let shader = root.join("main.wesl");
        let files = Files::new(root.clone(), &packages, (&shader, "@compute @workgroup_size(1) fn main() {}"));
        let module = |text: &str| text.parse::<ModulePath>().unwrap();
        assert_eq!(files.resolve_source(&module("package::lib::util")).unwrap(), "fn a() {}");
        assert_eq!(files.resolve_source(&module("noise::hash")).unwrap(), "fn h() {}");
        assert_eq!(files.resolve_source(&module("package::main")).unwrap(), files.shader.1, "the build's text");
        let error = files.resolve_source(&module("dither::bayer")).unwrap_err().to_string();
        assert!(error.contains("no WESL package `dither`") && error.contains("noise"), "{error}");
        assert!(files.resolve_source(&module("package::lib::gone")).is_err());
        let (read, missing) = files.finish();
        let read: Vec<&Path> = read.iter().map(|(path, _)| path.as_path()).collect();
        assert_eq!(read, [root.join("lib/util.wesl"), noise.join("hash.wgsl")]);
        assert_eq!(missing, [noise.join("hash.wesl")], "a hash.wesl there would shadow hash.wgsl");
    }
}
