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

fn raw_cases(dir: &Path) -> (String, smolv_build::Report) {
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

/// The generated types with `::core::primitive::` left out, so the
/// layout tests read like the Rust they check.
fn all_cases(dir: &Path) -> (String, smolv_build::Report) {
    let (code, report) = raw_cases(dir);
    (code.replace("::core::primitive::", ""), report)
}

/// The text of `pub struct NAME` up to its closing brace, at any depth.
fn definition<'a>(code: &'a str, module: Option<&str>, name: &str) -> &'a str {
    let scope = match module {
        Some(module) => &code[code.find(&format!("pub mod {module} {{")).expect("the module")..],
        None => code,
    };
    let start = scope.find(&format!("pub struct {name} {{")).unwrap_or_else(|| panic!("no struct {name}"));
    let end = scope[start..].find("\n}").or_else(|| scope[start..].find("\n    }")).unwrap();
    &scope[start..start + end]
}

#[test]
fn std140_cases_get_the_shaders_offsets_with_padding_as_private_fields() {
    let dir = tempfile::tempdir().unwrap();
    let (code, report) = all_cases(dir.path());
    let frame = definition(&code, None, "Frame");
    for line in [
        "pub light_dir: [f32; 3],",
        "pub time: f32,",
        "pub normal_matrix: [[f32; 4]; 3],",
        "pub wide: [[f32; 4]; 4],",
        "A 3×3 matrix, row-major, 16 bytes per row.",
        "pub rows: [[f32; 4]; 3],",
        "pub small: [[f32; 4]; 2],",
        "pub weights: [F32Stride16; 4],",
        "pub offsets: [F32x2Stride16; 3],",
        "pub corners: [F32x3Stride16; 2],",
        "pub lights: [LightStride32; 2],",
        "pub enabled: u32,",
        "_pad0: [u8; 12],",
    ] {
        assert!(frame.contains(line), "Frame lacks {line:?}:\n{frame}");
    }
    assert!(code.contains("assert!(::core::mem::offset_of!(Frame, view_proj) == 432);"));
    assert!(code.contains("assert!(::core::mem::size_of::<Frame>() == 496);"));
    assert!(code.contains("assert!(::core::mem::size_of::<F32Stride16>() == 16);"));
    assert_eq!(report.types.as_ref().unwrap().problems, Vec::<String>::new());
}

#[test]
fn std430_scalar_and_small_scalars_and_a_runtime_sized_last_member() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _) = all_cases(dir.path());
    let particles = definition(&code, None, "Particles");
    for line in [
        "pub gravity: [f32; 3],",
        "pub count: u32,",
        "pub half_scale: u16,",
        "pub small: i8,",
        "_pad0: [u8; 5],",
        "pub exact: f64,",
        "pub big: u64,",
    ] {
        assert!(particles.contains(line), "Particles lacks {line:?}:\n{particles}");
    }
    assert!(code.contains("pub const ELEMENT_OFFSET: usize = 48;"));
    assert!(code.contains("pub const ELEMENT_STRIDE: usize = 32;"));
    assert!(code.contains("pub type ParticlesElement = ParticleStride32;"));
    let push = definition(&code, None, "Push");
    assert!(push.contains("pub strength: f32,") && push.contains("pub rotation: [[f32; 3]; 3],"), "{push}");
    assert!(code.contains("assert!(::core::mem::offset_of!(Push, pad_me) == 16);"), "scalar: no padding after a float");
}

#[test]
fn a_block_two_shaders_include_is_one_type_and_differing_definitions_stay_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (code, report) = all_cases(dir.path());
    assert_eq!(code.matches("pub struct Frame {").count(), 1, "one Frame");
    assert!(code.contains("Declared identically by `layouts.frag`, `same.vert`."));
    for module in ["layouts_frag", "same_vert"] {
        let start = code.find(&format!("pub mod {module} {{")).unwrap();
        assert!(code[start..].contains("pub use super::Frame;"), "{module} re-exports Frame");
    }
    assert_eq!(code.matches("pub struct Light {").count(), 2, "two Lights");
    let other = definition(&code, Some("other_comp"), "Light");
    assert!(other.contains("pub color: [f32; 4],") && other.contains("pub intensity: f32,"), "{other}");
    let types = report.types.unwrap();
    assert_eq!((types.modules, types.blocks), (3, 6));
}

