//! The embedded set's zstd dictionary, trained over its SMOL-V, shipped as one zstd frame (about a third its size).

use smolv_codec::container::compress;

use crate::error::Error;
use crate::options::DictionaryMode;
use crate::pack::zstd_memo::ZstdMemo;

/// Sizes tried in automatic mode: packed, the larger ones usually win.
const CANDIDATE_SIZES: [usize; 7] = [4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 110 << 10, 256 << 10];

/// The zstd level sizes are ranked at: it ranks like level 19, much faster.
const RANKING_LEVEL: i32 = 9;

/// A trained dictionary and every module packed with it.
pub(crate) struct EmbeddedDictionary {
    /// The dictionary as it ships: one zstd frame, with its content size.
    pub(crate) packed: Vec<u8>,
    /// Bytes it unpacks to.
    pub(crate) len: usize,
    /// xxHash32 (seed 0) of the unpacked dictionary.
    pub(crate) check: u32,
    /// Each module packed alone against the dictionary.
    pub(crate) payloads: Vec<Vec<u8>>,
}

impl EmbeddedDictionary {
    /// What ships: the packed modules and the packed dictionary.
    pub(crate) fn total(&self) -> usize {
        self.payloads.iter().map(Vec::len).sum::<usize>() + self.packed.len()
    }
}

fn failed(e: impl std::fmt::Display) -> Error {
    Error::Internal(format!("packing the shaders with a zstd dictionary: {e}"))
}

fn train_one(memo: &ZstdMemo<'_>, size: usize, level: i32) -> Result<Option<EmbeddedDictionary>, Error> {
    // zstd refuses sizes its samples cannot fill; those sizes are skipped.
    let Some(dictionary) = memo.trained(size).map_err(failed)? else {
        return Ok(None);
    };
    let bytes = dictionary.as_bytes();
    let packed = compress(bytes, level, None).map_err(failed)?;
    let check = xxhash_rust::xxh32::xxh32(bytes, 0);
    let len = bytes.len();
    let payloads = memo.payloads(Some(size), level).map_err(failed)?.to_vec();
    Ok(Some(EmbeddedDictionary { packed, len, check, payloads }))
}

/// `memo`'s set's dictionary as `mode` says, every module packed with it at `level`; `None` if none can be trained.
pub(crate) fn train(
    memo: &ZstdMemo<'_>,
    level: i32,
    mode: DictionaryMode,
) -> Result<Option<EmbeddedDictionary>, Error> {
    let ranked = |size| -> Result<_, Error> { Ok(train_one(memo, size, level.min(RANKING_LEVEL))?.map(|d| d.total())) };
    memo.dictionary_size(mode, &CANDIDATE_SIZES, |size, input| size <= input, ranked)?
        .map_or(Ok(None), |size| train_one(memo, size, level))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::packing::PackInput;
    use smolv_codec::container::Dictionary;

    fn memo(inputs: &[PackInput]) -> ZstdMemo<'_> {
        ZstdMemo::new(inputs.iter().map(|m| m.smolv.as_slice()), None)
    }

    /// Modules that share most of their bytes, as shaders of one game do.
    fn inputs() -> Vec<PackInput> {
        (0..40u32)
            .map(|i| {
                let mut smolv: Vec<u8> = b"SMOL common prelude of every module: types, decorations, constants "
                    .iter()
                    .copied()
                    .cycle()
                    .take(600)
                    .collect();
                smolv.extend(i.to_le_bytes().iter().cycle().take(64));
                PackInput { name: format!("m{i:02}"), smolv, spirv: vec![0; 8], check: 0 }
            })
            .collect()
    }

    #[test]
    fn the_dictionary_ships_packed_and_unpacks_to_what_the_modules_need() {
        let inputs = inputs();
        let trained = train(&memo(&inputs), 19, DictionaryMode::Auto).unwrap().expect("a dictionary");
        let unpacked = zstd::bulk::decompress(&trained.packed, trained.len).unwrap();
        assert_eq!(unpacked.len(), trained.len);
        assert_eq!(xxhash_rust::xxh32::xxh32(&unpacked, 0), trained.check);
        assert!(trained.packed.len() < trained.len, "the dictionary ships smaller than it is");
        let dictionary = Dictionary::new(unpacked).unwrap();
        for (input, payload) in inputs.iter().zip(&trained.payloads) {
            let mut decompressor = zstd::bulk::Decompressor::with_dictionary(dictionary.as_bytes()).unwrap();
            assert_eq!(decompressor.decompress(payload, input.smolv.len()).unwrap(), input.smolv);
        }
        let raw: usize = inputs.iter().map(|m| m.smolv.len()).sum();
        assert!(trained.total() < raw / 4, "{} of {raw}", trained.total());
    }

    #[test]
    fn no_dictionary_when_off_or_for_one_module() {
        let inputs = inputs();
        assert!(train(&memo(&inputs), 19, DictionaryMode::Off).unwrap().is_none());
        assert!(train(&memo(&inputs[..1]), 19, DictionaryMode::Auto).unwrap().is_none());
    }
}
