//! Compiles the example's shaders with smolv-build, for wgpu: `sky.wgsl`
//! (WGSL), `quad.vert` and `tint.frag` (GLSL, with the `@red` variant the
//! hot-reload test publishes), `ring.wesl` (WESL, importing
//! `lib/palette.wesl`, with its `glow` feature on), `scale.comp` (GLSL
//! compute, for `--compute`) and `checker.slang`
//! (Slang, needs `slangc`: `scripts/setup.sh` sets `SMOLV_SLANGC`); and the
//! tests' triangle in every language (`tests/paths/`).
//!
//! They ship as WGSL (`for_wgpu_shipping(true)`), or as SPIR-V with the
//! `spirv` feature (`for_wgpu_shipping(false)`), so that the tests draw the
//! same frame through both of wgpu's inputs. A game would say `for_wgpu()`
//! and let the build choose the smaller. The four pipelines are programs
//! (`Config::program`), so the generated types hold each one's bind
//! groups, layout and render pipeline.
//!
//! Then, for the tests only, it compiles the same sources without smolv
//! (`build/reference.rs`): what wgpu's own paths draw, the reference the
//! golden image is made from.

#[path = "build/reference.rs"]
mod reference;

#[allow(clippy::disallowed_methods, reason = "the build script reads the features Cargo sets")]
fn main() {
    let wgsl = std::env::var_os("CARGO_FEATURE_SPIRV").is_none();
    smolv_build::Config::new()
        .shader_dir("shaders")
        .shader_dir("tests/paths")
        .variants("tint.frag", [smolv_build::Variant::new("red").define("RED", "1")])
        .wesl_feature("glow", true)
        // The three programs that share `quad.vert`; `sky.wgsl`'s two
        // entry points are the program `sky` by their base name.
        .program("checker", ["quad.vert", "checker.slang#fs_main"])
        .program("tint", ["quad.vert", "tint.frag"])
        .program("ring", ["quad.vert", "ring.wesl#fs_main"])
        .for_wgpu_shipping(wgsl)
        .compile();
    reference::compile();
}
