//! smolv-runtime without default features is `no_std` + `alloc`: a
//! `#![no_std]` crate outside the workspace decodes a SMOL-V module with it.
//!
//! The crate proves that std is nowhere in its dependency graph by
//! bringing its own panic handler (feature `own-panic-handler`): were any
//! dependency to link std, rustc would refuse the second one (E0152).
//! The same crate with smolv-runtime's `std` feature on is refused, which
//! shows that the check can fail. Its integration test (std, through the
//! test harness) decodes a module through its `no_std` function.

use std::path::Path;

use smolv_tests::outside::{cargo, crate_path, create, output, succeed, write};

const LIB: &str = r#"//! Decodes SMOL-V without std.
#![no_std]

extern crate alloc;

use alloc::vec::Vec;

/// The SPIR-V words of a SMOL-V module.
pub fn decode(smolv: &[u8]) -> Result<Vec<u32>, smolv_runtime::DecodeError> {
    smolv_runtime::decode(smolv, &smolv_runtime::DecodeOptions::new())
}

#[cfg(feature = "own-panic-handler")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
"#;

const TEST: &str = r#"
#[test]
fn decodes_the_module() {
    let smolv = include_bytes!("../module.smolv");
    let expected: Vec<u32> =
        include_bytes!("../module.spv").chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(smolv_no_std::decode(smolv).unwrap(), expected);
    assert!(smolv_no_std::decode(&smolv[..smolv.len() - 1]).is_err(), "a truncated module is an error");
}
"#;

fn no_std_crate(root: &Path, runtime_features: &str) {
    create(
        root,
        &format!(
            "[package]\nname = \"smolv-no-std\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [lib]\ntest = false\ndoctest = false\n\n\
             [features]\nown-panic-handler = []\n\n\
             [dependencies]\nsmolv-runtime = {{ path = {}, default-features = false{runtime_features} }}\n\n\
             [workspace]\n",
            crate_path("smolv-runtime")
        ),
    );
    write(&root.join("src/lib.rs"), LIB);
    write(&root.join("tests/decode.rs"), TEST);
    let spirv = smolv_runtime::doc_example_module();
    let smolv = smolv_runtime::encode(&spirv[..], &smolv_runtime::EncodeOptions::new()).unwrap();
    std::fs::write(root.join("module.smolv"), smolv).unwrap();
    std::fs::write(root.join("module.spv"), smolv_tests::bytes(&spirv)).unwrap();
}

#[test]
fn a_no_std_crate_decodes_with_the_runtime_without_default_features() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("smolv-no-std");
    no_std_crate(&root, "");
    // No std anywhere in the graph: its own panic handler is the only one.
    succeed(&mut cargo(&root, &["build", "--features", "own-panic-handler"]));
    let stdout = succeed(&mut cargo(&root, &["test"]));
    assert!(stdout.contains("test decodes_the_module ... ok"), "{stdout}");

    // With std in the graph, the same crate is refused.
    no_std_crate(&root, ", features = [\"std\"]");
    let refused = output(&mut cargo(&root, &["build", "--features", "own-panic-handler"]));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("E0152"), "{stderr}");
}
