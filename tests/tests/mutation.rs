//! Mutations of real corpus files (bit flips, truncations, header edits)
//! end in `Ok` or `Err`, never a panic; and whatever the encoder accepts, the
//! decoder gives back exactly.
#![allow(clippy::cast_possible_truncation, reason = "test code: the sizes it converts are small and fixed by the test")]

use smolv_runtime::{DecodeOptions, EncodeOptions, decode, decoded_len, encode};
use smolv_tests::{Corpus, Rng, read, words};

/// One mutation of `data`: a bit flip, a byte overwrite, a truncation, a
/// header-word edit, or a duplicated span.
fn mutate(rng: &mut Rng, data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    if out.is_empty() {
        return out;
    }
    match rng.below(6) {
        0 => {
            let at = rng.below(out.len());
            out[at] ^= 1 << rng.below(8);
        }
        1 => {
            for _ in 0..1 + rng.below(8) {
                let at = rng.below(out.len());
                out[at] = rng.next_u64() as u8;
            }
        }
        2 => out.truncate(rng.below(out.len())),
        3 => {
            let word = rng.below(out.len().min(24) / 4);
            let value = match rng.below(3) {
                0 => rng.next_u64() as u32,
                1 => u32::from_le_bytes(out[word * 4..word * 4 + 4].try_into().unwrap()).wrapping_add(4),
                _ => 0xFFFF_FFFC,
            };
            out[word * 4..word * 4 + 4].copy_from_slice(&value.to_le_bytes());
        }
        4 => {
            let at = rng.below(out.len());
            let len = rng.below(64).min(out.len() - at);
            let span = out[at..at + len].to_vec();
            out.splice(at..at, span);
        }
        _ => {
            let at = rng.below(out.len());
            out.remove(at);
        }
    }
    out
}

#[test]
fn mutated_smolv_never_panics_the_decoder() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let mut files: Vec<_> = corpus
        .spirv_modules()
        .iter()
        .flat_map(|m| [corpus.reference_path(m, ".smolv"), corpus.reference_path(m, ".strip.smolv")])
        .collect();
    files.extend(corpus.legacy_cases().into_iter().map(|c| c.smolv));
    let mut rng = Rng(0x5EED_5EED_5EED_5EED);
    let (mut decoded, mut rejected) = (0, 0);
    for file in &files {
        let original = read(file);
        for _ in 0..12 {
            let mutated = mutate(&mut rng, &original);
            for legacy in [false, true] {
                match decode(&mutated, &DecodeOptions::new().legacy_2016_08_31(legacy)) {
                    Ok(words) => {
                        assert_eq!(words.len() * 4, decoded_len(&mutated).unwrap(), "{}", file.display());
                        decoded += 1;
                    }
                    Err(_) => rejected += 1,
                }
            }
        }
    }
    assert!(rejected > 0 && decoded > 0);
    eprintln!("{} files, {decoded} mutations decoded, {rejected} rejected", files.len());
}

#[test]
fn mutated_spirv_is_encoded_losslessly_or_rejected() {
    let Some(corpus) = Corpus::locate() else {
        return;
    };
    let mut rng = Rng(0xC0FF_EE00_C0FF_EE00);
    let (mut encoded, mut rejected) = (0, 0);
    for module in corpus.spirv_modules() {
        let original = read(&corpus.spirv_path(&module));
        for _ in 0..6 {
            let mutated = mutate(&mut rng, &original);
            match encode(&mutated[..], &EncodeOptions::new()) {
                Ok(smolv) => {
                    let decoded = decode(&smolv, &DecodeOptions::new()).unwrap();
                    assert_eq!(decoded, words(&mutated), "{module}: accepted but not lossless");
                    encoded += 1;
                }
                Err(_) => rejected += 1,
            }
            let _ = encode(&mutated[..], &EncodeOptions::new().strip_debug(true));
        }
    }
    assert!(rejected > 0 && encoded > 0);
    eprintln!("{encoded} mutated modules encoded losslessly, {rejected} rejected");
}
