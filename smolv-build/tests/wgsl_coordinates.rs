//! WGSL's coordinate convention: naga negates the `y` of a vertex shader's
//! position for Vulkan unless `Config::wgsl_adjust_coordinate_space(false)`.

use std::path::Path;

use smolv_build::{Config, Optimization};
use smolv_format::Manifest;

const SHADER: &str = "@vertex\nfn vs_main(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {\n    \
                      return vec4<f32>(p, 0.0, 1.0);\n}\n";

/// `OpFNegate`'s opcode.
const OP_FNEGATE: u32 = 127;

/// Builds the shader and counts the `OpFNegate`s in its SPIR-V.
fn negations(dir: &Path, adjust: Option<bool>) -> usize {
    let source = dir.join("shaders/tri.wgsl");
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::write(&source, SHADER).unwrap();
    let out = dir.join("out");
    let mut config = Config::new();
    config
        .shader(&source)
        .out_dir(&out)
        .cache_dir(dir.join("cache"))
        .cargo_directives(false)
        .optimization(Optimization::None);
    if let Some(adjust) = adjust {
        config.wgsl_adjust_coordinate_space(adjust);
    }
    config.try_compile().unwrap();
    let manifest: Manifest = serde_json::from_slice(&std::fs::read(out.join("smolv/manifest.json")).unwrap()).unwrap();
    let spirv = std::fs::read(out.join("smolv").join(&manifest.modules[0].optimized_spirv)).unwrap();
    let words: Vec<u32> = spirv.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let mut at = 5;
    let mut count = 0;
    while at < words.len() {
        let (len, opcode) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        count += usize::from(opcode == OP_FNEGATE);
        at += len.max(1);
    }
    count
}

#[test]
fn the_position_y_is_negated_by_default_and_kept_when_asked() {
    let default = negations(tempfile::tempdir().unwrap().path(), None);
    let adjusted = negations(tempfile::tempdir().unwrap().path(), Some(true));
    let kept = negations(tempfile::tempdir().unwrap().path(), Some(false));
    assert_eq!(default, adjusted, "adjusting is the default");
    assert_eq!(kept, 0, "nothing is negated when the coordinate space is kept");
    assert!(adjusted > kept, "naga negates the position's y for Vulkan");
}

#[test]
fn the_setting_is_part_of_the_cache_key() {
    // One cache, both settings: the second build must not reuse the first.
    let dir = tempfile::tempdir().unwrap();
    assert!(negations(dir.path(), Some(true)) > 0);
    assert_eq!(negations(dir.path(), Some(false)), 0);
}
