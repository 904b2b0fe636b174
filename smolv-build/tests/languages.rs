//! Every shader language a game ships: HLSL trees named by stage like GLSL
//! (`Config::language`, glslc's HLSL options), and Slang through `slangc`
//! (one module per entry point, imports tracked, errors located, output
//! accepted by SPIRV-Tools 2023.1).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use smolv_build::{Config, Error, Language, Report, ResourceKind, SpirvVersion, TargetEnv};
use smolv_format::Manifest;
use smolv_runtime::reflect::{Reflection, ShaderStage};

const HLSL_VERTEX: &str = "\
struct VOut { float4 pos : SV_Position; float3 color : COLOR0; };
cbuffer Params : register(b0) { float4 tint; };
VOut Main(uint id : SV_VertexID) {
    VOut o;
    o.pos = float4(float(id), 0.0, 0.0, 1.0);
    o.color = tint.rgb;
    return o;
}
";

const HLSL_FRAGMENT: &str = "\
StructuredBuffer<float4> lights : register(t1);
Texture2D albedo : register(t0);
SamplerState linear_sampler : register(s0);
float4 Main(float4 pos : SV_Position, float3 color : COLOR0) : SV_Target {
    return albedo.Sample(linear_sampler, color.xy) * lights[0];
}
";

const SLANG_COMMON: &str = "\
module common;
public float3 tint(float3 color) { return color * 0.5; }
";

const SLANG_TRIANGLE: &str = "\
import common;
struct VOut { float4 pos : SV_Position; float3 color : COLOR0; };

