//! zstd compression of a set's SMOL-V: every module alone, and with a
//! dictionary trained over the set (`compress_forms`, on the work
//! [`ZstdMemo`] keeps), both taken from the build cache when they are
//! there (`cached`).

use rayon::prelude::*;
use smolv_codec::container::Dictionary;

use crate::cache::{BodyReader, BodyWriter, Cache, KeyBuilder};
use crate::error::Error;
use crate::options::DictionaryMode;
use crate::pack::zstd_memo::ZstdMemo;
use crate::settings::Plan;

/// The compressed set: per-module payloads and the dictionary they share.
#[derive(Clone)]
pub(crate) struct Packed {
    pub(crate) dictionary: Option<Dictionary>,
    pub(crate) payloads: Vec<Vec<u8>>,
}

impl Packed {
    pub(crate) fn total(&self) -> usize {
        self.payloads.iter().map(Vec::len).sum::<usize>() + self.dictionary.as_ref().map_or(0, |d| d.as_bytes().len())
    }
}

/// Dictionary sizes tried in automatic mode. Small ones win on small sets:
/// a dictionary only pays while it is much smaller than what it saves.
const CANDIDATE_SIZES: [usize; 8] = [1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 110 << 10];

/// Both zstd forms of a set: every module alone, and with the dictionary
/// that `mode` asks for, if one could be trained. Bundles take the
/// [`preferred`](ZstdForms::preferred) one; embedded sets weigh both.
pub(crate) struct ZstdForms {
    pub(crate) plain: Packed,
    pub(crate) with_dictionary: Option<Packed>,
    /// Whether `mode` prefers the dictionary form: always for a fixed size,
    /// in automatic mode when it lowers the total.
    pub(crate) prefer_dictionary: bool,
}

impl ZstdForms {
    /// What a bundle ships: the dictionary form if preferred, else the plain one.
    pub(crate) fn preferred(&self) -> &Packed {
        match &self.with_dictionary {
            Some(packed) if self.prefer_dictionary => packed,
            _ => &self.plain,
        }
    }
}

/// Compresses every module, choosing a dictionary as `mode` says.
pub(crate) fn compress(smolv: &[Vec<u8>], level: i32, mode: DictionaryMode) -> Result<Packed, String> {
    let memo = ZstdMemo::new(smolv.iter().map(Vec::as_slice), None);
    let mut forms = compress_forms(&memo, level, mode)?;
    Ok(match forms.with_dictionary.take() {
        Some(packed) if forms.prefer_dictionary => packed,
        _ => forms.plain,
    })
}

/// Compresses every module of `memo`'s set alone and, unless `mode` is
/// off, with a shared dictionary of the size `mode` gives or the best of
/// several.
pub(crate) fn compress_forms(memo: &ZstdMemo<'_>, level: i32, mode: DictionaryMode) -> Result<ZstdForms, String> {
    let smolv = memo.smolv();
    let plain = Packed { dictionary: None, payloads: memo.payloads(None, level)?.to_vec() };
    let no_dictionary = |plain| Ok(ZstdForms { plain, with_dictionary: None, prefer_dictionary: false });
    if smolv.len() < 2 {
        return no_dictionary(plain);
    }
    let total_input: usize = smolv.iter().map(|m| m.len()).sum();
    // A dictionary zstd made but that is not one counts as none, as zstd's
    // refusals do.
    let trained = |size| memo.trained(size).ok().flatten();
    let size = match mode {
        DictionaryMode::Off => return no_dictionary(plain),
        DictionaryMode::Size(size) => size,
        DictionaryMode::Auto => {
            // Rank sizes cheaply at a low level, then check the winner at the real one.
            let probe_level = level.min(9);
            let ranked: Vec<(usize, usize)> = CANDIDATE_SIZES
                .par_iter()
                .filter(|&&size| size * 4 <= total_input)
                .filter_map(|&size| {
                    let dictionary = trained(size)?;
                    let payloads = memo.payloads(Some(size), probe_level).ok()?;
                    let total = payloads.iter().map(Vec::len).sum::<usize>() + dictionary.as_bytes().len();
                    Some((total, size))
                })
                .collect();
            match ranked.into_iter().min() {
                Some((_, size)) => size,
                None => return no_dictionary(plain),
            }
        }
    };
    let Some(dictionary) = trained(size) else {
        return no_dictionary(plain);
    };
    let payloads = memo.payloads(Some(size), level)?.to_vec();
    let with_dictionary = Packed { dictionary: Some(dictionary), payloads };
    let prefer_dictionary = matches!(mode, DictionaryMode::Size(_)) || with_dictionary.total() < plain.total();
    Ok(ZstdForms { plain, with_dictionary: Some(with_dictionary), prefer_dictionary })
}

