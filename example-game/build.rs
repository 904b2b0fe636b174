//! Compiles the game's shaders with smolv-build: GLSL and WGSL, sharing
//! `include/frame.glsl`, with an `@additive` define variant of the sprite
//! shader. `include_shaders!` embeds the result, packed the way the build
//! finds smallest (see the README's size section).

fn main() {
    smolv_build::Config::new()
        .shader_dir("shaders")
        .include_dir("shaders/include")
        .variants("sprite.frag", [smolv_build::Variant::new("additive").define("ADDITIVE", "1")])
        .compile();
}
