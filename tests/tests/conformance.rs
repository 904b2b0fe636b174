//! Byte-exact conformance with the reference SMOL-V encoder, over the
//! shared corpus of real shaders.

use smolv_runtime::{DecodeOptions, EncodeOptions, decode, encode};
use smolv_tests::{Corpus, Failures, read, words};

/// Runs `produce` on every corpus module and compares with `expected`,
/// reporting every mismatch at once.
fn check_every_module<T: PartialEq + AsRef<[E]>, E: PartialEq>(
    what: &str,
    produce: impl Fn(&Corpus, &str) -> Result<T, String>,
    expected: impl Fn(&Corpus, &str) -> T,
) {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let modules = corpus.spirv_modules();
    let mut failures = Failures::default();
    for module in &modules {
        let want = expected(&corpus, module);
        match produce(&corpus, module) {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!(
                "{module}: {} units, expected {}{}",
                got.as_ref().len(),
                want.as_ref().len(),
                first_difference(got.as_ref(), want.as_ref())
            )),
            Err(e) => failures.push(format!("{module}: {e}")),
        }
    }
    failures.assert_none(what, modules.len());
}

fn encoded(corpus: &Corpus, module: &str, options: &EncodeOptions) -> Result<Vec<u8>, String> {
    encode(&read(&corpus.spirv_path(module))[..], options).map_err(|e| e.to_string())
}

fn decoded(smolv: &[u8]) -> Result<Vec<u32>, String> {
    decode(smolv, &DecodeOptions::new()).map_err(|e| e.to_string())
}

#[test]
fn encoding_matches_reference_bytes() {
    check_every_module(
        "encode (lossless) vs reference",
        |corpus, module| encoded(corpus, module, &EncodeOptions::new()),
        |corpus, module| read(&corpus.reference_path(module, ".smolv")),
    );
}

#[test]
fn stripped_encoding_matches_reference_bytes() {
    check_every_module(
        "encode (strip) vs reference",
        |corpus, module| encoded(corpus, module, &EncodeOptions::new().strip_debug(true)),
        |corpus, module| read(&corpus.reference_path(module, ".strip.smolv")),
    );
}

#[test]
fn reference_encodings_decode_to_the_original_spirv() {
    check_every_module(
        "decode reference .smolv",
        |corpus, module| decoded(&read(&corpus.reference_path(module, ".smolv"))),
        |corpus, module| words(&read(&corpus.spirv_path(module))),
    );
}

#[test]
fn stripped_reference_encodings_decode_to_the_stripped_spirv() {
    check_every_module(
        "decode reference .strip.smolv",
        |corpus, module| decoded(&read(&corpus.reference_path(module, ".strip.smolv"))),
        |corpus, module| words(&read(&corpus.reference_path(module, ".strip.spv"))),
    );
}

#[test]
fn our_encodings_round_trip_every_module() {
    check_every_module(
        "encode then decode",
        |corpus, module| encoded(corpus, module, &EncodeOptions::new()).and_then(|smolv| decoded(&smolv)),
        |corpus, module| words(&read(&corpus.spirv_path(module))),
    );
}

#[test]
fn every_module_round_trips_through_relative_ids() {
    check_every_module(
        "relative ids round trips",
        |corpus, module| {
            let spirv = words(&read(&corpus.spirv_path(module)));
            let stored = smolv_runtime::relative_ids::encode(&spirv).map_err(|e| e.to_string())?;
            if stored.len() != spirv.len() {
                return Err(format!("{} words stored for {}", stored.len(), spirv.len()));
            }
            smolv_runtime::relative_ids::decode(&stored).map_err(|e| e.to_string())
        },
        |corpus, module| words(&read(&corpus.spirv_path(module))),
    );
}

#[test]
fn every_legacy_file_decodes_to_its_expected_spirv() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let cases = corpus.legacy_cases();
    assert_eq!(cases.len(), 62, "the corpus README promises 62 legacy files");
    let mut failures = Failures::default();
    for case in &cases {
        let expected = words(&read(&case.expected));
        let options = DecodeOptions::new().legacy_2016_08_31(case.dialect_2016_08_31);
        match decode(&read(&case.smolv), &options) {
            Ok(decoded) if decoded == expected => {}
            Ok(decoded) => failures.push(format!(
                "{}: decoded {} words, expected {}",
                case.smolv.display(),
                decoded.len(),
                expected.len()
            )),
            Err(e) => failures.push(format!("{}: {e}", case.smolv.display())),
        }
    }
    failures.assert_none("legacy decode", cases.len());
}

#[test]
fn legacy_files_with_the_wrong_dialect_flag_never_panic() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let cases = corpus.legacy_cases();
    let (mut rejected, mut decoded_differently) = (0, 0);
    for case in &cases {
        let smolv = read(&case.smolv);
        let expected = words(&read(&case.expected));
        // The dialect cannot be detected, so a wrong flag may still decode to
        // some module; it must then be exactly the declared size. Where the
        // reference overflowed its buffer, this decoder must stop with an error.
        let options = DecodeOptions::new().legacy_2016_08_31(!case.dialect_2016_08_31);
        match decode(&smolv, &options) {
            Ok(decoded) => {
                assert_eq!(decoded.len() * 4, smolv_runtime::decoded_len(&smolv).unwrap());
                if decoded != expected {
                    decoded_differently += 1;
                }
            }
            Err(_) => rejected += 1,
        }
    }
    assert!(rejected > 0, "no legacy file was rejected under the wrong dialect");
    eprintln!(
        "wrong dialect: {rejected} of {} legacy files rejected, {decoded_differently} decoded to another module",
        cases.len()
    );
}

#[test]
fn invalid_modules_are_rejected_with_an_error() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let files = corpus.invalid_modules();
    let mut failures = Failures::default();
    for file in &files {
        let bytes = read(file);
        for options in [EncodeOptions::new(), EncodeOptions::new().strip_debug(true)] {
            if let Ok(smolv) = encode(&bytes[..], &options) {
                failures.push(format!("{}: encoded to {} bytes instead of failing", file.display(), smolv.len()));
            }
        }
    }
    failures.assert_none("invalid modules rejected", files.len());
}

fn first_difference<E: PartialEq>(ours: &[E], theirs: &[E]) -> String {
    match ours.iter().zip(theirs).position(|(a, b)| a != b) {
        Some(at) => format!(", first difference at unit {at}"),
        None => ", one is a prefix of the other".to_owned(),
    }
}
