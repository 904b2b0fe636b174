//! Compiles the game's shaders (GLSL and WGSL, sharing `include/frame.glsl`)
//! with smolv-build; `include_shaders!` embeds them.

fn main() {
    smolv_build::Config::new()
        .shader_dir("shaders")
        .include_dir("shaders/include")
        .variants("sprite.frag", [smolv_build::Variant::new("additive").define("ADDITIVE", "1")])
        .compile();
}
