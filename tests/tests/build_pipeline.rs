//! smolv-build run programmatically on shader trees made on the spot:
//! errors, caching, incremental rebuilds, corruption and concurrency.

use std::path::{Path, PathBuf};

use smolv_build::{Config, DictionaryMode, Error, Report, Variant};

/// A shader tree with its own out and cache directories.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new(files: &[(&str, &str)]) -> Self {
        let tree = Self { dir: tempfile::tempdir().unwrap() };
        for (path, text) in files {
            tree.write(path, text);
        }
        tree
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn config(&self, out: &str) -> Config {
        let mut config = Config::new();
        config
            .shader_dir(self.path("shaders"))
            .include_dir(self.path("include"))
            .out_dir(self.path(out))
            .cache_dir(self.path("cache"))
            .cargo_directives(false);
        config
    }

    fn build(&self) -> Result<Report, Error> {
        self.config("out").try_compile()
    }

    fn artifact_bytes(&self, out: &str) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = walk(&self.path(out).join("smolv"))
            .into_iter()
            .map(|p| (p.strip_prefix(self.path(out)).unwrap().display().to_string(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        files
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.path().is_dir() {
            out.extend(walk(&entry.path()));
        } else {
            out.push(entry.path());
        }
    }
    out
}

const COMMON: &str = "float brighten(float x) { return x * 1.5; }\n";
const USES_COMMON: &str =
    "#version 450\n#include <common.glsl>\nlayout(location=0) out vec4 c;\nvoid main() { c = vec4(brighten(0.5)); }\n";
const STANDALONE: &str = "#version 450\nlayout(location=0) out vec4 c;\nvoid main() { c = vec4(0.25); }\n";
const COMPUTE: &str = "#version 450\nlayout(local_size_x=8) in;\nlayout(set=0,binding=0) buffer B { uint v[]; };\nvoid main() { v[gl_GlobalInvocationID.x] *= 2u; }\n";
const WGSL: &str = "@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n@vertex fn vs() -> @builtin(position) vec4<f32> { return vec4<f32>(0.0); }\n";

fn healthy_tree() -> Tree {
    Tree::new(&[
        ("include/common.glsl", COMMON),
        ("shaders/a.frag", USES_COMMON),
        ("shaders/b.frag", USES_COMMON),
        ("shaders/plain.frag", STANDALONE),
        ("shaders/blur.comp", COMPUTE),
        ("shaders/post.wgsl", WGSL),
    ])
}

#[test]
fn broken_shaders_report_every_error_with_its_location() {
    let tree = Tree::new(&[
        ("include/bad.glsl", "float oops() { return undefined_thing; }\n"),
        (
            "shaders/two_errors.frag",
            "#version 450\nvoid main() {\n  float a = missing_one;\n  float b = missing_two;\n}\n",
        ),
        ("shaders/bad_include.frag", "#version 450\n#include <bad.glsl>\nvoid main() {}\n"),
        ("shaders/bad.wgsl", "@fragment fn fs() -> @location(0) vec4<f32> {\n  return vec4<f32>(nope);\n}\n"),
        ("shaders/fine.frag", STANDALONE),
    ]);
    // A stale artifact from an earlier good build must not survive a failure.
    tree.write("out/smolv/manifest.json", "{}");
    let Err(Error::Compile { diagnostics, failed, total }) = tree.build() else { panic!("the build must fail") };
    assert_eq!((failed, total), (3, 4));
    let text: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    let has = |file: &str, line: u32, token: &str| {
        diagnostics
            .iter()
            .any(|d| d.path.ends_with(file) && d.line == line && d.column > 0 && d.message.contains(token))
    };
    assert!(has("two_errors.frag", 3, "missing_one"), "{text:#?}");
    assert!(has("two_errors.frag", 4, "missing_two"), "{text:#?}");
    assert!(has("bad.glsl", 1, "undefined_thing"), "errors inside includes name the include: {text:#?}");
    assert!(has("bad.wgsl", 2, "nope"), "{text:#?}");
    let wgsl = diagnostics.iter().find(|d| d.path.ends_with("bad.wgsl")).unwrap();
    assert!(wgsl.to_string().contains("bad.wgsl:2:"), "{wgsl}");
    assert!(!tree.path("out/smolv").exists(), "a failed build leaves no artifacts behind");
    let message = Error::Compile { diagnostics, failed, total }.to_string();
    assert!(message.starts_with("3 of 4 shaders failed to compile"), "{message}");
}

#[test]
fn second_build_recompiles_nothing_and_writes_the_same_bytes() {
    let tree = healthy_tree();
    let first = tree.build().unwrap();
    assert_eq!((first.compiled, first.cache_hits), (5, 0));
    let before = tree.artifact_bytes("out");
    let second = tree.build().unwrap();
    assert_eq!((second.compiled, second.cache_hits), (0, 5));
    assert_eq!(tree.artifact_bytes("out"), before);
    assert_eq!(second.modules.len(), 6, "post.wgsl has two entry points");
}

#[test]
fn touching_an_include_recompiles_only_the_shaders_that_use_it() {
    let tree = healthy_tree();
    tree.build().unwrap();
    tree.write("include/common.glsl", "float brighten(float x) { return x * 2.0; }\n");
    let report = tree.build().unwrap();
    assert_eq!((report.compiled, report.cache_hits), (2, 3), "a.frag and b.frag include it");
    let rebuilt: Vec<&str> = report.modules.iter().filter(|m| !m.cached).map(|m| m.name.as_str()).collect();
    assert_eq!(rebuilt, ["a.frag", "b.frag"]);
}

#[test]
fn a_new_shader_is_picked_up() {
    let tree = healthy_tree();
    tree.build().unwrap();
    tree.write("shaders/new/extra.frag", STANDALONE);
    let report = tree.build().unwrap();
    assert!(report.modules.iter().any(|m| m.name == "new/extra.frag"));
    assert_eq!(report.compiled, 1);
}

#[test]
fn corrupt_cache_entries_are_recompiled() {
    let tree = healthy_tree();
    tree.build().unwrap();
    let before = tree.artifact_bytes("out");
    let entries: Vec<PathBuf> = walk(&tree.path("cache")).into_iter().filter(|p| p.is_file()).collect();
    assert!(!entries.is_empty());
    for (i, entry) in entries.iter().enumerate() {
        let mut bytes = std::fs::read(entry).unwrap();
        if i % 2 == 0 {
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x40;
        } else {
            bytes.truncate(bytes.len() / 3);
        }
        std::fs::write(entry, bytes).unwrap();
    }
    let report = tree.build().unwrap();
    assert_eq!(report.compiled, 5, "every corrupted entry is a miss");
    assert_eq!(tree.artifact_bytes("out"), before, "and the rebuilt output is identical");
}

#[test]
fn concurrent_builds_share_one_cache_safely() {
    let tree = healthy_tree();
    let outs = ["out0", "out1", "out2", "out3"];
    std::thread::scope(|scope| {
        for out in outs {
            let tree = &tree;
            scope.spawn(move || tree.config(out).try_compile().unwrap());
        }
    });
    let first = tree.artifact_bytes("out0");
    for out in &outs[1..] {
        assert_eq!(tree.artifact_bytes(out), first, "{out} differs");
    }
    assert!(walk(&tree.path("cache")).iter().all(|p| p.extension().is_none_or(|e| e != "tmp")), "no temp files left");
    let warm = tree.config("out4").try_compile().unwrap();
    assert_eq!(warm.compiled, 0);
}

#[test]
fn optimizer_failure_ships_the_unoptimized_module_with_a_warning() {
    let tree = Tree::new(&[("shaders/post.wgsl", WGSL)]);
    let report = tree.config("out").spirv_opt("/bin/false").try_compile().unwrap();
    assert!(report.warnings.iter().any(|w| w.contains("not optimized")), "{:?}", report.warnings);
    for module in &report.modules {
        assert_eq!(module.optimized_bytes, module.spirv_bytes);
    }
}

#[test]
fn dictionary_is_kept_only_when_it_pays() {
    let tree = healthy_tree();
    let auto = tree.build().unwrap();
    let off = tree.config("out-off").dictionary(DictionaryMode::Off).try_compile().unwrap();
    assert_eq!(off.dictionary_bytes, 0);
    assert!(auto.total_bundle_bytes <= off.total_bundle_bytes);
    let many = Variant::permutations(&[("VARIANT_A", &["0", "1", "2", "3"]), ("VARIANT_B", &["0", "1", "2", "3"])]);
    let forced = tree
        .config("out-forced")
        .variants("blur.comp", many)
        .dictionary(DictionaryMode::Size(1024))
        .try_compile()
        .unwrap();
    assert!(forced.dictionary_bytes > 0 && forced.dictionary_bytes <= 1024, "{}", forced.dictionary_bytes);
}

#[test]
fn variants_multiply_a_source() {
    let tree = healthy_tree();
    let report = tree
        .config("out")
        .variants("plain.frag", Variant::permutations(&[("A", &["0", "1"]), ("B", &["x", "y"])]))
        .try_compile()
        .unwrap();
    let names: Vec<&str> = report.modules.iter().map(|m| m.name.as_str()).filter(|n| n.starts_with("plain")).collect();
    assert_eq!(
        names,
        ["plain.frag", "plain.frag@A=0,B=x", "plain.frag@A=0,B=y", "plain.frag@A=1,B=x", "plain.frag@A=1,B=y"]
    );
}

#[test]
fn configuration_mistakes_are_clear_errors() {
    let tree = healthy_tree();
    let err = tree.config("out").variants("nope.frag", [Variant::new("v")]).try_compile().unwrap_err();
    assert!(err.to_string().contains("nope.frag") && err.to_string().contains("a.frag"), "{err}");
    let mut missing = Config::new();
    missing.shader_dir(tree.path("no-such-dir")).out_dir(tree.path("out")).cargo_directives(false);
    let err = missing.try_compile().unwrap_err();
    assert!(err.to_string().contains("no-such-dir"), "{err}");
    let empty = Tree::new(&[("shaders/readme.txt", "not a shader")]);
    assert!(matches!(empty.build(), Err(Error::NoShaders { .. })));
}

#[test]
fn stage_pragma_compiles_and_glsl_without_one_is_an_include() {
    let tree = Tree::new(&[
        ("shaders/helper.glsl", COMMON),
        (
            "shaders/kernel.glsl",
            "#version 450\n#pragma shader_stage(compute)\nlayout(local_size_x=1) in;\nvoid main() {}\n",
        ),
    ]);
    let report = tree.build().unwrap();
    let names: Vec<&str> = report.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["kernel.glsl"]);
    assert_eq!(report.modules[0].stage, "compute");
}

