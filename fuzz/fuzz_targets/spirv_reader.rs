//! Any bytes and words through the SPIR-V reader every walker shares
//! (`smolv_format::spirv`) and the reflection built on it: `Ok` or `Err`,
//! never a panic. The instructions tile the module from its header on, and
//! a damaged one is a `BadInstruction` whose word count is 0 or too long.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smolv_format::reflect::{Interface, Reflection, StageInterface};
use smolv_format::spirv::{self, HEADER_WORDS, MAGIC};

fuzz_target!(|data: &[u8]| {
    if let Ok(words) = spirv::words_from_bytes(data) {
        assert!(spirv::Header::read(&words).is_some(), "words_from_bytes checked the header");
    }
    let mut words: Vec<u32> = data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if let Some(first) = words.first_mut() {
        // Mostly real headers, so the instruction walk is what gets fuzzed.
        if data.len() % 8 != 4 {
            *first = MAGIC;
        }
    }
    let mut next = HEADER_WORDS.min(words.len());
    for instruction in spirv::instructions(&words) {
        match instruction {
            Ok(instruction) => {
                assert_eq!(instruction.offset, next);
                assert_eq!(instruction.words.len(), spirv::split_first_word(instruction.words[0]).0);
                next += instruction.words.len();
                let _ = (instruction.op(), instruction.string(0), instruction.operand(usize::MAX));
            }
            Err(bad) => {
                assert_eq!((bad.offset, bad.available), (next, words.len() - next));
                assert!(bad.word_count == 0 || bad.word_count > bad.available);
                next = words.len();
            }
        }
    }
    assert_eq!(next, words.len(), "the instructions end where the module does");
    let _ = spirv::declarations(&words).count();
    let _ = spirv::globals(&words).count();
    let _ = Reflection::from_spirv(&words);
    let _ = StageInterface::from_spirv(&words);
    let _ = Interface::from_spirv(&words);
});
