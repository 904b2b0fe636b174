//! WESL: imports across files, directories and packages, `@if` features
//! from `Config` and variants, one module per entry point, imports tracked
//! by the cache and the recipes, and errors located in the file that holds
//! them.
#![cfg(feature = "wesl")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use smolv_build::recipe::ShaderRecipe;
use smolv_build::{Config, Error, Variant};
use smolv_format::Manifest;

/// The shader: entry points, an import from a subdirectory, an `@if`.
const LIT: &str = "\
import package::lib::light::{Light, shade};

@group(0) @binding(0) var<uniform> light: Light;

struct VOut { @builtin(position) pos: vec4f, @location(0) normal: vec3f };

@vertex fn vs(@builtin(vertex_index) i: u32) -> VOut {
    return VOut(vec4f(f32(i), 0.0, 0.0, 1.0), vec3f(0.0, 0.0, 1.0));
}

@fragment fn fs(v: VOut) -> @location(0) vec4f {
    var color = shade(light, v.normal);
    @if(shadows) {
        color = color * 0.25;
    }
    return vec4f(color, 1.0);
}
";

/// A module in a subdirectory, which imports a third file with `super::`.
const LIGHT: &str = "\
import super::super::common::GAIN;

struct Light { direction: vec3f, intensity: f32 }

fn shade(light: Light, normal: vec3f) -> vec3f {
    return vec3f(max(dot(normal, light.direction), 0.0) * light.intensity * GAIN);
}
";

const COMMON: &str = "const GAIN = 0.5;\n";

/// Writes `files` (path, text) below a new directory, an hour old, so
/// that a build does not take them for files being edited.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        write(&dir.path().join(path), text);
    }
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(3600)).unwrap();
}

fn three_files() -> tempfile::TempDir {
    tree(&[("shaders/lit.wesl", LIT), ("shaders/lib/light.wesl", LIGHT), ("shaders/common.wesl", COMMON)])
}

/// A build of `dir/shaders` into `dir/out`, with its own cache.
fn plain_config(dir: &Path) -> Config {
    let mut config = Config::new();
    config
        .shader_dir(dir.join("shaders"))
        .out_dir(dir.join("out"))
        .cache_dir(dir.join("cache"))
        .cargo_directives(false);
    config
}

/// [`plain_config`] with the `shadows` variant of `lit.wesl`.
fn config(dir: &Path) -> Config {
    let mut config = plain_config(dir);
    config.variants("lit.wesl", [Variant::new("shadows").wesl_feature("shadows", true)]);
    config
}

fn manifest(dir: &Path) -> Manifest<ShaderRecipe> {
    serde_json::from_slice(&std::fs::read(dir.join("out/smolv/manifest.json")).unwrap()).unwrap()
}