[shader(\"vertex\")]
VOut vs_main(uint id : SV_VertexID) {
    VOut o;
    o.pos = float4(float(id), 0.0, 0.0, 1.0);
    o.color = float3(1.0, 0.0, 0.0);
    return o;
}

[shader(\"fragment\")]
float4 fs_main(VOut input) : SV_Target {
    return float4(tint(input.color), 1.0);
}
";

/// glslang decorates a `StructuredBuffer` `BufferBlock`, which SPIR-V 1.4
/// and newer forbid, so HLSL with one targets SPIR-V 1.3 (as it must with
/// glslc).
const HLSL_SPIRV: SpirvVersion = SpirvVersion::V1_3;

/// Writes `files` (path, text) below a new directory.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A build of `dir/shaders` into `dir/out`, with its own cache.
fn config(dir: &Path) -> Config {
    let mut config = Config::new();
    config
        .shader_dir(dir.join("shaders"))
        .out_dir(dir.join("out"))
        .cache_dir(dir.join("cache"))
        .cargo_directives(false);
    config
}

fn manifest(dir: &Path) -> Manifest {
    serde_json::from_slice(&std::fs::read(dir.join("out/smolv/manifest.json")).unwrap()).unwrap()
}

/// The optimized SPIR-V of module `name`, as the manifest lists it.
fn module_spirv(dir: &Path, name: &str) -> (PathBuf, Vec<u32>) {
    let manifest = manifest(dir);
    let module = manifest.modules.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no module {name}"));
    let path = dir.join("out/smolv").join(&module.optimized_spirv);
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Runs the installed `spirv-val` (Debian's SPIRV-Tools 2023.1 here) on a module.
fn assert_valid(path: &Path) {
    let out = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.2"])
        .arg(path)
        .output()
        .expect("spirv-val must be installed (scripts/setup.sh installs spirv-tools)");
    assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
}

/// `(member, offset)` of every `OpMemberDecorate … Offset` in a module.
fn member_offsets(spirv: &[u32]) -> Vec<(u32, u32)> {
    const OP_MEMBER_DECORATE: u32 = 72;
    const OFFSET: u32 = 35;
    let mut offsets = Vec::new();
    let mut at = 5;
    while at < spirv.len() {
        let (count, opcode) = ((spirv[at] >> 16) as usize, spirv[at] & 0xffff);
        if opcode == OP_MEMBER_DECORATE && count == 5 && spirv[at + 3] == OFFSET {
            offsets.push((spirv[at + 2], spirv[at + 4]));
        }
        at += count.max(1);
    }
    offsets
}

fn binding_of(reflection: &Reflection, name: &str) -> (u32, u32) {
    let binding = reflection.bindings.iter().find(|b| b.name.contains(name));
    let binding = binding.unwrap_or_else(|| panic!("no binding {name} in {:?}", reflection.bindings));
    (binding.set, binding.binding)
}

/// Sets a file's modification time an hour back, so that a build does not
/// take it for a file being edited while it compiles.
fn age(path: &Path) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(3600)).unwrap();
}

/// Fails, saying how to get it, when no `slangc` is set up.
#[allow(clippy::disallowed_methods, reason = "looks for slangc as smolv-build does")]
fn require_slangc() {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join("slangc").is_file()));
    assert!(
        std::env::var_os("SMOLV_SLANGC").is_some() || on_path,
        "the Slang tests need slangc: `source scripts/setup.sh` fetches it and sets SMOLV_SLANGC"
    );
}

#[test]
fn an_hlsl_tree_named_by_stage_is_read_as_glsl_unless_stated() {
    let dir = tree(&[("shaders/tri.vert", HLSL_VERTEX), ("shaders/tri.frag", HLSL_FRAGMENT)]);
    let Err(Error::Compile { failed, diagnostics, .. }) = config(dir.path()).try_compile() else {
        panic!("HLSL in .vert/.frag files is GLSL to the compiler until stated otherwise");
    };
    assert_eq!(failed, 2);
    // Each file's first error says what to do.
    for name in ["tri.vert", "tri.frag"] {
        let first = diagnostics.iter().find(|d| d.path.ends_with(name)).unwrap();
        assert!(first.message.contains("the file looks like HLSL but was compiled as GLSL"), "{first}");
        assert!(first.message.contains("`Config::language(path_or_glob, Language::Hlsl)`"), "{first}");
    }
    let mut config = config(dir.path());
    config
        .language(dir.path().join("shaders").to_string_lossy(), Language::Hlsl)
        .hlsl_entry_point("Main")
        .spirv_version(HLSL_SPIRV);
    let report = config.try_compile().unwrap();
    assert_eq!(report.languages.len(), 1);
    assert_eq!(report.languages[0].summary(), "HLSL 2 of 2 compiled (100.0%)");
    assert!(report.to_text().contains("languages: HLSL 2 of 2 compiled (100.0%)"), "{}", report.to_text());
    for module in &report.modules {
        assert_eq!((module.language, module.entry_point.as_str()), (Some(Language::Hlsl), "Main"));
        assert_valid(&module_spirv(dir.path(), &module.name).0);
    }
    let stages: Vec<ShaderStage> = ["tri.frag", "tri.vert"]
        .iter()
        .map(|n| manifest(dir.path()).modules.iter().find(|m| m.name == *n).unwrap().reflection.stage)
        .collect();
    assert_eq!(stages, [ShaderStage::Fragment, ShaderStage::Vertex], "stages come from the extensions");
}

#[test]
fn a_ray_tracing_shader_at_the_default_target_says_what_it_needs_and_builds_once_raised() {
    let miss = "#version 460\n#extension GL_EXT_ray_tracing : enable\n\
                layout(location = 0) rayPayloadInEXT vec3 hit;\nvoid main() { hit = vec3(0.0, 0.0, 0.2); }\n";
    let dir = tree(&[("shaders/miss.rmiss", miss)]);
    let Err(Error::Compile { diagnostics, .. }) = config(dir.path()).try_compile() else {
        panic!("GL_EXT_ray_tracing needs SPIR-V 1.4, and the default target is SPIR-V 1.0");
    };
    let error = diagnostics.iter().find(|d| d.message.contains("GL_EXT_ray_tracing")).unwrap();
    assert!(
        error.message.contains(
            "(GL_EXT_ray_tracing needs SPIR-V 1.4 and the build compiles for SPIR-V 1.0: if the application \
             creates a Vulkan 1.2 instance or newer, say so: `Config::target_env(TargetEnv::Vulkan1_2)`"
        ),
        "{error}"
    );
    // The advice works.
    let mut raised = config(dir.path());
    raised.target_env(TargetEnv::Vulkan1_2);
    let report = raised.try_compile().unwrap();
    assert_eq!(report.modules.len(), 1);
    assert_valid_for(&module_spirv(dir.path(), "miss.rmiss").0, "vulkan1.2");
}

#[test]
fn hlsl_registers_move_with_set_bindings_shifts_and_the_io_map() {
    let dir = tree(&[("shaders/tri.vert", HLSL_VERTEX), ("shaders/tri.frag", HLSL_FRAGMENT)]);
    let base = |config: &mut Config| {
        config
            .language(dir.path().join("shaders").to_string_lossy(), Language::Hlsl)
            .hlsl_entry_point("Main")
            .spirv_version(HLSL_SPIRV)
            .hlsl_register_binding_for_stage(ShaderStage::Fragment, "s0", 2, 7)
            .binding_base(ResourceKind::UniformBuffer, 10)
            .binding_base(ResourceKind::Texture, 20)
            .binding_base(ResourceKind::StorageBuffer, 40);
    };
    let mut plain = config(dir.path());
    base(&mut plain);
    plain.try_compile().unwrap();
    let vertex = manifest(dir.path()).modules.into_iter().find(|m| m.name == "tri.vert").unwrap().reflection;
    let fragment = manifest(dir.path()).modules.into_iter().find(|m| m.name == "tri.frag").unwrap().reflection;
    assert_eq!(binding_of(&vertex, "Params"), (0, 10), "b0 shifted by the uniform-buffer base");
    assert_eq!(binding_of(&fragment, "albedo"), (0, 20), "t0 shifted by the texture base");
    assert_eq!(binding_of(&fragment, "linear_sampler"), (2, 7), "s0 placed in the fragment stage");
    assert_eq!(binding_of(&fragment, "lights"), (0, 41), "a StructuredBuffer is shifted as a storage buffer");

    let mut io_mapped = config(dir.path());
    base(&mut io_mapped);
    io_mapped.hlsl_io_mapping(true).try_compile().unwrap();
    let fragment = manifest(dir.path()).modules.into_iter().find(|m| m.name == "tri.frag").unwrap().reflection;
    assert_eq!(binding_of(&fragment, "lights"), (0, 21), "with the io map, register t takes the texture base");
}

#[test]
fn hlsl_offsets_lay_glsl_blocks_out_by_hlsl_rules() {
    let glsl = "#version 450\nlayout(binding = 0) uniform Params { float a; vec2 b; };\n\
                layout(location = 0) out vec4 color;\nvoid main() { color = vec4(b, a, 1.0); }\n";
    let dir = tree(&[("shaders/params.frag", glsl)]);
    config(dir.path()).try_compile().unwrap();
    assert_eq!(member_offsets(&module_spirv(dir.path(), "params.frag").1), [(0, 0), (1, 8)], "std140");
    config(dir.path()).hlsl_offsets(true).try_compile().unwrap();
    assert_eq!(member_offsets(&module_spirv(dir.path(), "params.frag").1), [(0, 0), (1, 4)], "HLSL packing");
}

#[test]
fn the_report_gives_the_pass_rate_of_each_language() {
    let broken_hlsl = "float4 Main() : SV_Target { return undefined_value; }\n";
    let glsl = "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    let dir = tree(&[
        ("shaders/hlsl/tri.vert", HLSL_VERTEX),
        ("shaders/hlsl/broken.frag", broken_hlsl),
        ("shaders/fill.frag", glsl),
        ("shaders/sky.wgsl", "@fragment fn fs_main() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n"),
    ]);
    let mut config = config(dir.path());
    config
        .language(dir.path().join("shaders/hlsl").to_string_lossy(), Language::Hlsl)
        .hlsl_entry_point("Main")
        .keep_going(true);
    let report = config.try_compile().unwrap();
    let summaries: Vec<String> = report.languages.iter().map(|l| l.summary()).collect();
    assert_eq!(
        summaries,
        ["GLSL 1 of 1 compiled (100.0%)", "HLSL 1 of 2 compiled (50.0%)", "WGSL 1 of 1 compiled (100.0%)"]
    );
    assert_eq!(report.failures[0].language, Some(Language::Hlsl));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["languages"][1], serde_json::json!({"language": "hlsl", "shaders": 2, "compiled": 1, "failed": 1}));
}

