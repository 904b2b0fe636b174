//! The codec's contract on bad and unusual input: errors, never panics, and
//! no allocation the input cannot justify.

use smolv_runtime::{
    DecodeError, DecodeOptions, EncodeError, EncodeOptions, decode, decode_into, decoded_len, encode, inspect,
};
use smolv_tests::{Corpus, bytes, read, words};

fn example() -> Vec<u32> {
    smolv_runtime::doc_example_module()
}

fn encoded_example() -> Vec<u8> {
    encode(&example()[..], &EncodeOptions::new()).unwrap()
}

#[test]
fn hostile_declared_size_is_refused_before_allocating() {
    let mut smolv = encoded_example();
    smolv[20..24].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    let err = decode(&smolv, &DecodeOptions::new()).unwrap_err();
    assert!(matches!(err, DecodeError::DecodedSizeTooLarge { declared: 0xFFFF_FFF0, .. }), "{err}");
    assert!(matches!(decoded_len(&smolv), Err(DecodeError::DecodedSizeTooLarge { .. })));
}

#[test]
fn caller_limit_on_decoded_size_is_enforced() {
    let smolv = encoded_example();
    let limit = example().len() * 4 - 4;
    let err = decode(&smolv, &DecodeOptions::new().max_decoded_len(limit)).unwrap_err();
    assert!(matches!(err, DecodeError::DecodedSizeOverLimit { .. }), "{err}");
    assert!(decode(&smolv, &DecodeOptions::new().max_decoded_len(limit + 4)).is_ok());
}

#[test]
fn declared_size_that_is_not_whole_words_is_an_error() {
    let mut smolv = encoded_example();
    smolv[20..24].copy_from_slice(&22u32.to_le_bytes());
    assert!(matches!(decode(&smolv, &DecodeOptions::new()), Err(DecodeError::InvalidDecodedSize { declared: 22 })));
}

#[test]
fn every_truncation_is_an_error() {
    let smolv = encoded_example();
    for len in 0..smolv.len() {
        assert!(decode(&smolv[..len], &DecodeOptions::new()).is_err(), "truncated to {len} bytes decoded");
    }
}

#[test]
fn trailing_garbage_is_an_error() {
    let mut smolv = encoded_example();
    smolv.push(0);
    let err = decode(&smolv, &DecodeOptions::new()).unwrap_err();
    assert!(matches!(err, DecodeError::TrailingBytes { remaining: 1, .. }), "{err}");
}

#[test]
fn output_shorter_than_declared_is_an_error() {
    let mut smolv = encoded_example();
    let declared = u32::from_le_bytes(smolv[20..24].try_into().unwrap());
    smolv[20..24].copy_from_slice(&(declared + 4).to_le_bytes());
    let err = decode(&smolv, &DecodeOptions::new()).unwrap_err();
    assert!(matches!(err, DecodeError::SizeMismatch { .. }), "{err}");
}

#[test]
fn truncated_varint_is_an_error() {
    let mut smolv = encoded_example();
    smolv.truncate(24);
    smolv.push(0x80); // a varint that promises more bytes
    smolv[20..24].copy_from_slice(&28u32.to_le_bytes()); // the most one more byte can justify
    let err = decode(&smolv, &DecodeOptions::new()).unwrap_err();
    assert!(matches!(err, DecodeError::TruncatedVarint { offset: 24 }), "{err}");
}

#[test]
fn wrong_magic_and_versions_are_errors() {
    let smolv = encoded_example();
    let mut bad_magic = smolv.clone();
    bad_magic[0] ^= 1;
    assert!(matches!(decode(&bad_magic, &DecodeOptions::new()), Err(DecodeError::BadMagic { .. })));
    let mut future = smolv.clone();
    future[7] = 2; // encoding version byte
    assert!(matches!(
        decode(&future, &DecodeOptions::new()),
        Err(DecodeError::UnsupportedEncodingVersion { version: 2 })
    ));
    let mut spirv_2_0 = smolv;
    spirv_2_0[6] = 2; // SPIR-V major version
    assert!(matches!(decode(&spirv_2_0, &DecodeOptions::new()), Err(DecodeError::UnsupportedSpirvVersion { .. })));
}

#[test]
fn spirv_versions_1_0_through_1_6_are_accepted_and_others_refused() {
    for minor in 0..=6u32 {
        let mut module = example();
        module[1] = 0x0001_0000 | minor << 8;
        let smolv = encode(&module[..], &EncodeOptions::new()).unwrap();
        assert_eq!(inspect(&smolv).unwrap().spirv_version, module[1]);
        assert_eq!(decode(&smolv, &DecodeOptions::new()).unwrap(), module);
    }
    for version in [0x0000_0900, 0x0001_0700, 0x0002_0000] {
        let mut module = example();
        module[1] = version;
        assert!(matches!(encode(&module[..], &EncodeOptions::new()), Err(EncodeError::UnsupportedVersion { .. })));
    }
}

