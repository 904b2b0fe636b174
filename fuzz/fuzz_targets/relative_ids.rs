//! Any words, converted to relative ids and back (and the other way):
//! `Ok` or `Err`, never a panic; whatever converts converts back to the
//! same words, and both directions reject the same inputs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smolv_runtime::relative_ids;

fuzz_target!(|data: &[u8]| {
    let mut words: Vec<u32> = data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if let Some(first) = words.first_mut() {
        // Mostly real headers, so the instruction walk is what gets fuzzed.
        if data.len() % 8 != 4 {
            *first = 0x0723_0203;
        }
    }
    let encoded = relative_ids::encode(&words);
    let decoded = relative_ids::decode(&words);
    assert_eq!(encoded.is_ok(), decoded.is_ok(), "the walk depends only on the words both directions keep");
    if let Ok(stored) = encoded {
        assert_eq!(stored.len(), words.len());
        assert_eq!(relative_ids::decode(&stored).unwrap(), words);
    }
    if let Ok(spirv) = decoded {
        assert_eq!(relative_ids::encode(&spirv).unwrap(), words);
    }
});
