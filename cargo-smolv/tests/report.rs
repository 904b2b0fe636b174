//! `cargo smolv report` in a workspace it was not written for: a virtual
//! workspace whose members run smolv-build in their build scripts under
//! its own name, renamed, and through a helper crate, beside a member
//! without shaders. The report comes from Cargo's own messages about those
//! build scripts, whatever the target directory.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn member(root: &Path, name: &str, build_dependency: &str, build_rs: &str) {
    let dir = root.join(name);
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [build-dependencies]\n{build_dependency}\n"
        ),
    );
    write(&dir.join("src/lib.rs"), "//! A member.\n");
    if !build_rs.is_empty() {
        write(&dir.join("build.rs"), build_rs);
        write(
            &dir.join("shaders/fill.frag"),
            &format!(
                "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() {{ color = vec4({}.0); }}\n",
                name.len()
            ),
        );
    }
}

#[test]
fn report_finds_every_crate_that_runs_smolv_build_in_any_workspace() {
    let ws = workspace_root();
    let smolv_build = format!("{:?}", ws.join("smolv-build"));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("game");
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"crates/*\"]\n\n[workspace.dependencies]\n\
         report-helper = { path = \"crates/report-helper\" }\n",
    );
    std::fs::copy(ws.join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    let crates = root.join("crates");
    let compile = "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").compile();\n}\n";
    member(&crates, "report-direct", &format!("smolv-build = {{ path = {smolv_build} }}"), compile);
    member(
        &crates,
        "report-renamed",
        &format!("shader-build = {{ package = \"smolv-build\", path = {smolv_build} }}"),
        "fn main() {\n    shader_build::Config::new().shader_dir(\"shaders\").compile();\n}\n",
    );
    member(
        &crates,
        "report-via-helper",
        "report-helper.workspace = true",
        "fn main() {\n    report_helper::build();\n}\n",
    );
    member(&crates, "report-no-shaders", "", "");
    // The helper: smolv-build as an ordinary dependency of a library that
    // build scripts call.
    write(
        &crates.join("report-helper/Cargo.toml"),
        &format!(
            "[package]\nname = \"report-helper\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nsmolv-build = {{ path = {smolv_build} }}\n"
        ),
    );
    write(
        &crates.join("report-helper/src/lib.rs"),
        "//! The studio's shader settings.\n\n/// Builds `shaders/`.\npub fn build() {\n    \
         smolv_build::Config::new().shader_dir(\"shaders\").compile();\n}\n",
    );

    let target = ws.join("target/external-crate-test");
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-smolv"))
        .args(["smolv", "report", "--json"])
        .current_dir(crates.join("report-direct"))
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_NET_OFFLINE", "true")
        .env("SMOLV_CACHE_DIR", dir.path().join("cache"))
        .env_remove("CARGO_MAKEFLAGS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let reported = json["crates"].as_array().unwrap();
    let mut names: Vec<&str> = reported.iter().map(|c| c["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["report-direct", "report-renamed", "report-via-helper"], "{json}");
    for krate in reported {
        assert_eq!(krate["modules"], 1, "{krate}");
        assert!(krate["shipped_bytes"].as_u64().unwrap() > 0, "{krate}");
        let report = PathBuf::from(krate["report_path"].as_str().unwrap());
        assert!(report.is_file() && report.starts_with(&target), "{}", report.display());
        assert_eq!(krate["shaders"][0]["name"], "fill.frag", "{krate}");
    }
    assert_eq!(json["total"]["crates"], 3);
}
