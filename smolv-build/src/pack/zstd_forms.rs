//! zstd compression of a set's SMOL-V, alone and with a trained dictionary, or from the cache (`cached`).

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

/// Dictionary sizes tried in automatic mode (small ones win on small sets).
const CANDIDATE_SIZES: [usize; 8] = [1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 110 << 10];

/// Both zstd forms of a set: every module alone, and with the dictionary `mode` asks for, if any.
pub(crate) struct ZstdForms {
    pub(crate) plain: Packed,
    pub(crate) with_dictionary: Option<Packed>,
    /// Whether `mode` prefers the dictionary form: a fixed size, or in automatic mode a lower total.
    pub(crate) prefer_dictionary: bool,
}

impl ZstdForms {
    /// The forms of a set with no dictionary.
    pub(crate) fn without_dictionary(plain: Packed) -> Self {
        Self { plain, with_dictionary: None, prefer_dictionary: false }
    }

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
    Ok(compress_forms(&memo, level, mode)?.preferred().clone())
}

/// Compresses every module of `memo`'s set alone and with the dictionary `mode` asks for.
pub(crate) fn compress_forms(memo: &ZstdMemo<'_>, level: i32, mode: DictionaryMode) -> Result<ZstdForms, String> {
    let plain = Packed { dictionary: None, payloads: memo.payloads(None, level)?.to_vec() };
    // A dictionary zstd made that is not one counts as none, as its refusals do.
    let trained = |size| memo.trained(size).ok().flatten();
    // Sizes are ranked cheaply at a low level; the winner is made at the real one.
    let size = memo.dictionary_size::<String>(
        mode,
        &CANDIDATE_SIZES,
        |size, input| size * 4 <= input,
        |size| {
            let Some(dictionary) = trained(size) else { return Ok(None) };
            let payloads = memo.payloads(Some(size), level.min(9)).ok();
            Ok(payloads.map(|p| p.iter().map(Vec::len).sum::<usize>() + dictionary.as_bytes().len()))
        },
    )?;
    let Some((size, dictionary)) = size.and_then(|size| trained(size).map(|d| (size, d))) else {
        return Ok(ZstdForms::without_dictionary(plain));
    };
    let payloads = memo.payloads(Some(size), level)?.to_vec();
    let with_dictionary = Packed { dictionary: Some(dictionary), payloads };
    let prefer_dictionary = matches!(mode, DictionaryMode::Size(_)) || with_dictionary.total() < plain.total();
    Ok(ZstdForms { plain, with_dictionary: Some(with_dictionary), prefer_dictionary })
}

/// Compresses the set with zstd, alone and with a dictionary, or takes both from the cache (it is slow); a set of
/// no modules (the refused ones of a wgpu build) is not compressed.
pub(crate) fn cached(memo: &ZstdMemo<'_>, plan: &Plan, cache: &Cache) -> Result<ZstdForms, Error> {
    let smolv = memo.smolv();
    if smolv.is_empty() {
        return Ok(ZstdForms::without_dictionary(Packed { dictionary: None, payloads: Vec::new() }));
    }
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
        None => w.u32(0),
    };
    if let Some(body) = w.finish() {
        cache.put(&key, &body);
    }
    Ok(forms)
}

fn write_packed<'w>(w: &'w mut BodyWriter, packed: &Packed) -> &'w mut BodyWriter {
    let dictionary = packed.dictionary.as_ref().map(|d| d.as_bytes()).unwrap_or_default();
    packed.payloads.iter().fold(w.bytes(dictionary), |w, p| w.bytes(p))
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
