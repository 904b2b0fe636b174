//! What each codec's decoder costs in the binary: the fixed price a packing
//! pays before its smaller data saves anything.

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

// The cost table. The measurements behind each figure, and how they were
// taken, are in docs/size.md#decoder-costs; change the two together.
//
// Each codec's figure is a little above the largest measurement, and raw's
// is 0, so that near a break-even the choice errs toward raw SPIR-V: raw
// cannot make a binary larger than plain `include_bytes!` by more than the
// glue every packing has.

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
/// row plus the difference between zstd's two builds; see
/// docs/size.md#decoder-costs.
const SMOLV_ZSTD_FAST: DecoderCost = DecoderCost::new(159_000, 70_100);

/// What a WGSL stream's codec links ([`crate::pack::wgsl`]): the WGSL
/// glue, plus the decompressor and the xxHash32 check, taken as the
/// difference between the SPIR-V rows with and without it (relative ids
/// with and without LZ4, SMOL-V with and without zstd).
pub(crate) const fn wgsl_decoder(codec: WgslCodec) -> usize {
    match codec {
        WgslCodec::Wgsl => WGSL_GLUE,
        WgslCodec::WgslLz4 => WGSL_GLUE + (RELATIVE_IDS_LZ4.installed - RELATIVE_IDS.installed),
        WgslCodec::WgslZstd => WGSL_GLUE + (SMOLV_ZSTD.installed - SMOLV.installed),
    }
}

/// `Shader::wgsl`, the WGSL set's vtable and what a program that hands
/// the text to wgpu links for it. Measured on Rock Storm
/// (docs/size.md#wgpu-targets): the WGSL path's binary came out 3,280 B
/// larger than the SPIR-V one where a glue of 1,000 B had it 2,556 B
/// smaller, so the glue is about 6,836 B.
const WGSL_GLUE: usize = 7_000;

/// What the naga front end a wgpu game needs costs its stripped release
/// binary, against the SPIR-V path's: the figures behind `Target::Wgpu`'s
/// choice (docs/size.md#wgpu-targets; `tests/tests/binary_size.rs` measures
/// them again and prints them). Signed: a front end may cost less than
/// the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WgpuFrontEnds {
    /// A game with wgpu's `wgsl` feature only, less the same game with its
    /// `spirv` feature only.
    pub(crate) wgsl_over_spirv: i64,
    /// A game with both features (WGSL shipped, and SPIR-V for the shaders
    /// naga cannot express as WGSL), less the same game with `spirv` only:
    /// naga's WGSL front end on its own.
    pub(crate) both_over_spirv: i64,
}

/// wgpu 30.0.2 with naga 30.0.1, x86-64 Linux, `strip = true`, no LTO:
/// see docs/size.md#wgpu-targets for how they were measured.
pub(crate) const WGPU_FRONT_ENDS: WgpuFrontEnds =
    WgpuFrontEnds { wgsl_over_spirv: WGSL_OVER_SPIRV, both_over_spirv: BOTH_OVER_SPIRV };
const WGSL_OVER_SPIRV: i64 = 0;
const BOTH_OVER_SPIRV: i64 = 0;

/// The table as text, for cache keys: new numbers must not reuse a choice
/// made with the old ones.
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
