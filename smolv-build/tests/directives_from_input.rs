//! No name the build reads becomes a Cargo directive. Shader trees hold
//! files and folders named with a line break followed by a directive
//! (`cargo:rustc-cfg=…`, `cargo::rustc-env=…`), and a shader's `#error`
//! says one; the build script's stdout, which Cargo reads, carries none of
//! them as a directive. A path no directive can carry is watched through
//! its folder, or refused by name where that folder holds the target
//! directory.
//!
//! No test harness (`harness = false` in Cargo.toml): libtest prints its
//! own lines on stdout, and this test reads the stdout of a process that
//! behaves exactly as a build script does: the test runs itself again with
//! `SMOLV_TEST_HOSTILE_NAMES` set, and that child is the build script.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Set in the child: the directory holding its two crates.
const CHILD_VAR: &str = "SMOLV_TEST_HOSTILE_NAMES";

const COMPILES: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n";
const ERROR: &str = "#version 450\n#error cargo:rustc-cfg=smolv_evil_error\nvoid main() {}\n";

/// A file in a crate's own folder, which holds its target directory:
/// watched entry by entry, so its name would be printed.
const IN_CRATE: &str = "a.frag\ncargo:rustc-cfg=smolv_evil";
/// A shader, in a shader folder.
const SHADER: &str = "b\ncargo::rustc-env=SMOLV_EVIL=1\n.frag";
/// An include folder.
const INCLUDES: &str = "inc\ncargo:rustc-cfg=smolv_evil_include";

#[allow(clippy::disallowed_methods, reason = "the test's child is told by a variable")]
fn main() {
    match std::env::var_os(CHILD_VAR) {
        Some(dir) => build_script(Path::new(&dir)),
        None => names_never_become_directives(),
    }
}

/// `dir` as a crate whose target directory Cargo made: its `OUT_DIR`.
fn krate(dir: &Path) -> PathBuf {
    let target = dir.join("target");
    let out_dir = target.join("debug/build/hostile-0123456789abcdef/out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::write(target.join("CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n").unwrap();
    out_dir
}

/// The child: two builds as a `build.rs` runs them.
fn build_script(dir: &Path) {
    let (first, second) = (dir.join("first"), dir.join("second"));
    // The crate's own folder as the shader root.
    smolv_build::Config::new().shader_dir(&first).out_dir(krate(&first)).cargo_directives(true).jobs(1).compile();
    smolv_build::Config::new()
        .shader_dir(second.join("shaders"))
        .include_dir(second.join("includes").join(INCLUDES))
        .out_dir(krate(&second))
        .cargo_directives(true)
        .keep_going(true)
        .jobs(1)
        .compile();
}

fn names_never_become_directives() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let first = dir.join("first");
    std::fs::create_dir_all(&first).unwrap();
    std::fs::write(first.join("ok.frag"), COMPILES).unwrap();
    std::fs::write(first.join(IN_CRATE), COMPILES).unwrap();
    let second = dir.join("second");
    std::fs::create_dir_all(second.join("shaders")).unwrap();
    std::fs::create_dir_all(second.join("includes").join(INCLUDES)).unwrap();
    std::fs::write(second.join("shaders").join(SHADER), COMPILES).unwrap();
    std::fs::write(second.join("shaders/error.frag"), ERROR).unwrap();

    let output = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_VAR, &dir)
        .env("SMOLV_CACHE_DIR", dir.join("cache"))
        .env_remove("OUT_DIR")
        .env_remove("SMOLV_REPORT")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "the build script failed:\n{stdout}\n{stderr}");

    // What Cargo would take as directives: every line, split as Cargo
    // splits the output, at `\n`.
    let lines: Vec<&str> = stdout.split('\n').filter(|line| !line.is_empty()).collect();
    for line in &lines {
        assert!(line.starts_with("cargo:"), "a stray line on stdout: {line:?}\n{stdout}");
        let messages = ["cargo:warning=", "cargo::warning=", "cargo::error="];
        assert!(
            !line.contains("smolv_evil") && !line.contains("SMOLV_EVIL")
                || messages.iter().any(|m| line.starts_with(m)),
            "input became a directive: {line:?}\n{stdout}"
        );
        assert!(!line.starts_with("cargo:rustc-") && !line.starts_with("cargo::rustc-"), "{line:?}");
    }
    // The file in the crate's own folder, whose folder holds the target
    // directory: refused, by name, escaped.
    let refused = format!("cargo::error=cannot watch {:?}", first.join(IN_CRATE));
    assert!(lines.iter().any(|line| line.starts_with(&refused)), "no {refused:?} in:\n{stdout}");
    // The include folder: watched through the folder above it.
    let above = format!("cargo:rerun-if-changed={}", second.join("includes").display());
    assert!(lines.contains(&above.as_str()), "no {above:?} in:\n{stdout}");
    // The shader with a line-broken name compiled, and `#error`'s text is
    // a warning (kept going), on lines of its own.
    assert!(lines.iter().any(|l| l.starts_with("cargo:warning=") && l.contains("smolv_evil_error")), "{stdout}");
    let types = std::fs::read_to_string(second.join("target/debug/build/hostile-0123456789abcdef/out/smolv/types.rs"))
        .expect("the second build wrote its types");
    assert!(types.contains(r#"pub const NAME: &::core::primitive::str = "b\ncargo::rustc-env=SMOLV_EVIL=1\n.frag";"#));
    println!("directives_from_input: ok ({} directives, none from input)", lines.len());
}
