//! The Rust types the build generates, read as text: each layout case of
//! issue 29 comes out with the shader's offsets and sizes, padding as
//! private fields, one type for a block two shaders share, and apart
//! types for two definitions of one name. (tests/tests/typed_crate.rs
//! compiles the same code in a crate.)

#[path = "types/shaders.rs"]
mod shaders;

use std::path::Path;

/// Builds `files` and returns the generated types and the report.
fn generate(dir: &Path, files: &[(&str, &str)]) -> (String, smolv_build::Report) {
    let shaders = dir.join("shaders");
    for (name, text) in files {
        let path = shaders.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let report = smolv_build::Config::new()
        .shader_dir(&shaders)
        .out_dir(dir.join("out"))
        .cache_dir(dir.join("cache"))
        .cargo_directives(false)
        .try_compile()
        .unwrap_or_else(|e| panic!("{e}"));
    let file = report.types.as_ref().expect("the build generates types").file.clone();
    (std::fs::read_to_string(file).unwrap(), report)
}

fn all_cases(dir: &Path) -> (String, smolv_build::Report) {
    generate(
        dir,
        &[
            ("frame.glsl", shaders::FRAME),
            ("layouts.frag", shaders::LAYOUTS),
            ("same.vert", shaders::SAME_FRAME),
            ("other.comp", shaders::OTHER_LIGHT),
        ],
    )
}

#[test]
fn print_generated() {
    let dir = tempfile::tempdir().unwrap();
    let (code, report) = all_cases(dir.path());
    println!("{code}");
    println!("{:?}", report.types);
}
