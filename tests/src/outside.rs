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

/// `cargo ARGS` in `root`: offline, in the shared target directory, with a
/// build cache of the crate's own, and none of the variables Cargo set for
/// this test.
pub fn cargo(root: &Path, args: &[&str]) -> Command {
    let ws = workspace();
    let mut command = Command::new(env!("CARGO"));
    command
        .args(args)
        .current_dir(root)
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_TARGET_DIR", ws.join("target/external-crate-test"))
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

/// smolv's crates that a game depends on, in the order `cargo package`
/// takes them.
const PUBLISHED: [&str; 5] = ["smolv-format", "smolv-codec", "smolv-macros", "smolv-runtime", "smolv-build"];

/// Makes `root`'s crate take smolv from a stand-in for crates.io, as a
/// user's crate does: smolv's crates as `cargo package` makes them (only
/// what the package holds, built like any registry package), and every
/// other package the crate needs, vendored offline from Cargo's cache,
/// in `registry`. `root/Cargo.toml` must reach smolv's crates through a
/// `[patch.crates-io]` table of path dependencies (which `cargo vendor`
/// follows); it is cut off here, and the lock file resolved again,
/// offline, from the stand-in.
pub fn use_registry_stand_in(root: &Path, registry: &Path) {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("the crate has a manifest");
    let (head, patch) = manifest.split_once("[patch.crates-io]").expect("smolv comes through [patch.crates-io]");
    let rest = patch.find("\n[").map_or("", |at| &patch[at..]);
    let _ = std::fs::remove_dir_all(registry);
    succeed(cargo(root, &["vendor", "--offline", "--quiet"]).arg(registry).env_remove("CARGO_TARGET_DIR"));
    let packaged = registry.with_extension("packaged");
    let mut package = Command::new(env!("CARGO"));
    package
        .args(["package", "--quiet", "--no-verify", "--allow-dirty", "--locked", "--offline", "--target-dir"])
        .arg(&packaged)
        .current_dir(workspace())
        .env_remove("CARGO_MAKEFLAGS");
    for name in PUBLISHED {
        package.args(["-p", name]);
    }
    succeed(&mut package);
    let version = env!("CARGO_PKG_VERSION");
    for name in PUBLISHED {
        let file = packaged.join(format!("package/{name}-{version}.crate"));
        succeed(Command::new("tar").arg("-xzf").arg(&file).arg("-C").arg(registry));
        std::fs::rename(registry.join(format!("{name}-{version}")), registry.join(name)).expect("unpacked");
        let sum = succeed(Command::new("sha256sum").arg(&file));
        let sum = sum.split_whitespace().next().expect("sha256sum prints the sum");
        write(
            &registry.join(name).join(".cargo-checksum.json"),
            &format!("{{\"files\":{{}},\"package\":\"{sum}\"}}\n"),
        );
    }
    std::fs::remove_dir_all(&packaged).expect("remove the packages");
    write(&root.join("Cargo.toml"), &format!("{head}{rest}"));
    write(
        &root.join(".cargo/config.toml"),
        &format!(
            "[source.crates-io]\nreplace-with = \"stand-in\"\n\n[source.stand-in]\ndirectory = {:?}\n",
            registry.display().to_string()
        ),
    );
    std::fs::remove_file(root.join("Cargo.lock")).expect("the crate had the workspace's lock file");
    succeed(&mut cargo(root, &["generate-lockfile", "--offline", "--quiet"]));
}

/// The shader tools a stock machine lacks, which smolv must not need:
/// [`without_shader_tools`] shadows them.
pub const SHADER_TOOLS: [&str; 4] = ["spirv-opt", "glslc", "glslangValidator", "glslang"];

/// Makes `command` run as on a machine with no shader tools and no
/// shaderc: no `SHADERC_LIB_DIR` or `SMOLV_*` tool variable, and first on
/// `PATH` a folder in `dir` where each of [`SHADER_TOOLS`] is a stand-in
/// that records its name in the returned file and fails. After the run,
/// the file must not exist.
pub fn without_shader_tools(command: &mut Command, dir: &Path) -> PathBuf {
    let (bin, calls) = (dir.join("poisoned-bin"), dir.join("shader-tool-calls"));
    std::fs::create_dir_all(&bin).expect("create the stand-ins' folder");
    for tool in SHADER_TOOLS {
        let path = bin.join(tool);
        write(&path, &format!("#!/bin/sh\necho {tool} >> '{}'\nexit 1\n", calls.display()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("make it executable");
        }
    }
    let path = crate::env_var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).expect("PATH");
    command.env("PATH", path);
    for var in ["SHADERC_LIB_DIR", "SMOLV_SPIRV_OPT", "SMOLV_GLSLC", "SMOLV_SLANGC", "VULKAN_SDK"] {
        command.env_remove(var);
    }
    calls
}