/// [`cached`] for a set that may be empty: nothing to compress then
/// (its packing tries raw only).
pub(crate) fn cached_or_empty(memo: &ZstdMemo<'_>, plan: &Plan, cache: &Cache) -> Result<ZstdForms, Error> {
    if memo.smolv().is_empty() {
        return Ok(ZstdForms {
            plain: Packed { dictionary: None, payloads: Vec::new() },
            with_dictionary: None,
            prefer_dictionary: false,
        });
    }
    cached(memo, plan, cache)
}

/// Compresses the set with zstd, alone and with a dictionary, or takes both
/// from the cache: dictionary training and zstd -19 are the slowest steps
/// after compiling. On a miss, `memo` does the work (each module alone
/// from its own cache entry) and keeps it for the embedded set.
pub(crate) fn cached(memo: &ZstdMemo<'_>, plan: &Plan, cache: &Cache) -> Result<ZstdForms, Error> {
    let smolv = memo.smolv();
    // smolv-build's own identity is in every key (KeyBuilder::new).
    let mut key = KeyBuilder::new("smolv-build pack v3");
    key.text(&format!("{}/{:?}", plan.zstd_level, plan.dictionary));
    smolv.iter().for_each(|m| {
        key.field(m);
    });
    let key = key.finish();
    if let Some(forms) = cache.get(&key).and_then(|body| read_forms(&body, smolv.len())) {
        return Ok(forms);
    }
    let forms = compress_forms(memo, plan.zstd_level, plan.dictionary).map_err(Error::Internal)?;
    let mut w = BodyWriter::default();
    write_packed(&mut w, &forms.plain);
    match &forms.with_dictionary {
        Some(packed) => write_packed(w.u32(1).u32(u32::from(forms.prefer_dictionary)), packed),
        None => {
            w.u32(0);
        }
    }
    if let Some(body) = w.finish() {
        cache.put(&key, &body);
    }
    Ok(forms)
}

fn write_packed(w: &mut BodyWriter, packed: &Packed) {
    w.bytes(packed.dictionary.as_ref().map(|d| d.as_bytes()).unwrap_or_default());
    packed.payloads.iter().for_each(|p| {
        w.bytes(p);
    });
}

fn read_packed(r: &mut BodyReader<'_>, count: usize) -> Option<Packed> {
    let dictionary = match r.bytes()? {
        [] => None,
        bytes => Some(smolv_codec::container::Dictionary::new(bytes.to_vec()).ok()?),
    };
    let payloads = (0..count).map(|_| r.bytes().map(<[u8]>::to_vec)).collect::<Option<Vec<_>>>()?;
    Some(Packed { dictionary, payloads })
}

fn read_forms(body: &[u8], count: usize) -> Option<ZstdForms> {
    let mut r = BodyReader::new(body);
    let plain = read_packed(&mut r, count)?;
    let (with_dictionary, prefer_dictionary) = match r.u32()? {
        0 => (None, false),
        _ => {
            let prefer = r.u32()? == 1;
            (Some(read_packed(&mut r, count)?), prefer)
        }
    };
    r.is_empty().then_some(ZstdForms { plain, with_dictionary, prefer_dictionary })
}
