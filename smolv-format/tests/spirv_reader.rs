//! The SPIR-V reader every walker of a module shares
//! (`smolv_format::spirv`): one error for a damaged instruction stream.

use smolv_format::spirv::{
    BadInstruction, Header, MAGIC, NotSpirv, Op, declarations, instruction_at, instructions, words_from_bytes,
};

fn module(body: &[u32]) -> Vec<u32> {
    let mut words = vec![MAGIC, 0x0001_0000, 0, 10, 0];
    words.extend_from_slice(body);
    words
}

#[test]
fn a_zero_or_overlong_word_count_is_the_same_error_and_ends_the_stream() {
    let zero = module(&[(2 << 16) | 17, 1, 0, (2 << 16) | 17, 1]);
    let read: Vec<_> = instructions(&zero).collect();
    assert_eq!(read.len(), 2);
    assert_eq!(read[1], Err(BadInstruction { offset: 7, opcode: 0, word_count: 0, available: 3 }));
    let long = module(&[(9 << 16) | 17, 1]);
    let read: Vec<_> = instructions(&long).collect();
    assert_eq!(read, [Err(BadInstruction { offset: 5, opcode: 17, word_count: 9, available: 2 })]);
    assert_eq!(instruction_at(&long, 99).unwrap_err().available, 0);
    assert_eq!(instructions(&[MAGIC, 1]).count(), 0);
}

#[test]
fn the_preamble_ends_at_the_memory_model() {
    let mut body = vec![(2 << 16) | 17, 10, (3 << 16) | 10, u32::from_le_bytes(*b"SPV_"), 0];
    body.extend([(3 << 16) | 14, 0, 1, (2 << 16) | 17, 11]); // OpMemoryModel, then a capability
    let m = module(&body);
    let declared: Vec<_> = declarations(&m).map(|i| i.op()).collect();
    assert_eq!(declared, [Some(Op::Capability), Some(Op::Extension)]);
    assert_eq!(declarations(&m).nth(1).map(|i| i.string(0)).as_deref(), Some("SPV_"));
    assert_eq!(Header::read(&m).map(|h| h.bound), Some(10));
    assert_eq!(Header::read(&m[..4]), None);
}

#[test]
fn bytes_without_magic_or_header_are_refused() {
    assert_eq!(words_from_bytes(&[]), Err(NotSpirv::Empty));
    assert_eq!(words_from_bytes(&[1, 0, 0, 0]), Err(NotSpirv::Magic { found: 1 }));
    assert_eq!(words_from_bytes(&MAGIC.to_le_bytes()), Err(NotSpirv::Short { words: 1 }));
}
