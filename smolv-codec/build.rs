//! Tells smolv-build's build script where these sources are, through
//! Cargo's `links` metadata (`DEP_SMOLV_CODEC_MANIFEST_DIR`): the encoder
//! and the specializer run at build time, so smolv-build keys its build
//! cache on the code that produced an entry.

#[allow(clippy::disallowed_methods, reason = "the build script reads what Cargo sets")]
fn main() {
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        println!("cargo::metadata=manifest_dir={}", dir.to_string_lossy());
    }
    println!("cargo::rerun-if-changed=build.rs");
}
