//! `#include` in GLSL and HLSL: finding and reading a file, and the error when it is not found.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};

use super::glslang::IncludeType;

use crate::source::Job;

/// How many files and folders the search for a missing include looks at.
const SEARCH_LIMIT: usize = 20_000;

/// Finds `requested` as `#include` would, with the candidates that did not exist.
pub(super) fn resolve(
    requested: &str,
    kind: IncludeType,
    requesting: &Path,
    include_dirs: &[PathBuf],
) -> (Option<PathBuf>, Vec<PathBuf>) {
    let local = (kind == IncludeType::Relative).then(|| requesting.parent().map(|dir| dir.join(requested))).flatten();
    let mut missing = Vec::new();
    for candidate in local.into_iter().chain(include_dirs.iter().map(|dir| dir.join(requested))) {
        if candidate.is_file() {
            return (Some(candidate), missing);
        }
        missing.push(candidate);
    }
    (None, missing)
}

/// Reads an include: its text and the blake3 of exactly those bytes.
pub(super) fn read(path: &Path) -> Result<(String, [u8; 32]), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let hash = *blake3::hash(&bytes).as_bytes();
    let content = String::from_utf8(bytes).map_err(|e| format!("{} is not UTF-8 text: {e}", path.display()))?;
    if content.contains('\0') {
        return Err(format!("{} contains a NUL byte", path.display()));
    }
    Ok((content, hash))
}

/// The error for an include found nowhere [`resolve`] searched.
pub(super) fn missing(job: &Job, requested: &str, kind: IncludeType, requesting: &Path) -> String {
    let searched = match kind {
        IncludeType::Relative => "searched next to the file and in the include dirs",
        IncludeType::Standard => "searched the include dirs",
    };
    let add = "add that folder with `Config::include_dir` in build.rs, or with `-I` on the cargo smolv command line";
    let beside = || requesting.parent().is_some_and(|dir| dir.join(requested).is_file());
    let found = match kind {
        IncludeType::Standard if beside() => {
            format!("; it is next to the file, which only `#include \"{requested}\"` searches: write that, or {add}")
        }
        _ => match search(&job.root(), requested, SEARCH_LIMIT) {
            Some(dir) => {
                let current = std::env::current_dir().ok();
                format!("; the shader tree has it in {}: {add}", shown(&dir, current.as_deref()).display())
            }
            None => String::new(),
        },
    };
    format!("cannot find include {requested:?} ({searched}{found})")
}

/// `path` relative to `current`, the current directory, when below it.
fn shown<'a>(path: &'a Path, current: Option<&Path>) -> &'a Path {
    current.and_then(|dir| path.strip_prefix(dir).ok()).filter(|p| !p.as_os_str().is_empty()).unwrap_or(path)
}

