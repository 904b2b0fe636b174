//! What each codec's decoder costs in the binary: the fixed price a packing
//! pays before its smaller data saves anything.

use super::{Codec, Scheme};

/// Bytes of code a decoder adds to a binary, installed and downloaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DecoderCost {
    /// In a stripped release binary.
    pub(crate) installed: usize,
    /// The same code after `xz -9`.
    pub(crate) download: usize,
}

impl DecoderCost {
    const fn new(installed: usize, download: usize) -> Self {
        Self { installed, download }
    }

    /// What a set packed with `codec` links: its decoders, its checks and
    /// the set's glue (the `ShaderSet` and `Shader` code a program that
    /// decodes every shader calls).
    pub(crate) const fn of(codec: Codec) -> Self {
        match codec {
            Codec::Spirv => RAW,
            Codec::SpirvRelativeIds => RELATIVE_IDS,
            Codec::SpirvRelativeIdsLz4 => RELATIVE_IDS_LZ4,
            Codec::Smolv => SMOLV,
            Codec::SmolvLz4 => SMOLV_LZ4,
            Codec::SmolvZstd | Codec::SmolvZstdDictionary => SMOLV_ZSTD,
        }
    }

    /// What `codec` links when the runtime's zstd is the full-speed build
    /// (`zstd_fast`) or the default `thin` one.
    pub(crate) const fn linked(codec: Codec, zstd_fast: bool) -> Self {
        match codec {
            Codec::SmolvZstd | Codec::SmolvZstdDictionary if zstd_fast => SMOLV_ZSTD_FAST,
            _ => Self::of(codec),
        }
    }
}

// The cost table, the one place these numbers live.
//
// Measured by `tests/binary_size.rs` (x86-64 Linux, rustc 1.95, GNU ld,
// no LTO, `strip = true`): a program that embeds a set with
// `include_shaders!` and decodes every shader with `decode`, against the
// same SPIR-V in `include_bytes!` statics with no smolv code. "Installed"
// is the growth of the stripped binary less what the data itself saves;
// "download" the same after `xz -9`. smolv-runtime with its default
// features; the zstd decoder is zstd's `thin` build.
//
// Raw: Rock Storm under the download goal, which packs it raw, +1,168 B
// installed (+1,264 less what the data saves), and within ±0.5 KB of the
// raw program after xz (the set's glue: a `static` shader per module and
// a copy in `decode`; small raw sets are words made at compile time, with
// no table, checks or unpacker). SMOL-V: Rock Storm's default build,
// 10,236 B; after xz, the growth less the SMOL-V data's xz saving (about
// 4.5 KB). LZ4: the 73 KB corpus set's default build, 15,021 B; its xz
// figure and zstd's rows are earlier probe measurements less the glue that
// the per-codec entry points and errors that own no memory removed (3 KB
// installed, 2.3 KB after xz), so they are estimates. `tests/binary_size.rs`
// fails if the SMOL-V + LZ4 path grows past 24 KiB.

/// Raw SPIR-V: only the set's glue; words are served from the binary.
const RAW: DecoderCost = DecoderCost::new(0, 0);
/// SPIR-V with relative ids: the set's tables and entry point, a copy of
/// the words and the conversion back (with its 367-byte opcode table).
const RELATIVE_IDS: DecoderCost = DecoderCost::new(2_000, 900);
/// SPIR-V with relative ids + `lz4_flex`'s safe block decoder, and the
/// xxHash32 check.
const RELATIVE_IDS_LZ4: DecoderCost = DecoderCost::new(7_000, 3_000);
/// SMOL-V, the xxHash32 check, and the glue.
const SMOLV: DecoderCost = DecoderCost::new(11_600, 5_000);
/// SMOL-V + `lz4_flex`'s safe block decoder.
const SMOLV_LZ4: DecoderCost = DecoderCost::new(16_500, 5_800);
/// SMOL-V + zstd (`thin`).
const SMOLV_ZSTD: DecoderCost = DecoderCost::new(42_100, 19_100);
/// SMOL-V + zstd's full-speed build (feature `zstd-fast` alone): the thin
/// row plus the 114 KB more that zstd's default build measured in the same
/// kind of probe (153 KB against 39 KB); the xz figure is the thin row's
/// scaled by the same factor, an estimate.
const SMOLV_ZSTD_FAST: DecoderCost = DecoderCost::new(156_100, 70_100);

/// The table as text, for cache keys: new numbers must not reuse a choice
/// made with the old ones.
pub(crate) fn table_identity() -> String {
    let codecs = Scheme::CODECS;
    let fast = DecoderCost::linked(Codec::SmolvZstd, true);
    codecs.iter().map(|&c| format!("{}={:?};", c.name(), DecoderCost::of(c))).collect::<String>()
        + &format!("fast={fast:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_codec_costs_more_than_the_simpler_one() {
        let order = [
            Codec::Spirv,
            Codec::SpirvRelativeIds,
            Codec::SpirvRelativeIdsLz4,
            Codec::Smolv,
            Codec::SmolvLz4,
            Codec::SmolvZstd,
        ];
        for pair in order.windows(2) {
            let (simpler, richer) = (DecoderCost::of(pair[0]), DecoderCost::of(pair[1]));
            assert!(simpler.installed < richer.installed && simpler.download < richer.download, "{pair:?}");
        }
        assert_eq!(DecoderCost::of(Codec::SmolvZstdDictionary), DecoderCost::of(Codec::SmolvZstd));
        // The default path's budget (issue 20).
        assert!(DecoderCost::of(Codec::SmolvLz4).installed <= 24 * 1024);
    }
}
