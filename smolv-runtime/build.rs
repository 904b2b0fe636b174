//! Tells the build scripts of the crates that depend on smolv-runtime
//! which embedded-set codecs this build of it decodes, through Cargo's
//! `links` metadata (`DEP_SMOLV_RUNTIME_CODECS`), so that smolv-build
//! (which runs in those build scripts) packs shaders only in ways this
//! build can unpack, and prices zstd at the build it links
//! (`DEP_SMOLV_RUNTIME_ZSTD`: `thin` or `fast`); and whether its wgpu
//! layer takes SPIR-V (`DEP_SMOLV_RUNTIME_WGPU`: `spirv`, `wgsl` or
//! `none`).

#[allow(clippy::disallowed_methods, reason = "the build script reads what Cargo sets")]
fn main() {
    let feature = |name: &str| std::env::var_os(format!("CARGO_FEATURE_{name}")).is_some();
    let mut codecs = vec!["spirv", "spirv-relative-ids", "smolv"];
    if feature("LZ4") {
        codecs.extend(["smolv-lz4", "spirv-relative-ids-lz4"]);
    }
    if feature("ZSTD_FAST") {
        codecs.extend(["smolv-zstd", "smolv-zstd-dictionary"]);
        println!("cargo::metadata=zstd={}", if feature("ZSTD") { "thin" } else { "fast" });
    }
    println!("cargo::metadata=codecs={}", codecs.join(","));
    // Whether wgpu gets SPIR-V from this build (`DEP_SMOLV_RUNTIME_WGPU`):
    // for a wgpu target, smolv-build ships WGSL where this says it must,
    // and warns about the modules that still ship SPIR-V.
    let wgpu = if feature("WGPU_SPIRV") {
        "spirv"
    } else if feature("WGPU") {
        "wgsl"
    } else {
        "none"
    };
    println!("cargo::metadata=wgpu={wgpu}");
    println!("cargo::rerun-if-changed=build.rs");
}
