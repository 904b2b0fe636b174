//! Crates outside the workspace, built the way a user builds theirs: path
//! dependencies on the workspace's crates, the workspace's lock file (so
//! they build with the versions the workspace tests), and one shared
//! target directory, `target/external-crate-test`, so that the
//! dependencies compile once for every such test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is in the workspace").to_path_buf()
}

/// A workspace crate's directory, as a TOML string.
pub fn crate_path(name: &str) -> String {
    format!("{:?}", workspace().join(name))
}

/// Writes `text` to `path`, creating its directory.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a file in a directory")).expect("create the directory");
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// Writes `root/Cargo.toml` and the workspace's lock file beside it. The
/// manifest needs a `[workspace]` table of its own, or Cargo takes the
/// crate for a misplaced member of an enclosing workspace.
pub fn create(root: &Path, manifest: &str) {
    write(&root.join("Cargo.toml"), manifest);
    std::fs::copy(workspace().join("Cargo.lock"), root.join("Cargo.lock")).expect("copy Cargo.lock");
}

/// `cargo ARGS` in `root`: offline, in the shared target directory, with
/// the static shaderc archive `scripts/setup.sh` builds, a build cache of
/// the crate's own, and none of the variables Cargo set for this test.
pub fn cargo(root: &Path, args: &[&str]) -> Command {
    let ws = workspace();
    let mut command = Command::new(env!("CARGO"));
    command
        .args(args)
        .current_dir(root)
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_TARGET_DIR", ws.join("target/external-crate-test"))
        .env("SHADERC_LIB_DIR", ws.join("target/shaderc"))
        .env("SMOLV_CACHE_DIR", root.join("smolv-cache"))
        .env_remove("OUT_DIR")
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("CARGO_PRIMARY_PACKAGE")
        .env_remove("CARGO_MAKEFLAGS");
    command
}

/// Runs `command` and returns its output.
pub fn output(command: &mut Command) -> Output {
    command.output().unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// Runs `command`, asserts that it succeeds, and returns its stdout.
pub fn succeed(command: &mut Command) -> String {
    let output = output(command);
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The `OUT_DIR` of the build script, in the shared target directory,
/// whose last recorded output watches `shaders` (a shader root, as the
/// build script printed it in `cargo:rerun-if-changed`).
pub fn out_dir(shaders: &Path) -> PathBuf {
    let watch = format!("cargo:rerun-if-changed={}", shaders.display());
    let build = workspace().join("target/external-crate-test/debug/build");
    let found: Vec<PathBuf> = std::fs::read_dir(build)
        .expect("the shared target directory has build scripts")
        .flatten()
        .map(|e| e.path())
        .filter(|dir| std::fs::read_to_string(dir.join("output")).is_ok_and(|o| o.lines().any(|l| l == watch)))
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found[0].join("out")
}
