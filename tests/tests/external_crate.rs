//! A user's crate outside the workspace, depending on smolv-build and
//! smolv-runtime by path: it embeds a GLSL shader with an `#include` and a
//! WGSL shader, decodes both at run time and gets valid SPIR-V; editing the
//! include and rebuilding changes what it decodes; a misspelled name fails
//! to compile with a suggestion.

use std::path::{Path, PathBuf};

use smolv_tests::outside::{self, workspace, write};
use smolv_tests::{spirv_val, words};

const MAIN: &str = r#"
static COLOR: &smolv_runtime::Shader = smolv_runtime::include_shader!("color.frag");
static SKY: &smolv_runtime::Shader = smolv_runtime::include_shader!("sky.wgsl#fs_main");
static ALL: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();

fn main() {
    let out = std::path::PathBuf::from(std::env::args().nth(1).expect("output directory"));
    for shader in [COLOR, SKY] {
        let words = shader.decode().expect("decode");
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(out.join(format!("{}.spv", shader.name().replace('#', "-"))), bytes).unwrap();
        println!("{} {} words, stage {:?}", shader.name(), words.len(), shader.reflection().unwrap().stage);
    }
    for shader in ALL.shaders() {
        let words = shader.decode_cached().expect("decode");
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(out.join(format!("set-{}.spv", shader.name().replace('#', "-"))), bytes).unwrap();
        println!("set {} {:?}", shader.name(), shader.reflection().expect("reflection"));
    }
    println!("packing {}", ALL.packing());
}
"#;

fn create_crate(root: &Path) {
    let ws = workspace();
    write(
        &root.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"smolv-user\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {:?} }}\n\n\
             [build-dependencies]\nsmolv-build = {{ path = {:?} }}\n\n[workspace]\n",
            ws.join("smolv-runtime"),
            ws.join("smolv-build")
        ),
    );
    // The workspace's lock file pins the same dependency versions it tests with.
    std::fs::copy(ws.join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    write(
        &root.join("build.rs"),
        "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").compile();\n}\n",
    );
    write(&root.join("shaders/common.glsl"), "const vec3 TINT = vec3(1.0, 0.5, 0.25);\n");
    write(
        &root.join("shaders/color.frag"),
        "#version 450\n#include \"common.glsl\"\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(TINT, 1.0); }\n",
    );
    write(
        &root.join("shaders/sky.wgsl"),
        "@fragment\nfn fs_main() -> @location(0) vec4<f32> {\n    return vec4<f32>(0.2, 0.4, 0.8, 1.0);\n}\n",
    );
    write(&root.join("src/main.rs"), MAIN);
}

fn cargo(root: &Path, args: &[&str]) -> std::process::Output {
    cargo_with_env(root, args, &[])
}

fn cargo_with_env(root: &Path, args: &[&str], envs: &[(&str, &str)]) -> std::process::Output {
    outside::output(outside::cargo(root, args).envs(envs.iter().copied()))
}