/// The SPIR-V of module `name` as compiled, before optimization, and the
/// file it is in.
fn module_spirv(dir: &Path, name: &str) -> (PathBuf, Vec<u32>) {
    let manifest = manifest(dir);
    let module = manifest.modules.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no module {name}"));
    let path = dir.join("out/smolv").join(&module.optimized_spirv);
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[test]
fn a_three_file_tree_builds_one_module_per_entry_point_and_variant() {
    let dir = three_files();
    let report = config(dir.path()).try_compile().unwrap_or_else(|e| panic!("{e}"));
    let mut names: Vec<&str> = report.modules.iter().map(|m| m.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["lit.wesl#fs", "lit.wesl#vs", "lit.wesl@shadows#fs", "lit.wesl@shadows#vs"]);
    let (plain, plain_words) = module_spirv(dir.path(), "lit.wesl#fs");
    let (_, shadowed) = module_spirv(dir.path(), "lit.wesl@shadows#fs");
    assert_ne!(plain_words, shadowed, "@if(shadows) changes the variant");
    assert_eq!(module_spirv(dir.path(), "lit.wesl#vs").1, module_spirv(dir.path(), "lit.wesl@shadows#vs").1);
    let out = Command::new("spirv-val").args(["--target-env", "vulkan1.0"]).arg(&plain).output();
    let out = out.expect("spirv-val must be installed (scripts/setup.sh installs spirv-tools)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The imported struct keeps its name in the typed interface.
    let types = std::fs::read_to_string(dir.path().join("out/smolv/types.rs")).unwrap();
    assert!(types.contains("pub struct Light {"), "{types}");
    assert!(!types.contains('\u{2d0}'), "no mangled path is left: {types}");
    // Every module's recipe names both imported files, for hot reload.
    for module in manifest(dir.path()).modules {
        let mut includes = module.recipe.expect("a recipe").includes;
        includes.sort();
        let expected = [dir.path().join("shaders/common.wesl"), dir.path().join("shaders/lib/light.wesl")];
        assert_eq!(includes, expected, "{}", module.name);
    }
}

#[test]
fn a_second_build_is_all_hits_and_an_edited_import_is_a_miss() {
    let dir = three_files();
    let config = config(dir.path());
    let first = config.try_compile().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((first.compiled, first.cache_hits), (2, 0), "two jobs: lit.wesl and lit.wesl@shadows");
    let again = config.try_compile().unwrap();
    assert_eq!((again.compiled, again.cache_hits), (0, 2), "nothing changed: all hits");
    let before = module_spirv(dir.path(), "lit.wesl#fs").1;
    // The third file, two imports away from the shader.
    write(&dir.path().join("shaders/common.wesl"), "const GAIN = 0.125;\n");
    let edited = config.try_compile().unwrap();
    assert_eq!((edited.compiled, edited.cache_hits), (2, 0), "an imported file changed: both jobs miss");
    assert_ne!(module_spirv(dir.path(), "lit.wesl#fs").1, before, "the new constant is compiled in");
}

#[test]
fn features_come_from_config_the_shader_and_the_variant() {
    let dir = three_files();
    let build = |config: &mut Config| {
        config.try_compile().unwrap_or_else(|e| panic!("{e}"));
        module_spirv(dir.path(), "lit.wesl#fs").1
    };
    let off = build(&mut config(dir.path()));
    let on = build(config(dir.path()).wesl_feature("shadows", true));
    assert_ne!(off, on, "Config::wesl_feature reaches @if");
    assert_eq!(on, module_spirv(dir.path(), "lit.wesl@shadows#fs").1, "the same as the variant");
    let per_shader =
        build(config(dir.path()).wesl_feature("shadows", true).shader_wesl_feature("lit.wesl", "shadows", false));
    assert_eq!(per_shader, off, "the shader's own setting wins over the global one");
}

#[test]
fn a_package_on_disk_is_imported_by_name_and_tracked() {
    let dir = tree(&[
        ("shaders/sky.wesl", "import noise::hash::hash;\n@compute @workgroup_size(1) fn main() { _ = hash(1u); }\n"),
        ("vendor/noise/hash.wesl", "fn hash(x: u32) -> u32 { return x * 747796405u + 2891336453u; }\n"),
    ]);
    let mut config = plain_config(dir.path());
    config.wesl_package("noise", dir.path().join("vendor/noise"));
    let unknown = plain_config(dir.path()).try_compile();
    let Err(Error::Compile { diagnostics, .. }) = unknown else {
        panic!("an unknown package must fail the build: {unknown:?}");
    };
    assert!(diagnostics[0].message.contains("no WESL package `noise`"), "{}", diagnostics[0]);
    let report = config.try_compile().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.modules[0].name, "sky.wesl#main");
    let recipe = manifest(dir.path()).modules.remove(0).recipe.unwrap();
    assert_eq!(recipe.includes, [dir.path().join("vendor/noise/hash.wesl")]);
    write(&dir.path().join("vendor/noise/hash.wesl"), "fn hash(x: u32) -> u32 { return x ^ 61u; }\n");
    let edited = config.try_compile().unwrap();
    assert_eq!((edited.compiled, edited.cache_hits), (1, 0), "an edited package file is a miss");
    assert!(matches!(Config::new().wesl_package("package", "vendor").try_compile(), Err(Error::Config(_))));
}

#[test]
fn an_error_in_an_imported_file_is_reported_at_its_path_line_and_column() {
    // naga finds this one, in the linked WGSL: a vec3f times a bool.
    let broken = LIGHT.replace("* GAIN);", "* GAIN * true);");
    let dir = tree(&[("shaders/lit.wesl", LIT), ("shaders/lib/light.wesl", &broken), ("shaders/common.wesl", COMMON)]);
    let Err(Error::Compile { diagnostics, .. }) = config(dir.path()).try_compile() else {
        panic!("a type error must fail the build");
    };
    let light = dir.path().join("shaders/lib/light.wesl");
    let expected = format!("{}:6:", light.display());
    assert!(diagnostics.iter().all(|d| d.headline().starts_with(&expected)), "{diagnostics:#?}");

    // The wesl crate finds this one: a name nothing declares.
    let column = LIGHT.lines().nth(5).unwrap().find("GAIN").unwrap() + 1;
    write(&light, &LIGHT.replace("* GAIN);", "* GAN);"));
    let Err(Error::Compile { diagnostics, .. }) = config(dir.path()).try_compile() else {
        panic!("an unknown name must fail the build");
    };
    let headline = diagnostics[0].headline();
    assert!(headline.starts_with(&format!("{}:6:{column}: ", light.display())), "{headline}");
    assert!(headline.contains("GAN"), "{headline}");
}

#[test]
fn defines_on_wesl_and_features_on_glsl_are_errors() {
    let dir = three_files();
    write(&dir.path().join("shaders/flat.frag"), "#version 450\nvoid main() {}\n");
    let mut wesl_define = config(dir.path());
    wesl_define.variants("lit.wesl", [Variant::new("red").define("RED", "1")]);
    let Err(Error::Config(message)) = wesl_define.try_compile() else { panic!("WESL has no preprocessor") };
    assert!(message.contains("lit.wesl is WESL") && message.contains("wesl_feature"), "{message}");
    let mut glsl_feature = config(dir.path());
    glsl_feature.shader_wesl_feature("flat.frag", "fog", true);
    let Err(Error::Config(message)) = glsl_feature.try_compile() else { panic!("GLSL has no @if") };
    assert!(message.contains("flat.frag is GLSL, not WESL"), "{message}");
}
