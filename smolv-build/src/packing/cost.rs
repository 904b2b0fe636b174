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

    const fn plus(self, other: Self) -> Self {
        Self::new(self.installed + other.installed, self.download + other.download)
    }

    /// What a set packed with `codec` links: its decoders and the set's
    /// glue (directory parsing, checks), or nothing for raw SPIR-V.
    pub(crate) const fn of(codec: Codec) -> Self {
        match codec {
            Codec::Spirv => COSTS.raw,
            Codec::Smolv => COSTS.glue.plus(COSTS.smolv),
            Codec::SmolvLz4 => COSTS.glue.plus(COSTS.smolv).plus(COSTS.lz4),
            Codec::SmolvZstd | Codec::SmolvZstdDictionary => COSTS.glue.plus(COSTS.smolv).plus(COSTS.zstd_thin),
        }
    }
}

/// The parts a decoder is made of.
struct Costs {
    raw: DecoderCost,
    glue: DecoderCost,
    smolv: DecoderCost,
    lz4: DecoderCost,
    zstd_thin: DecoderCost,
}

/// The cost table, the one place these numbers live.
///
/// Measured as the growth of a stripped release probe that makes one call
/// into the decoder, against the same probe on std alone (issue #20):
/// smolv-runtime's SMOL-V decoder (`default-features = false`) +20 KB;
/// `lz4_flex`'s safe block decoder +4.4 KB; zstd with feature `thin`
/// +39 KB; the set's glue (directory, xxHash32, the `Shader` API) about
/// 2 KB. The download column is provisional: 45% of the installed one,
/// the ratio `xz -9` gets on machine code; it is to be replaced by the
/// measured `xz -9` growth of the same probes.
const COSTS: Costs = Costs {
    raw: DecoderCost::new(0, 0),
    glue: DecoderCost::new(2_000, 900),
    smolv: DecoderCost::new(20_000, 9_000),
    lz4: DecoderCost::new(4_500, 2_025),
    zstd_thin: DecoderCost::new(39_000, 17_550),
};

/// The table as text, for cache keys: new numbers must not reuse a choice
/// made with the old ones.
pub(crate) fn table_identity() -> String {
    let codecs = [Codec::Spirv, Codec::Smolv, Codec::SmolvLz4, Codec::SmolvZstd, Codec::SmolvZstdDictionary];
    codecs.iter().map(|&c| format!("{}={:?};", c.name(), DecoderCost::of(c))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_costs_nothing_and_each_codec_adds_to_the_simpler_one() {
        assert_eq!(DecoderCost::of(Codec::Spirv), DecoderCost::new(0, 0));
        let installed = |c| DecoderCost::of(c).installed;
        assert_eq!(installed(Codec::Smolv), 22_000);
        assert_eq!(installed(Codec::SmolvLz4), 26_500);
        assert_eq!(installed(Codec::SmolvZstd), 61_000);
        assert_eq!(installed(Codec::SmolvZstdDictionary), installed(Codec::SmolvZstd));
        assert!(DecoderCost::of(Codec::SmolvLz4).download < DecoderCost::of(Codec::SmolvZstd).download);
    }
}
