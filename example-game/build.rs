//! Compiles the game's shaders with smolv-build: GLSL sharing
//! `include/frame.glsl` (with an `@additive` define variant of the sprite
//! shader), WGSL, and one Slang shader, `particle.slang`, which needs
//! `slangc` (`scripts/setup.sh` sets `SMOLV_SLANGC`). `include_shaders!` embeds the result, packed the way the build
//! finds smallest (see the README's size section).

fn main() {
    let report = smolv_build::Config::new()
        .shader_dir("shaders")
        .include_dir("shaders/include")
        .variants("sprite.frag", [smolv_build::Variant::new("additive").define("ADDITIVE", "1")])
        .compile();
    // The packing's net effect on the binary, for the game's table.
    let summary = report.packing.map(|p| p.summary()).unwrap_or_default();
    println!("cargo:rustc-env=ROCK_STORM_PACKING={}", summary.trim_start_matches("packing "));
}
