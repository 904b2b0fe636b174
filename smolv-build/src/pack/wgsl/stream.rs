//! The WGSL texts as one stream, plain, LZ4 or zstd: the smallest with its decoder.

use smolv_format::{Codec, WgslCodec};

use crate::error::Error;
use crate::options::RuntimeCodecs;
use crate::pack::packing::{pack_block, wgsl_decoder};

/// Bytes of table per module the macros generate: three `u32`s.
const ENTRY_BYTES: usize = 12;

/// The shipped stream, and what each codec would have stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PackedWgsl {
    pub(crate) codec: WgslCodec,
    /// The stream as stored.
    pub(crate) data: Vec<u8>,
    /// Bytes of text, and its xxHash32 (seed 0).
    pub(crate) unpacked_len: usize,
    pub(crate) check: u32,
    /// Each text's offset and length in the stream, in the order given.
    pub(crate) spans: Vec<(usize, usize)>,
    /// Names and table.
    pub(crate) tables_len: usize,
    /// Every codec tried: its stored bytes (data, names and table).
    pub(crate) candidates: Vec<(WgslCodec, usize)>,
}

impl PackedWgsl {
    /// What the binary carries: the stream, the names and the table.
    pub(crate) fn stored_len(&self) -> usize {
        self.data.len() + self.tables_len
    }

    /// Stored bytes plus the decoder, installed.
    pub(crate) fn installed_total(&self) -> usize {
        self.stored_len() + wgsl_decoder(self.codec)
    }
}

/// The SPIR-V codec whose decompressor a WGSL codec shares.
fn sharing(codec: WgslCodec) -> Codec {
    match codec {
        WgslCodec::Wgsl => Codec::Spirv,
        WgslCodec::WgslLz4 => Codec::SmolvLz4,
        WgslCodec::WgslZstd => Codec::SmolvZstd,
    }
}

/// Packs `texts` (of modules `names`) as one stream, with `forced` or the smallest codec the runtime decodes.
pub(crate) fn pack_texts(
    names: &[&str],
    texts: &[&str],
    zstd_level: i32,
    runtime: &RuntimeCodecs,
    forced: Option<WgslCodec>,
) -> Result<PackedWgsl, Error> {
    let mut stream = String::with_capacity(texts.iter().map(|t| t.len()).sum());
    let mut spans = Vec::with_capacity(texts.len());
    for text in texts {
        spans.push((stream.len(), text.len()));
        stream.push_str(text);
    }
    let tables_len = names.iter().map(|n| n.len()).sum::<usize>() + ENTRY_BYTES * names.len();
    let mut best: Option<(WgslCodec, Vec<u8>)> = None;
    let mut candidates = Vec::new();
    for codec in WgslCodec::ALL.into_iter().filter(|&c| runtime.decodes(sharing(c)) && forced.is_none_or(|f| f == c)) {
        let data = pack_block(sharing(codec), stream.as_bytes(), zstd_level)?;
        candidates.push((codec, data.len() + tables_len));
        let total = |codec, data: &Vec<u8>| data.len() + wgsl_decoder(codec);
        if best.as_ref().is_none_or(|(c, d)| total(codec, &data) < total(*c, d)) {
            best = Some((codec, data));
        }
    }
    let (codec, data) = best.ok_or_else(|| {
        Error::Config("the WGSL codec asked for needs a smolv-runtime feature this build does not have".to_owned())
    })?;
    let check = xxhash_rust::xxh32::xxh32(stream.as_bytes(), 0);
    Ok(PackedWgsl { codec, data, unpacked_len: stream.len(), check, spans, tables_len, candidates })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_texts_ship_plain_and_large_ones_compressed() {
        let runtime = RuntimeCodecs::from_env(|_| None);
        let small = pack_texts(&["a.comp"], &["@compute @workgroup_size(1)fn main(){}"], 19, &runtime, None).unwrap();
        assert_eq!(small.codec, WgslCodec::Wgsl);
        assert_eq!(small.data, b"@compute @workgroup_size(1)fn main(){}");
        assert_eq!(small.stored_len(), small.data.len() + 6 + ENTRY_BYTES);
        let big: String = (0..4000).map(|i| format!("fn f{i}()->f32{{return {i}.0;}}")).collect();
        let large = pack_texts(&["b.comp", "c.comp"], &[&big, "x"], 19, &runtime, None).unwrap();
        assert_ne!(large.codec, WgslCodec::Wgsl);
        assert!(large.data.len() * 4 < big.len());
        assert_eq!(large.spans, [(0, big.len()), (big.len(), 1)]);
        assert_eq!(large.candidates.len(), 3);
        let forced = pack_texts(&["b.comp"], &[&big], 19, &runtime, Some(WgslCodec::Wgsl)).unwrap();
        assert_eq!((forced.codec, forced.data.len()), (WgslCodec::Wgsl, big.len()));
    }
}