#[test]
fn big_endian_spirv_is_converted() {
    let module = example();
    let big_endian_bytes: Vec<u8> = module.iter().flat_map(|w| w.to_be_bytes()).collect();
    let swapped_words: Vec<u32> = module.iter().map(|w| w.swap_bytes()).collect();
    let expected = encode(&module[..], &EncodeOptions::new()).unwrap();
    assert_eq!(encode(&big_endian_bytes[..], &EncodeOptions::new()).unwrap(), expected);
    assert_eq!(encode(&swapped_words[..], &EncodeOptions::new()).unwrap(), expected);
}

#[test]
fn big_endian_corpus_modules_encode_like_little_endian_ones() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let modules = corpus.spirv_modules();
    for module in modules.iter().step_by(7) {
        let spirv = read(&corpus.spirv_path(module));
        let big_endian: Vec<u8> = words(&spirv).iter().flat_map(|w| w.to_be_bytes()).collect();
        let expected = read(&corpus.reference_path(module, ".smolv"));
        assert_eq!(encode(&big_endian[..], &EncodeOptions::new()).unwrap(), expected, "{module}");
    }
}

#[test]
fn unaligned_byte_input_is_accepted() {
    let module = bytes(&example());
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&module);
    let expected = encode(&module[..], &EncodeOptions::new()).unwrap();
    assert_eq!(encode(&shifted[1..], &EncodeOptions::new()).unwrap(), expected);
}

#[test]
fn malformed_spirv_is_an_error() {
    let module = example();
    let as_bytes = bytes(&module);
    assert!(matches!(
        encode(&as_bytes[..as_bytes.len() - 2], &EncodeOptions::new()),
        Err(EncodeError::NotWordAligned { .. })
    ));
    assert!(matches!(encode(&module[..4], &EncodeOptions::new()), Err(EncodeError::TooShort { words: 4 })));
    let mut zero_length = module.clone();
    zero_length[5] = 0x0000_0011;
    assert!(matches!(
        encode(&zero_length[..], &EncodeOptions::new()),
        Err(EncodeError::ZeroLengthInstruction { offset: 5 })
    ));
    let mut overlong = module.clone();
    let last = overlong.len() - 1;
    overlong[last] = 0x0005_0038; // OpFunctionEnd claiming 5 words
    assert!(matches!(encode(&overlong[..], &EncodeOptions::new()), Err(EncodeError::TruncatedInstruction { .. })));
    let mut reserved = module;
    reserved[last] = 0x0001_000D; // opcode 13
    assert!(matches!(encode(&reserved[..], &EncodeOptions::new()), Err(EncodeError::MalformedInstruction { .. })));
    assert!(matches!(encode(&b"SMOL-V is not SPIR-V"[..], &EncodeOptions::new()), Err(EncodeError::BadMagic { .. })));
}

#[test]
fn stripping_drops_debug_info_but_keeps_filtered_names() {
    let module = example();
    let stripped = encode(&module[..], &EncodeOptions::new().strip_debug(true)).unwrap();
    let decoded = decode(&stripped, &DecodeOptions::new()).unwrap();
    // The example has one 4-word OpName.
    assert_eq!(decoded.len(), module.len() - 4);
    assert!(!decoded.contains(&0x0004_0005));
    let kept = encode(&module[..], &EncodeOptions::new().strip_debug(true).keep_names(|n| n == "main")).unwrap();
    assert_eq!(decode(&kept, &DecodeOptions::new()).unwrap(), module);
}

#[test]
fn decode_into_reuses_the_buffer_and_clears_it_on_error() {
    let smolv = encoded_example();
    let mut out = Vec::with_capacity(1024);
    let capacity = out.capacity();
    decode_into(&smolv, &mut out, &DecodeOptions::new()).unwrap();
    assert_eq!(out, example());
    assert_eq!(out.capacity(), capacity, "decode_into reallocated a large enough buffer");
    assert!(decode_into(&smolv[..smolv.len() - 1], &mut out, &DecodeOptions::new()).is_err());
    assert!(out.is_empty());
}

#[test]
fn inspect_reports_the_header() {
    let module = example();
    let info = inspect(&encoded_example()).unwrap();
    assert_eq!(info.encoding_version, 1);
    assert_eq!(info.bound, module[3]);
    assert_eq!(info.decoded_len, module.len() * 4);
}