#[test]
fn slang_entry_points_become_modules_that_spirv_tools_2023_accepts() {
    require_slangc();
    let dir = tree(&[("shaders/common.slang", SLANG_COMMON), ("shaders/triangle.slang", SLANG_TRIANGLE)]);
    // Names and Slang's OpSource ship unless stripped.
    for strip_debug in [false, true] {
        // Vulkan 1.1: Slang's SPIR-V 1.3 floor, so that no warning is due.
        let report = config(dir.path())
            .target_env(smolv_build::TargetEnv::Vulkan1_1)
            .strip_debug(strip_debug)
            .try_compile()
            .unwrap();
        let names: Vec<(&str, &str, Option<Language>)> =
            report.modules.iter().map(|m| (m.name.as_str(), m.stage.as_str(), m.language)).collect();
        assert_eq!(
            names,
            [
                ("triangle.slang#fs_main", "fragment", Some(Language::Slang)),
                ("triangle.slang#vs_main", "vertex", Some(Language::Slang))
            ],
            "one module per [shader] entry point; common.slang has none, so it is a module for import"
        );
        for module in &report.modules {
            assert_eq!(module.entry_point, module.name.split('#').nth(1).unwrap(), "the entry point keeps its name");
            assert!(module.optimized_bytes < module.spirv_bytes, "spirv-opt -Os ran on {}", module.name);
            let (path, _) = module_spirv(dir.path(), &module.name);
            assert_valid(&path);
            let bytes = std::fs::read(&path).unwrap();
            let needs = |what: &[u8]| bytes.windows(what.len()).any(|w| w == what);
            assert!(!needs(b"SPV_KHR_non_semantic_info"), "no module may need VK_KHR_shader_non_semantic_info");
        }
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(report.languages[0].summary(), "Slang 1 of 1 compiled (100.0%)");
    }
}

