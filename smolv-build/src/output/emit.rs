//! Artifacts and manifest in `OUT_DIR`, and the `cargo:` directives that make Cargo rerun the build when needed.

use std::path::{Path, PathBuf};

use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE};

use crate::error::{Diagnostic, Error};
use crate::output::report::Report;
use crate::pack::artifacts::Artifacts;

fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e, "check that OUT_DIR is writable"))?;
    }
    // Unchanged files keep their timestamps, so include_bytes! does not force rebuilds.
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e, "check that OUT_DIR is writable"))
}

pub(crate) use smolv_format::TYPES_FILE;

/// Writes the artifact directory, replacing the previous one, with the
/// generated `types`. Files of modules that no longer exist are removed.
pub(crate) fn write_artifacts(
    out_dir: &Path,
    artifacts: &Artifacts,
    types: &str,
    report: &Report,
) -> Result<(), Error> {
    let dir = out_dir.join(ARTIFACT_DIR);
    let mut keep: Vec<PathBuf> = Vec::new();
    let mut put = |name: &str, bytes: &[u8]| {
        keep.push(dir.join(name));
        write(&dir.join(name), bytes)
    };
    put(TYPES_FILE, types.as_bytes())?;
    let manifest = &artifacts.manifest;
    for ((module, container), spirv) in manifest.modules.iter().zip(&artifacts.containers).zip(&artifacts.optimized) {
        put(&module.artifact, container)?;
        put(&module.optimized_spirv, spirv)?;
    }
    if let (Some(name), Some(bytes)) = (&manifest.dictionary, &artifacts.dictionary) {
        put(name, bytes)?;
    }
    put(&manifest.bundle, &artifacts.bundle)?;
    let (embedded, set) = (&manifest.embedded, &artifacts.embedded.shipped);
    let wgsl = manifest.wgsl.as_ref().zip(artifacts.wgpu.as_ref());
    for (module, (_, _, text)) in wgsl.iter().flat_map(|(wgsl, wgpu)| wgsl.modules.iter().zip(&wgpu.texts)) {
        put(&module.text, text.as_bytes())?;
    }
    put(&embedded.directory, &set.directory)?;
    put(&embedded.data, &set.data)?;
    if let (Some(name), Some(bytes)) = (&embedded.dictionary, &set.dictionary) {
        put(name, bytes)?;
    }
    for (module, data) in manifest.modules.iter().zip(&artifacts.embedded.modules) {
        put(&module.embedded.data, data)?;
    }
    if let Some((wgsl, wgpu)) = wgsl {
        put(&wgsl.data, &wgpu.packed.data)?;
    }
    // Compact: the macros parse it on every build of the crate.
    put(MANIFEST_FILE, &serde_json::to_vec(manifest).map_err(|e| Error::Internal(e.to_string()))?)?;
    remove_stale(&dir, &keep);
    write(&out_dir.join("smolv-report.txt"), report.to_text().as_bytes())?;
    write(&out_dir.join("smolv-report.json"), report.to_json().as_bytes())?;
    Ok(())
}

