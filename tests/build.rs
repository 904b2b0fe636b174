//! Builds the fixture shaders in `shaders/` with smolv-build: GLSL with
//! includes (relative and from an include dir), HLSL, WGSL with two entry
//! points, and a variant set.

fn main() {
    smolv_build::Config::new()
        .shader_dir("shaders")
        .include_dir("shaders/include")
        .variants("lit.frag", [smolv_build::Variant::new("shadows").define("SHADOWS", "1")])
        .compile();
}
