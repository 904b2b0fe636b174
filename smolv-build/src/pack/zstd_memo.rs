//! The zstd work on one set's SMOL-V, done once per build for bundle and embedded set (solo payloads cached).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use rayon::prelude::*;
use smolv_codec::container::{Dictionary, compress};
use zstd::zstd_safe::{self, CCtx, CDict, CParameter};

use crate::cache::{Cache, KeyBuilder};
use crate::options::DictionaryMode;

/// A trained dictionary: `None` where zstd refused the size, `Err` where it made no dictionary.
type Trained = Result<Option<Dictionary>, String>;

/// Every module compressed, in set order.
type Payloads = Arc<Vec<Vec<u8>>>;

/// One set's SMOL-V, and the dictionaries and payloads made from it so far.
pub(crate) struct ZstdMemo<'a> {
    smolv: Vec<&'a [u8]>,
    cache: Option<&'a Cache>,
    /// By dictionary size.
    trained: Mutex<BTreeMap<usize, Trained>>,
    /// By dictionary size (`None`: no dictionary) and level.
    payloads: Mutex<BTreeMap<(Option<usize>, i32), Payloads>>,
}

impl<'a> ZstdMemo<'a> {
    /// The work on `smolv` (in set order); with a `cache`, modules compressed alone are looked up there.
    pub(crate) fn new(smolv: impl IntoIterator<Item = &'a [u8]>, cache: Option<&'a Cache>) -> Self {
        Self { smolv: smolv.into_iter().collect(), cache, trained: Mutex::default(), payloads: Mutex::default() }
    }

    /// Every module's SMOL-V, in set order.
    pub(crate) fn smolv(&self) -> &[&'a [u8]] {
        &self.smolv
    }

    /// The dictionary size `mode` asks for: none for `Off` or fewer than two modules, or in automatic mode
    /// the one of `sizes` that `fits` the set's bytes with the smallest `total` (`None`: untrainable).
    pub(crate) fn dictionary_size<E: Send>(
        &self,
        mode: DictionaryMode,
        sizes: &[usize],
        fits: impl Fn(usize, usize) -> bool + Sync,
        total: impl Fn(usize) -> Result<Option<usize>, E> + Sync,
    ) -> Result<Option<usize>, E> {
        let input: usize = self.smolv.iter().map(|m| m.len()).sum();
        match mode {
            _ if self.smolv.len() < 2 => Ok(None),
            DictionaryMode::Off => Ok(None),
            DictionaryMode::Size(size) => Ok(Some(size)),
            DictionaryMode::Auto => {
                let ranked = sizes
                    .par_iter()
                    .filter(|&&size| fits(size, input))
                    .map(|&size| Ok(total(size)?.map(|total| (total, size))))
                    .collect::<Result<Vec<_>, E>>()?;
                Ok(ranked.into_iter().flatten().min().map(|(_, size)| size))
            }
        }
    }

    /// The dictionary of `size` bytes trained over the set (`zstd::dict::from_samples`).
    pub(crate) fn trained(&self, size: usize) -> Trained {
        if let Some(found) = self.trained.lock().unwrap_or_else(PoisonError::into_inner).get(&size) {
            return found.clone();
        }
        // Trained outside the lock: callers ask for different sizes at once.
        let trained = match zstd::dict::from_samples(&self.smolv, size) {
            Err(_) => Ok(None),
            Ok(bytes) => Dictionary::new(bytes).map(Some).map_err(|e| e.to_string()),
        };
        self.trained.lock().unwrap_or_else(PoisonError::into_inner).entry(size).or_insert(trained).clone()
    }

    /// Every module compressed at `level`, alone or with the [`trained`](Self::trained) `dictionary` size.
    pub(crate) fn payloads(&self, dictionary: Option<usize>, level: i32) -> Result<Payloads, String> {
        let key = (dictionary, level);
        if let Some(found) = self.payloads.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return Ok(found.clone());
        }
        let payloads = match dictionary {
            None => self.plain(level)?,
            Some(size) => {
                let dictionary =
                    self.trained(size)?.ok_or_else(|| format!("no zstd dictionary of {size} bytes was trained"))?;
                // Loaded once: that costs about as much as compressing a module.
                let loaded = CDict::try_create(dictionary.as_bytes(), level)
                    .ok_or_else(|| format!("zstd could not load the dictionary of {size} bytes"))?;
                self.smolv
                    .par_iter()
                    .map(|m| match m.len() < LOADED_DICTIONARY_LIMIT {
                        true => compress_with(m, level, &loaded),
                        false => compress(m, level, Some(&dictionary)).map_err(|e| e.to_string()),
                    })
                    .collect::<Result<Vec<_>, String>>()?
            }
        };
        let payloads = Arc::new(payloads);
        Ok(self.payloads.lock().unwrap_or_else(PoisonError::into_inner).entry(key).or_insert(payloads).clone())
    }

    /// Every module compressed alone at `level`, from the local cache where it is there.
    fn plain(&self, level: i32) -> Result<Vec<Vec<u8>>, String> {
        self.smolv
            .par_iter()
            .map(|m| {
                let Some(cache) = self.cache else {
                    return compress(m, level, None).map_err(|e| e.to_string());
                };
                let key = KeyBuilder::new("smolv-build zstd module v1")
                    .text(&level.to_string())
                    .text(zstd_safe::version_string())
                    .field(m)
                    .finish();
                if let Some(payload) = cache.get_local(&key).filter(|p| decompresses_to(p, m)) {
                    return Ok(payload);
                }
                let payload = compress(m, level, None).map_err(|e| e.to_string())?;
                cache.put_local(&key, &payload);
                Ok(payload)
            })
            .collect()
    }
}