fn remove_stale(dir: &Path, keep: &[PathBuf]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() {
            remove_stale(&path, keep);
        } else if !keep.contains(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Cargo's target directory above `out_dir`: the nearest holding `CACHEDIR.TAG`, else the one above
/// `<profile>/build/<package>-<hash>/out`.
fn target_dir(out_dir: &Path) -> Option<PathBuf> {
    out_dir
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .or_else(|| out_dir.ancestors().nth(4))
        .map(Path::to_owned)
}

/// `path` with `.` dropped and `..` taken back lexically (`shaders/../a` is
/// not below `shaders`).
pub(crate) fn normalized(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Removes an earlier build's artifacts: a failed build leaves nothing stale to embed.
pub(crate) fn remove_artifacts(out_dir: &Path) {
    let _ = std::fs::remove_dir_all(out_dir.join(ARTIFACT_DIR));
    let _ = std::fs::remove_file(out_dir.join("smolv-report.txt"));
    let _ = std::fs::remove_file(out_dir.join("smolv-report.json"));
}

/// The `cargo::error=` lines of `error`: one per diagnostic or per line (Cargo has no continuation lines),
/// then one naming the build's `log`.
pub(crate) fn cargo_errors(error: &Error, log: Option<&Path>) -> Vec<String> {
    let mut messages: Vec<String> = match error {
        Error::Compile { diagnostics, .. } => diagnostics.iter().map(Diagnostic::headline).collect(),
        other => vec![other.to_string()],
    };
    if let (Error::Compile { failed, total, .. }, Some(log)) = (error, log) {
        messages.push(format!("{failed} of {total} shaders failed to compile; the build's log: {}", log.display()));
    }
    messages
        .iter()
        .flat_map(|message| lines(message).filter(|line| !line.trim().is_empty()))
        .map(|line| format!("cargo::error={line}"))
        .collect()
}

/// The lines of `text`, split at `\r` too, so that no text can end a directive and start another.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().flat_map(|line| line.split('\r'))
}

/// `path` as a directive's value; `None` if not UTF-8 or holding a line break.
fn directive_text(path: &Path) -> Option<&str> {
    path.to_str().filter(|text| !text.contains(['\n', '\r']))
}

/// What [`Directives::run_again`] watches in `OUT_DIR`: never created.
const RUN_AGAIN: &str = "smolv-run-again";

/// `cargo:` directives (none outside a build script), printed at the build's end: one `rerun-if-changed` per
/// shader root (Cargo scans it recursively) and per include outside them.
#[derive(Default)]
pub(crate) struct Directives {
    pub(crate) enabled: bool,
    pub(crate) watched: std::cell::RefCell<std::collections::BTreeSet<PathBuf>>,
    /// The roots watched so far, normalized and canonical.
    roots: std::cell::RefCell<Vec<(PathBuf, Option<PathBuf>)>>,
    /// Cargo's target directory above `OUT_DIR`, canonical.
    target_dir: Option<PathBuf>,
    lines: std::cell::RefCell<Vec<String>>,
    /// `CARGO_MANIFEST_DIR`, as given and canonical: what relative paths start from.
    manifest_dir: Vec<PathBuf>,
}

impl Directives {
    pub(crate) fn new(enabled: bool) -> Self {
        let manifest_dir = crate::env::cargo_var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        Self { enabled, ..Self::default() }.in_crate(manifest_dir.as_deref())
    }

    /// Takes `dir` as the crate's directory (see [`directive`](Self::directive)).
    fn in_crate(mut self, dir: Option<&Path>) -> Self {
        self.manifest_dir =
            dir.into_iter().flat_map(|dir| [dir.to_owned()].into_iter().chain(dir.canonicalize().ok())).collect();
        self
    }

    /// Never watches the target directory above `out_dir`, nor one holding it, whole.
    pub(crate) fn around(mut self, out_dir: &Path) -> Self {
        self.target_dir = out_dir.canonicalize().ok().and_then(|out| target_dir(&out));
        self
    }

    /// Watches a shader root (a directory or a file): what lies below it
    /// needs no directive of its own.
    pub(crate) fn watch_root(&self, root: &Path) {
        // Recorded first: `directive` reads the roots.
        self.roots.borrow_mut().push((normalized(root), root.canonicalize().ok()));
        self.print_rerun(root);
    }

    /// Makes Cargo run the build script again on its next build: it watches
    /// a path in `out_dir` that is never created.
    pub(crate) fn run_again(&self, out_dir: &Path) {
        self.print_rerun(&out_dir.join(RUN_AGAIN));
    }

    /// Watches `path`, unless a watched root holds it.
    pub(crate) fn rerun_if_changed(&self, path: &Path) {
        if !self.is_below_a_root(path) {
            self.print_rerun(path);
        }
    }

    fn print_rerun(&self, path: &Path) {
        if !self.enabled {
            return;
        }
        for path in self.watchable(path) {
            let Some((watched, line)) = self.directive(&path) else { continue };
            if self.watched.borrow_mut().insert(watched) {
                self.lines.borrow_mut().push(line);
            }
        }
    }

    /// The directive that watches `path`, and the path it names. A path no directive can carry is watched
    /// through a folder above it; where that folder holds the crate or a shader root (`/home/josé` in Latin-1),
    /// a path in the crate is watched relative to it, any other gets a `cargo:warning` and reruns every build.
    fn directive(&self, path: &Path) -> Option<(PathBuf, String)> {
        if let Some(text) = directive_text(path) {
            return Some((path.to_owned(), format!("cargo:rerun-if-changed={text}")));
        }
        if let Some(folder) = self.unnameable_folder_above_the_tree(path) {
            let in_crate = self
                .manifest_dir
                .iter()
                .find_map(|dir| path.strip_prefix(dir).ok().map(|relative| (dir, relative)))
                .filter(|(_, relative)| !relative.as_os_str().is_empty());
            if let Some((dir, relative)) = in_crate {
                if let Some(text) = directive_text(relative) {
                    return Some((path.to_owned(), format!("cargo:rerun-if-changed={text}")));
                }
                return self.through_folder(relative, dir);
            }
            let line = format!(
                "cargo:warning=smolv-build cannot watch shaders below {folder:?}: a Cargo directive cannot carry its \
                 name (a line break, or not UTF-8), so the build script runs again on every build; renaming the \
                 folder makes builds faster\ncargo:rerun-if-changed={RUN_AGAIN}"
            );
            return Some((folder, line));
        }
        self.through_folder(path, Path::new(""))
    }

    /// The directive for unnameable `path` (relative to `base`): its nearest nameable folder, unless that holds
    /// the target directory (a `cargo::error`) or lies in it (nothing).
    fn through_folder(&self, path: &Path, base: &Path) -> Option<(PathBuf, String)> {
        let above = path
            .ancestors()
            .skip(1)
            .map(|dir| if dir.as_os_str().is_empty() { Path::new(".") } else { dir })
            .find(|dir| directive_text(dir).is_some());
        if let Some(dir) = above {
            match self.place(&base.join(dir)) {
                (false, false) => {
                    return Some((base.join(dir), format!("cargo:rerun-if-changed={}", directive_text(dir)?)));
                }
                (_, true) => return None,
                (true, false) => {}
            }
        }
        let path = base.join(path);
        let error = format!(
            "cargo::error=cannot watch {path:?} for changes: a Cargo directive cannot carry its name (a line break, or \
             not UTF-8), and the directory above it holds the target directory; rename it"
        );
        Some((path, error))
    }

    /// What to watch for `path`: itself; nothing for a directory in the
    /// target directory; for one that holds it, its other entries, recursively.
    fn watchable(&self, path: &Path) -> Vec<PathBuf> {
        if self.target_dir.is_none() || !path.is_dir() {
            return vec![path.to_owned()];
        }
        match self.place(path) {
            (false, false) => return vec![path.to_owned()],
            (_, true) => return Vec::new(),
            (true, false) => {}
        }
        let mut found = Vec::new();
        let mut pending = vec![path.to_owned()];
        // Each real directory once: a link back up is not entered again.
        let mut entered = std::collections::BTreeSet::new();
        while let Some(dir) = pending.pop() {
            if !dir.canonicalize().is_ok_and(|real| entered.insert(real)) {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            let mut entries: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
            entries.sort();
            for entry in entries {
                match if entry.is_dir() { self.place(&entry) } else { (false, false) } {
                    (_, true) => {}
                    (true, false) => pending.push(entry),
                    (false, false) => found.push(entry),
                }
            }
        }
        found
    }

    /// The first folder of `path` no directive can name, where it holds (or
    /// is) the crate's directory or holds a shader root.
    fn unnameable_folder_above_the_tree(&self, path: &Path) -> Option<PathBuf> {
        let prefixes: Vec<&Path> = path.ancestors().collect();
        let folder = prefixes.into_iter().rev().find(|prefix| directive_text(prefix).is_none())?;
        let real = folder.canonicalize().ok();
        let holds = |anchor: &Path, strictly: bool| {
            [Some(folder), real.as_deref()]
                .into_iter()
                .flatten()
                .any(|folder| anchor.starts_with(folder) && (!strictly || anchor != folder))
        };
        let roots = self.roots.borrow();
        let above = self.manifest_dir.iter().any(|dir| holds(dir, false))
            || roots
                .iter()
                .any(|(root, real_root)| holds(root, true) || real_root.as_deref().is_some_and(|r| holds(r, true)));
        above.then(|| folder.to_owned())
    }

    /// Whether `dir` holds the target directory, and whether it lies in it.
    fn place(&self, dir: &Path) -> (bool, bool) {
        let Some(target) = &self.target_dir else { return (false, false) };
        dir.canonicalize().map_or((false, false), |dir| (target.starts_with(&dir), dir.starts_with(target)))
    }

    /// Whether `path` lies below a watched root, both as written and with
    /// links followed.
    fn is_below_a_root(&self, path: &Path) -> bool {
        let (lexical, canonical) = (normalized(path), path.canonicalize().ok());
        self.roots.borrow().iter().any(|(root, canonical_root)| {
            lexical.starts_with(root)
                && canonical.as_ref().zip(canonical_root.as_ref()).is_none_or(|(path, root)| path.starts_with(root))
        })
    }

    /// A warning; each line becomes its own `cargo:warning`.
    pub(crate) fn warning(&self, text: &str) {
        if self.enabled {
            self.lines.borrow_mut().extend(lines(text).map(|line| format!("cargo:warning={line}")));
        }
    }

    /// Prints every directive collected, in order.
    pub(crate) fn print(self) {
        for line in self.lines.into_inner() {
            println!("{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_below_a_watched_root_need_no_directive_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let (shaders, outside) = (dir.path().join("shaders"), dir.path().join("common"));
        std::fs::create_dir_all(shaders.join("include")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let directives = Directives::new(false);
        directives.watch_root(&shaders);
        directives.watch_root(&dir.path().join("alone.frag"));
        for inside in ["include/common.glsl", "a.frag", "./include/../b.frag"] {
            assert!(directives.is_below_a_root(&shaders.join(inside)), "{inside}");
        }
        assert!(directives.is_below_a_root(&dir.path().join("alone.frag")));
        for outside in [outside.join("x.glsl"), shaders.join("../common/x.glsl"), dir.path().join("shaders2/a.frag")] {
            assert!(!directives.is_below_a_root(&outside), "{}", outside.display());
        }
        #[cfg(unix)]
        {
            std::fs::write(outside.join("linked.glsl"), "").unwrap();
            std::os::unix::fs::symlink(outside.join("linked.glsl"), shaders.join("linked.glsl")).unwrap();
            assert!(!directives.is_below_a_root(&shaders.join("linked.glsl")), "a link out of the root");
        }
    }

    #[test]
    fn a_directory_holding_out_dir_is_watched_by_its_entries_never_whole() {
        // The crate as a shader root or include directory (`.`): watching it
        // whole would rerun the build script on every build, since the
        // build writes below it.
        let dir = tempfile::tempdir().unwrap();
        let krate = dir.path().canonicalize().unwrap();
        let out_dir = krate.join("target/debug/build/x-0123456789abcdef/out");
        std::fs::create_dir_all(&out_dir).unwrap();
        std::fs::write(krate.join("target/CACHEDIR.TAG"), "").unwrap();
        std::fs::create_dir_all(krate.join("shaders")).unwrap();
        std::fs::create_dir_all(krate.join("target/debug/deps")).unwrap();
        std::fs::write(krate.join("common.glsl"), "").unwrap();
        let directives = Directives::new(false).around(&out_dir);
        assert_eq!(directives.target_dir.as_deref(), Some(krate.join("target").as_path()));
        let watched = directives.watchable(&krate);
        assert_eq!(watched, [krate.join("common.glsl"), krate.join("shaders")], "all but `target`");
        assert_eq!(directives.watchable(&krate.join("target/debug")), Vec::<PathBuf>::new(), "in `target`");
        // Any other directory is watched whole, as before; and files.
        assert_eq!(directives.watchable(&krate.join("shaders")), [krate.join("shaders")]);
        assert_eq!(directives.watchable(&krate.join("common.glsl")), [krate.join("common.glsl")]);
        assert_eq!(Directives::new(false).watchable(&krate), vec![krate.clone()], "outside a build script");
        // A link back up is entered once, not until the path is too long.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&krate, krate.join("all")).unwrap();
            let watched = directives.watchable(&krate);
            assert_eq!(watched, [krate.join("common.glsl"), krate.join("shaders")], "a loop is entered once");
        }
        // Without the tag, the target directory is found by Cargo's layout.
        std::fs::remove_file(krate.join("target/CACHEDIR.TAG")).unwrap();
        assert_eq!(target_dir(&out_dir), Some(krate.join("target")));
    }

    #[cfg(unix)]
    #[test]
    fn a_path_no_directive_can_carry_is_watched_through_its_directory_or_refused() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let krate = dir.path().canonicalize().unwrap();
        let out_dir = krate.join("target/debug/build/x-0123456789abcdef/out");
        std::fs::create_dir_all(&out_dir).unwrap();
        std::fs::write(krate.join("target/CACHEDIR.TAG"), "").unwrap();
        let directives = Directives::new(false).around(&out_dir);
        let evil = krate.join("include/a.glsl\ncargo:rustc-cfg=evil");
        let (watched, line) = directives.directive(&evil).unwrap();
        assert_eq!(watched, krate.join("include"));
        assert_eq!(line, format!("cargo:rerun-if-changed={}", krate.join("include").display()));
        let not_utf8 = krate.join(std::ffi::OsStr::from_bytes(b"include/\xff.glsl"));
        assert_eq!(directives.directive(&not_utf8).unwrap().0, krate.join("include"));
        // In the crate's own directory, which holds the target directory:
        // refused, named escaped, on one line.
        let (_, line) = directives.directive(&krate.join("a.frag\ncargo:rustc-cfg=evil")).unwrap();
        assert!(line.starts_with("cargo::error=cannot watch "), "{line}");
        assert!(line.contains("a.frag\\ncargo:rustc-cfg=evil") && !line.contains('\n'), "{line}");
        // In the target directory: nothing.
        assert_eq!(directives.directive(&krate.join("target/debug/a\nb")), None);
        // An ordinary path is itself.
        assert_eq!(
            directives.directive(&krate.join("a.frag")).unwrap().1,
            format!("cargo:rerun-if-changed={}", krate.join("a.frag").display())
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_above_the_crate_no_directive_can_name_fails_no_build() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        // A project under a Latin-1 `/home/josé`: the folder that cannot be
        // named is above the crate, and `/`, the nearest folder a directive
        // can name, holds the target directory.
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap().join(OsStr::from_bytes(b"jos\xe9"));
        let krate = home.join("game");
        let out_dir = krate.join("target/debug/build/x-0123456789abcdef/out");
        std::fs::create_dir_all(&out_dir).unwrap();
        std::fs::create_dir_all(krate.join("shaders")).unwrap();
        std::fs::write(krate.join("target/CACHEDIR.TAG"), "").unwrap();
        let directives = Directives::new(false).in_crate(Some(&krate)).around(&out_dir);
        directives.watch_root(&krate.join("shaders"));

        // In the crate: watched relative to it, as Cargo reads a relative path.
        let (watched, line) = directives.directive(&krate.join("shaders")).unwrap();
        assert_eq!((watched, line.as_str()), (krate.join("shaders"), "cargo:rerun-if-changed=shaders"));
        assert_eq!(
            directives.directive(&out_dir).unwrap().1,
            "cargo:rerun-if-changed=target/debug/build/x-0123456789abcdef/out"
        );
        // Outside it (an include beside the crate): one warning that names
        // the folder escaped, and a rerun on every build; no error.
        let (watched, line) = directives.directive(&home.join("common/x.glsl")).unwrap();
        assert_eq!(watched, home, "one warning per folder");
        let lines: Vec<&str> = line.lines().collect();
        assert_eq!(lines.len(), 2, "{line}");
        assert!(lines[0].starts_with("cargo:warning=") && lines[0].contains("jos\\xE9"), "{line}");
        assert_eq!(lines[1], format!("cargo:rerun-if-changed={RUN_AGAIN}"));
        assert!(!line.contains("cargo::error"), "{line}");

        // A name in the crate stays the user's to rename: through its folder,
        // or refused where that folder holds the target directory.
        let (_, line) = directives.directive(&krate.join(OsStr::from_bytes(b"shaders/\xff.frag"))).unwrap();
        assert_eq!(line, "cargo:rerun-if-changed=shaders");
        let (_, line) = directives.directive(&krate.join("a.frag\ncargo:rustc-cfg=evil")).unwrap();
        assert!(line.starts_with("cargo::error=cannot watch ") && !line.contains('\n'), "{line}");

        // A shader root of its own below the folder, outside the crate.
        let elsewhere = Directives::new(false).in_crate(Some(&dir.path().join("other"))).around(&out_dir);
        elsewhere.watch_root(&home.join("assets"));
        assert!(elsewhere.directive(&home.join("assets/a.frag")).unwrap().1.starts_with("cargo:warning="));
        // Without a crate or root below it, the name is refused as before.
        let plain = Directives::new(false).in_crate(None).around(&out_dir);
        assert!(plain.directive(&krate.join("shaders/a.frag")).unwrap().1.starts_with("cargo::error="));
    }

    #[test]
    fn warnings_and_errors_never_carry_a_line_break() {
        let lines = cargo_errors(&Error::Config("a\ncargo:rustc-cfg=x\rcargo::rustc-env=Y=1".into()), None);
        assert_eq!(
            lines,
            [
                "cargo::error=smolv-build configuration: a",
                "cargo::error=cargo:rustc-cfg=x",
                "cargo::error=cargo::rustc-env=Y=1"
            ]
        );
    }

    #[test]
    fn every_shader_error_becomes_a_cargo_error_line() {
        let error = Error::Compile {
            diagnostics: vec![
                Diagnostic {
                    path: "shaders/a.frag".into(),
                    line: 3,
                    column: 5,
                    message: "'foo' : undeclared identifier".into(),
                    rendered: Some("  |\n3 | foo\n  | ^^^".into()),
                },
                Diagnostic::whole_file("shaders/b.comp", "the shader compiler crashed on this shader"),
            ],
            failed: 2,
            total: 3,
        };
        assert_eq!(
            cargo_errors(&error, None),
            [
                "cargo::error=shaders/a.frag:3:5: 'foo' : undeclared identifier",
                "cargo::error=shaders/b.comp: the shader compiler crashed on this shader",
            ]
        );
        let with_log = cargo_errors(&error, Some(Path::new("out/smolv-build.log")));
        assert_eq!(with_log.len(), 3);
        assert_eq!(with_log[2], "cargo::error=2 of 3 shaders failed to compile; the build's log: out/smolv-build.log");
        let lines = cargo_errors(&Error::Config("two shaders are named \"a\"\nrename one".into()), None);
        assert_eq!(
            lines,
            ["cargo::error=smolv-build configuration: two shaders are named \"a\"", "cargo::error=rename one"]
        );
    }
}