fn run(root: &Path, out: &Path) -> (String, Vec<u32>, Vec<u32>) {
    std::fs::create_dir_all(out).unwrap();
    let output = cargo(root, &["run", "--quiet", "--", out.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "cargo run failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let read = |name: &str| words(&std::fs::read(out.join(name)).unwrap());
    (String::from_utf8_lossy(&output.stdout).into_owned(), read("color.frag.spv"), read("sky.wgsl-fs_main.spv"))
}

#[test]
fn a_crate_outside_the_workspace_embeds_and_decodes_its_shaders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-user");
    create_crate(&root);

    let (stdout, color, sky) = run(&root, &dir.path().join("first"));
    assert!(stdout.contains("color.frag") && stdout.contains("Fragment"), "{stdout}");
    spirv_val(&color, "vulkan1.2").unwrap();
    spirv_val(&sky, "vulkan1.2").unwrap();

    // Editing the included file changes what the binary decodes.
    write(&root.join("shaders/common.glsl"), "const vec3 TINT = vec3(0.0, 0.75, 1.0);\n");
    let (_, color_after, sky_after) = run(&root, &dir.path().join("second"));
    assert_ne!(color_after, color, "the include changed, so must the embedded shader");
    assert_eq!(sky_after, sky);
    spirv_val(&color_after, "vulkan1.2").unwrap();

    // A misspelled name is a compile error that suggests the right one.
    write(&root.join("src/main.rs"), &MAIN.replace("\"color.frag\"", "\"colour.frag\""));
    let output = cargo(&root, &["build", "--quiet"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no shader named \"colour.frag\"") && stderr.contains("did you mean \"color.frag\""),
        "{stderr}"
    );

    // SMOLV_REPORT=1 reruns the build script and prints the size table as
    // Cargo warnings.
    write(&root.join("src/main.rs"), MAIN);
    let output = cargo_with_env(&root, &["build"], &[("SMOLV_REPORT", "1")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: smolv-user@0.1.0: module") && stderr.contains("total ("),
        "the report must be printed:\n{stderr}"
    );
}

#[test]
fn every_packing_embeds_the_same_spirv_and_reflection() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-user");
    create_crate(&root);
    let mut first: Option<(Vec<String>, Vec<Vec<u8>>)> = None;
    for &packing in smolv_build::Packing::NAMES {
        let out = dir.path().join(packing);
        std::fs::create_dir_all(&out).unwrap();
        let output =
            cargo_with_env(&root, &["run", "--quiet", "--", out.to_str().unwrap()], &[("SMOLV_PACKING", packing)]);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if packing == "zstd-dictionary" {
            // Three small modules are too little to train a dictionary on:
            // forcing one is an error that says so.
            assert!(!output.status.success() && stderr.contains("needs a zstd dictionary"), "{stderr}");
            continue;
        }
        assert!(output.status.success(), "{packing}: {stdout}\n{stderr}");
        let line = stdout.lines().find(|l| l.starts_with("packing ")).unwrap().to_owned();
        let expected = match packing {
            "auto" => None,
            "raw" => Some("spirv (per module)"),
            "relative-ids" => Some("spirv-relative-ids (per module)"),
            "relative-ids-lz4" => Some("spirv-relative-ids-lz4 (per module)"),
            "relative-ids-lz4-stream" => Some("spirv-relative-ids-lz4 (stream)"),
            "smolv" => Some("smolv (per module)"),
            "lz4" => Some("smolv-lz4 (per module)"),
            "lz4-stream" => Some("smolv-lz4 (stream)"),
            "zstd" => Some("smolv-zstd (per module)"),
            "zstd-stream" => Some("smolv-zstd (stream)"),
            _ => Some("smolv-zstd-dictionary (per module)"),
        };
        if let Some(expected) = expected {
            assert_eq!(line, format!("packing {expected}"), "{packing}");
        }
        let mut names: Vec<String> =
            std::fs::read_dir(&out).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        let files: Vec<Vec<u8>> = names.iter().map(|n| std::fs::read(out.join(n)).unwrap()).collect();
        let reflections: Vec<String> = stdout.lines().filter(|l| l.starts_with("set ")).map(str::to_owned).collect();
        match &first {
            None => first = Some((reflections, files)),
            Some((first_reflections, first_files)) => {
                assert_eq!(&files, first_files, "{packing}: the decoded SPIR-V differs");
                assert_eq!(&reflections, first_reflections, "{packing}: the reflection differs");
            }
        }
    }
}

/// A valid shader, on which the debug-build test hook
/// `SMOLV_WORKER_TEST_CRASH=crash.vert` kills the worker compiling it with
/// SIGSEGV, as a compiler crash would (glslang 16 reports the rvalue in
/// `atomicAdd(counter + 1u, 1u)` that glslang 12 died of).
const CRASHES_GLSLANG: &str = "#version 450\nlayout(binding = 0) buffer B { uint counter; };\n\
                               void main() {\n    atomicAdd(counter, 1u);\n}\n";

/// The hook that makes [`CRASHES_GLSLANG`] crash its worker.
const CRASH_HOOK: [(&str, &str); 1] = [("SMOLV_WORKER_TEST_CRASH", "crash.vert")];

#[test]
fn a_compiler_crash_is_a_cargo_error_naming_the_shader_on_the_first_build() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-crash");
    create_crate(&root);
    // A package of its own: the other tests' builds of `smolv-user` share
    // its build directory (and OUT_DIR) in this target directory.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    write(&root.join("Cargo.toml"), &manifest.replace("name = \"smolv-user\"", "name = \"smolv-crash\""));
    let crash = root.join("shaders/crash.vert");
    write(&crash, CRASHES_GLSLANG);
    write(
        &root.join("shaders/typo.frag"),
        "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(tint); }\n",
    );

    // The compilers run in workers (the build script started again), so
    // the crash ends a worker: from the first build on, it is an error
    // naming the shader and the signal, next to the ordinary compile
    // error, both as `cargo::error` lines, and the build script lives.
    // Never cached, it crashes (in a worker) again on the second build.
    for build in ["first", "second"] {
        let output = cargo_with_env(&root, &["build"], &CRASH_HOOK);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{build} build");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error: smolv-crash@0.1.0: ")).collect();
        let typo = root.join("shaders/typo.frag");
        assert!(
            errors.iter().any(|l| l.ends_with(&format!("{}:3:28: 'tint' : undeclared identifier", typo.display()))),
            "{build} build:\n{stderr}"
        );
        assert!(
            errors
                .iter()
                .any(|l| l.contains(&format!("{}: the shader compiler crashed on this shader", crash.display()))
                    && l.contains("killed by signal 11 (SIGSEGV) in a worker process")),
            "{build} build:\n{stderr}"
        );
        assert!(!stderr.contains("signal: 11"), "{build} build: the build script itself must not crash:\n{stderr}");
        assert!(stderr.contains("error: build script logged errors"), "{build} build:\n{stderr}");
    }

    // Without the hook, and the typo fixed, it builds.
    write(
        &root.join("shaders/typo.frag"),
        "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n",
    );
    let output = cargo(&root, &["build"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let out_dir = out_dir(&root);
    assert!(out_dir.join("smolv").is_dir(), "{}", out_dir.display());
    assert!(!out_dir.join("smolv-build.log").exists(), "a build that succeeded leaves no error log");
}

/// For wgpu targets, naga translates to WGSL in the build script's
/// workers. A worker that crashes there (the debug-build hook
/// `SMOLV_WORKER_TEST_ABORT=translate`) costs a warning and SPIR-V for
/// that module, never an error, and Cargo runs the build script again on
/// the next build, which translates it; after that, nothing reruns.
#[test]
fn a_translation_crash_in_a_build_script_is_a_warning_and_the_next_build_translates() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-translate");
    create_crate(&root);
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let manifest = manifest.replace("name = \"smolv-user\"", "name = \"smolv-translate\"");
    let manifest = manifest.replace("smolv-build\" }", "smolv-build\", features = [\"wgpu\"] }");
    write(&root.join("Cargo.toml"), &manifest);
    write(
        &root.join("build.rs"),
        "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").for_wgpu_shipping(true).compile();\n}\n",
    );
    write(&root.join("src/main.rs"), "fn main() {}\n");
    let stderr = |output: &std::process::Output| String::from_utf8_lossy(&output.stderr).into_owned();

    let first = cargo_with_env(&root, &["build"], &[("SMOLV_WORKER_TEST_ABORT", "translate")]);
    let text = stderr(&first);
    assert!(first.status.success(), "{text}");
    let warned = |text: &str| {
        text.lines().any(|l| {
            l.starts_with("warning: smolv-translate@0.1.0: color.frag (")
                && l.contains("naga failed translating it to WGSL, in a worker process")
        })
    };
    assert!(warned(&text), "the crash is a warning naming the module:\n{text}");
    let wgsl = |out: &Path| out.join("smolv/wgsl").read_dir().map_or(0, |files| files.count());
    let out = out_dir(&root);
    assert_eq!(wgsl(&out), 0, "the hook aborts every translation: both ship as SPIR-V");

    let second = cargo(&root, &["build"]);
    let text = stderr(&second);
    assert!(second.status.success(), "{text}");
    assert!(text.contains("Compiling smolv-translate"), "the build script runs again:\n{text}");
    assert!(!warned(&text), "{text}");
    assert_eq!(wgsl(&out), 2, "both translate now");

    let third = cargo(&root, &["build"]);
    assert!(!stderr(&third).contains("Compiling smolv-translate"), "then nothing reruns:\n{}", stderr(&third));
}

