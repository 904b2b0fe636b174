//! No compiler at all when nothing needs compiling (issue 38, item 3): a
//! crate outside the workspace with GLSL shaders (one with an `#include`)
//! runs `cargo smolv prepare` with the compilers, then builds with
//! smolv-build's default features off (no glslang, no SPIRV-Tools, no C++
//! in its tree) and a fresh local cache, so that only the prepared
//! directory can serve: its `OUT_DIR` artifacts are byte-identical to the
//! build with the compilers, and it runs. Then an edited shader fails the
//! build with an error that names it and says what would compile it, and
//! `cargo smolv prepare --check` calls the directory stale until it is
//! prepared again.
//!
//! The CLI is built once, without its compiler features (prepare runs
//! Cargo, it compiles nothing itself), in the shared target directory of
//! the crates outside the workspace.

use std::path::{Path, PathBuf};
use std::process::Command;

use smolv_tests::outside::{cargo, crate_path, create, output, succeed, workspace, write};

const MAIN: &str = r#"
static LIT: &smolv_runtime::Shader = smolv_runtime::include_shader!("lit.frag");
static QUAD: &smolv_runtime::Shader = smolv_runtime::include_shader!("quad.vert");

fn main() {
    for shader in [LIT, QUAD] {
        let words = shader.decode().expect("decode");
        assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
        println!("{} {} words, stage {:?}", shader.name(), words.len(), shader.reflection().expect("reflection").stage);
    }
}
"#;

/// The crate's manifest: smolv-build with its default features (the
/// compilers) or with none.
fn manifest(compilers: bool) -> String {
    let features = if compilers { "" } else { ", default-features = false" };
    format!(
        "[package]\nname = \"smolv-prepared\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nsmolv-runtime = {{ path = {} }}\n\n\
         [build-dependencies]\nsmolv-build = {{ path = {}{features} }}\n\n[workspace]\n",
        crate_path("smolv-runtime"),
        crate_path("smolv-build")
    )
}

/// `cargo-smolv`, built without its compiler features into the shared
/// target directory (once for every run of this test).
fn cargo_smolv() -> PathBuf {
    let ws = workspace();
    succeed(&mut cargo(&ws, &["build", "--quiet", "--locked", "-p", "cargo-smolv", "--no-default-features"]));
    let exe = ws.join("target/external-crate-test/debug").join(format!("cargo-smolv{}", std::env::consts::EXE_SUFFIX));
    assert!(exe.is_file(), "{} was not built", exe.display());
    exe
}

