//! A crate with only WGSL shaders turns smolv-build's default features off
//! and keeps `wgsl`: glslang and SPIRV-Tools (C++) are then not in its dependency tree at
//! all, and it builds and runs without their C++ being compiled.

use smolv_tests::outside::{cargo, crate_path, create, succeed, write};

const MAIN: &str = r#"
static SKY: &smolv_runtime::Shader = smolv_runtime::include_shader!("sky.wgsl#fs_main");

fn main() {
    let words = SKY.decode().expect("decode");
    assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
    println!("{} {} words, stage {:?}", SKY.name(), words.len(), SKY.reflection().expect("reflection").stage);
}
"#;

#[test]
fn a_wgsl_only_crate_builds_without_the_cxx_compilers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-wgsl-only");
    create(
        &root,
        &format!(
            "[package]\nname = \"smolv-wgsl-only\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {} }}\n\n\
             [build-dependencies]\n\
             smolv-build = {{ path = {}, default-features = false, features = [\"wgsl\"] }}\n\n[workspace]\n",
            crate_path("smolv-runtime"),
            crate_path("smolv-build")
        ),
    );
    write(
        &root.join("build.rs"),
        "fn main() {\n    smolv_build::Config::new().shader_dir(\"shaders\").compile();\n}\n",
    );
    write(
        &root.join("shaders/sky.wgsl"),
        "@fragment\nfn fs_main() -> @location(0) vec4<f32> {\n    return vec4<f32>(0.2, 0.4, 0.8, 1.0);\n}\n",
    );
    write(&root.join("src/main.rs"), MAIN);

    // Every dependency of every kind, for every platform.
    let tree = succeed(&mut cargo(&root, &["tree", "--target", "all", "-e", "normal,build,dev", "--prefix", "none"]));
    let packages: Vec<&str> = tree.lines().filter_map(|line| line.split_whitespace().next()).collect();
    assert!(packages.contains(&"naga"), "the tree lists the WGSL compiler:\n{tree}");
    assert!(packages.contains(&"smolv-build"), "{tree}");
    for cxx in ["glslang-sys", "spirv-tools-sys", "shaderc-sys", "cmake"] {
        assert!(!packages.contains(&cxx), "{cxx} is in the tree of a WGSL-only crate:\n{tree}");
    }

    let stdout = succeed(&mut cargo(&root, &["run", "--quiet"]));
    assert!(stdout.starts_with("sky.wgsl#fs_main ") && stdout.contains("stage Fragment"), "{stdout}");
}
