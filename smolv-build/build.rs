//! Identifies what this smolv-build is made of, for its build cache: an
//! entry is reused only when the code that produced it is the same.
//!
//! - `SMOLV_BUILD_SOURCE_HASH`: blake3 over smolv-build's own sources
//!   (`src/`, `build.rs`, `Cargo.toml`) and smolv-codec's (found through
//!   its `links` metadata, `DEP_SMOLV_CODEC_MANIFEST_DIR`: its encoder and
//!   specializer run at build time), so a patched or git
//!   checkout never reuses entries of another one with the same version.
//!
//! The compilers linked in are identified by their exact crate versions
//! (`compile::frontend::compiler_identity`), not here.

use std::path::{Path, PathBuf};

#[allow(clippy::disallowed_methods, reason = "the build script reads what Cargo sets")]
fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("Cargo sets CARGO_MANIFEST_DIR"));
    for watched in ["src", "build.rs", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={watched}");
    }
    let mut identity = source_hash(&manifest_dir);
    if let Some(codec) = std::env::var_os("DEP_SMOLV_CODEC_MANIFEST_DIR").map(PathBuf::from) {
        for watched in ["src", "build.rs", "Cargo.toml"] {
            println!("cargo:rerun-if-changed={}", codec.join(watched).display());
        }
        identity = format!("{identity}+{}", source_hash(&codec));
    }
    println!("cargo:rustc-env=SMOLV_BUILD_SOURCE_HASH={identity}");
}

/// blake3 over every file of `src/` (by path relative to the crate, in
/// sorted order), `build.rs` and `Cargo.toml`: names and contents, each
/// length-prefixed.
fn source_hash(manifest_dir: &Path) -> String {
    let mut files = Vec::new();
    collect(&manifest_dir.join("src"), &mut files);
    files.push(manifest_dir.join("build.rs"));
    files.push(manifest_dir.join("Cargo.toml"));
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(manifest_dir).unwrap_or(&path);
            let name = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            (name, path)
        })
        .collect();
    named.sort();
    let mut hasher = blake3::Hasher::new();
    for (name, path) in named {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        hasher.update(&(name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    hasher.finalize().to_hex().to_string()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