/// `cargo smolv prepare ARGS` (dev profile only: the release one would
/// compile every dependency again) in `root`, with the environment of
/// [`cargo`].
fn prepare(exe: &Path, root: &Path, args: &[&str]) -> Command {
    let template = cargo(root, &[]);
    let mut command = Command::new(exe);
    command.args(["smolv", "prepare", "--profile", "dev"]).args(args).current_dir(root).env("CARGO", env!("CARGO"));
    for (name, value) in template.get_envs() {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    command
}

/// `cargo build`, and the `OUT_DIR` of the crate's build script, from
/// Cargo's JSON messages.
fn build(root: &Path, cache: &Path) -> PathBuf {
    let built = output(cargo(root, &["build", "--message-format=json"]).env("SMOLV_CACHE_DIR", cache));
    // Its errors are on stderr; stdout holds a JSON message per crate.
    assert!(built.status.success(), "cargo build failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let stdout = String::from_utf8_lossy(&built.stdout);
    let out_dirs: Vec<PathBuf> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| {
            message["reason"] == "build-script-executed"
                && message["package_id"].as_str().is_some_and(|id| id.contains("smolv-prepared"))
        })
        .filter_map(|message| message["out_dir"].as_str().map(PathBuf::from))
        .collect();
    assert_eq!(out_dirs.len(), 1, "{stdout}");
    out_dirs[0].clone()
}

/// Every file under the artifact directory, by its path there.
fn artifacts(out_dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, files: &mut Vec<(PathBuf, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display())).flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                files.push((path.strip_prefix(root).unwrap().to_owned(), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut files = Vec::new();
    let root = out_dir.join(smolv_format::ARTIFACT_DIR);
    walk(&root, &root, &mut files);
    files.sort();
    assert!(files.len() > 2, "{:?}", files.iter().map(|(name, _)| name).collect::<Vec<_>>());
    files
}

/// The entries of the prepared directory, by name.
fn prepared_entries(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join(".smolv"))
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_prepared_crate_builds_without_the_compilers_to_the_same_bytes_and_an_edited_shader_says_what_compiles_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-prepared");
    create(&root, &manifest(true));
    write(
        &root.join("build.rs"),
        "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").compile();\n}\n",
    );
    write(&root.join("shaders/common.glsl"), "const vec3 TINT = vec3(1.0, 0.5, 0.25);\n");
    write(
        &root.join("shaders/lit.frag"),
        "#version 450\n#include \"common.glsl\"\nlayout(location = 0) in vec2 uv;\n\
         layout(location = 0) out vec4 color;\nvoid main() { color = vec4(TINT * uv.x, 1.0); }\n",
    );
    write(
        &root.join("shaders/quad.vert"),
        "#version 450\nlayout(location = 0) out vec2 uv;\n\
         void main() { uv = vec2(gl_VertexIndex & 1, gl_VertexIndex >> 1); gl_Position = vec4(uv, 0.0, 1.0); }\n",
    );
    write(&root.join("src/main.rs"), MAIN);
    let exe = cargo_smolv();
    let started = std::time::Instant::now();

    // With the compilers: prepare, then build.
    let prepared = succeed(&mut prepare(&exe, &root, &[]));
    assert!(prepared.contains(".smolv: 2 entries (2 added, 0 changed, 0 removed)"), "{prepared}");
    let entries = prepared_entries(&root);
    assert_eq!(entries.len(), 2, "one entry per shader, nothing else: {entries:?}");
    let with_compilers = artifacts(&build(&root, &root.join("cache-with-compilers")));
    let check = succeed(&mut prepare(&exe, &root, &["--check"]));
    assert!(check.contains(".smolv: up to date (2 entries)"), "{check}");
    assert_eq!(prepared_entries(&root), entries, "--check changes nothing");

    // Without them: no C++ compiler crate in the tree at all.
    create(&root, &manifest(false));
    let tree = succeed(&mut cargo(&root, &["tree", "--target", "all", "-e", "normal,build,dev", "--prefix", "none"]));
    let packages: Vec<&str> = tree.lines().filter_map(|line| line.split_whitespace().next()).collect();
    assert!(packages.contains(&"smolv-build"), "{tree}");
    for compiler in ["glslang-sys", "glslang", "spirv-tools-sys", "spirv-tools", "shaderc", "shaderc-sys", "cmake"] {
        assert!(!packages.contains(&compiler), "{compiler} is in the tree without the compiler features:\n{tree}");
    }
    // A fresh local cache: only the prepared directory can serve.
    let fresh = root.join("cache-without-compilers");
    let without = build(&root, &fresh);
    assert_eq!(artifacts(&without), with_compilers, "the artifacts must be the same bytes as with the compilers");
    let report = std::fs::read_to_string(without.join("smolv-report.json")).unwrap();
    assert!(report.contains("\"cache_hits\": 2"), "both shaders from the prepared directory: {report}");
    let run = succeed(cargo(&root, &["run", "--quiet"]).env("SMOLV_CACHE_DIR", &fresh));
    assert!(run.contains("lit.frag ") && run.contains("stage Vertex"), "{run}");

    // An edited shader needs compiling: the error names it and says what compiles it.
    write(
        &root.join("shaders/lit.frag"),
        "#version 450\n#include \"common.glsl\"\nlayout(location = 0) in vec2 uv;\n\
         layout(location = 0) out vec4 color;\nvoid main() { color = vec4(TINT * uv.y, 1.0); }\n",
    );
    let failed = output(cargo(&root, &["build"]).env("SMOLV_CACHE_DIR", &fresh));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success(), "{stderr}");
    let error = stderr
        .lines()
        .find(|line| line.contains("GLSL support is not enabled"))
        .unwrap_or_else(|| panic!("no error about the edited shader:\n{stderr}"));
    assert!(error.contains("lit.frag"), "the error names the shader: {error}");
    assert!(!stderr.contains("quad.vert: "), "the unchanged shader came from the prepared directory:\n{stderr}");
    assert!(error.contains("enable smolv-build's `glsl` feature"), "{error}");
    assert!(error.contains("`cargo smolv prepare`"), "{error}");

    // With the compilers again: --check calls the directory stale until it is prepared.
    create(&root, &manifest(true));
    let stale = output(&mut prepare(&exe, &root, &["--check"]));
    let stale_out = String::from_utf8_lossy(&stale.stdout);
    assert_eq!(stale.status.code(), Some(1), "{stale_out}\n{}", String::from_utf8_lossy(&stale.stderr));
    assert!(stale_out.contains(".smolv: stale: 1 added, 0 changed, 1 removed"), "{stale_out}");
    assert_eq!(prepared_entries(&root), entries, "--check changes nothing");
    let again = succeed(&mut prepare(&exe, &root, &[]));
    assert!(again.contains(".smolv: 2 entries (1 added, 0 changed, 1 removed)"), "{again}");
    let now = prepared_entries(&root);
    assert_eq!(now.iter().filter(|name| entries.contains(name)).count(), 1, "quad.vert's entry stays: {now:?}");
    succeed(&mut prepare(&exe, &root, &["--check"]));
    eprintln!("prepare, builds and checks took {:.0?}", started.elapsed());
}
