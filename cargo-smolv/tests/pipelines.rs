//! `cargo smolv pipelines show`, `merge` and `check`, run as a user would,
//! on recordings made with the library's API.

use std::path::Path;
use std::process::{Command, Output};

use smolv_runtime::ShaderSet;
use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
use smolv_runtime::reflect::{Reflection, ShaderStage};
use smolv_runtime::vulkan::ash::vk;
use smolv_runtime::vulkan::warmup::{RecordedKind, RecordedPipeline, RecordedStage, Recording};

fn cargo_smolv(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-smolv")).arg("pipelines").args(args).output().expect("run cargo-smolv")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A set with one compute shader, `fill.comp`, and a recording of three
/// compute pipelines: `fill.comp` as it is, a shader the set lacks, and
/// `fill.comp` recorded with another interface.
fn fixture(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let spirv = smolv_runtime::doc_example_module();
    let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build().unwrap();
    let set_path = dir.join("shaders.smvb");
    std::fs::write(&set_path, BundleBuilder::new().add("fill.comp", container).build().unwrap()).unwrap();
    let set = ShaderSet::open(&set_path).unwrap();
    let shader = set.get("fill.comp").unwrap();
    let (code, reflection) = (shader.decode().unwrap(), shader.reflection().unwrap());
    let entry = |order: u64, name: &str, code: &[u32], reflection: &Reflection| RecordedPipeline {
        kind: RecordedKind::Compute {
            stage: RecordedStage::of(vk::ShaderStageFlags::COMPUTE, name, code, reflection, &[]),
        },
        independent_sets: false,
        scope: Some("level \u{1b}[31m1".to_owned()),
        order,
        millis: order,
        uses: 1,
    };
    let recording = Recording {
        entries: vec![
            entry(0, "fill.comp", &code, &reflection),
            entry(1, "gone.comp", &code, &reflection),
            // Recorded from other code with another interface.
            entry(2, "fill.comp", &code[..code.len() - 1], &Reflection::new(ShaderStage::Compute, "other")),
        ],
        skipped: 0,
    };
    let file = dir.join("run.smolvpso");
    recording.save(&file).unwrap();
    (file, set_path)
}

#[test]
fn show_lists_by_scope_with_escaped_names_and_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = fixture(dir.path());
    let output = cargo_smolv(&["show".as_ref(), file.as_os_str()]);
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(text.contains("3 pipelines"), "{text}");
    assert!(text.contains(r#"scope "level \u{1b}[31m1": 3 pipelines"#), "the escape is escaped: {text}");
    assert!(!text.contains('\u{1b}'), "{text}");
    let output = cargo_smolv(&["show".as_ref(), "--json".as_ref(), file.as_os_str()]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 3);
    assert_eq!(json[1]["shaders"][0], "gone.comp");
    assert_eq!(json[0]["kind"], "compute");
}

#[test]
fn merge_sums_the_uses_of_each_pipeline() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = fixture(dir.path());
    let merged = dir.path().join("merged.smolvpso");
    let output =
        cargo_smolv(&["merge".as_ref(), "-o".as_ref(), merged.as_os_str(), file.as_os_str(), file.as_os_str()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let merged = Recording::load(&merged).unwrap();
    assert_eq!(merged.entries.len(), 3);
    assert!(merged.entries.iter().all(|e| e.uses == 2));
}

#[test]
fn check_reports_shaders_gone_or_changed_in_interface_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (file, set) = fixture(dir.path());
    let output = cargo_smolv(&["check".as_ref(), file.as_os_str(), set.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains(r#"#1: "gone.comp" gone"#), "{text}");
    assert!(text.contains(r#"#2: "fill.comp" interface changed"#), "{text}");
    assert!(!text.contains("#0:"), "the unchanged entry is fine: {text}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("2 entries would be dropped on replay"));
}

#[test]
fn a_file_that_is_not_a_recording_is_one_line_of_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.smolvpso");
    std::fs::write(&file, b"SMOLVPSO\x02\0\0\0").unwrap();
    let output = cargo_smolv(&["show".as_ref(), file.as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("format version 2"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
