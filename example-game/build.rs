//! Compiles the game's shaders with smolv-build: GLSL sharing
//! `include/frame.glsl` (with an `@additive` define variant of the sprite
//! shader), WGSL, and one Slang shader, `particle.slang`, which needs
//! `slangc` (`scripts/setup.sh` sets `SMOLV_SLANGC`). `include_shaders!` embeds the result, packed the way the build
//! finds smallest (see the README's size section).

fn main() {
    // The game creates a Vulkan 1.3 instance; Vulkan 1.1 is what its
    // shaders need (Slang's SPIR-V 1.3 floor), so every device it runs on
    // takes them, and the build has no target to warn about.
    let report = smolv_build::Config::new()
        .target_env(smolv_build::TargetEnv::Vulkan1_1)
        .shader_dir("shaders")
        .include_dir("shaders/include")
        .variants("sprite.frag", [smolv_build::Variant::new("additive").define("ADDITIVE", "1")])
        .compile();
    // The packing's net effect on the binary, for the game's table.
    let summary = report.packing.map(|p| p.summary()).unwrap_or_default();
    println!("cargo:rustc-env=ROCK_STORM_PACKING={}", summary.trim_start_matches("packing "));
}