#[test]
fn stripping_debug_info_shrinks_smolv() {
    let tree = healthy_tree();
    let kept = tree.config("out-debug").strip_debug(false).try_compile().unwrap();
    let stripped = tree.config("out-release").strip_debug(true).try_compile().unwrap();
    assert!(stripped.total_smolv_bytes < kept.total_smolv_bytes);
}

const UBER: &str = "#version 450\nlayout(location=0) out vec4 c;\n\
layout(constant_id=0) const bool FOG = true;\nlayout(constant_id=1) const int MODE = 1;\n\
layout(set=0, binding=0) uniform sampler2D t;\n\
void main() {\n  vec4 v = texture(t, vec2(0.5));\n  if (FOG) { for (int i = 0; i < 8; ++i) v = mix(v, texture(t, vec2(i) * 0.1), 0.2); }\n\
  if (MODE == 2) { v = sqrt(abs(v)); } else if (MODE == 1) { v *= 0.5; }\n  c = v;\n}\n";

#[test]
fn spec_constant_variants_are_specialized_at_build_time() {
    let tree = Tree::new(&[("shaders/uber.frag", UBER)]);
    let variants = [
        Variant::new("plain").spec_constant(0, false).spec_constant(1, 0),
        Variant::new("fancy").spec_constant(0, true).spec_constant(1, 2),
    ];
    let report = tree.config("out").variants("uber.frag", variants).try_compile().unwrap();
    let size = |name: &str| report.modules.iter().find(|m| m.name == name).unwrap().optimized_bytes;
    assert!(size("uber.frag@plain") < size("uber.frag"), "specializing must remove the fog loop");
    let set = smolv_runtime::ShaderSet::open(tree.path("out/smolv/shaders.smvb")).unwrap();
    for name in ["uber.frag@plain", "uber.frag@fancy"] {
        let shader = set.get(name).unwrap();
        let words = shader.decode().unwrap();
        smolv_tests::spirv_val(&words, "vulkan1.2").unwrap();
        assert!(shader.reflection().unwrap().spec_constants.is_empty(), "{name}: its spec constants are frozen");
        assert!(
            !words.iter().any(|&w| matches!(w & 0xFFFF, 48..=50) && w >> 16 >= 3),
            "{name}: no OpSpecConstant left"
        );
    }
    let bad = tree.config("out-bad").variants("uber.frag", [Variant::new("x").spec_constant(9, true)]).try_compile();
    let Err(Error::Compile { diagnostics, .. }) = bad else { panic!("an unknown spec id must fail the build") };
    assert!(diagnostics[0].message.contains("no specialization constant with id 9"), "{}", diagnostics[0]);
}

