//! Shared helpers for the workspace's integration tests.
//!
//! The SMOL-V conformance corpus lives outside the repository, in
//! `../shared/corpus` next to the workspace root (its license allows it to
//! be used for SMOL-V testing only, so it is never copied in). Set
//! `SMOLV_CORPUS_DIR` to use another location. Tests that need it call
//! [`Corpus::locate`], which fails the test under CI when it is missing.
#![allow(
    clippy::cast_possible_truncation,
    reason = "test support code: the sizes it converts are small and fixed by the tests"
)]

use std::path::{Path, PathBuf};

pub mod markdown;
pub mod outside;
pub mod vulkan;

/// The environment variable `name`: the tests' one reader.
#[allow(clippy::disallowed_methods, reason = "the tests' one reader of the environment")]
pub fn env_var_os(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name)
}

/// The conformance corpus: real SPIR-V plus the reference encoder's output.
#[derive(Debug, Clone)]
pub struct Corpus {
    root: PathBuf,
}

/// One legacy SMOL-V file and the SPIR-V it must decode to.
#[derive(Debug, Clone)]
pub struct LegacyCase {
    /// The SMOL-V file written by an older encoder.
    pub smolv: PathBuf,
    /// The exact SPIR-V it decodes to.
    pub expected: PathBuf,
    /// Whether it uses the 2016-08-31 dialect of encoding version 0.
    pub dialect_2016_08_31: bool,
}

impl Corpus {
    /// Finds the corpus. Returns `None` (after saying so on stderr) when it
    /// is absent on a developer machine; panics when it is absent under CI,
    /// where it must always be present.
    pub fn locate() -> Option<Self> {
        let root = env_var_os("SMOLV_CORPUS_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
        if root.join("MANIFEST.tsv").is_file() {
            return Some(Self { root });
        }
        assert!(
            env_var_os("CI").is_none(),
            "the conformance corpus is missing at {} but CI must always have it",
            root.display()
        );
        eprintln!("conformance corpus not found at {}; corpus checks not run here", root.display());
        None
    }

    /// The corpus root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Paths of every SPIR-V module, relative to `spirv/` (for example
    /// `dota2/1021831.spv`), sorted.
    pub fn spirv_modules(&self) -> Vec<String> {
        let mut modules: Vec<String> = files_under(&self.root.join("spirv"))
            .into_iter()
            .filter_map(|p| p.strip_prefix(self.root.join("spirv")).ok().map(|r| r.to_string_lossy().into_owned()))
            .collect();
        modules.sort();
        modules
    }

    /// Absolute path of a module from [`Corpus::spirv_modules`].
    pub fn spirv_path(&self, module: &str) -> PathBuf {
        self.root.join("spirv").join(module)
    }

    /// The reference encoder's output for `module`; `suffix` is `.smolv`,
    /// `.strip.smolv` or `.strip.spv`.
    pub fn reference_path(&self, module: &str, suffix: &str) -> PathBuf {
        self.root.join("reference").join(format!("{module}{suffix}"))
    }

    /// Every legacy SMOL-V file with its expected SPIR-V, sorted.
    pub fn legacy_cases(&self) -> Vec<LegacyCase> {
        let mut cases: Vec<LegacyCase> = files_under(&self.root.join("legacy"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "smolv"))
            .map(|smolv| {
                let stem = smolv.file_stem().unwrap_or_default().to_string_lossy().into_owned();
                let expected = smolv.with_file_name(format!("{stem}-exp.spirv"));
                let dialect_2016_08_31 = smolv.parent().and_then(Path::file_name).is_some_and(|d| d == "2016-08-31");
                LegacyCase { smolv, expected, dialect_2016_08_31 }
            })
            .collect();
        cases.sort_by(|a, b| a.smolv.cmp(&b.smolv));
        cases
    }

    /// The malformed SPIR-V files that encoders must reject.
    pub fn invalid_modules(&self) -> Vec<PathBuf> {
        let mut files = files_under(&self.root.join("invalid"));
        files.sort();
        files
    }
}

/// Reads a file, panicking with its path on failure.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Little-endian bytes as SPIR-V words; the length must be a multiple of 4.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    assert!(bytes.len().is_multiple_of(4), "{} bytes is not whole words", bytes.len());
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// SPIR-V words as little-endian bytes.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Every regular file below `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.is_file() {
                files.push(path);
            }
        }
    }
    files
}

/// Collects failures so a test can report every broken file at once.
#[derive(Debug, Default)]
pub struct Failures(Vec<String>);

impl Failures {
    /// Records one failure.
    pub fn push(&mut self, failure: impl Into<String>) {
        self.0.push(failure.into());
    }

    /// Panics listing every recorded failure, if any; `checked` is how many
    /// cases were examined, and must be non-zero.
    pub fn assert_none(self, what: &str, checked: usize) {
        assert!(checked > 0, "{what}: no cases were checked");
        assert!(self.0.is_empty(), "{what}: {} of {checked} failed:\n  {}", self.0.len(), self.0.join("\n  "));
        eprintln!("{what}: all {checked} passed");
    }
}

/// Runs `spirv-val` on SPIR-V words; `Err` holds its complaint. Panics if
/// `spirv-val` is not installed (scripts/setup.sh installs it).
pub fn spirv_val(words: &[u32], target_env: &str) -> Result<(), String> {
    let dir = tempfile_dir();
    let path = dir.join(format!("module-{}.spv", unique()));
    std::fs::write(&path, bytes(words)).expect("write temp module");
    let output = std::process::Command::new("spirv-val")
        .args(["--target-env", target_env])
        .arg(&path)
        .output()
        .expect("spirv-val must be installed (apt-get install spirv-tools; scripts/setup.sh does it)");
    let _ = std::fs::remove_file(&path);
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
    }
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join("smolv-tests");
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn unique() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A deterministic xorshift generator, so a failing random case reproduces.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}
