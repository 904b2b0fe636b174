//! Writing the results: artifacts and manifest in `OUT_DIR`, and the
//! `cargo:` directives that make Cargo rerun the build exactly when needed.

use std::path::{Path, PathBuf};

use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE};

use crate::error::{Diagnostic, Error};
use crate::recipe::ShaderRecipe;
use crate::report::Report;

/// The manifest as this build writes it: each module's recipe is a
/// [`ShaderRecipe`].
pub(crate) type Manifest = smolv_format::Manifest<ShaderRecipe>;

/// The embedded set's files.
pub(crate) struct EmbeddedFiles {
    pub(crate) directory: Vec<u8>,
    pub(crate) data: Vec<u8>,
    pub(crate) dictionary: Option<Vec<u8>>,
    /// Per module, in manifest order: the module packed alone.
    pub(crate) modules: Vec<Vec<u8>>,
}

/// Everything to write into the artifact directory.
pub(crate) struct Artifacts {
    pub(crate) manifest: Manifest,
    pub(crate) containers: Vec<Vec<u8>>,
    pub(crate) optimized: Vec<Vec<u8>>,
    pub(crate) dictionary: Option<Vec<u8>>,
    pub(crate) bundle: Vec<u8>,
    pub(crate) embedded: EmbeddedFiles,
}

/// File name of a module's container: readable, and unique even where
/// names differ only in characters that files cannot hold.
pub(crate) fn artifact_name(index: usize, module: &str, kind: &str) -> String {
    let safe: String =
        module.chars().map(|c| if c.is_ascii_alphanumeric() || "._-@".contains(c) { c } else { '_' }).collect();
    match kind {
        "spv" => format!("spirv/{index:04}-{safe}.spv"),
        "data" => format!("embedded/modules/{index:04}-{safe}.data"),
        _ => format!("modules/{index:04}-{safe}.smvc"),
    }
}

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

/// Writes the artifact directory, replacing the previous one. Files of
/// modules that no longer exist are removed.
pub(crate) fn write_artifacts(out_dir: &Path, artifacts: &Artifacts, report: &Report) -> Result<(), Error> {
    let dir = out_dir.join(ARTIFACT_DIR);
    let mut keep: Vec<PathBuf> = Vec::new();
    for ((module, container), spirv) in
        artifacts.manifest.modules.iter().zip(&artifacts.containers).zip(&artifacts.optimized)
    {
        for (name, bytes) in [(&module.artifact, container), (&module.optimized_spirv, spirv)] {
            let path = dir.join(name);
            write(&path, bytes)?;
            keep.push(path);
        }
    }
    if let (Some(name), Some(bytes)) = (&artifacts.manifest.dictionary, &artifacts.dictionary) {
        write(&dir.join(name), bytes)?;
        keep.push(dir.join(name));
    }
    write(&dir.join(&artifacts.manifest.bundle), &artifacts.bundle)?;
    keep.push(dir.join(&artifacts.manifest.bundle));
    let embedded = &artifacts.manifest.embedded;
    let mut embedded_files =
        vec![(&embedded.directory, &artifacts.embedded.directory), (&embedded.data, &artifacts.embedded.data)];
    if let (Some(name), Some(bytes)) = (&embedded.dictionary, &artifacts.embedded.dictionary) {
        embedded_files.push((name, bytes));
    }
    for (module, data) in artifacts.manifest.modules.iter().zip(&artifacts.embedded.modules) {
        embedded_files.push((&module.embedded.data, data));
    }
    for (name, bytes) in embedded_files {
        write(&dir.join(name), bytes)?;
        keep.push(dir.join(name));
    }
    let manifest = serde_json::to_vec_pretty(&artifacts.manifest).map_err(|e| Error::Internal(e.to_string()))?;
    write(&dir.join(MANIFEST_FILE), &manifest)?;
    keep.push(dir.join(MANIFEST_FILE));
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

/// Removes the artifacts of an earlier build, so that a failed build leaves
/// nothing stale for the macros to embed.
pub(crate) fn remove_artifacts(out_dir: &Path) {
    let _ = std::fs::remove_dir_all(out_dir.join(ARTIFACT_DIR));
    let _ = std::fs::remove_file(out_dir.join("smolv-report.txt"));
    let _ = std::fs::remove_file(out_dir.join("smolv-report.json"));
}

/// The `cargo::error=` lines that make Cargo show `error` as the build's
/// errors: one per shader diagnostic, `path:line:col: message` (what Cargo
/// prints after `error:`), and one per line of any other error.
pub(crate) fn cargo_errors(error: &Error) -> Vec<String> {
    let messages: Vec<String> = match error {
        Error::Compile { diagnostics, .. } => diagnostics.iter().map(Diagnostic::headline).collect(),
        other => vec![other.to_string()],
    };
    messages
        .iter()
        .flat_map(|message| message.lines().filter(|line| !line.trim().is_empty()))
        .map(|line| format!("cargo::error={line}"))
        .collect()
}

/// Prints `cargo:` directives (or nothing, outside a build script), each
/// path once.
pub(crate) struct Directives {
    pub(crate) enabled: bool,
    pub(crate) watched: std::cell::RefCell<std::collections::BTreeSet<PathBuf>>,
}

impl Directives {
    pub(crate) fn new(enabled: bool) -> Self {
        Self { enabled, watched: Default::default() }
    }

    pub(crate) fn rerun_if_changed(&self, path: &Path) {
        if self.enabled && self.watched.borrow_mut().insert(path.to_owned()) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }

    pub(crate) fn rerun_if_env_changed(&self, var: &str) {
        if self.enabled {
            println!("cargo:rerun-if-env-changed={var}");
        }
    }

    /// A warning; each line becomes its own `cargo:warning`.
    pub(crate) fn warning(&self, text: &str) {
        if self.enabled {
            for line in text.lines() {
                println!("cargo:warning={line}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            cargo_errors(&error),
            [
                "cargo::error=shaders/a.frag:3:5: 'foo' : undeclared identifier",
                "cargo::error=shaders/b.comp: the shader compiler crashed on this shader",
            ]
        );
        let lines = cargo_errors(&Error::Config("two shaders are named \"a\"\nrename one".into()));
        assert_eq!(
            lines,
            ["cargo::error=smolv-build configuration: two shaders are named \"a\"", "cargo::error=rename one"]
        );
    }
}
