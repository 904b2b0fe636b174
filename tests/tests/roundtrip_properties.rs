//! Property tests: generated modules round-trip, and arbitrary bytes never
//! make the decoder panic.
#![allow(clippy::cast_possible_truncation, reason = "test code: the sizes it converts are small and fixed by the test")]

use proptest::collection::vec;
use proptest::prelude::*;
use smolv_runtime::{DecodeOptions, EncodeOptions, decode, encode, relative_ids};

/// Operand words biased toward the small values real ids and literals have,
/// with enough large ones to exercise every varint width.
fn operand() -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => 0u32..64,
        3 => 0u32..5000,
        1 => any::<u32>(),
    ]
}

/// Opcodes that the codec treats in every distinct way.
const INTERESTING_OPCODES: &[u32] = &[
    0, 1, 2, 3, 5, 6, 7, 8, 11, 12, 14, 15, 17, 19, 21, 23, 32, 33, 43, 44, 54, 55, 56, 57, 59, 61, 62, 65, 71, 79, 80,
    81, 82, 124, 127, 128, 129, 133, 148, 169, 224, 225, 245, 246, 247, 248, 249, 250, 251, 253, 317, 330, 331, 332,
    340, 366, 367, 4447, 5341, 0xFFFF,
];

fn general_instruction() -> impl Strategy<Value = Vec<u32>> {
    (prop::sample::select(INTERESTING_OPCODES), 5usize..12)
        .prop_flat_map(|(opcode, len)| vec(operand(), len - 1).prop_map(move |ops| instruction(opcode, &ops)))
}

fn random_opcode_instruction() -> impl Strategy<Value = Vec<u32>> {
    (any::<u16>().prop_filter("13 and 72 have their own shapes", |op| *op != 13 && *op != 72), 5usize..10)
        .prop_flat_map(|(opcode, len)| {
            vec(operand(), len - 1).prop_map(move |ops| instruction(u32::from(opcode), &ops))
        })
}

fn vector_shuffle() -> impl Strategy<Value = Vec<u32>> {
    (5usize..12, prop::bool::ANY).prop_flat_map(|(len, small)| {
        let selector = if small { (0u32..4).boxed() } else { operand().boxed() };
        (vec(operand(), 4), vec(selector, len - 5)).prop_map(|(head, selectors)| {
            let operands: Vec<u32> = head.into_iter().chain(selectors).collect();
            instruction(79, &operands)
        })
    })
}

/// A run of member decorations on one struct type, with decorations whose
/// operand count is implicit and ones where it is stored.
fn member_decorations() -> impl Strategy<Value = Vec<u32>> {
    let decoration = prop_oneof![
        (prop::sample::select(vec![0u32, 2, 3, 4, 5]), Just(0usize)),
        (prop::sample::select(vec![29u32, 30, 31, 33, 34, 35, 36, 37]), Just(1usize)),
        (prop::sample::select(vec![1u32, 6, 11, 24, 5635]), 0usize..3),
    ];
    (operand(), vec((0u32..40, decoration, vec(operand(), 2)), 1..300)).prop_map(|(target, members)| {
        let mut words = Vec::new();
        for (member, (decoration, extra), values) in members {
            let mut operands = vec![target, member, decoration];
            operands.extend_from_slice(&values[..extra]);
            words.extend(instruction(72, &operands));
        }
        words
    })
}

fn instruction(opcode: u32, operands: &[u32]) -> Vec<u32> {
    let mut words = vec![(operands.len() as u32 + 1) << 16 | opcode];
    words.extend_from_slice(operands);
    words
}

fn module() -> impl Strategy<Value = Vec<u32>> {
    let body = vec(
        prop_oneof![
            4 => general_instruction(),
            2 => random_opcode_instruction(),
            2 => vector_shuffle(),
            1 => member_decorations(),
        ],
        0..60,
    );
    (0u32..=6, any::<u32>(), any::<u32>(), body).prop_map(|(minor, generator, bound, body)| {
        let mut words = vec![0x0723_0203, 0x0001_0000 | minor << 8, generator, bound, 0];
        words.extend(body.into_iter().flatten());
        words
    })
}

fn without_debug_info(module: &[u32]) -> Vec<u32> {
    let mut out = module[..5].to_vec();
    let mut at = 5;
    while at < module.len() {
        let len = (module[at] >> 16) as usize;
        let opcode = module[at] & 0xFFFF;
        if !matches!(opcode, 2..=8 | 317 | 330) {
            out.extend_from_slice(&module[at..at + len]);
        }
        at += len;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_modules_round_trip(module in module()) {
        let smolv = encode(&module[..], &EncodeOptions::new()).expect("generated modules are well-formed");
        prop_assert_eq!(decode(&smolv, &DecodeOptions::new()).unwrap(), module);
    }

    #[test]
    fn stripped_modules_decode_without_debug_info(module in module()) {
        let smolv = encode(&module[..], &EncodeOptions::new().strip_debug(true)).unwrap();
        prop_assert_eq!(decode(&smolv, &DecodeOptions::new()).unwrap(), without_debug_info(&module));
    }

    #[test]
    fn byte_input_matches_word_input(module in module()) {
        let bytes: Vec<u8> = module.iter().flat_map(|w| w.to_le_bytes()).collect();
        prop_assert_eq!(
            encode(&bytes[..], &EncodeOptions::new()).unwrap(),
            encode(&module[..], &EncodeOptions::new()).unwrap()
        );
    }

    #[test]
    fn arbitrary_bodies_never_panic(body in vec(any::<u8>(), 0..2000), declared in 20u32..20_000, legacy: bool) {
        let mut smolv = Vec::new();
        for word in [0x534D_4F4C, 0x0001_0300, 0, 100, 0, declared & !3] {
            smolv.extend_from_slice(&u32::to_le_bytes(word));
        }
        smolv.extend_from_slice(&body);
        if let Ok(words) = decode(&smolv, &DecodeOptions::new().legacy_2016_08_31(legacy)) {
            prop_assert_eq!(words.len() * 4, (declared & !3) as usize);
        }
    }

    #[test]
    fn generated_modules_round_trip_through_relative_ids(module in module()) {
        let stored = relative_ids::encode(&module).expect("generated modules are well-formed");
        prop_assert_eq!(stored.len(), module.len());
        prop_assert_eq!(relative_ids::decode(&stored).unwrap(), module);
    }

    #[test]
    fn arbitrary_words_convert_both_ways_without_panicking(mut words in vec(any::<u32>(), 0..400), magic: bool) {
        if magic && !words.is_empty() {
            words[0] = 0x0723_0203;
        }
        // Either direction is a bijection on well-formed instruction
        // streams, whatever the operands: what converts, converts back.
        if let Ok(stored) = relative_ids::encode(&words) {
            prop_assert_eq!(relative_ids::decode(&stored).unwrap(), words.clone());
        }
        if let Ok(spirv) = relative_ids::decode(&words) {
            prop_assert_eq!(relative_ids::encode(&spirv).unwrap(), words);
        }
    }

    #[test]
    fn arbitrary_words_never_make_the_encoder_panic(mut words in vec(any::<u32>(), 0..400)) {
        if words.len() >= 5 {
            words[0] = 0x0723_0203;
            words[1] = 0x0001_0500;
        }
        if let Ok(smolv) = encode(&words[..], &EncodeOptions::new()) {
            prop_assert_eq!(decode(&smolv, &DecodeOptions::new()).unwrap(), words);
        }
    }
}
