//! Byte-exact conformance with the reference SMOL-V encoder, over the
//! shared corpus of real shaders.

use smolv_runtime::{DecodeOptions, EncodeOptions, decode, encode};
use smolv_tests::{Corpus, Failures, read, words};

#[test]
fn encoding_matches_reference_bytes() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let modules = corpus.spirv_modules();
    let mut failures = Failures::default();
    for module in &modules {
        let spirv = read(&corpus.spirv_path(module));
        let expected = read(&corpus.reference_path(module, ".smolv"));
        match encode(&spirv[..], &EncodeOptions::new()) {
            Ok(smolv) if smolv == expected => {}
            Ok(smolv) => failures.push(format!(
                "{module}: {} bytes, reference {}{}",
                smolv.len(),
                expected.len(),
                first_difference(&smolv, &expected)
            )),
            Err(e) => failures.push(format!("{module}: {e}")),
        }
    }
    failures.assert_none("encode (lossless) vs reference", modules.len());
}

#[test]
fn stripped_encoding_matches_reference_bytes() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let modules = corpus.spirv_modules();
    let mut failures = Failures::default();
    for module in &modules {
        let spirv = read(&corpus.spirv_path(module));
        let expected = read(&corpus.reference_path(module, ".strip.smolv"));
        match encode(&spirv[..], &EncodeOptions::new().strip_debug(true)) {
            Ok(smolv) if smolv == expected => {}
            Ok(smolv) => failures.push(format!(
                "{module}: {} bytes, reference {}{}",
                smolv.len(),
                expected.len(),
                first_difference(&smolv, &expected)
            )),
            Err(e) => failures.push(format!("{module}: {e}")),
        }
    }
    failures.assert_none("encode (strip) vs reference", modules.len());
}

#[test]
fn reference_encodings_decode_to_the_original_spirv() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let modules = corpus.spirv_modules();
    let mut failures = Failures::default();
    for module in &modules {
        let spirv = words(&read(&corpus.spirv_path(module)));
        let smolv = read(&corpus.reference_path(module, ".smolv"));
        match decode(&smolv, &DecodeOptions::new()) {
            Ok(decoded) if decoded == spirv => {}
            Ok(decoded) => {
                failures.push(format!("{module}: decoded {} words, expected {}", decoded.len(), spirv.len()))
            }
            Err(e) => failures.push(format!("{module}: {e}")),
        }
    }
    failures.assert_none("decode reference .smolv", modules.len());
}

#[test]
fn stripped_reference_encodings_decode_to_the_stripped_spirv() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let modules = corpus.spirv_modules();
    let mut failures = Failures::default();
    for module in &modules {
        let expected = words(&read(&corpus.reference_path(module, ".strip.spv")));
        let smolv = read(&corpus.reference_path(module, ".strip.smolv"));
        match decode(&smolv, &DecodeOptions::new()) {
            Ok(decoded) if decoded == expected => {}
            Ok(decoded) => {
                failures.push(format!("{module}: decoded {} words, expected {}", decoded.len(), expected.len()))
            }
            Err(e) => failures.push(format!("{module}: {e}")),
        }
    }
    failures.assert_none("decode reference .strip.smolv", modules.len());
}

#[test]
fn our_encodings_round_trip_every_module() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let modules = corpus.spirv_modules();
    let mut failures = Failures::default();
    for module in &modules {
        let spirv = read(&corpus.spirv_path(module));
        let round_trip = encode(&spirv[..], &EncodeOptions::new())
            .map_err(|e| e.to_string())
            .and_then(|smolv| decode(&smolv, &DecodeOptions::new()).map_err(|e| e.to_string()));
        match round_trip {
            Ok(decoded) if decoded == words(&spirv) => {}
            Ok(_) => failures.push(format!("{module}: round trip changed the module")),
            Err(e) => failures.push(format!("{module}: {e}")),
        }
    }
    failures.assert_none("encode then decode", modules.len());
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

fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    match ours.iter().zip(theirs).position(|(a, b)| a != b) {
        Some(at) => format!(", first difference at byte {at}"),
        None => ", one is a prefix of the other".to_owned(),
    }
}