#[test]
fn editing_an_imported_slang_module_recompiles_the_importer() {
    require_slangc();
    let dir = tree(&[("shaders/common.slang", SLANG_COMMON), ("shaders/triangle.slang", SLANG_TRIANGLE)]);
    let common = dir.path().join("shaders/common.slang");
    [&common, &dir.path().join("shaders/triangle.slang")].into_iter().for_each(|path| age(path));
    let config = config(dir.path());
    let first = config.try_compile().unwrap();
    assert_eq!((first.compiled, first.cache_hits), (1, 0));
    let fragment = module_spirv(dir.path(), "triangle.slang#fs_main").1;
    let again = config.try_compile().unwrap();
    assert_eq!((again.compiled, again.cache_hits), (0, 1), "nothing changed: a cache hit");
    std::fs::write(&common, SLANG_COMMON.replace("color * 0.5", "color * 0.25")).unwrap();
    age(&common);
    let edited = config.try_compile().unwrap();
    assert_eq!((edited.compiled, edited.cache_hits), (1, 0), "the imported module changed: a miss");
    assert_ne!(module_spirv(dir.path(), "triangle.slang#fs_main").1, fragment, "the new constant is compiled in");
}

#[test]
fn slang_errors_are_reported_at_path_line_and_column() {
    require_slangc();
    let broken = "import common;\n[shader(\"fragment\")]\nfloat4 fs_main() : SV_Target {\n    \
                  return float4(tint(float3(1.0)), 1.0)\n}\n";
    let broken_module = "module common;\npublic float3 tint(float3 c) { return c * missing_scale; }\n";
    let dir = tree(&[("shaders/common.slang", SLANG_COMMON), ("shaders/broken.slang", broken)]);
    let Err(Error::Compile { diagnostics, .. }) = config(dir.path()).try_compile() else {
        panic!("a syntax error must fail the build");
    };
    let headline = diagnostics[0].headline();
    let expected = format!("{}:5:1: ", dir.path().join("shaders/broken.slang").display());
    assert!(headline.starts_with(&expected) && headline.contains("expected ';'"), "{headline}");

    // An error in an imported module is located in that module.
    std::fs::write(dir.path().join("shaders/broken.slang"), SLANG_TRIANGLE).unwrap();
    std::fs::write(dir.path().join("shaders/common.slang"), broken_module).unwrap();
    let Err(Error::Compile { diagnostics, .. }) = config(dir.path()).try_compile() else {
        panic!("an error in an imported module must fail the build");
    };
    let in_module = diagnostics.iter().find(|d| d.path.ends_with("common.slang")).expect("located in common.slang");
    let column = broken_module.lines().nth(1).unwrap().find("missing_scale").unwrap() + 1;
    assert_eq!((in_module.line, in_module.column as usize), (2, column), "{in_module}");
    assert!(in_module.message.contains("missing_scale"), "{in_module}");
}

