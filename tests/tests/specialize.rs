//! The specializer on real ubershaders: every output passes spirv-val
//! wherever the input did, with default values and with random ones.
#![allow(clippy::cast_possible_truncation, reason = "test code: the sizes it converts are small and fixed by the test")]

use smolv_runtime::specialize::{Analysis, SpecializeError, Specializer, Value};
use smolv_tests::{Corpus, Failures, Rng, read, spirv_val, words};

fn env_of(module: &[u32]) -> String {
    format!("spv1.{}", (module[1] >> 8) & 0xFF)
}

/// Random values of the right kind for each spec constant: bools, and small
/// integers around the interesting range (including negative ones).
fn random_values(analysis: &Analysis, module: &[u32], rng: &mut Rng) -> Vec<(u32, Value)> {
    let kinds = spec_kinds(module);
    analysis
        .spec_ids()
        .into_iter()
        .filter_map(|id| {
            let value = match kinds.iter().find(|(s, _)| *s == id)?.1 {
                Kind::Bool => Value::Bool(rng.next_u64().is_multiple_of(2)),
                Kind::Int => Value::I32((rng.next_u64() % 7) as i32 - 2),
                Kind::Float => Value::F32((rng.next_u64() % 9) as f32 * 0.5),
                Kind::Other => return None,
            };
            Some((id, value))
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Kind {
    Bool,
    Int,
    Float,
    Other,
}

/// Spec id → kind, read straight from the module.
fn spec_kinds(module: &[u32]) -> Vec<(u32, Kind)> {
    let mut spec_ids = Vec::new();
    let mut types = std::collections::HashMap::new();
    let mut constants = Vec::new();
    let mut at = 5;
    while at < module.len() {
        let len = (module[at] >> 16).max(1) as usize;
        let op = module[at] & 0xFFFF;
        let w = &module[at..(at + len).min(module.len())];
        match op {
            71 if w.len() >= 4 && w[2] == 1 => spec_ids.push((w[1], w[3])),
            20 => drop(types.insert(w[1], Kind::Bool)),
            21 if w.get(2) == Some(&32) => drop(types.insert(w[1], Kind::Int)),
            22 if w.get(2) == Some(&32) => drop(types.insert(w[1], Kind::Float)),
            48..=50 => constants.push((w[2], w[1])),
            _ => {}
        }
        at += len;
    }
    spec_ids
        .into_iter()
        .map(|(target, spec_id)| {
            let kind = constants.iter().find(|(id, _)| *id == target).and_then(|(_, ty)| types.get(ty).copied());
            (spec_id, kind.unwrap_or(Kind::Other))
        })
        .collect()
}

#[test]
fn corpus_ubershaders_stay_valid_under_every_tried_specialization() {
    let Some(corpus) = Corpus::locate() else { return };
    let mut failures = Failures::default();
    let mut checked = 0;
    let mut rng = Rng(0x5EC1_A112_E5EE_D000);
    for name in corpus.spirv_modules() {
        let module = words(&read(&corpus.spirv_path(&name)));
        let analysis = Specializer::analyze(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
        if analysis.spec_ids().is_empty() || spirv_val(&module, &env_of(&module)).is_err() {
            continue;
        }
        let mut assignments = vec![Vec::new()];
        assignments.extend((0..6).map(|_| random_values(&analysis, &module, &mut rng)));
        for values in assignments {
            checked += 1;
            match analysis.specialize(&values) {
                Ok(out) => {
                    if let Err(e) = spirv_val(&out, &env_of(&out)) {
                        failures.push(format!("{name} with {values:?}: {e}"));
                    }
                    assert!(out.len() <= module.len(), "{name}: specializing grew the module");
                }
                Err(e) => failures.push(format!("{name} with {values:?}: {e}")),
            }
        }
    }
    failures.assert_none("specialized corpus modules pass spirv-val", checked);
}

#[test]
fn fixture_shaders_with_spec_constants_stay_valid() {
    let dir = std::path::PathBuf::from(env!("OUT_DIR")).join("smolv/spirv");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let module = words(&std::fs::read(entry.path()).unwrap());
        let analysis = Specializer::analyze(&module).unwrap();
        let mut rng = Rng(7);
        for values in
            [Vec::new(), random_values(&analysis, &module, &mut rng), random_values(&analysis, &module, &mut rng)]
        {
            let out = analysis.specialize(&values).unwrap();
            spirv_val(&out, "vulkan1.2").unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn branches_on_spec_constants_are_resolved() {
    let module = smolv_runtime::specialize::doc_ubershader();
    let analysis = Specializer::analyze(&module).unwrap();
    let off = analysis.specialize(&[(0, Value::Bool(false))]).unwrap();
    let on = analysis.specialize(&[(0, Value::Bool(true))]).unwrap();
    for out in [&off, &on] {
        spirv_val(out, "spv1.0").unwrap();
        assert!(!out.iter().any(|&w| w & 0xFFFF == 250 && w >> 16 == 4), "the conditional branch is gone");
        assert!(!out.iter().any(|&w| w & 0xFFFF == 48), "no spec constant is left");
    }
    assert!(off.len() <= on.len());
}

#[test]
fn bad_requests_are_errors() {
    let analysis = Specializer::analyze(&smolv_runtime::specialize::doc_ubershader()).unwrap();
    assert_eq!(analysis.specialize(&[(9, Value::Bool(true))]), Err(SpecializeError::UnknownSpecId(9)));
    assert!(matches!(analysis.specialize(&[(0, Value::U32(3))]), Err(SpecializeError::WrongType(0, _))));
    assert!(Specializer::analyze(&[1, 2, 3]).is_err());
    let mut truncated = smolv_runtime::specialize::doc_ubershader();
    truncated.truncate(truncated.len() - 1);
    assert!(Specializer::analyze(&truncated).is_err());
}

/// A global instruction's third word is a result id only for constants: a
/// later `OpTypeFloat %7 32` once cleared the value given to the spec
/// constant `%32`, and the specialized module held its default instead.
#[test]
fn a_literal_equal_to_a_spec_constant_id_keeps_its_value() {
    #[rustfmt::skip]
    let module = [
        0x0723_0203, 0x0001_0000, 0, 34, 0,
        0x0002_0011, 1,                              // OpCapability Shader
        0x0003_000E, 0, 1,                           // OpMemoryModel Logical GLSL450
        0x0005_000F, 5, 4, 0x6E69_616D, 0,           // OpEntryPoint GLCompute %4 "main"
        0x0006_0010, 4, 17, 1, 1, 1,                 // OpExecutionMode %4 LocalSize 1 1 1
        0x0004_0047, 32, 1, 0,                       // OpDecorate %32 SpecId 0
        0x0004_0047, 33, 11, 25,                     // OpDecorate %33 BuiltIn WorkgroupSize
        0x0002_0013, 2,                              // %2 = OpTypeVoid
        0x0003_0021, 3, 2,                           // %3 = OpTypeFunction %2
        0x0004_0015, 6, 32, 0,                       // %6 = OpTypeInt 32 0
        0x0004_0017, 10, 6, 3,                       // %10 = OpTypeVector %6 3
        0x0004_002B, 6, 11, 1,                       // %11 = OpConstant %6 1
        0x0004_0032, 6, 32, 5,                       // %32 = OpSpecConstant %6 5
        0x0003_0016, 7, 32,                          // %7 = OpTypeFloat 32
        0x0006_0033, 10, 33, 32, 11, 11,             // %33 = OpSpecConstantComposite %10 %32 %11 %11
        0x0005_0036, 2, 4, 0, 3,                     // %4 = OpFunction %2 None %3
        0x0002_00F8, 5,                              // %5 = OpLabel
        0x0001_00FD,                                 // OpReturn
        0x0001_0038,                                 // OpFunctionEnd
    ];
    spirv_val(&module, "spv1.0").unwrap();
    let out = Specializer::analyze(&module).unwrap().specialize(&[(0, Value::U32(7))]).unwrap();
    spirv_val(&out, "spv1.0").unwrap();
    let constant = |value| [0x0004_002B, 6, 32, value];
    assert!(out.windows(4).any(|w| w == constant(7)), "%32 = OpConstant %6 7: {out:x?}");
    assert!(!out.windows(4).any(|w| w == constant(5)), "not the default");
}

/// Found by `cargo fuzz run specialize`: with an id defined twice, the
/// specializer wrote the id's constant at every definition, and a 73-word
/// module grew to 165 words.
#[test]
fn a_result_id_defined_twice_is_malformed() {
    let module = smolv_runtime::specialize::doc_ubershader();
    // OpSpecConstantTrue (48) or OpSpecConstantFalse (49): copy it.
    let mut at = 5;
    while !matches!(module[at] & 0xFFFF, 48 | 49) {
        at += (module[at] >> 16) as usize;
    }
    let len = (module[at] >> 16) as usize;
    let mut twice = module.clone();
    twice.splice(at + len..at + len, module[at..at + len].to_vec());
    assert_eq!(
        Specializer::analyze(&twice).err(),
        Some(SpecializeError::Malformed { offset: at + len, reason: "a result id is defined twice" })
    );
}

#[test]
fn mutated_modules_never_panic() {
    let Some(corpus) = Corpus::locate() else { return };
    let mut rng = Rng(0xBAD_5EED);
    let module = words(&read(&corpus.spirv_path("blender/43_spv16_eevee_film_frag_frag.spv")));
    for _ in 0..300 {
        let mut mutated = module.clone();
        for _ in 0..1 + rng.next_u64() % 4 {
            let at = 5 + (rng.next_u64() as usize) % (mutated.len() - 5);
            mutated[at] ^= 1 << (rng.next_u64() % 32);
        }
        if let Ok(analysis) = Specializer::analyze(&mutated) {
            let _ = analysis.specialize(&[]);
        }
    }
}

const UBERSHADER: &str = r#"#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(constant_id = 0) const bool FOG = true;
layout(constant_id = 1) const bool SHADOWS = false;
layout(constant_id = 2) const int LIGHTS = 4;
layout(constant_id = 3) const int TONEMAP = 1;
layout(constant_id = 4) const bool VIGNETTE = true;
layout(constant_id = 5) const float EXPOSURE = 1.0;

void main() {
    vec4 c = texture(tex, uv);
    if (FOG) {
        for (int i = 0; i < 4; ++i) { c = mix(c, texture(tex, uv * float(i + 2)), 0.25); }
    }
    if (SHADOWS) {
        float s = 0.0;
        for (int i = 0; i < 8; ++i) { s += texture(tex, uv + vec2(i) * 0.01).r; }
        c.rgb *= s / 8.0;
    }
    for (int l = 0; l < LIGHTS; ++l) { c.rgb += 0.05 * texture(tex, uv + float(l) * 0.1).rgb; }
    switch (TONEMAP) {
        case 0: break;
        case 1: c.rgb = c.rgb / (1.0 + c.rgb); break;
        default: c.rgb = clamp(c.rgb * 1.2, 0.0, 1.0); break;
    }
    if (VIGNETTE) { vec2 d = uv - 0.5; c.rgb *= 1.0 - dot(d, d); }
    color = vec4(c.rgb * EXPOSURE, c.a);
}
"#;

#[test]
fn a_project_ubershader_stays_valid_for_random_feature_sets() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    std::fs::write(dir.path().join("shaders/uber.frag"), UBERSHADER).unwrap();
    let mut config = smolv_build::Config::new();
    config.shader_dir(dir.path().join("shaders")).out_dir(dir.path().join("out")).cargo_directives(false);
    config.try_compile().unwrap();
    let set = smolv_runtime::ShaderSet::open(dir.path().join("out/smolv/shaders.smvb")).unwrap();
    let module = set.get("uber.frag").unwrap().decode().unwrap();
    let analysis = Specializer::analyze(&module).unwrap();
    assert_eq!(analysis.spec_ids(), [0, 1, 2, 3, 4, 5]);
    let mut rng = Rng(42);
    let mut sizes = std::collections::BTreeSet::new();
    for _ in 0..24 {
        let values = vec![
            (0, Value::Bool(rng.next_u64().is_multiple_of(2))),
            (1, Value::Bool(rng.next_u64().is_multiple_of(2))),
            (2, Value::I32((rng.next_u64() % 5) as i32)),
            (3, Value::I32((rng.next_u64() % 4) as i32)),
            (4, Value::Bool(rng.next_u64().is_multiple_of(2))),
            (5, Value::F32(0.5 + (rng.next_u64() % 4) as f32)),
        ];
        let out = analysis.specialize(&values).unwrap();
        spirv_val(&out, "vulkan1.2").unwrap_or_else(|e| panic!("{values:?}: {e}"));
        assert!(out.len() < module.len(), "{values:?} removed nothing");
        sizes.insert(out.len());
    }
    assert!(sizes.len() > 4, "different feature sets give different modules");
}