#[test]
fn an_hlsl_file_without_a_stage_is_reported_not_silently_skipped() {
    let tree = Tree::new(&[
        ("shaders/plain.frag", STANDALONE),
        ("shaders/mystery.hlsl", "float4 main() : SV_Target { return 1; }\n"),
    ]);
    let report = tree.build().unwrap();
    assert_eq!(report.modules.len(), 1);
    assert!(
        report.warnings.iter().any(|w| w.contains("mystery.hlsl") && w.contains("shader_stage")),
        "{:?}",
        report.warnings
    );
}

#[test]
fn glsl_is_optimized_out_of_process_so_an_optimizer_crash_cannot_kill_the_build() {
    let tree = Tree::new(&[("shaders/plain.frag", STANDALONE), ("shaders/double.comp", COMPUTE)]);
    let report = tree.build().unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    // A crashing optimizer (here: one that always fails) costs only the
    // optimization of GLSL modules, never the build.
    let report = tree.config("out-failing").spirv_opt("/bin/false").try_compile().unwrap();
    assert_eq!(report.modules.len(), 2);
    for module in &report.modules {
        assert_eq!(module.optimized_bytes, module.spirv_bytes, "{}", module.name);
        assert!(report.warnings.iter().any(|w| w.starts_with(&module.name) && w.contains("not optimized")));
    }
}