#[test]
fn a_slangc_that_cannot_run_is_an_error_saying_how_to_install_it() {
    let dir = tree(&[("shaders/triangle.slang", SLANG_TRIANGLE)]);
    let Err(Error::Compile { diagnostics, .. }) = config(dir.path()).slangc("/no/such/slangc").try_compile() else {
        panic!("a .slang file must not be skipped");
    };
    let message = &diagnostics[0].message;
    assert!(message.contains("cannot run slangc") && message.contains("pip install --no-deps slangtorch"), "{message}");
}

#[test]
fn slang_takes_defines_and_variants() {
    require_slangc();
    let shader = "[shader(\"fragment\")]\nfloat4 fs_main() : SV_Target {\n#ifdef RED\n    return float4(1, 0, 0, 1);\n\
                  #else\n    return float4(0, 0, 1, 1);\n#endif\n}\n";
    let dir = tree(&[("shaders/color.slang", shader)]);
    let mut config = config(dir.path());
    config.variants("color.slang", [smolv_build::Variant::new("red").define("RED", "1")]);
    let report: Report = config.try_compile().unwrap();
    let names: Vec<&str> = report.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["color.slang#fs_main", "color.slang@red#fs_main"]);
    assert_ne!(module_spirv(dir.path(), names[0]).1, module_spirv(dir.path(), names[1]).1);
}

/// HLSL's `half` arithmetic, through an include: a 32-bit float marked
/// `RelaxedPrecision` by default, a real 16-bit float with
/// `hlsl_16bit_types` (glslc's `-fhlsl-16bit-types`).
const HLSL_HALF: &str = "\
#include \"tone.hlsli\"
float4 Main(float4 color : COLOR0) : SV_Target0 {
    half4 c = (half4)color;
    return (float4)(c * TONE);
}
";

/// `OpCapability` operands and `OpTypeFloat` widths of a module.
fn capabilities_and_float_widths(spirv: &[u32]) -> (Vec<u32>, Vec<u32>) {
    const OP_CAPABILITY: u32 = 17;
    const OP_TYPE_FLOAT: u32 = 22;
    let (mut capabilities, mut widths) = (Vec::new(), Vec::new());
    let mut at = 5;
    while at < spirv.len() {
        let (count, opcode) = ((spirv[at] >> 16) as usize, spirv[at] & 0xffff);
        match opcode {
            OP_CAPABILITY => capabilities.push(spirv[at + 1]),
            OP_TYPE_FLOAT => widths.push(spirv[at + 2]),
            _ => {}
        }
        at += count.max(1);
    }
    (capabilities, widths)
}

/// SPIR-V's `Float16` capability.
const FLOAT16: u32 = 9;

#[test]
fn hlsl_16bit_types_make_half_a_16_bit_float() {
    let dir = tree(&[("shaders/tone.frag.hlsl", HLSL_HALF), ("shaders/tone.hlsli", "#define TONE (half)0.5\n")]);
    // Files written just now may still be being edited: the cache keeps no
    // hash for them, so a rebuild would compile again.
    age(&dir.path().join("shaders/tone.hlsli"));
    let mut plain = config(dir.path());
    plain.hlsl_entry_point("Main");
    assert_eq!(plain.try_compile().unwrap().compiled, 1);
    let (_, spirv) = module_spirv(dir.path(), "tone.frag.hlsl");
    let (capabilities, widths) = capabilities_and_float_widths(&spirv);
    assert!(!capabilities.contains(&FLOAT16) && !widths.contains(&16), "no 16-bit floats without the option");

    let mut sixteen = config(dir.path());
    sixteen.hlsl_entry_point("Main").hlsl_16bit_types(true);
    let report = sixteen.try_compile().unwrap();
    assert_eq!((report.compiled, report.cache_hits), (1, 0), "the option is part of the cache key");
    let (path, spirv) = module_spirv(dir.path(), "tone.frag.hlsl");
    let (capabilities, widths) = capabilities_and_float_widths(&spirv);
    assert!(capabilities.contains(&FLOAT16), "Float16 declared: {capabilities:?}");
    assert!(widths.contains(&16), "a 16-bit float type: {widths:?}");
    assert_valid(&path);
    assert_eq!(report.modules[0].entry_point, "Main");

    // The include is tracked: editing it recompiles.
    assert_eq!(sixteen.try_compile().unwrap().cache_hits, 1, "unchanged: a hit");
    let include = dir.path().join("shaders/tone.hlsli");
    std::fs::write(&include, "#define TONE (half)0.25\n").unwrap();
    age(&include);
    let edited = sixteen.try_compile().unwrap();
    assert_eq!((edited.compiled, edited.cache_hits), (1, 0), "the include changed: {edited:?}");
}