/// The `OUT_DIR` of the build script of the crate at `root`.
fn out_dir(root: &Path) -> PathBuf {
    outside::out_dir(&root.join("shaders"))
}

/// smolv-build packs only with the codecs the crate's smolv-runtime
/// decodes (its `links` metadata): without `lz4` and `zstd`, automatic
/// packing never picks them for a set where they would win, and forcing
/// one fails in the build script, naming the feature to turn on.
#[test]
fn packing_follows_the_codecs_smolv_runtime_was_built_with() {
    let Some(corpus) = smolv_tests::Corpus::locate() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-lean");
    create_crate(&root);
    // About 75 KB of SPIR-V (Unity's smallest modules), where LZ4 (over
    // relative ids or SMOL-V) wins.
    let mut modules: Vec<(u64, String)> = corpus
        .spirv_modules()
        .into_iter()
        .filter(|m| m.starts_with("unity/"))
        .map(|m| (std::fs::metadata(corpus.spirv_path(&m)).unwrap().len(), m))
        .collect();
    modules.sort();
    let mut total = 0;
    for (len, module) in modules.into_iter().take_while(|(len, _)| {
        total += len;
        total < 88_000
    }) {
        let target = root.join("shaders").join(module.replace('/', "_"));
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(corpus.spirv_path(&module), target).unwrap();
        let _ = len;
    }
    let manifest = |features: &str| {
        format!(
            "[package]\nname = \"smolv-lean\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {:?}, {features} }}\n\n\
             [build-dependencies]\nsmolv-build = {{ path = {:?} }}\n\n[workspace]\n",
            workspace().join("smolv-runtime"),
            workspace().join("smolv-build")
        )
    };
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let packing = |root: &Path| -> String {
        let output =
            cargo_with_env(root, &["run", "--quiet", "--", out.to_str().unwrap()], &[("SMOLV_PACKING", "auto")]);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
        stdout.lines().find(|l| l.starts_with("packing ")).unwrap().to_owned()
    };
    write(&root.join("Cargo.toml"), &manifest("default-features = false, features = [\"macros\"]"));
    for (forced, feature) in [("lz4", "lz4"), ("relative-ids-lz4-stream", "lz4"), ("zstd-stream", "zstd")] {
        let output = cargo_with_env(&root, &["build", "--quiet"], &[("SMOLV_PACKING", forced)]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let message = format!("packing {forced} needs smolv-runtime's `{feature}` feature");
        assert!(!output.status.success() && stderr.contains(&message), "{forced}: {stderr}");
    }
    let lean = packing(&root);
    assert!(lean == "packing spirv (per module)" || lean == "packing smolv (per module)", "{lean}");
    // The same set with smolv-runtime's default features compresses.
    write(&root.join("Cargo.toml"), &manifest("default-features = true"));
    let full = packing(&root);
    assert!(["-lz4 (", "smolv-zstd"].iter().any(|codec| full.contains(codec)), "{full}");
}

/// A crate of its own (its own build directory and `OUT_DIR`), named `name`.
fn create_named_crate(root: &Path, name: &str) {
    create_crate(root);
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    write(&root.join("Cargo.toml"), &manifest.replace("name = \"smolv-user\"", &format!("name = \"{name}\"")));
}

/// A syntax error fails the build with that error, once, at its file, line
/// and column, and little else: no panic, no backtrace note, no directives
/// and no line per compiled shader.
#[test]
fn a_shader_error_reads_as_one_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-typo");
    create_named_crate(&root, "smolv-typo");
    for n in 0..6 {
        write(
            &root.join(format!("shaders/fill{n}.frag")),
            &format!("#version 450\nlayout(location = 0) out vec4 color;\nvoid main() {{ color = vec4({n}.0); }}\n"),
        );
    }
    let typo = root.join("shaders/typo.frag");
    write(&typo, "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(tint); }\n");
    let output = cargo_with_env(&root, &["build"], &[("RUST_BACKTRACE", "1")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    let error = format!("{}:3:28: 'tint' : undeclared identifier", typo.display());
    assert_eq!(stderr.matches(&error).count(), 1, "the error exactly once:\n{stderr}");
    assert!(stderr.lines().any(|l| l == format!("error: smolv-typo@0.1.0: {error}")), "{stderr}");
    for noise in ["panicked", "backtrace", "rerun-if", "compiling ", "--- stdout", "--- stderr"] {
        assert!(!stderr.contains(noise), "{noise:?} in:\n{stderr}");
    }
    let log_line = stderr.lines().find(|l| l.contains("the build's log: ")).expect("the error names the log");
    let log = std::fs::read_to_string(log_line.rsplit("the build's log: ").next().unwrap()).unwrap();
    let full = format!("{}:3:28: error: 'tint' : undeclared identifier", typo.display());
    assert!(log.contains(&full) && log.contains(&format!("failed {}", typo.display())), "{log}");
    assert!(log.contains(&format!("compiled {}", root.join("shaders/fill0.frag").display())), "{log}");
    let lines = stderr.lines().filter(|l| !l.trim_start().starts_with("Compiling ")).count();
    assert!(lines <= 4, "{lines} lines besides Cargo's `Compiling`:\n{stderr}");
}

const OUTER: &str = "#version 450\n#include \"../common/outer.glsl\"\nlayout(location = 0) out vec4 color;\n\
                     void main() { color = vec4(OUTER, 1.0); }\n";

/// The build watches one directory per shader root and each include
/// outside them, and that is enough: Cargo reruns it when an include
/// inside the root changes, when a shader is added, and when an include
/// outside the roots changes, and only then.
#[test]
fn the_build_reruns_when_a_shader_is_added_or_an_include_inside_or_outside_the_roots_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-rerun");
    create_named_crate(&root, "smolv-rerun");
    write(&root.join("common/outer.glsl"), "const vec3 OUTER = vec3(0.5);\n");
    write(&root.join("shaders/outer.frag"), OUTER);
    let first = dir.path().join("first");
    let (stdout, color, _) = run(&root, &first);
    assert!(stdout.contains("set outer.frag"), "{stdout}");

    let output = std::fs::read_to_string(out_dir(&root).with_file_name("output")).unwrap();
    let watched: Vec<&str> = output.lines().filter_map(|l| l.strip_prefix("cargo:rerun-if-changed=")).collect();
    let outer = root.join("shaders/../common/outer.glsl");
    assert_eq!(watched, [root.join("shaders").to_str().unwrap(), outer.to_str().unwrap()], "{output}");

    // Nothing changed: the build script does not run again.
    let before = std::fs::metadata(out_dir(&root).with_file_name("output")).unwrap().modified().unwrap();
    run(&root, &dir.path().join("again"));
    let after = std::fs::metadata(out_dir(&root).with_file_name("output")).unwrap().modified().unwrap();
    assert_eq!(before, after, "an unchanged tree must not rerun the build script");

    write(&root.join("common/outer.glsl"), "const vec3 OUTER = vec3(0.25);\n");
    let second = dir.path().join("second");
    run(&root, &second);
    let read = |dir: &Path| std::fs::read(dir.join("set-outer.frag.spv")).unwrap();
    assert_ne!(read(&first), read(&second), "the include outside the roots changed");

    write(&root.join("shaders/common.glsl"), "const vec3 TINT = vec3(0.0, 0.75, 1.0);\n");
    let (_, color_after, _) = run(&root, &dir.path().join("third"));
    assert_ne!(color_after, color, "the include inside the root changed");

    write(
        &root.join("shaders/added.frag"),
        "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n",
    );
    let (stdout, _, _) = run(&root, &dir.path().join("fourth"));
    assert!(stdout.contains("set added.frag"), "the added shader is embedded:\n{stdout}");
}

/// A directory that holds Cargo's target directory (an include directory
/// of `.`, the crate itself) or lies in it is never watched whole: an
/// include probed there and not found used to make the build watch it,
/// and Cargo, which writes there on every build, then ran the build
/// script again each time. Here the include directory is the target
/// directory itself, which this test's crates share.
#[test]
fn an_include_directory_holding_the_target_directory_does_not_rerun_every_build() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-dot");
    create_named_crate(&root, "smolv-dot");
    let target = workspace().join("target/external-crate-test");
    write(
        &root.join("build.rs"),
        &format!(
            "fn main() {{\n    smolv_build::Config::new().shader_dir(\"shaders\").include_dir({target:?}).include_dir(\"common\").compile();\n}}\n"
        ),
    );
    // Probed in the target directory first, where it is missing, then found
    // in `common`.
    write(&root.join("common/outer.glsl"), "const vec3 OUTER = vec3(0.5);\n");
    write(
        &root.join("shaders/outer.frag"),
        "#version 450\n#include <outer.glsl>\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(OUTER, 1.0); }\n",
    );
    let (stdout, _, _) = run(&root, &dir.path().join("first"));
    assert!(stdout.contains("set outer.frag"), "{stdout}");
    let output_file = out_dir(&root).with_file_name("output");
    let output = std::fs::read_to_string(&output_file).unwrap();
    assert!(
        !output
            .lines()
            .filter_map(|l| l.strip_prefix("cargo:rerun-if-changed="))
            .any(|w| Path::new(w).starts_with(&target)),
        "nothing in the target directory is watched:\n{output}"
    );

    let before = std::fs::metadata(&output_file).unwrap().modified().unwrap();
    run(&root, &dir.path().join("again"));
    let after = std::fs::metadata(&output_file).unwrap().modified().unwrap();
    assert_eq!(before, after, "an unchanged crate must not rerun the build script:\n{output}");
}
