//! Tells the build scripts of the crates that depend on smolv-runtime
//! which embedded-set codecs this build of it decodes, through Cargo's
//! `links` metadata (`DEP_SMOLV_RUNTIME_CODECS`), so that smolv-build
//! (which runs in those build scripts) packs shaders only in ways this
//! build can unpack, and prices zstd at the build it links
//! (`DEP_SMOLV_RUNTIME_ZSTD`: `thin` or `fast`).

fn main() {
    let feature = |name: &str| std::env::var_os(format!("CARGO_FEATURE_{name}")).is_some();
    let mut codecs = vec!["spirv", "smolv"];
    if feature("LZ4") {
        codecs.push("smolv-lz4");
    }
    if feature("ZSTD_FAST") {
        codecs.extend(["smolv-zstd", "smolv-zstd-dictionary"]);
        println!("cargo::metadata=zstd={}", if feature("ZSTD") { "thin" } else { "fast" });
    }
    println!("cargo::metadata=codecs={}", codecs.join(","));
    println!("cargo::rerun-if-changed=build.rs");
}
