//! What embedding the shaders through smolv does to the size of the game's
//! binary, compared with the same shaders embedded as plain SPIR-V (the
//! `raw-spirv` feature): both built in release mode and stripped, as a
//! game ships. Prints the comparison; fails if the raw build does not
//! really carry SPIR-V, or if the decoder's fixed cost regresses.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::run;

/// Upper bound on what the decoder (zstd decompression, SMOL-V, content
/// hashes) may add to a stripped release binary.
const DECODER_BUDGET: i64 = 320 * 1024;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_owned()
}

/// Builds the game in release mode (stripped) with `features`, into a
/// target directory of its own, and returns a copy of the binary.
fn build(features: &[&str], copy_to: &Path) -> PathBuf {
    let target_dir = workspace().join("target").join("binary-size");
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()));
    command
        .current_dir(workspace())
        .args(["build", "--release", "--locked", "-p", "example-game"])
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("CARGO_PROFILE_RELEASE_STRIP", "symbols")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false");
    if !features.is_empty() {
        command.args(["--features", &features.join(",")]);
    }
    let output = run(&mut command);
    assert!(output.status.success(), "cargo build {features:?} failed");
    let binary = target_dir.join("release").join(format!("example-game{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(&binary, copy_to).expect("copy the binary");
    copy_to.to_owned()
}

/// `(raw SPIR-V bytes, embedded bytes)` from the table of a one-frame run.
fn embedded_sizes(binary: &Path) -> (i64, i64) {
    let output = run(Command::new(binary).args(["--headless", "--frames", "1", "--size", "64x64", "--no-validation"]));
    assert!(output.status.success(), "{} failed", binary.display());
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let number = |row: &str| -> i64 {
        let line = stdout.lines().find(|l| l.trim_start().starts_with(row)).expect(row);
        line.trim_start()[row.len()..].split_whitespace().next().unwrap().parse().unwrap()
    };
    (number("raw SPIR-V"), number("embedded"))
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).filter(|w| *w == needle).count()
}

#[test]
fn smolv_against_raw_spirv_in_the_binary() {
    let dir = common::scratch("binary-size");
    let smolv = build(&[], &dir.join("game-smolv"));
    let raw = build(&["raw-spirv"], &dir.join("game-raw-spirv"));
    let (spirv, smolv_embedded) = embedded_sizes(&smolv);
    let (raw_spirv, raw_embedded) = embedded_sizes(&raw);
    assert_eq!(spirv, raw_spirv, "both builds must carry the same shaders");

    let (smolv_bytes, raw_bytes) = (std::fs::read(&smolv).unwrap(), std::fs::read(&raw).unwrap());
    // The raw build really holds every module verbatim; the smolv one none.
    let magic = 0x0723_0203u32.to_le_bytes();
    assert!(count(&raw_bytes, &magic) >= 12, "the raw build should carry 12 SPIR-V modules");
    assert!(count(&smolv_bytes, &magic) < 12, "the smolv build should not carry plain SPIR-V");

    let (smolv_size, raw_size) = (smolv_bytes.len() as i64, raw_bytes.len() as i64);
    let saved = raw_embedded - smolv_embedded;
    let decoder = smolv_size - raw_size + saved;
    let ratio = smolv_embedded as f64 / spirv as f64;
    println!("binary size, release, stripped:");
    println!("  shaders as raw SPIR-V       {raw_size:>10} bytes ({raw_embedded} bytes of shaders and reflection)");
    println!("  shaders through smolv       {smolv_size:>10} bytes ({smolv_embedded} bytes of bundle)");
    println!("  difference (smolv - raw)    {:>+10} bytes", smolv_size - raw_size);
    println!("  shader data saved           {saved:>10} bytes ({:.1}% of the SPIR-V ships)", 100.0 * ratio);
    println!("  decoder code (fixed cost)   {decoder:>10} bytes");
    println!(
        "  break-even at about         {:>10} bytes of SPIR-V at this ratio",
        (decoder as f64 / (1.0 - ratio)).round() as i64
    );
    assert!(saved > 0, "smolv must embed fewer bytes than raw SPIR-V");
    assert!(
        decoder < DECODER_BUDGET,
        "the decoder adds {decoder} bytes, over the {DECODER_BUDGET}-byte budget; \
         check which zstd features are enabled (`legacy` alone is ~200 KiB)"
    );
}
