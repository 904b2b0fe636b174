//! What each codec's decoder costs in the binary: the fixed price a packing
//! pays before its smaller data saves anything.

use super::Codec;

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
// `include_shaders!` and reads every shader's name and words (`name`,
// `decode`), against the same SPIR-V in a table of names and
// `include_bytes!` statics with no smolv code, read the same way. "Installed"
// is the growth of the stripped binary less what the data itself saves;
// "download" the same after `xz -9`. smolv-runtime with its default
// features; the zstd decoder is zstd's `thin` build. Sets measured: Rock
// Storm (12 modules), 31 corpus modules (73 KB), the corpus (280
// modules), and subsets of Sascha Willems' Vulkan samples of 2 to 344
// modules (`SMOLV_SIZE_TREES`).
//
// Each codec's figure is a little above the largest measured, and raw's
// is 0 (measured: up to 864 B installed and 428 B after xz, the glue
// every packing has: finding a shader's name and decoding it across every
// kind of shader), so that near a break-even the choice errs toward raw
// SPIR-V, which cannot make a binary larger than plain `include_bytes!` by
// more than that glue. Against a raw table of a name and a slice per
// module, with their relocations:
//
// - Relative ids + LZ4 (one stream): 9,688 to 10,327 B (11 to 43
//   modules).
// - SMOL-V + LZ4: 16,410 B (344 modules); SMOL-V alone is 5.6 KB less
//   (the corpus packed both ways: the binaries' difference less the
//   data's).
// - zstd: 44,943 B (the corpus's stream); packed both ways, 28.4 KB more
//   than SMOL-V + LZ4 (and relative ids + LZ4 6.2 KB less than that).
// - Relative ids, after xz: the download build's saving against raw less
//   the xz saving of its data alone, 250 to 960 B. Installed it is never
//   chosen (it stores as much as raw SPIR-V), so that figure is an
//   estimate, as are the compressing codecs' xz figures (their data does
//   not compress again, so they are never chosen for downloads either).

/// Raw SPIR-V: the reference every other packing must beat.
const RAW: DecoderCost = DecoderCost::new(0, 0);
/// SPIR-V with relative ids: a copy of the words and the conversion back
/// (with its 367-byte opcode table), and the glue.
const RELATIVE_IDS: DecoderCost = DecoderCost::new(2_500, 1_000);
/// SPIR-V with relative ids + `lz4_flex`'s safe block decoder, and the
/// xxHash32 check.
const RELATIVE_IDS_LZ4: DecoderCost = DecoderCost::new(10_500, 4_000);
/// SMOL-V, the xxHash32 check, and the glue.
const SMOLV: DecoderCost = DecoderCost::new(11_200, 5_000);
/// SMOL-V + `lz4_flex`'s safe block decoder.
const SMOLV_LZ4: DecoderCost = DecoderCost::new(16_800, 5_800);
/// SMOL-V + zstd (`thin`).
const SMOLV_ZSTD: DecoderCost = DecoderCost::new(45_000, 19_100);
/// SMOL-V + zstd's full-speed build (feature `zstd-fast` alone): the thin
/// row plus the 114 KB more that zstd's default build measured in the same
/// kind of probe (153 KB against 39 KB); the xz figure is the thin row's
/// scaled by the same factor, an estimate.
const SMOLV_ZSTD_FAST: DecoderCost = DecoderCost::new(159_000, 70_100);

/// The table as text, for cache keys: new numbers must not reuse a choice
/// made with the old ones.
pub(crate) fn table_identity() -> String {
    let codecs = Codec::ALL;
    let fast = DecoderCost::linked(Codec::SmolvZstd, true);
    codecs.iter().map(|&c| format!("{}={:?};", c.name(), DecoderCost::of(c))).collect::<String>()
        + &format!("fast={fast:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_codec_costs_more_than_the_simpler_one() {
        // Scheme order is by decoder size; the dictionary codec shares zstd's.
        let order = &Codec::ALL[..Codec::ALL.len() - 1];
        for pair in order.windows(2) {
            let (simpler, richer) = (DecoderCost::of(pair[0]), DecoderCost::of(pair[1]));
            assert!(simpler.installed < richer.installed && simpler.download < richer.download, "{pair:?}");
        }
        assert_eq!(DecoderCost::of(Codec::SmolvZstdDictionary), DecoderCost::of(Codec::SmolvZstd));
        // The default path's budget (issue 20).
        assert!(DecoderCost::of(Codec::SmolvLz4).installed <= 24 * 1024);
    }
}
