//! `cargo smolv encode` and `decode`, run as a user would.
#![allow(clippy::cast_possible_truncation, reason = "test code: the sizes it converts are small and fixed by the test")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cargo_smolv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-smolv")).args(args).output().expect("run cargo-smolv")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts a clean failure: non-zero exit, one line of error, no panic.
fn assert_one_line_error(output: &Output, mentions: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(1), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().count(), 1, "expected one line, got: {err}");
    assert!(err.starts_with("error: ") && err.contains(mentions), "{err}");
}

fn example_spirv(dir: &Path) -> PathBuf {
    let path = dir.join("example.spv");
    let bytes: Vec<u8> = smolv_runtime::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    path
}

fn corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    root.join("MANIFEST.tsv").is_file().then_some(root)
}

#[test]
fn encode_then_decode_round_trips_through_files() {
    let dir = tempfile::tempdir().unwrap();
    let spv = example_spirv(dir.path());
    let smolv = dir.path().join("example.smolv");
    let back = dir.path().join("back.spv");
    let out = cargo_smolv(&["smolv", "encode", spv.to_str().unwrap(), "-o", smolv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("bytes of SMOL-V"));
    assert_eq!(&std::fs::read(&smolv).unwrap()[..4], b"LOMS"); // "SMOL" little-endian
    let out = cargo_smolv(&["smolv", "decode", smolv.to_str().unwrap(), "-o", back.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&spv).unwrap());
}

#[test]
fn runs_directly_without_the_cargo_subcommand_word() {
    let dir = tempfile::tempdir().unwrap();
    let spv = example_spirv(dir.path());
    let out = cargo_smolv(&["encode", spv.to_str().unwrap(), "-o", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = smolv_runtime::encode(&std::fs::read(&spv).unwrap()[..], &Default::default()).unwrap();
    assert_eq!(out.stdout, expected);
}

#[test]
fn encode_matches_the_reference_encoder_with_strip_debug() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let input = corpus.join("spirv/dxc/imgui-vs.spv");
    let output = dir.path().join("imgui.smolv");
    let out =
        cargo_smolv(&["smolv", "encode", "--strip-debug", input.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let reference = std::fs::read(corpus.join("reference/dxc/imgui-vs.spv.strip.smolv")).unwrap();
    assert_eq!(std::fs::read(&output).unwrap(), reference);
}

#[test]
fn legacy_flag_decodes_2016_dialect_files() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let input = corpus.join("legacy/2016-08-31/unity-2456-738-1.smolv");
    let expected = std::fs::read(corpus.join("legacy/2016-08-31/unity-2456-738-1-exp.spirv")).unwrap();
    let output = dir.path().join("unity.spv");
    let out = cargo_smolv(&[
        "smolv",
        "decode",
        "--legacy-2016-08-31",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&output).unwrap(), expected);
}

#[test]
fn missing_input_is_a_one_line_error_naming_the_file() {
    let out = cargo_smolv(&["smolv", "encode", "/no/such/shader.spv", "-o", "/tmp/unused.smolv"]);
    assert_one_line_error(&out, "/no/such/shader.spv");
}

#[test]
fn non_spirv_input_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("shader.frag");
    std::fs::write(&input, "#version 450\nvoid main() {}\n").unwrap();
    let out = cargo_smolv(&["smolv", "encode", input.to_str().unwrap(), "-o", "-"]);
    assert_one_line_error(&out, "shader.frag");
}

#[test]
fn corrupt_smolv_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let spv = example_spirv(dir.path());
    let mut smolv = smolv_runtime::encode(&std::fs::read(&spv).unwrap()[..], &Default::default()).unwrap();
    smolv.truncate(smolv.len() - 3);
    let input = dir.path().join("broken.smolv");
    std::fs::write(&input, smolv).unwrap();
    let output = dir.path().join("never.spv");
    let out = cargo_smolv(&["smolv", "decode", input.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    assert_one_line_error(&out, "broken.smolv");
    assert!(!output.exists(), "a failed decode must not leave an output file");
}

#[test]
fn usage_errors_exit_with_2() {
    let out = cargo_smolv(&["smolv", "encode"]);
    assert_eq!(out.status.code(), Some(2));
    let out = cargo_smolv(&["smolv", "frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_shows_examples() {
    let out = cargo_smolv(&["smolv", "--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Examples:") && text.contains("cargo smolv encode"), "{text}");
}

fn shader_tree(dir: &Path, broken: bool) -> PathBuf {
    let shaders = dir.join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    std::fs::write(
        shaders.join("ok.frag"),
        "#version 450\nlayout(location=0) out vec4 c;\nvoid main() { c = vec4(1); }\n",
    )
    .unwrap();
    std::fs::write(shaders.join("fill.comp"), "#version 450\nlayout(local_size_x=1) in;\nvoid main() {}\n").unwrap();
    if broken {
        std::fs::write(shaders.join("broken.frag"), "#version 450\nvoid main() { undefined_call(); }\n").unwrap();
    }
    shaders
}

#[test]
fn build_compiles_a_tree_and_reports_json() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    let out = dir.path().join("out");
    let cache = dir.path().join("cache");
    let args = [
        "smolv",
        "build",
        shaders.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    let output = cargo_smolv(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let shaders_json = json["shaders"].as_array().unwrap();
    assert_eq!(shaders_json.len(), 2);
    for shader in shaders_json {
        assert_eq!(shader["ok"], true);
        for field in ["spirv_bytes", "optimized_bytes", "smolv_bytes", "compressed_bytes"] {
            assert!(shader[field].as_u64().unwrap() > 0, "{field}");
        }
    }
    assert_eq!(json["compiled"], 2);
    assert!(json["total_shipped_bytes"].as_u64().unwrap() > 0);
    assert!(out.join("smolv/manifest.json").is_file());
    let again: serde_json::Value = serde_json::from_slice(&cargo_smolv(&args).stdout).unwrap();
    assert_eq!((again["compiled"].as_u64(), again["cache_hits"].as_u64()), (Some(0), Some(2)));
}

#[test]
fn a_relative_shader_directory_is_named_as_given() {
    let dir = tempfile::tempdir().unwrap();
    shader_tree(dir.path(), true);
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-smolv"))
        .args(["smolv", "build", "shaders", "-o", "out", "--cache-dir", "cache"])
        .current_dir(dir.path())
        // As in a shell: `cargo test` sets it for its tests.
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap();
    let err = stderr(&output);
    assert!(err.lines().any(|l| l.starts_with("shaders/broken.frag:2:")), "no `./` before the path:\n{err}");
}

#[cfg(feature = "wgpu")]
#[test]
fn build_for_wgpu_reports_the_choice_and_the_refused_modules_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    // A combined image sampler, which WGSL cannot express: naga refuses it.
    std::fs::write(
        shaders.join("combined.frag"),
        "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D tex;\nlayout(location = 0) in vec2 uv;\n\
         layout(location = 0) out vec4 color;\nvoid main() { color = texture(tex, uv); }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let args = ["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"];
    let output = cargo_smolv(&[&args[..], &["--target-api", "wgpu"]].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let wgpu = &json["wgpu"];
    assert!(matches!(wgpu["shipped"].as_str(), Some("wgsl" | "spirv")), "{json}");
    assert_eq!(wgpu["refused_modules"], 1, "{json}");
    assert!(wgpu["wgsl_bytes"].as_u64().unwrap() > 0, "{json}");
    // Estimates, and named so; never negative.
    assert!(
        wgpu["wgsl_estimated_bytes"].as_u64().is_some() && wgpu["spirv_estimated_bytes"].as_u64().is_some(),
        "{json}"
    );
    assert!(wgpu.get("wgsl_total_bytes").is_none(), "{json}");
    let warnings: Vec<&str> = json["warnings"].as_array().unwrap().iter().filter_map(|w| w.as_str()).collect();
    assert!(
        warnings.iter().any(|w| w.starts_with("combined.frag (") && w.contains("ships as SPIR-V for wgpu")),
        "{warnings:?}"
    );

    // With WGSL shipped, the embedded SPIR-V set holds combined.frag alone,
    // and `packing` describes that set.
    let output = cargo_smolv(&[&args[..], &["--target-api", "wgpu-wgsl"]].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["wgpu"]["shipped"], "wgsl", "{json}");
    let combined = json["shaders"].as_array().unwrap().iter().find(|s| s["name"] == "combined.frag").unwrap();
    let packed = json["packing"]["spirv_bytes"].as_u64().unwrap();
    assert!(packed > 0 && packed <= combined["optimized_bytes"].as_u64().unwrap(), "{json}");

    // A game whose smolv-runtime has `wgpu` without `wgpu-spirv` (what a
    // build script sees as DEP_SMOLV_RUNTIME_WGPU): WGSL ships whatever
    // the sizes, and the module naga refused is named with the fix.
    let no_spirv = |target: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_cargo-smolv"))
            .args([&args[..], &["--target-api", target]].concat())
            .env("DEP_SMOLV_RUNTIME_WGPU", "wgsl")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    let json = no_spirv("wgpu");
    assert_eq!(json["wgpu"]["shipped"], "wgsl", "{json}");
    let warnings: Vec<&str> = json["warnings"].as_array().unwrap().iter().filter_map(|w| w.as_str()).collect();
    assert!(
        warnings.iter().any(|w| w.starts_with(
            "combined.frag ships as SPIR-V for wgpu (naga cannot express it as WGSL), and this crate's \
             smolv-runtime has no `wgpu-spirv` feature"
        )),
        "{warnings:?}"
    );
    // Forced SPIR-V is the user's choice (passthrough): no such warning.
    let json = no_spirv("wgpu-spirv");
    assert_eq!(json["warnings"], serde_json::json!([]), "{json}");

    // For Vulkan there is no `wgpu` object, and no warning.
    let vulkan: serde_json::Value = serde_json::from_slice(&cargo_smolv(&args).stdout).unwrap();
    assert!(vulkan.get("wgpu").is_none(), "{vulkan}");
    assert_eq!(vulkan["warnings"], serde_json::json!([]), "{vulkan}");
}

/// cargo-smolv as `cargo install cargo-smolv` installs it (no `wesl`
/// feature) meets a `.wesl` file: the error gives the install line that
/// adds WESL, not smolv-build's feature, which its user cannot turn on.
#[cfg(not(feature = "wesl"))]
#[test]
fn a_wesl_shader_without_the_feature_names_the_install_line_that_adds_it() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    std::fs::write(shaders.join("sky.wesl"), "@compute @workgroup_size(1) fn main() {}\n").unwrap();
    let out = dir.path().join("out");
    let output = cargo_smolv(&["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("sky.wesl") && err.contains("WESL support is not enabled"), "{err}");
    assert!(err.contains("`cargo install cargo-smolv --features wesl`"), "{err}");
    assert!(!err.contains("smolv-build's"), "{err}");
}

#[test]
fn build_forces_a_packing_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    let out = dir.path().join("out");
    let args = ["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap(), "--packing", "lz4-stream"];
    let output = cargo_smolv(&[&args[..], &["--goal", "download", "--json"]].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packing = &json["packing"];
    assert_eq!((packing["codec"].as_str(), packing["layout"].as_str()), (Some("smolv-lz4"), Some("stream")));
    assert_eq!(packing["goal"], "download");
    assert!(packing["candidates"].as_array().unwrap().iter().all(|c| c["download_bytes"].as_u64().is_some()));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("smolv/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["embedded"]["codec"], "smolv-lz4");
    let text = cargo_smolv(&args);
    let report = String::from_utf8_lossy(&text.stdout);
    let line = report.lines().find(|l| l.starts_with("packing smolv-lz4 (stream): shaders ")).unwrap_or_default();
    assert!(line.contains(" KB → ") && line.contains(" KB, decoder +") && line.contains(" KB, net "), "{report}");
}

#[test]
fn keep_interface_names_reaches_the_build_and_needs_strip_debug() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    let interface_names = |out: &str, flags: &[&str]| {
        let out = dir.path().join(out);
        let args = [&["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap()][..], flags].concat();
        let output = cargo_smolv(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("smolv/manifest.json")).unwrap()).unwrap();
        manifest["interface_names"].as_bool()
    };
    assert_eq!(interface_names("stripped", &["--strip-debug"]), Some(false));
    assert_eq!(interface_names("named", &["--strip-debug", "--keep-interface-names"]), Some(true));
    let alone = cargo_smolv(&["smolv", "build", shaders.to_str().unwrap(), "-o", "x", "--keep-interface-names"]);
    assert_eq!(alone.status.code(), Some(2), "{}", stderr(&alone));
    assert!(stderr(&alone).contains("--strip-debug"), "{}", stderr(&alone));
}

#[test]
fn a_bad_packing_name_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    let out = dir.path().join("out");
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-smolv"))
        .args(["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .env("SMOLV_PACKING", "brotli")
        .output()
        .unwrap();
    let names = smolv_build::Packing::NAMES.join(", ");
    assert_one_line_error(&output, &format!("SMOLV_PACKING=\"brotli\" is not one of {names}"));
    let flag = cargo_smolv(&["smolv", "build", shaders.to_str().unwrap(), "-o", "x", "--packing", "brotli"]);
    assert_eq!(flag.status.code(), Some(2), "a bad flag value is a usage error");
}

#[test]
fn build_reports_the_good_shaders_and_fails_on_a_broken_one() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), true);
    let out = dir.path().join("out");
    let output = cargo_smolv(&["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(err.contains("broken.frag:2:") && err.contains("undefined_call"), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let shaders_json = json["shaders"].as_array().unwrap();
    assert_eq!(shaders_json.iter().filter(|s| s["ok"] == true).count(), 2);
    let broken = shaders_json.iter().find(|s| s["ok"] == false).unwrap();
    assert!(broken["error"].as_str().unwrap().contains("undefined_call"));
}

#[test]
fn build_of_a_directory_without_shaders_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "no shaders here").unwrap();
    let out = dir.path().join("out");
    let output = cargo_smolv(&["smolv", "build", dir.path().to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_one_line_error(&output, "no shaders found");
}

#[test]
fn stats_measures_spirv_found_by_magic() {
    let dir = tempfile::tempdir().unwrap();
    let spv = example_spirv(dir.path());
    std::fs::copy(&spv, dir.path().join("renamed.bin")).unwrap();
    std::fs::write(dir.path().join("readme.md"), "not spirv").unwrap();
    let output = cargo_smolv(&["smolv", "stats", dir.path().to_str().unwrap(), "--json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["files"].as_array().unwrap().len(), 2, "both SPIR-V files, whatever the extension");
    assert!(json["smolv_bytes"].as_u64().unwrap() < json["spirv_bytes"].as_u64().unwrap());
}

#[test]
fn stats_rejects_non_spirv_and_empty_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("shader.frag");
    std::fs::write(&text, "#version 450\n").unwrap();
    assert_one_line_error(&cargo_smolv(&["smolv", "stats", text.to_str().unwrap()]), "not a SPIR-V module");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_one_line_error(&cargo_smolv(&["smolv", "stats", empty.to_str().unwrap()]), "no SPIR-V modules found");
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

#[test]
fn report_lists_every_smolv_crate_of_the_workspace() {
    let manifest = workspace_root().join("Cargo.toml");
    let output = cargo_smolv(&["smolv", "report", "--json", "--manifest-path", manifest.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let crates = json["crates"].as_array().unwrap();
    let game = crates.iter().find(|c| c["name"] == "example-game").expect("example-game uses smolv-build");
    assert!(game["modules"].as_u64().unwrap() >= 10);
    assert!(game["shipped_bytes"].as_u64().unwrap() > 0);
    assert!(game["shipped_bytes"].as_u64() < game["spirv_bytes"].as_u64());
    assert_eq!(game["shaders"].as_array().unwrap().len() as u64, game["modules"].as_u64().unwrap());
    assert!(crates.iter().any(|c| c["name"] == "smolv-tests"));
    assert_eq!(json["total"]["crates"].as_u64().unwrap() as usize, crates.len());
    let text = cargo_smolv(&["smolv", "report", "--manifest-path", manifest.to_str().unwrap()]);
    let table = String::from_utf8_lossy(&text.stdout);
    assert!(table.contains("example-game") && table.lines().any(|l| l.starts_with("total")), "{table}");
}

#[test]
fn pack_verify_unpack_round_trips_the_corpus_bit_for_bit() {
    let Some(corpus) = corpus() else { return };
    let spirv = corpus.join("spirv");
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("corpus.smvb");
    let out = cargo_smolv(&["smolv", "pack", spirv.to_str().unwrap(), "-o", bundle.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));

    // spirv-val runs on every entry; the one corpus module it rejects on its
    // own (16-bit constants, spirv-val 2023.1) is the only one reported.
    let verified = cargo_smolv(&["smolv", "verify", bundle.to_str().unwrap(), "--json"]);
    let results: serde_json::Value = serde_json::from_slice(&verified.stdout).unwrap();
    let failed: Vec<&serde_json::Value> = results.as_array().unwrap().iter().filter(|r| r["ok"] == false).collect();
    assert_eq!(results.as_array().unwrap().len(), 280);
    assert!(failed.len() <= 1, "{failed:?}");
    for entry in &failed {
        assert_eq!(entry["name"], "glslang/spv.vulkan110.int16.frag.spv");
        assert!(entry["problem"].as_str().unwrap().starts_with("spirv-val"));
        assert_eq!(verified.status.code(), Some(1));
    }
    let hashes_only = cargo_smolv(&["smolv", "verify", "--no-spirv-val", bundle.to_str().unwrap()]);
    assert!(hashes_only.status.success(), "{}", stderr(&hashes_only));

    let unpacked = dir.path().join("unpacked");
    let out = cargo_smolv(&["smolv", "unpack", bundle.to_str().unwrap(), "-o", unpacked.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut count = 0;
    for entry in walk(&spirv) {
        let relative = entry.strip_prefix(&spirv).unwrap();
        assert_eq!(
            std::fs::read(unpacked.join(relative)).unwrap(),
            std::fs::read(&entry).unwrap(),
            "{}",
            relative.display()
        );
        count += 1;
    }
    assert_eq!(count, 280);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()) {
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn pack_compiles_sources_into_a_bundle_the_runtime_reads() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    let bundle = dir.path().join("assets.smvb");
    let out = cargo_smolv(&["smolv", "pack", shaders.to_str().unwrap(), "-o", bundle.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let set = smolv_runtime::container::Bundle::open(&bundle).unwrap();
    let names: Vec<&str> = set.names().collect();
    assert_eq!(names, ["fill.comp", "ok.frag"]);
    let stage = set.get("fill.comp").unwrap().reflection().unwrap().stage;
    assert_eq!(stage, smolv_runtime::reflect::ShaderStage::Compute);
    let verified = cargo_smolv(&["smolv", "verify", bundle.to_str().unwrap()]);
    assert!(verified.status.success(), "{}", stderr(&verified));
    assert!(String::from_utf8_lossy(&verified.stdout).contains("2 entries checked, 0 failed"));
}

#[test]
fn verify_reports_a_corrupt_bundle_and_exits_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    let bundle = dir.path().join("assets.smvb");
    assert!(
        cargo_smolv(&["smolv", "pack", shaders.to_str().unwrap(), "-o", bundle.to_str().unwrap()]).status.success()
    );
    let mut bytes = std::fs::read(&bundle).unwrap();
    let last = bytes.len() - 6;
    bytes[last] ^= 0x55;
    std::fs::write(&bundle, &bytes).unwrap();
    let out = cargo_smolv(&["smolv", "verify", bundle.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("assets.smvb") && err.contains("ok.frag"), "the failing entry is named: {err}");
    assert!(!err.contains("panicked"));

    let truncated = dir.path().join("truncated.smvb");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let out = cargo_smolv(&["smolv", "verify", truncated.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("corrupt"), "{}", stderr(&out));
    assert_one_line_error(
        &cargo_smolv(&["smolv", "unpack", truncated.to_str().unwrap(), "-o", "/tmp/never"]),
        "truncated.smvb",
    );
}

#[test]
fn pack_and_unpack_refuse_bad_inputs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "nothing to pack").unwrap();
    let out = dir.path().join("x.smvb");
    assert_one_line_error(
        &cargo_smolv(&["smolv", "pack", dir.path().to_str().unwrap(), "-o", out.to_str().unwrap()]),
        "no shader sources or SPIR-V files",
    );
    assert_one_line_error(
        &cargo_smolv(&["smolv", "pack", "/no/such/dir", "-o", out.to_str().unwrap()]),
        "/no/such/dir",
    );
    assert_one_line_error(&cargo_smolv(&["smolv", "unpack", "/no/such.smvb", "-o", "/tmp/never"]), "/no/such.smvb");
    let not_bundle = dir.path().join("notes.txt");
    assert_one_line_error(
        &cargo_smolv(&["smolv", "unpack", not_bundle.to_str().unwrap(), "-o", "/tmp/never"]),
        "not a shader bundle",
    );
}

#[test]
fn cache_stats_trim_and_clean_manage_the_build_cache() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    let (out, cache) = (dir.path().join("out"), dir.path().join("cache"));
    let build = [
        "smolv",
        "build",
        shaders.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
        "--cache-dir",
        cache.to_str().unwrap(),
    ];
    let cache_cmd = |args: &[&str]| {
        let mut all = vec!["smolv", "cache", "--cache-dir", cache.to_str().unwrap(), "--json"];
        all.extend_from_slice(args);
        let output = cargo_smolv(&all);
        assert!(output.status.success(), "{}", stderr(&output));
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    assert!(cargo_smolv(&build).status.success());
    let stats = cache_cmd(&["stats"]);
    let (entries, bytes) = (stats["entries"].as_u64().unwrap(), stats["bytes"].as_u64().unwrap());
    assert!(entries >= 2 && bytes > 0, "{stats}");

    // Trimming to the current size removes nothing; to zero, everything.
    let same = cache_cmd(&["trim", "--max-size", &bytes.to_string()]);
    assert_eq!((same["removed_entries"].as_u64(), same["entries"].as_u64()), (Some(0), Some(entries)));
    let empty = cache_cmd(&["trim", "--max-size", "0"]);
    assert_eq!((empty["removed_entries"].as_u64(), empty["entries"].as_u64()), (Some(entries), Some(0)));
    let rebuilt: serde_json::Value = serde_json::from_slice(&cargo_smolv(&build).stdout).unwrap();
    assert_eq!(rebuilt["compiled"], 2, "a trimmed cache recompiles");

    assert_eq!(cache_cmd(&["trim", "--max-size", "1G"])["removed_entries"], 0);
    let cleaned = cache_cmd(&["clean"]);
    assert_eq!((cleaned["removed_entries"].as_u64(), cleaned["entries"].as_u64()), (Some(entries), Some(0)));

    // A temporary file a killed build left: counted, and trimmed once an hour old.
    let temporary = cache.join("v1/00/.left-by-a-killed-build.tmp");
    std::fs::create_dir_all(temporary.parent().unwrap()).unwrap();
    std::fs::write(&temporary, b"half").unwrap();
    let stats = cache_cmd(&["stats"]);
    assert_eq!((stats["other_files"].as_u64(), stats["other_bytes"].as_u64()), (Some(1), Some(4)), "{stats}");
    assert_eq!(cache_cmd(&["trim", "--max-size", "1G"])["removed_other_files"], 0, "too young to be an orphan");
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 3600);
    std::fs::File::options().write(true).open(&temporary).unwrap().set_modified(two_hours_ago).unwrap();
    assert_eq!(cache_cmd(&["trim", "--max-size", "1G"])["removed_other_files"], 1);
    assert!(!temporary.exists());

    let human = cargo_smolv(&["smolv", "cache", "stats", "--cache-dir", cache.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&human.stdout).contains("0 entries"), "{}", stderr(&human));
    let bad = cargo_smolv(&["smolv", "cache", "trim", "--max-size", "lots", "--cache-dir", cache.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2), "a bad size is a usage error: {}", stderr(&bad));
}

#[test]
fn build_json_stays_parseable_while_glslang_prints_its_prelude_to_stdout() {
    // glslang 2023 cannot parse its own built-ins for a #version 140
    // compute shader, and prints them all to the process's stdout.
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    std::fs::write(shaders.join("old.comp"), "#version 140\nvoid main() {}\n").unwrap();
    let out = dir.path().join("out");
    let output = cargo_smolv(&["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1), "old.comp does not compile");
    let err = stderr(&output);
    assert!(err.contains("Unable to parse built-ins"), "the compile must print its prelude (to stderr): {err}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)));
    let failed: Vec<&str> = json["shaders"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["ok"] == false)
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["old.comp"]);
    assert_eq!(json["languages"][0]["pass_rate"], 66.7);
    // `pack` compiles too, and fails on old.comp: its stdout stays empty.
    let bundle = dir.path().join("assets.smvb");
    let packed = cargo_smolv(&["smolv", "pack", shaders.to_str().unwrap(), "-o", bundle.to_str().unwrap(), "--json"]);
    assert_eq!(packed.status.code(), Some(1));
    assert!(stderr(&packed).contains("Unable to parse built-ins"), "{}", stderr(&packed));
    assert_eq!(String::from_utf8_lossy(&packed.stdout), "", "nothing but --json output may reach stdout");
}

#[test]
fn build_reads_a_stage_named_tree_as_hlsl_with_x_hlsl() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir_all(shaders.join("glsl")).unwrap();
    std::fs::write(shaders.join("tri.vert"), "float4 VSMain(uint id : SV_VertexID) : SV_Position { return id; }\n")
        .unwrap();
    std::fs::write(shaders.join("tri.frag"), "float4 VSMain() : SV_Target { return 1; }\n").unwrap();
    std::fs::write(
        shaders.join("glsl/fill.frag"),
        "#version 450\nlayout(location=0) out vec4 c;\nvoid main() { c = vec4(1); }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let build = |extra: &[&str]| {
        let args = ["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"];
        cargo_smolv(&[&args[..], extra].concat())
    };
    let output = build(&["-x", "hlsl", "-x", "glsl=glsl", "-fentry-point=VSMain"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let languages: Vec<(&str, u64, u64)> = json["languages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["language"].as_str().unwrap(), l["shaders"].as_u64().unwrap(), l["compiled"].as_u64().unwrap()))
        .collect();
    assert_eq!(languages, [("glsl", 1, 1), ("hlsl", 2, 2)], "the last -x covering a file wins");
    let entries: Vec<(&str, &str)> = json["shaders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["entry"].as_str().unwrap()))
        .collect();
    assert_eq!(entries, [("glsl/fill.frag", "main"), ("tri.frag", "VSMain"), ("tri.vert", "VSMain")]);
    let as_glsl = build(&[]);
    assert_eq!(as_glsl.status.code(), Some(1), "without -x, .vert is GLSL");
    let args = ["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap(), "-x", "hlsl=tri.*"];
    let text = cargo_smolv(&[&args[..], &["-fentry-point=VSMain"]].concat());
    let report = String::from_utf8_lossy(&text.stdout);
    assert!(report.contains("languages: GLSL 1 of 1 compiled (100.0%), HLSL 2 of 2 compiled (100.0%)"), "{report}");
}

#[test]
fn build_refuses_languages_and_flags_it_cannot_honour() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = shader_tree(dir.path(), false);
    let build = |extra: &[&str]| {
        let args = ["smolv", "build", shaders.to_str().unwrap(), "-o", "unused"];
        cargo_smolv(&[&args[..], extra].concat())
    };
    for (flag, says) in [
        (&["-x", "wgsl"][..], "known by their extension"),
        (&["-fhlsl-16bit-types=1"][..], "is not one of"),
        (&["-fresource-set-binding=frag,t0,1"][..], "takes 3 comma-separated values"),
        (&["-fresource-set-binding=t0,one,1"][..], "\"one\" is not a number"),
        (&["-fvertex-binding-base=3"][..], "the kinds are"),
        (&["-fno-such-flag"][..], "is not one of"),
    ] {
        let output = build(flag);
        assert_eq!(output.status.code(), Some(2), "{flag:?} is a usage error");
        assert!(stderr(&output).contains(says), "{flag:?}: {}", stderr(&output));
    }
}

#[test]
fn build_of_slang_without_slangc_says_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    std::fs::write(shaders.join("fill.slang"), "[shader(\"compute\")]\n[numthreads(1, 1, 1)]\nvoid main() {}\n")
        .unwrap();
    let empty_path = dir.path().join("bin");
    std::fs::create_dir_all(&empty_path).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-smolv"))
        .args(["smolv", "build", shaders.to_str().unwrap(), "-o", dir.path().join("out").to_str().unwrap(), "--json"])
        .env_remove("SMOLV_SLANGC")
        .env("PATH", &empty_path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let error = json["shaders"][0]["error"].as_str().unwrap();
    assert!(error.contains("fill.slang") && error.contains("slangc, which was not found"), "{error}");
    assert!(error.contains("pip install --no-deps slangtorch") && error.contains("SMOLV_SLANGC"), "{error}");
}

#[test]
fn build_compiles_hlsl_16bit_types_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    let half = "float4 PSMain(float4 color : COLOR0) : SV_Target0 {\n    half4 c = (half4)color;\n    \
                return (float4)(c * (half)0.5);\n}\n";
    std::fs::write(shaders.join("tone.frag"), half).unwrap();
    let out = dir.path().join("out");
    let build = |extra: &[&str]| {
        let args = ["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json", "-x", "hlsl"];
        cargo_smolv(&[&args[..], &["-fentry-point=PSMain"], extra].concat())
    };
    let output = build(&["-fhlsl-16bit-types"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["shaders"][0]["ok"], true, "{json}");
    // Float16 (capability 9) is declared: `OpCapability Float16` is the
    // words 0x00020011, 9.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("smolv/manifest.json")).unwrap()).unwrap();
    let spirv = std::fs::read(out.join("smolv").join(manifest["modules"][0]["optimized_spirv"].as_str().unwrap()));
    let spirv = spirv.unwrap();
    let words: Vec<u32> = spirv.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert!(words.windows(2).any(|w| w == [0x0002_0011, 9]), "no OpCapability Float16");

    // glslang compiles it in process: a `--glslc` that names no binary
    // (kept for old command lines) changes nothing.
    let no_glslc = build(&["-fhlsl-16bit-types", "--glslc", dir.path().join("no-glslc").to_str().unwrap()]);
    assert!(no_glslc.status.success(), "{}", stderr(&no_glslc));
}

#[test]
#[cfg(feature = "wesl")]
fn build_compiles_a_wesl_tree_and_its_features_are_part_of_the_cache_key() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    std::fs::create_dir_all(shaders.join("lib")).unwrap();
    let lit = "import package::lib::light::shade;\n\
               @vertex fn vs() -> @builtin(position) vec4f { return vec4f(0.0); }\n\
               @fragment fn fs() -> @location(0) vec4f {\n    var c = shade(vec3f(1.0));\n    \
               @if(shadows) { c = c * 0.25; }\n    return vec4f(c, 1.0);\n}\n";
    std::fs::write(shaders.join("lit.wesl"), lit).unwrap();
    std::fs::write(
        shaders.join("lib/light.wesl"),
        "import package::common::GAIN;\nfn shade(c: vec3f) -> vec3f { return c * GAIN; }\n",
    )
    .unwrap();
    std::fs::write(shaders.join("common.wesl"), "const GAIN = 0.5;\n").unwrap();
    let (out, cache) = (dir.path().join("out"), dir.path().join("cache"));
    let build = |feature: &str| {
        let args = ["smolv", "build", shaders.to_str().unwrap(), "-o", out.to_str().unwrap(), "--json"];
        let output =
            cargo_smolv(&[&args[..], &["--cache-dir", cache.to_str().unwrap(), "--wesl-feature", feature]].concat());
        assert!(output.status.success(), "{}", stderr(&output));
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        (json["compiled"].as_u64(), json["cache_hits"].as_u64(), json["shaders"].as_array().unwrap().len())
    };
    assert_eq!(build("shadows"), (Some(1), Some(0), 2), "one job, a module per entry point");
    assert_eq!(build("shadows"), (Some(0), Some(1), 2), "the same again: a hit");
    assert_eq!(build("shadows=false"), (Some(1), Some(0), 2), "another feature value: another key");
}
