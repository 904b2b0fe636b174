//! Identifies what this smolv-build is made of, for its build cache: an
//! entry is reused only when the code that produced it is the same.
//!
//! - `SMOLV_BUILD_SOURCE_HASH`: blake3 over smolv-build's own sources
//!   (`src/`, `build.rs`, `Cargo.toml`) and smolv-runtime's (found through
//!   its `links` metadata, `DEP_SMOLV_RUNTIME_MANIFEST_DIR`: its
//!   specializer and reflection run at build time), so a patched or git
//!   checkout never reuses entries of another one with the same version.
//! - `SMOLV_SHADERC_LIBRARY` and `SMOLV_SHADERC_IDENTITY` (feature
//!   `shaderc`): the shaderc library that shaderc-sys links, found the way
//!   shaderc-sys 0.10 finds it, and its blake3 with the glslang and
//!   SPIRV-Tools version strings it carries. Both are empty when it cannot
//!   be found (shaderc built from source); the build then identifies the
//!   compiler by its own executable at run time.

use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("Cargo sets CARGO_MANIFEST_DIR"));
    for watched in ["src", "build.rs", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={watched}");
    }
    let mut identity = source_hash(&manifest_dir);
    if let Some(runtime) = std::env::var_os("DEP_SMOLV_RUNTIME_MANIFEST_DIR").map(PathBuf::from) {
        for watched in ["src", "build.rs", "Cargo.toml"] {
            println!("cargo:rerun-if-changed={}", runtime.join(watched).display());
        }
        identity = format!("{identity}+{}", source_hash(&runtime));
    }
    println!("cargo:rustc-env=SMOLV_BUILD_SOURCE_HASH={identity}");

    let library = if std::env::var_os("CARGO_FEATURE_SHADERC").is_some()
        && std::env::var_os("CARGO_FEATURE_SHADERC_BUILD_FROM_SOURCE").is_none()
    {
        shaderc_library()
    } else {
        None
    };
    let (path, identity) = match &library {
        Some(path) => {
            println!("cargo:rerun-if-changed={}", path.display());
            match std::fs::read(path) {
                Ok(bytes) => (path.display().to_string(), library_identity(&bytes)),
                Err(_) => (String::new(), String::new()),
            }
        }
        None => (String::new(), String::new()),
    };
    println!("cargo:rustc-env=SMOLV_SHADERC_LIBRARY={path}");
    println!("cargo:rustc-env=SMOLV_SHADERC_IDENTITY={identity}");
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

/// The library shaderc-sys 0.10 links (see its `build/build.rs`): the
/// first directory of `SHADERC_LIB_DIR`, `$VULKAN_SDK/lib`, pkg-config's
/// for `shaderc`, and the system's library directory; in it, the static
/// `shaderc_combined` (smolv-build asks shaderc for
/// `prefer-static-linking`), else the shared library.
fn shaderc_library() -> Option<PathBuf> {
    println!("cargo:rerun-if-env-changed=SHADERC_LIB_DIR");
    println!("cargo:rerun-if-env-changed=VULKAN_SDK");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let dir = search_dir(&target_os)?;
    let dir = dir.canonicalize().unwrap_or(dir);
    let static_name =
        if target_os == "windows" && target_env == "msvc" { "shaderc_combined.lib" } else { "libshaderc_combined.a" };
    let shared =
        |name: &str| dir.join(format!("{}{name}{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX));
    [dir.join(static_name), shared("shaderc"), shared("shaderc_shared")].into_iter().find(|path| path.is_file())
}

fn search_dir(target_os: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SHADERC_LIB_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(sdk) = std::env::var_os("VULKAN_SDK") {
        return Some(PathBuf::from(sdk).join("lib"));
    }
    if let Some(dir) = pkg_config_dir() {
        return Some(dir);
    }
    match target_os {
        "macos" => Some(PathBuf::from("/usr/local/lib/")).filter(|dir| dir.exists()),
        "linux" => {
            let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
            let debian = PathBuf::from(format!("/usr/lib/{}-linux-gnu/", if arch == "x86" { "i386" } else { &arch }));
            Some(if debian.exists() {
                debian
            } else if arch == "x86_64" && Path::new("/usr/lib64/").exists() {
                PathBuf::from("/usr/lib64/")
            } else {
                PathBuf::from("/usr/lib/")
            })
        }
        _ => None,
    }
}

/// The first `-L` directory pkg-config gives for `shaderc`, system
/// directories included (as the pkg-config crate asks for them).
fn pkg_config_dir() -> Option<PathBuf> {
    let output = std::process::Command::new(std::env::var_os("PKG_CONFIG").unwrap_or_else(|| "pkg-config".into()))
        .args(["--libs-only-L", "shaderc"])
        .env("PKG_CONFIG_ALLOW_SYSTEM_LIBS", "1")
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    let text = String::from_utf8(output.stdout).ok()?;
    text.split_whitespace().find_map(|flag| flag.strip_prefix("-L")).map(PathBuf::from)
}

/// `blake3=<hex>` of the library, then the glslang and SPIRV-Tools version
/// strings found in it (`glslang Khronos. 12.0.0`, `SPIRV-Tools v2023.1
/// …`), for people reading the key; the hash is what tells builds apart.
fn library_identity(bytes: &[u8]) -> String {
    let mut parts = vec![format!("blake3={}", blake3::hash(bytes).to_hex())];
    // Searched as text: std's UTF-8 conversion is optimized code even in a
    // build script compiled without optimization, a byte loop here is not.
    let text = String::from_utf8_lossy(bytes);
    for marker in ["glslang Khronos. ", "SPIRV-Tools v"] {
        if let Some(start) = text.find(marker) {
            let version: String =
                text[start..].chars().take(120).take_while(|c| (' '..='~').contains(c) && *c != ';').collect();
            parts.push(version.trim().to_owned());
        }
    }
    parts.join(" ")
}