/// The largest module compressed with a loaded dictionary: from 128 KiB on, the bytes differ from [`compress`]'s.
const LOADED_DICTIONARY_LIMIT: usize = 64 << 10;

/// `smolv` compressed with a loaded dictionary, as [`compress`] does below [`LOADED_DICTIONARY_LIMIT`].
fn compress_with(smolv: &[u8], level: i32, dictionary: &CDict<'_>) -> Result<Vec<u8>, String> {
    let failed = |code| format!("zstd: {}", zstd_safe::get_error_name(code));
    let mut cctx = CCtx::create();
    for parameter in [
        CParameter::CompressionLevel(level),
        CParameter::ChecksumFlag(false),
        CParameter::DictIdFlag(false),
        CParameter::ContentSizeFlag(true),
    ] {
        cctx.set_parameter(parameter).map_err(failed)?;
    }
    cctx.ref_cdict(dictionary).map_err(failed)?;
    let mut out = Vec::with_capacity(zstd_safe::compress_bound(smolv.len()));
    cctx.compress2(&mut out, smolv).map_err(failed)?;
    Ok(out)
}

/// Whether `payload` is one zstd frame of `smolv` (not two joined, which a clean build never makes).
fn decompresses_to(payload: &[u8], smolv: &[u8]) -> bool {
    zstd_safe::find_frame_compressed_size(payload).is_ok_and(|len| len == payload.len())
        && zstd::bulk::decompress(payload, smolv.len()).is_ok_and(|d| d == smolv)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Modules that share most of their bytes, as a game's shaders do;
    /// some larger than zstd's cut-off for attaching a dictionary (8 KiB at
    /// high levels), where it copies it instead.
    fn modules() -> Vec<Vec<u8>> {
        let mut state = 1u32;
        (0..24u32)
            .map(|i| {
                let len = 700 * (1 + (i % 5) as usize * 6);
                let mut m: Vec<u8> = b"SMOL shared types and decorations ".iter().copied().cycle().take(len).collect();
                m.extend((0..len / 4).map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    (state >> 24) as u8 & 0x1f
                }));
                m
            })
            .collect()
    }

    #[test]
    fn the_memo_makes_what_zstd_makes_and_the_cache_serves_the_same_payloads() {
        let modules = modules();
        let dir = std::env::temp_dir().join(format!("smolv-zstd-memo-{}", std::process::id()));
        let cache = Cache::new(dir.clone());
        let cold = ZstdMemo::new(modules.iter().map(Vec::as_slice), Some(&cache));
        let plain = cold.payloads(None, 19).unwrap();
        for (m, p) in modules.iter().zip(plain.iter()) {
            assert_eq!(p, &compress(m, 19, None).unwrap());
        }
        // A second build reads every module from the cache, unchanged.
        let warm = ZstdMemo::new(modules.iter().map(Vec::as_slice), Some(&cache));
        assert_eq!(warm.payloads(None, 19).unwrap(), plain);
        // A corrupt entry (a payload of another module) is not served.
        let key = KeyBuilder::new("smolv-build zstd module v1")
            .text("19")
            .text(zstd_safe::version_string())
            .field(&modules[0])
            .finish();
        assert!(cache.put_local(&key, &plain[1]));
        let again = ZstdMemo::new(modules.iter().map(Vec::as_slice), Some(&cache));
        assert_eq!(again.payloads(None, 19).unwrap()[0], plain[0]);
        let _ = std::fs::remove_dir_all(dir);

        let bytes = zstd::dict::from_samples(&modules, 2048).unwrap();
        let trained = cold.trained(2048).unwrap().expect("a dictionary");
        assert_eq!(trained.as_bytes(), bytes.as_slice());
        let dictionary = Dictionary::new(bytes).unwrap();
        // The dictionary loaded once compresses as the runtime's `compress`
        // does, at every level the build uses.
        for level in [1, 9, 19, 22] {
            let with = cold.payloads(Some(2048), level).unwrap();
            for (m, p) in modules.iter().zip(with.iter()) {
                assert_eq!(p, &compress(m, level, Some(&dictionary)).unwrap(), "level {level}");
            }
        }
        assert!(cold.payloads(Some(16), 9).is_err(), "zstd trains no dictionary of 16 bytes");

        // A module of 200 KB, where a loaded dictionary would make other
        // bytes than `compress`: the memo makes what `compress` makes.
        let mut large = modules.clone();
        large.push(modules.iter().flatten().copied().cycle().take(200_000).collect());
        let memo = ZstdMemo::new(large.iter().map(Vec::as_slice), None);
        let dictionary = memo.trained(2048).unwrap().expect("a dictionary");
        let with = memo.payloads(Some(2048), 19).unwrap();
        let expected = compress(large.last().unwrap(), 19, Some(&dictionary)).unwrap();
        assert!(with.last() == Some(&expected), "the 200 KB module's payload differs from `compress`'s");
        // Two frames joined decode to the module, but are not its payload.
        let mut joined = compress(&modules[0][..100], 3, None).unwrap();
        joined.extend(compress(&modules[0][100..], 3, None).unwrap());
        assert!(!decompresses_to(&joined, &modules[0]));
        assert!(decompresses_to(&compress(&modules[0], 3, None).unwrap(), &modules[0]));
    }
}
