//! The environment, read only here (`clippy.toml` forbids `std::env::var` elsewhere): smolv's variables through
//! [`Env::var_os`], which watches [`WATCHED`] in a build that prints directives; Cargo's through [`cargo_var_os`].

use std::ffi::OsString;

/// What changes what the build makes, so Cargo reruns the build script when one changes: read even where a setter
/// wins. The crate docs list them (a test compares).
pub(crate) const WATCHED: [&str; 13] = [
    // Where the cache is.
    "SMOLV_CACHE_DIR",
    "CARGO_TARGET_DIR",
    "SMOLV_REPORT",
    "SMOLV_SPIRV_OPT",
    "SMOLV_SLANGC",
    // Named the glslc of the deprecated `Config::glslc`: watched until it goes.
    "SMOLV_GLSLC",
    "SMOLV_PACKING",
    "SMOLV_SIZE_GOAL",
    "SMOLV_TARGET",
    // A new session of `cargo smolv prepare` must rerun every build script.
    "SMOLV_PREPARE",
    // What the smolv-runtime that embeds the set unpacks (`links` metadata).
    "DEP_SMOLV_RUNTIME_CODECS",
    "DEP_SMOLV_RUNTIME_ZSTD",
    "DEP_SMOLV_RUNTIME_WGPU",
];

/// Read, but never watched: they change how a build runs, not what it makes.
const UNWATCHED: [&str; 20] = [
    // Where entries come from, never the output (and Cargo would keep the header in its fingerprints).
    "SMOLV_REMOTE_CACHE",
    "SMOLV_REMOTE_CACHE_MODE",
    "SMOLV_REMOTE_CACHE_HEADER",
    "SMOLV_REMOTE_CACHE_TIME_LIMIT",
    // Where the compilers run, and their limits.
    "SMOLV_WORKERS",
    "SMOLV_WORKER_TIMEOUT",
    "SMOLV_WORKER_MEMORY_MB",
    // Where slangc is looked for without `SMOLV_SLANGC`.
    "PATH",
    // Set by the build for its workers.
    "SMOLV_BUILD_WORKER",
    "SMOLV_BUILD_WORKER_PARENT",
    "SMOLV_BUILD_WORKER_MEMORY",
    // Test hooks, and the unit tests' own.
    "SMOLV_WORKER_TEST_CRASH",
    "SMOLV_WORKER_TEST_DELAY",
    "SMOLV_WORKER_TEST_ABORT",
    "SMOLV_WORKER_TEST_STARTED",
    "SMOLV_WORKER_TEST_GRANDCHILD",
    "SMOLV_WORKER_TEST_DEAF",
    "SMOLV_TEST_JOB_LOG",
    "SMOLV_CORPUS_DIR",
    "CI",
];

/// How a build reads the environment: watching when it prints directives.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Env {
    watching: bool,
}

impl Env {
    pub(crate) fn watching(watching: bool) -> Self {
        Self { watching }
    }

    /// The variable `name`, one of [`WATCHED`] or [`UNWATCHED`].
    #[allow(clippy::disallowed_methods, reason = "the one reader of smolv's variables")]
    pub(crate) fn var_os(self, name: &str) -> Option<OsString> {
        let watched = WATCHED.contains(&name);
        debug_assert!(watched || UNWATCHED.contains(&name), "{name}: add it to env::WATCHED or env::UNWATCHED");
        if watched && self.watching {
            #[cfg(test)]
            tests::WATCHED_HERE.with(|names| names.borrow_mut().insert(name.to_owned()));
            println!("cargo:rerun-if-env-changed={name}");
        }
        std::env::var_os(name)
    }

    /// The variable `name` when it is set, not empty, and UTF-8.
    pub(crate) fn var(self, name: &str) -> Option<String> {
        text(self.var_os(name))
    }
}

/// The variable `name`, read by whatever never watches (see [`Env::var_os`]).
pub(crate) fn var_os(name: &str) -> Option<OsString> {
    Env::default().var_os(name)
}

/// The variable `name`, set, not empty and UTF-8, never watched.
pub(crate) fn var(name: &str) -> Option<String> {
    Env::default().var(name)
}

/// A variable Cargo sets for build scripts (`OUT_DIR`, `PROFILE`, …): never watched.
#[allow(clippy::disallowed_methods, reason = "the one reader of the variables Cargo sets")]
pub(crate) fn cargo_var_os(name: &str) -> Option<OsString> {
    debug_assert!(!WATCHED.contains(&name) && !UNWATCHED.contains(&name), "{name} is not Cargo's");
    std::env::var_os(name)
}

/// As [`cargo_var_os`], when set, not empty and UTF-8.
pub(crate) fn cargo_var(name: &str) -> Option<String> {
    text(cargo_var_os(name))
}

