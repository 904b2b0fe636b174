//! Compiles the game's shaders with smolv-build: GLSL and WGSL, sharing
//! `include/frame.glsl`, with an `@additive` define variant of the sprite
//! shader. `include_shaders!` embeds the result.
//!
//! With the `raw-spirv` feature it also writes every module out again as
//! plain SPIR-V, for the binary-size comparison (see `src/shaders.rs`).

use std::path::Path;

fn main() {
    let report = smolv_build::Config::new()
        .shader_dir("shaders")
        .include_dir("shaders/include")
        .variants("sprite.frag", [smolv_build::Variant::new("additive").define("ADDITIVE", "1")])
        .compile();
    if std::env::var_os("CARGO_FEATURE_RAW_SPIRV").is_some() {
        if let Err(message) = write_raw_spirv(&report.out_dir) {
            println!("cargo::error=raw-spirv: {message}");
        }
    }
}

/// Decodes every built module back to SPIR-V into `OUT_DIR/raw/` and writes
/// `OUT_DIR/raw_shaders.rs`, a table of `include_bytes!` for the binary.
fn write_raw_spirv(out_dir: &Path) -> Result<(), String> {
    let raw_dir = out_dir.join("raw");
    std::fs::create_dir_all(&raw_dir).map_err(|e| format!("{}: {e}", raw_dir.display()))?;
    let bundle = out_dir.join(smolv_build::ARTIFACT_DIR).join(smolv_build::BUNDLE_FILE);
    let set = smolv_runtime::ShaderSet::open(&bundle).map_err(|e| e.to_string())?;
    let mut table = String::from("/// Every shader as plain SPIR-V, by name.\n");
    table.push_str("pub(crate) static RAW_SHADERS: &[(&str, &[u8])] = &[\n");
    for (index, shader) in set.iter().map_err(|e| e.to_string())?.enumerate() {
        let words = shader.decode().map_err(|e| format!("{}: {e}", shader.name()))?;
        let spirv: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let spirv_path = raw_dir.join(format!("{index}.spv"));
        std::fs::write(&spirv_path, spirv).map_err(|e| format!("{}: {e}", spirv_path.display()))?;
        table.push_str(&format!("    ({:?}, include_bytes!({:?})),\n", shader.name(), spirv_path.display().to_string()));
    }
    table.push_str("];\n");
    let table_path = out_dir.join("raw_shaders.rs");
    std::fs::write(&table_path, table).map_err(|e| format!("{}: {e}", table_path.display()))
}
