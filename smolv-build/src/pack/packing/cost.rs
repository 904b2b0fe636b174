//! What each codec's decoder costs in the binary, before its smaller data saves anything.

use smolv_format::WgslCodec;

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
    /// What a set packed with `codec` links (decoders, checks, the set's glue): a little above the largest
    /// measurement (docs/size.md#decoder-costs; change both together), so that ties err toward raw SPIR-V.
    pub(crate) const fn of(codec: Codec) -> Self {
        let (installed, download) = match codec {
            Codec::Spirv => (0, 0),
            // A copy of the words and the conversion back (a 367-byte opcode table).
            Codec::SpirvRelativeIds => (2_500, 1_000),
            // Plus `lz4_flex`'s safe block decoder and the xxHash32 check.
            Codec::SpirvRelativeIdsLz4 => (10_500, 4_000),
            Codec::Smolv => (11_200, 5_000),
            Codec::SmolvLz4 => (16_800, 5_800),
            // zstd's `thin` build.
            Codec::SmolvZstd | Codec::SmolvZstdDictionary => (45_000, 19_100),
        };
        Self { installed, download }
    }

    /// What `codec` links when the runtime's zstd is the full-speed build (`zstd_fast`).
    pub(crate) const fn linked(codec: Codec, zstd_fast: bool) -> Self {
        match codec {
            Codec::SmolvZstd | Codec::SmolvZstdDictionary if zstd_fast => Self { installed: 159_000, download: 70_100 },
            _ => Self::of(codec),
        }
    }
}

/// What a WGSL stream's codec links: the WGSL glue, plus the decompressor as the SPIR-V rows differ.
pub(crate) const fn wgsl_decoder(codec: WgslCodec) -> usize {
    let (with, without) = match codec {
        WgslCodec::Wgsl => return WGSL_GLUE,
        WgslCodec::WgslLz4 => (Codec::SpirvRelativeIdsLz4, Codec::SpirvRelativeIds),
        WgslCodec::WgslZstd => (Codec::SmolvZstd, Codec::Smolv),
    };
    WGSL_GLUE + (DecoderCost::of(with).installed - DecoderCost::of(without).installed)
}

/// `Shader::wgsl` and the WGSL set's glue: 6,836 B measured on Rock Storm (docs/size.md#wgpu-targets).
const WGSL_GLUE: usize = 7_000;

/// What naga's front end costs a wgpu game's stripped binary against the SPIR-V path's (docs/size.md#wgpu-targets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WgpuFrontEnds {
    /// A game with wgpu's `wgsl` feature only, less one with `spirv` only.
    pub(crate) wgsl_over_spirv: i64,
    /// A game with both features (for what naga refuses), less one with `spirv` only.
    pub(crate) both_over_spirv: i64,
}

/// wgpu 30.0.2 with naga 30.0.1, x86-64 Linux, `strip = true`, no LTO.
pub(crate) const WGPU_FRONT_ENDS: WgpuFrontEnds = WgpuFrontEnds {
    // Measured −749,728 B: native wgpu always links naga's WGSL front end.
    wgsl_over_spirv: -745_000,
    // Measured +416 B: with `spirv` on, the game has both front ends already.
    both_over_spirv: 1_000,
};

/// The table as text, for cache keys: new numbers must not reuse an old choice.
pub(crate) fn table_identity() -> String {
    let codecs = Codec::ALL;
    let fast = DecoderCost::linked(Codec::SmolvZstd, true);
    codecs.iter().map(|&c| format!("{}={:?};", c.name(), DecoderCost::of(c))).collect::<String>()
        + &format!("fast={fast:?};wgpu={WGPU_FRONT_ENDS:?}")
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
