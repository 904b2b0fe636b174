//! Any bytes with a SPIR-V header stamped on: the encoder returns `Ok` or
//! `Err`, never panics, and whatever it accepts decodes back bit for bit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smolv_runtime::{DecodeOptions, EncodeOptions, decode, encode};

fuzz_target!(|data: &[u8]| {
    let mut spirv = Vec::with_capacity(data.len() + 8);
    spirv.extend_from_slice(&0x0723_0203u32.to_le_bytes());
    spirv.extend_from_slice(&0x0001_0300u32.to_le_bytes());
    spirv.extend_from_slice(data);
    let Ok(smolv) = encode(&spirv[..], &EncodeOptions::new()) else { return };
    let words = decode(&smolv, &DecodeOptions::new()).expect("encoder output must decode");
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(bytes, spirv);
    let stripped = encode(&spirv[..], &EncodeOptions::new().strip_debug(true)).expect("stripping cannot fail where encoding did not");
    decode(&stripped, &DecodeOptions::new()).expect("stripped encoder output must decode");
});