fn text(value: Option<OsString>) -> Option<String> {
    value.and_then(|value| value.into_string().ok()).filter(|value| !value.is_empty())
}

/// `set`, else the variable's `text` as `parse` reads it (trimmed), else `None`; `Err` with text `parse` refuses.
pub(crate) fn setting<T>(
    set: Option<T>,
    text: Option<String>,
    parse: fn(&str) -> Option<T>,
) -> Result<Option<T>, String> {
    match (set, text) {
        (None, Some(text)) => parse(text.trim()).map(Some).ok_or(text),
        (set, _) => Ok(set),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::{UNWATCHED, WATCHED};
    use crate::config::Config;
    use crate::options::{Packing, SizeGoal};

    thread_local! {
        /// The variables this thread's builds watched.
        pub(super) static WATCHED_HERE: std::cell::RefCell<BTreeSet<String>> = const {
            std::cell::RefCell::new(BTreeSet::new())
        };
    }

    #[test]
    fn a_build_that_prints_directives_watches_every_watched_variable_whatever_wins() {
        let watched: BTreeSet<String> = WATCHED.map(str::to_owned).into();
        let mut set = Config::new();
        set.cache_dir("cache").spirv_opt("spirv-opt").slangc("slangc").for_vulkan();
        set.packing(Packing::Auto).size_goal(SizeGoal::Download);
        for config in [&mut Config::new(), &mut set] {
            WATCHED_HERE.take();
            config.out_dir("out").cargo_directives(true).plan().unwrap();
            assert_eq!(WATCHED_HERE.take(), watched);
        }
        Config::new().out_dir("out").plan().unwrap();
        assert_eq!(WATCHED_HERE.take(), BTreeSet::new(), "no directives, nothing watched");
    }

    /// The variables the crate docs' "Environment" table lists, each with
    /// whether it says Cargo reruns the build.
    fn crate_docs_table() -> Vec<(String, bool)> {
        let docs = include_str!("lib.rs");
        let section = docs.split("//! ## Environment\n").nth(1).expect("the crate docs have an Environment section");
        let section = section.split("//! ## ").next().unwrap_or_default();
        section
            .lines()
            .filter_map(|line| line.strip_prefix("//! | `"))
            .map(|row| {
                let (name, rest) = row.split_once('`').expect("a row starts with a `NAME`");
                let reruns = rest.trim_end().trim_end_matches('|').rsplit('|').next().unwrap_or_default().trim();
                assert!(matches!(reruns, "yes" | "no"), "{name}: the last column says yes or no, not {reruns:?}");
                (name.to_owned(), reruns == "yes")
            })
            .collect()
    }

    /// Every `SMOLV_…` (and `DEP_SMOLV_…`) name in the READMEs and `docs/`.
    fn names_in_the_docs(root: &Path) -> BTreeSet<String> {
        let mut files = vec![root.join("README.md"), root.join("smolv-build/README.md")];
        let mut docs: Vec<_> = std::fs::read_dir(root.join("docs")).unwrap().flatten().map(|e| e.path()).collect();
        docs.sort();
        files.extend(docs.into_iter().filter(|path| path.extension().is_some_and(|e| e == "md")));
        let mut names = BTreeSet::new();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            for (at, _) in text.match_indices("SMOLV_") {
                let start = if text[..at].ends_with("DEP_") { at - 4 } else { at };
                let end = text[at..].find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'));
                names.insert(text[start..end.map_or(text.len(), |end| at + end)].trim_end_matches('_').to_owned());
            }
        }
        names
    }

    /// The text of every file under `dir` but this one.
    fn sources(dir: &Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("src/env.rs") {
                out.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }

    #[test]
    fn every_documented_variable_is_watched_or_says_why_not() {
        let table = crate_docs_table();
        let watched: BTreeSet<&str> = WATCHED.into_iter().collect();
        let documented: BTreeSet<&str> = table.iter().filter(|(_, yes)| *yes).map(|(name, _)| name.as_str()).collect();
        assert_eq!(documented, watched, "the crate docs' Environment table says `yes` for exactly env::WATCHED");
        for (name, _) in table.iter().filter(|(_, yes)| !yes) {
            assert!(UNWATCHED.contains(&name.as_str()), "{name}: documented as not watched, but not env::UNWATCHED");
        }
        assert!(WATCHED.iter().all(|name| !UNWATCHED.contains(name)), "a variable is watched or not, never both");

        // A variable the other docs name is one the build reads as above,
        // or one it never reads (the benchmarks' and tests' knobs).
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut code = String::new();
        sources(&crate_dir.join("src"), &mut code);
        for name in names_in_the_docs(crate_dir.parent().unwrap()) {
            let known = WATCHED.contains(&name.as_str()) || UNWATCHED.contains(&name.as_str());
            assert!(known || !code.contains(&format!("\"{name}\"")), "{name} is documented and read: list it in env");
        }
    }
}