#[test]
fn hlsl_16bit_errors_are_located() {
    let bad = "float4 Main(float4 color : COLOR0) : SV_Target0 {\n    half4 c = (half4)colour;\n    return c;\n}\n";
    let dir = tree(&[("shaders/bad.frag.hlsl", bad)]);
    let mut sixteen = config(dir.path());
    sixteen.hlsl_entry_point("Main").hlsl_16bit_types(true);
    let Err(Error::Compile { diagnostics, .. }) = sixteen.try_compile() else { panic!("colour is undeclared") };
    let d = &diagnostics[0];
    assert_eq!((d.path.file_name().unwrap().to_str(), d.line), (Some("bad.frag.hlsl"), 2), "{d}");
    assert!(d.message.contains("colour"), "{d}");
}

/// The SPIR-V version word of a module's header: `0x0001_0300` for 1.3.
fn version_word(dir: &Path, module: &str) -> u32 {
    module_spirv(dir, module).1[1]
}

/// `spirv-val` under a target environment.
fn assert_valid_for(path: &Path, env: &str) {
    let out = Command::new("spirv-val").args(["--target-env", env]).arg(path).output().expect("spirv-val");
    assert!(out.status.success(), "{} under {env}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
}

const GLSL_FRAGMENT: &str = "#version 450\nlayout(location = 0) out vec4 color;\n\
                             layout(set = 0, binding = 0) buffer Lights { vec4 lights[]; };\n\
                             void main() { color = lights[0]; }\n";

const WGSL_COMPUTE: &str = "\
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<uniform> scale: vec4<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    data[id.x] = data[id.x] * scale.x;
}
";

#[test]
fn the_default_target_is_vulkan_1_0_and_spirv_1_0_as_with_glslc() {
    let dir = tree(&[("shaders/lit.frag", GLSL_FRAGMENT), ("shaders/scale.wgsl", WGSL_COMPUTE)]);
    config(dir.path()).try_compile().unwrap();
    for module in ["lit.frag", "scale.wgsl#main"] {
        assert_eq!(version_word(dir.path(), module), 0x0001_0000, "{module}: SPIR-V 1.0 by default");
        assert_valid_for(&module_spirv(dir.path(), module).0, "vulkan1.0");
    }
    let hlsl = tree(&[("shaders/tonemap.frag.hlsl", HLSL_FRAGMENT)]);
    config(hlsl.path()).try_compile().unwrap();
    assert_eq!(version_word(hlsl.path(), "tonemap.frag.hlsl"), 0x0001_0000);
    assert_valid_for(&module_spirv(hlsl.path(), "tonemap.frag.hlsl").0, "vulkan1.0");
}

#[test]
fn raising_the_target_raises_the_spirv_version() {
    let dir = tree(&[("shaders/lit.frag", GLSL_FRAGMENT), ("shaders/scale.wgsl", WGSL_COMPUTE)]);
    config(dir.path()).target_env(smolv_build::TargetEnv::Vulkan1_2).try_compile().unwrap();
    for module in ["lit.frag", "scale.wgsl#main"] {
        assert_eq!(version_word(dir.path(), module), 0x0001_0500, "{module}: Vulkan 1.2 means SPIR-V 1.5");
        assert_valid_for(&module_spirv(dir.path(), module).0, "vulkan1.2");
    }
    config(dir.path())
        .target_env(smolv_build::TargetEnv::Vulkan1_1)
        .spirv_version(SpirvVersion::V1_3)
        .try_compile()
        .unwrap();
    assert_eq!(version_word(dir.path(), "lit.frag"), 0x0001_0300, "an explicit SPIR-V version wins");
}

