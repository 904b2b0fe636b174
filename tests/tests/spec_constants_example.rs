//! smolv-runtime's `spec_constants` example keeps smolv-build's output
//! beside its GLSL, because an example of that crate cannot run a build
//! script: `tint.frag.spv` and `types.rs` must be what smolv-build makes of
//! `shaders/tint.frag` today. Run with `SMOLV_UPDATE_EXAMPLE=1` to write
//! them again after changing the shader or the generator.
//!
//! The example itself runs here too, as `cargo run --example
//! spec_constants` runs it: every value set drawn on both paths, each pixel
//! checked, no validation message.

use std::path::Path;

/// The example program, its `main` aside.
#[path = "../../smolv-runtime/examples/spec_constants/main.rs"]
#[allow(dead_code, reason = "its `main` is the example's, not this test's")]
mod example;

/// One test, not two: the file check changes the working directory,
/// which is the process's, and the example must not run meanwhile.
#[test]
fn the_spec_constants_example_holds_smolv_builds_output_and_draws_every_value_set_without_a_validation_message() {
    the_spec_constants_example_holds_what_smolv_build_makes_of_its_shader();
    match example::run() {
        Ok(line) => assert!(line.contains("every pixel as expected"), "{line}"),
        Err(error) => panic!("{error}"),
    }
}

fn the_spec_constants_example_holds_what_smolv_build_makes_of_its_shader() {
    let example =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../smolv-runtime/examples/spec_constants").canonicalize().unwrap();
    // As a build script of the example's own would run, in its directory:
    // the generated docs name the shader by its path from there.
    let before = std::env::current_dir().unwrap();
    std::env::set_current_dir(&example).unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut config = smolv_build::Config::new();
    // Without debug info: glslang's names the shader by its absolute path,
    // which differs from checkout to checkout.
    config
        .shader_dir(example.join("shaders"))
        .out_dir(out.path())
        .cargo_directives(false)
        .strip_debug(true)
        .keep_interface_names(true);
    config.try_compile().unwrap_or_else(|e| panic!("{e}"));
    let artifacts = out.path().join(smolv_format::ARTIFACT_DIR);
    let types = std::fs::read_to_string(artifacts.join(smolv_format::TYPES_FILE)).unwrap();
    let set = smolv_runtime::ShaderSet::open(artifacts.join(smolv_format::BUNDLE_FILE)).unwrap();
    let words = set.get("tint.frag").unwrap().decode().unwrap();
    let spirv: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (types_path, spirv_path) = (example.join("types.rs"), example.join("tint.frag.spv"));
    if smolv_tests::env_var_os("SMOLV_UPDATE_EXAMPLE").is_some() {
        std::fs::write(&types_path, &types).unwrap();
        std::fs::write(&spirv_path, &spirv).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&types_path).unwrap(),
        types,
        "{} is not what smolv-build generates for shaders/tint.frag: run this test with SMOLV_UPDATE_EXAMPLE=1",
        types_path.display()
    );
    assert!(
        std::fs::read(&spirv_path).unwrap() == spirv,
        "{} is not what smolv-build compiles shaders/tint.frag to: run this test with SMOLV_UPDATE_EXAMPLE=1",
        spirv_path.display()
    );
    // What the example relies on: the generated type names the constants.
    assert!(types.contains("pub struct SpecConstants"), "{types}");
    std::env::set_current_dir(before).unwrap();
}