#[test]
fn opengl_style_glsl_needs_auto_locations_and_bindings() {
    const OPENGL_STYLE: &str = "#version 450\nin vec2 uv;\nout vec4 color;\nuniform sampler2D albedo;\n\
                                layout(std140) uniform Light { vec4 tint; };\n\
                                void main() { color = texture(albedo, uv) * tint; }\n";
    let tree = Tree::new(&[("shaders/legacy.frag", OPENGL_STYLE)]);
    let Err(Error::Compile { diagnostics, .. }) = tree.build() else { panic!("Vulkan GLSL requires locations") };
    assert!(diagnostics.iter().any(|d| d.message.contains("location")), "{diagnostics:?}");

    let report = tree.config("out-auto").auto_map_locations(true).auto_bind_uniforms(true).try_compile().unwrap();
    assert_eq!(report.modules.len(), 1);
    let set = smolv_runtime::ShaderSet::open(tree.path("out-auto/smolv/shaders.smvb")).unwrap();
    let shader = set.get("legacy.frag").unwrap();
    smolv_tests::spirv_val(&shader.decode().unwrap(), "vulkan1.2").unwrap();
    let reflection = shader.reflection().unwrap();
    assert_eq!(reflection.outputs.iter().map(|o| o.location).collect::<Vec<_>>(), [0]);
    let mut bindings: Vec<(u32, u32)> = reflection.bindings.iter().map(|b| (b.set, b.binding)).collect();
    bindings.sort();
    assert_eq!(bindings.len(), 2, "{bindings:?}");
    assert!(bindings.iter().all(|&(set, _)| set == 0));
    assert_ne!(bindings[0].1, bindings[1].1, "each resource gets its own binding");
}