#[test]
fn slang_modules_are_spirv_1_3_at_least_and_optimized_for_vulkan_1_1() {
    require_slangc();
    let dir = tree(&[("shaders/common.slang", SLANG_COMMON), ("shaders/triangle.slang", SLANG_TRIANGLE)]);
    let report = config(dir.path()).try_compile().unwrap();
    // At the default target (Vulkan 1.0) the build says that these modules
    // need Vulkan 1.1, once, and no `not optimized` warning.
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].starts_with(
            "2 modules (triangle.slang#fs_main, triangle.slang#vs_main) are SPIR-V 1.3, newer than the target \
             vulkan1.0 takes (SPIR-V 1.0): a Vulkan 1.0 device refuses them (Slang emits SPIR-V 1.3 at least)"
        ) && report.warnings[0].ends_with("`Config::target_env(TargetEnv::Vulkan1_1)`, or `--target-env vulkan1.1`"),
        "{}",
        report.warnings[0]
    );
    for module in ["triangle.slang#vs_main", "triangle.slang#fs_main"] {
        assert_eq!(version_word(dir.path(), module), 0x0001_0300, "{module}: Slang's floor, SPIR-V 1.3");
        assert_valid_for(&module_spirv(dir.path(), module).0, "vulkan1.1");
    }
    let report = config(dir.path()).target_env(smolv_build::TargetEnv::Vulkan1_1).try_compile().unwrap();
    assert!(report.warnings.is_empty(), "Vulkan 1.1 takes SPIR-V 1.3: {:?}", report.warnings);
    config(dir.path()).target_env(smolv_build::TargetEnv::Vulkan1_3).try_compile().unwrap();
    assert_eq!(version_word(dir.path(), "triangle.slang#vs_main"), 0x0001_0600, "a higher target still rises");
}

#[test]
fn a_precompiled_module_newer_than_the_target_is_named_in_one_warning_on_every_build() {
    // A SPIR-V 1.5 module: GLSL built for Vulkan 1.2, then taken as a ready `.spv`.
    let built = tree(&[("shaders/lit.frag", GLSL_FRAGMENT)]);
    config(built.path()).target_env(smolv_build::TargetEnv::Vulkan1_2).try_compile().unwrap();
    let (path, words) = module_spirv(built.path(), "lit.frag");
    assert_eq!(words[1], 0x0001_0500);
    let dir = tree(&[("shaders/plain.frag", GLSL_FRAGMENT)]);
    std::fs::copy(&path, dir.path().join("shaders/lit.spv")).unwrap();

    for build in ["compiled", "from the cache"] {
        let report = config(dir.path()).try_compile().unwrap();
        assert_eq!(report.warnings.len(), 1, "{build}: {:?}", report.warnings);
        let warning = &report.warnings[0];
        assert!(
            warning.starts_with("lit.spv is SPIR-V 1.5, newer than the target vulkan1.0 takes (SPIR-V 1.0)")
                && warning
                    .contains("a precompiled .spv keeps the version it was built for (or rebuild it for SPIR-V 1.0)")
                && warning.ends_with("`Config::target_env(TargetEnv::Vulkan1_2)`, or `--target-env vulkan1.2`"),
            "{build}: {warning}"
        );
    }
    // A target that takes it, and a wgpu target (naga reads any version), say nothing.
    let report = config(dir.path()).target_env(smolv_build::TargetEnv::Vulkan1_2).try_compile().unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let report = config(dir.path()).for_wgpu_shipping(false).try_compile().unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
}

#[test]
fn a_scalar_layout_block_is_optimized_like_any_other() {
    let scalar = "#version 450\n#extension GL_EXT_scalar_block_layout : require\n\
        layout(local_size_x = 1) in;\n\
        layout(scalar, push_constant) uniform Push { float x; vec3 a; vec2 b; } push;\n\
        layout(set = 0, binding = 0) buffer Data { vec4 v; } data;\n\
        void main() { data.v = vec4(push.a, push.x + push.b.y); }\n";
    let dir = tree(&[("shaders/scalar.comp", scalar)]);
    let report = config(dir.path()).try_compile().unwrap();
    assert!(report.warnings.is_empty(), "spirv-opt refused the scalar layout: {:?}", report.warnings);
    assert_eq!(report.compiled, 1);
}
