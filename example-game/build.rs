//! Compiles the game's shaders with smolv-build: GLSL sharing
//! `include/frame.glsl` (with an `@additive` define variant of the sprite
//! shader), WGSL, and one Slang shader, `particle.slang`, which needs
//! `slangc` (`scripts/setup.sh` sets `SMOLV_SLANGC`). `include_shaders!` embeds the result, packed the way the build
//! finds smallest (see the README's size section).

fn main() {
    // The game creates a Vulkan 1.3 instance. Its Slang shader is SPIR-V
    // 1.3 (Slang's floor), so the target says Vulkan 1.1 and the build has
    // nothing to warn about; GLSL and WGSL stay SPIR-V 1.0, as before.
    let report = smolv_build::Config::new()
        .target_env(smolv_build::TargetEnv::Vulkan1_1)
        .spirv_version(smolv_build::SpirvVersion::V1_0)
        .shader_dir("shaders")
        .include_dir("shaders/include")
        .variants("sprite.frag", [smolv_build::Variant::new("additive").define("ADDITIVE", "1")])
        .compile();
    // The packing's net effect on the binary, for the game's table.
    let summary = report.packing.map(|p| p.summary()).unwrap_or_default();
    println!("cargo:rustc-env=ROCK_STORM_PACKING={}", summary.trim_start_matches("packing "));
}
