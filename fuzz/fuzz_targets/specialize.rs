//! Mutated modules through the specializer: `analyze` and `specialize`
//! end in `Ok` or `Err`, never a panic, and never grow the module.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smolv_runtime::specialize::{Specializer, Value};

fuzz_target!(|data: &[u8]| {
    let mut words: Vec<u32> = data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if words.len() < 5 {
        return;
    }
    words[0] = 0x0723_0203;
    let Ok(analysis) = Specializer::analyze(&words) else { return };
    let values: Vec<(u32, Value)> = analysis
        .spec_ids()
        .into_iter()
        .enumerate()
        .map(|(i, id)| (id, Value::Bits(u64::from(data.get(i).copied().unwrap_or(0)) % 5)))
        .collect();
    for values in [&values[..], &[]] {
        if let Ok(out) = analysis.specialize(values) {
            assert!(out.len() <= words.len() + 64, "specialization blew the module up");
        }
    }
});
