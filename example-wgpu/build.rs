//! Compiles the example's shaders with smolv-build, one language each:
//! `sky.wgsl` (WGSL), `quad.vert` (GLSL), `checker.slang` (Slang, needs
//! `slangc`: `scripts/setup.sh` sets `SMOLV_SLANGC`). `checker.frag.glsl`'s
//! `@red` variant is what the hot-reload test publishes.

fn main() {
    smolv_build::Config::new()
        .shader_dir("shaders")
        .variants("tint.frag", [smolv_build::Variant::new("red").define("RED", "1")])
        .compile();
}