#[test]
fn generated_code_trusts_no_name_in_scope_and_allows_the_lints_it_trips() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _) = raw_cases(dir.path());
    // Field types name the real primitives, never a bare `u32` an alias
    // at the call site could stand for.
    let frame = definition(&code, None, "Frame");
    assert!(frame.contains("pub time: ::core::primitive::f32,"), "{frame}");
    assert!(frame.contains("_pad0: [::core::primitive::u8; 12],"), "{frame}");
    for bare in ["u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "usize", "bool"] {
        for context in [format!(": {bare},"), format!("[{bare};"), format!("<{bare}>"), format!("-> {bare} ")] {
            assert!(!code.contains(&context), "bare {bare} in {context:?}:\n{code}");
        }
    }
    // Each `unsafe impl` allows `unsafe_code` itself, for a crate that
    // denies it.
    let unsafe_impls = code.matches("unsafe impl").count();
    assert!(unsafe_impls > 0);
    assert_eq!(
        code.matches("#[allow(unsafe_code)]\nunsafe impl").count()
            + code.matches("#[allow(unsafe_code)]\n    unsafe impl").count(),
        unsafe_impls
    );
    // Re-exports a module need not use, and items a binary need not use.
    let uses = code.matches("pub use super::").count();
    assert!(uses > 0);
    assert_eq!(code.matches("#[allow(unused_imports)]\n    pub use super::").count(), uses);
    assert_eq!(
        code.matches("pub struct ").count(),
        code.matches("#[allow(dead_code, unreachable_pub)]\npub struct ").count()
            + code.matches("#[allow(dead_code, unreachable_pub)]\n    pub struct ").count()
            // A program's descriptor sets, one module deeper.
            + code.matches("#[allow(dead_code, unreachable_pub)]\n        pub struct ").count()
            + code.matches("pub struct SpecConstants").count()
    );
    assert!(code.contains("#[allow(clippy::derivable_impls)]\n    impl ::core::default::Default for SpecConstants"));
    // `PartialEq` compares the public fields, never the padding.
    assert!(!code.contains("derive(Clone, Copy, PartialEq)"));
    let eq_start = code.find("impl ::core::cmp::PartialEq for Frame {").expect("a PartialEq for Frame");
    let eq = &code[eq_start..eq_start + code[eq_start..].find("\n}").unwrap()];
    assert!(eq.contains("self.time == other.time"), "{eq}");
    assert!(!eq.contains("_pad"), "padding is not compared: {eq}");
}

#[test]
fn each_recipe_names_the_generated_type_of_each_block_for_hot_reload() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _) = all_cases(dir.path());
    let manifest = dir.path().join("out").join(smolv_format::ARTIFACT_DIR).join(smolv_format::MANIFEST_FILE);
    let manifest: smolv_format::Manifest<smolv_build::recipe::ShaderRecipe> =
        serde_json::from_slice(&std::fs::read(manifest).unwrap()).unwrap();
    let mut named = Vec::new();
    for module in &manifest.modules {
        let recipe = module.recipe.as_ref().unwrap();
        let interface = recipe.interface().expect("the recipe keeps the interface the build read");
        assert_eq!(Some(interface), module.interface.as_ref(), "{}: the manifest's", module.name);
        for (index, block) in interface.blocks.iter().enumerate() {
            let rust = recipe.block_type(index).unwrap_or_else(|| panic!("{}: block {index} is named", module.name));
            let (scope, name) = rust.split_once("::").map_or((None, rust), |(m, n)| (Some(m), n));
            definition(&code, scope, name);
            named.push((module.name.as_str(), block.binding, rust));
        }
        assert_eq!(recipe.block_type(interface.blocks.len()), None);
    }
    assert!(named.contains(&("layouts.frag", Some(0), "Frame")), "{named:?}");
    assert!(named.contains(&("same.vert", Some(0), "Frame")), "one type for both: {named:?}");
    assert!(named.contains(&("other.comp", Some(0), "other_comp::Lights")), "its own Light: {named:?}");
}