/// The shallowest folder below `root` holding `requested` (no hidden folders, `target` or links; `limit` entries).
fn search(root: &Path, requested: &str, limit: usize) -> Option<PathBuf> {
    let names = Path::new(requested)
        .components()
        .filter(|component| *component != Component::CurDir)
        .map(|component| if let Component::Normal(name) = component { Some(name) } else { None })
        .collect::<Option<Vec<_>>>()
        .filter(|names| !names.is_empty())?;
    let requested: PathBuf = names.iter().collect();
    let skipped = |name: &str| name == "target" || name.starts_with('.');
    let mut folders = VecDeque::from([root.to_path_buf()]);
    let mut seen = 0;
    while let Some(folder) = folders.pop_front() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        let holding = |path: PathBuf| {
            path.ancestors().nth(names.len()).filter(|dir| dir.starts_with(root)).map(Path::to_path_buf)
        };
        let found =
            entries.iter().map(std::fs::DirEntry::path).filter(|path| path.ends_with(&requested) && path.is_file());
        if let Some(dir) = found.filter_map(holding).next() {
            return Some(dir);
        }
        seen += entries.len();
        if seen > limit {
            return None;
        }
        let is_folder = |entry: &std::fs::DirEntry| entry.file_type().is_ok_and(|t| t.is_dir());
        folders.extend(
            entries
                .into_iter()
                .filter(|entry| is_folder(entry) && !skipped(&entry.file_name().to_string_lossy()))
                .map(|entry| entry.path()),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_report_the_candidates_tried_before_the_one_found() {
        let dir = tempfile::tempdir().unwrap();
        let (shaders, first, second) = (dir.path().join("shaders"), dir.path().join("a"), dir.path().join("b"));
        [&shaders, &first, &second].iter().for_each(|d| std::fs::create_dir_all(d).unwrap());
        std::fs::write(second.join("common.glsl"), "// b").unwrap();
        let requesting = shaders.join("main.frag");
        let dirs = [first.clone(), second.clone()];
        let (found, missing) = resolve("common.glsl", IncludeType::Relative, &requesting, &dirs);
        assert_eq!(found, Some(second.join("common.glsl")));
        assert_eq!(missing, [shaders.join("common.glsl"), first.join("common.glsl")], "in search order");
        let (found, missing) = resolve("common.glsl", IncludeType::Standard, &requesting, &dirs);
        assert_eq!((found, missing), (Some(second.join("common.glsl")), vec![first.join("common.glsl")]));
    }

    #[test]
    fn an_include_is_hashed_as_the_bytes_handed_to_the_compiler() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("common.glsl");
        std::fs::write(&path, "float f() { return 1.0; }\n").unwrap();
        let (content, hash) = read(&path).unwrap();
        assert_eq!(hash, *blake3::hash(content.as_bytes()).as_bytes());
        std::fs::write(&path, b"bad \xff").unwrap();
        assert!(read(&path).unwrap_err().contains("UTF-8"));
    }

    /// Files at `paths` below `root`, empty.
    fn files(root: &Path, paths: &[&str]) {
        for path in paths {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
    }

    fn job(root: &Path, name: &str) -> Job {
        Job::for_test(name, root.join(name.split('@').next().unwrap()), crate::options::Language::Glsl)
    }

    #[test]
    fn a_missing_include_that_the_tree_has_names_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("shaders");
        files(&root, &["includes/glsl/lighting.h", "a/x.vert", "a/near.h"]);
        let (includes, shader) = (root.join("includes/glsl"), job(&root, "a/x.vert"));
        let requesting = root.join("a/x.vert");
        let add =
            "add that folder with `Config::include_dir` in build.rs, or with `-I` on the cargo smolv command line";
        assert_eq!(
            missing(&shader, "lighting.h", IncludeType::Relative, &requesting),
            format!(
                "cannot find include \"lighting.h\" (searched next to the file and in the include dirs; the shader \
                 tree has it in {}: {add})",
                includes.display()
            )
        );
        // `<near.h>` does not look next to the file; `"near.h"` does.
        assert_eq!(
            missing(&shader, "near.h", IncludeType::Standard, &requesting),
            format!(
                "cannot find include \"near.h\" (searched the include dirs; it is next to the file, which only \
                 `#include \"near.h\"` searches: write that, or {add})"
            )
        );
        // Included from a variant, or from an include below the root.
        assert!(
            missing(&job(&root, "a/x.vert@fog"), "lighting.h", IncludeType::Relative, &requesting)
                .contains(&includes.display().to_string())
        );
        let inner = missing(&shader, "lighting.h", IncludeType::Standard, &root.join("a/near.h"));
        assert!(inner.contains("searched the include dirs; the shader tree has it in"), "{inner}");
        // Not in the tree.
        assert_eq!(
            missing(&shader, "shadow.h", IncludeType::Relative, &requesting),
            "cannot find include \"shadow.h\" (searched next to the file and in the include dirs)"
        );
    }

    #[test]
    fn the_search_takes_plain_names_and_the_shallowest_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("glsl");
        files(&root, &["aa/b/c.h", "zz/c.h", "includes/glsl/lighting.h"]);
        // Breadth first: `zz` is shallower than `aa/b`, though later by name.
        assert_eq!(search(&root, "c.h", SEARCH_LIMIT), Some(root.join("zz")));
        // A path below the folder names the folder it is relative to; `.`
        // is no folder; `..` and absolute paths leave the tree.
        assert_eq!(search(&root, "glsl/lighting.h", SEARCH_LIMIT), Some(root.join("includes")));
        assert_eq!(search(&root, "./lighting.h", SEARCH_LIMIT), Some(root.join("includes/glsl")));
        assert_eq!(search(&root, "../glsl/zz/c.h", SEARCH_LIMIT), None);
        assert_eq!(search(&root, &root.join("zz/c.h").to_string_lossy(), SEARCH_LIMIT), None);
        // `zz` is the fourth folder read, after five entries (the root's
        // three, `aa`'s and `includes`' one each): a limit of 4 gives up,
        // one of 5 finds it.
        assert_eq!(search(&root, "c.h", 4), None);
        assert_eq!(search(&root, "c.h", 5), Some(root.join("zz")));
        // The root's own name does not count: `glsl/zz` is not below it,
        // and the search goes on to one that is.
        assert_eq!(search(&root, "glsl/zz/c.h", SEARCH_LIMIT), None);
        files(&root, &["x/glsl/zz/c.h"]);
        assert_eq!(search(&root, "glsl/zz/c.h", SEARCH_LIMIT), Some(root.join("x")));
        // Nothing asked for, nothing found (not the root's first file).
        assert_eq!(search(&root, "", SEARCH_LIMIT), None);
        assert_eq!(search(&root, "./", SEARCH_LIMIT), None);
    }

    #[test]
    fn the_search_skips_target_hidden_folders_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("shaders");
        files(&root, &["target/t.h", ".git/h.h", "real/l.h", "a.vert"]);
        assert_eq!(search(&root, "t.h", SEARCH_LIMIT), None);
        assert_eq!(search(&root, "h.h", SEARCH_LIMIT), None);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
            std::os::unix::fs::symlink(root.join("real"), root.join("linked")).unwrap();
            assert_eq!(search(&root, "l.h", SEARCH_LIMIT), Some(root.join("real")));
            // Ends, through the loop (the limit would end it too, later).
            assert_eq!(search(&root, "missing.h", SEARCH_LIMIT), None);
        }
    }

    #[test]
    fn paths_are_shown_relative_to_the_current_directory_below_it() {
        let current = Path::new("/game");
        assert_eq!(shown(Path::new("/game/shaders/inc"), Some(current)), Path::new("shaders/inc"));
        assert_eq!(shown(Path::new("/game"), Some(current)), Path::new("/game"));
        assert_eq!(shown(Path::new("/elsewhere/inc"), Some(current)), Path::new("/elsewhere/inc"));
        assert_eq!(shown(Path::new("shaders/inc"), Some(current)), Path::new("shaders/inc"));
        assert_eq!(shown(Path::new("/game/inc"), None), Path::new("/game/inc"));
    }
}
