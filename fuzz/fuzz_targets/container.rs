//! Any bytes as a shader container: parsing, reflection and decoding end in
//! `Ok` or `Err`, never a panic, with and without a dictionary.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use smolv_runtime::DecodeOptions;
use smolv_runtime::container::{Container, Dictionary};

fn dictionary() -> &'static Dictionary {
    static DICTIONARY: OnceLock<Dictionary> = OnceLock::new();
    DICTIONARY.get_or_init(|| {
        let samples: Vec<Vec<u8>> = (0..64u8).map(|i| vec![i, i.wrapping_mul(7), 3, 4, 5, 6, 7, 8, 9, 10]).collect();
        let bytes = zstd::dict::from_samples(&samples, 512).unwrap_or_else(|_| {
            // A minimal valid dictionary header: magic, id, then raw content.
            let mut raw = vec![0x37, 0xA4, 0x30, 0xEC, 1, 0, 0, 0];
            raw.resize(64, 1);
            raw
        });
        Dictionary::new(bytes).expect("dictionary")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(container) = Container::parse(data) else { return };
    let _ = container.reflection();
    let settings = DecodeOptions::new().max_decoded_len(1 << 24);
    let mut out = Vec::new();
    let _ = container.decode_with(None, &settings, &mut out);
    let _ = container.decode_with(Some(dictionary()), &settings, &mut out);
});
