//! A game's release build without smolv-runtime's `hot-reload` feature
//! carries no source paths, no build recipe and no compiler; the same crate
//! with the feature embeds each shader's source path, includes and recipe
//! (so the search below can fail).

use std::path::Path;

use smolv_tests::outside::{self, crate_path, write};

const MAIN: &str = r#"
static ALL: smolv_runtime::ShaderSet = smolv_runtime::include_shaders!();
static TINTED: &smolv_runtime::Shader = smolv_runtime::include_shader!("tinted.frag");

fn main() {
    for shader in ALL.shaders().iter().chain([TINTED]) {
        let words = shader.decode().expect("decode");
        println!("{} {} words", shader.name(), words.len());
        #[cfg(feature = "hot-reload")]
        {
            let origin = shader.origin().expect("an origin with hot-reload");
            println!("origin {} includes {:?}", origin.source(), origin.includes());
        }
    }
}
"#;

fn create_crate(root: &Path) {
    outside::create(
        root,
        &format!(
            "[package]\nname = \"smolv-release-probe\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [features]\nhot-reload = [\"smolv-runtime/hot-reload\"]\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {} }}\n\n\
             [build-dependencies]\nsmolv-build = {{ path = {} }}\n\n[workspace]\n",
            crate_path("smolv-runtime"),
            crate_path("smolv-build")
        ),
    );
    write(
        &root.join("build.rs"),
        "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").compile();\n}\n",
    );
    write(&root.join("shaders/include/tint.glsl"), "const vec3 TINT = vec3(1.0, 0.5, 0.25);\n");
    write(
        &root.join("shaders/tinted.frag"),
        "#version 450\n#include \"include/tint.glsl\"\nlayout(location = 0) out vec4 color;\n\
         void main() { color = vec4(TINT, 1.0); }\n",
    );
    write(&root.join("src/main.rs"), MAIN);
}

/// Builds the crate in release mode (with `features`), runs it, and returns
/// the binary's bytes and its output.
fn build(root: &Path, features: &[&str]) -> (Vec<u8>, String) {
    let mut args = vec!["build", "--release", "--quiet"];
    args.extend(features);
    outside::succeed(&mut outside::cargo(root, &args));
    let binary = outside::workspace().join("target/external-crate-test/release/smolv-release-probe");
    let bytes = std::fs::read(&binary).unwrap_or_else(|e| panic!("cannot read {}: {e}", binary.display()));
    let output = outside::succeed(&mut std::process::Command::new(&binary));
    (bytes, output)
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle.as_bytes())
}

#[test]
fn release_builds_without_hot_reload_carry_no_source_paths_and_with_it_do() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("probe");
    create_crate(&root);
    let shaders = root.join("shaders");
    let source = shaders.join("tinted.frag").to_string_lossy().into_owned();
    let include = shaders.join("include/tint.glsl").to_string_lossy().into_owned();

    let (plain, output) = build(&root, &[]);
    assert!(output.contains("tinted.frag"), "the shader decodes: {output}");
    let root_text = root.to_string_lossy().into_owned();
    for needle in [root_text.as_str(), "\"target_env\"", "include/tint.glsl", "glslang", "shaderc", "notify"] {
        assert!(!contains(&plain, needle), "a release build without hot-reload holds {needle:?}");
    }

    let (reloadable, output) = build(&root, &["--features", "hot-reload"]);
    assert!(output.contains(&format!("origin {source} includes [\"{include}\"]")), "{output}");
    assert!(contains(&reloadable, &source), "the feature embeds the source path");
    assert!(contains(&reloadable, "\"target_env\""), "and the recipe");
}
