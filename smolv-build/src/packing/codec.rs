//! The codecs of an embedded set (`docs/format.md`, "Embedded sets"), and
//! what each does to a block of bytes.

use smolv_runtime::container::{Dictionary, compress};

use super::Layout;
use super::lz4;
use crate::error::Error;

/// The directory's codec byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Codec {
    /// Raw SPIR-V, served zero-copy.
    Spirv,
    /// SPIR-V with relative ids ([`smolv_runtime::relative_ids`]): as
    /// large as raw SPIR-V, but it compresses again when the binary is
    /// downloaded compressed.
    SpirvRelativeIds,
    /// SMOL-V, stored as is.
    Smolv,
    /// SMOL-V + LZ4 blocks (LZ4 HC level 12).
    SmolvLz4,
    /// SPIR-V with relative ids + LZ4 blocks (LZ4 HC level 12): larger data
    /// than SMOL-V + LZ4, for a decoder about 6 KB smaller.
    SpirvRelativeIdsLz4,
    /// SMOL-V + zstd frames.
    SmolvZstd,
    /// SMOL-V + zstd frames with a shared dictionary.
    SmolvZstdDictionary,
}

impl Codec {
    /// The codec byte of the directory.
    pub(crate) fn byte(self) -> u8 {
        match self {
            Self::Spirv => 0,
            Self::Smolv => 1,
            Self::SmolvLz4 => 2,
            Self::SmolvZstd => 3,
            Self::SmolvZstdDictionary => 4,
            Self::SpirvRelativeIds => 5,
            Self::SpirvRelativeIdsLz4 => 6,
        }
    }

    /// Whether it stores SPIR-V with relative ids (compressed or not).
    pub(crate) fn relative_ids(self) -> bool {
        matches!(self, Self::SpirvRelativeIds | Self::SpirvRelativeIdsLz4)
    }

    /// The manifest's name for it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Spirv => "spirv",
            Self::SpirvRelativeIds => "spirv-relative-ids",
            Self::SpirvRelativeIdsLz4 => "spirv-relative-ids-lz4",
            Self::Smolv => "smolv",
            Self::SmolvLz4 => "smolv-lz4",
            Self::SmolvZstd => "smolv-zstd",
            Self::SmolvZstdDictionary => "smolv-zstd-dictionary",
        }
    }
}

/// One way to pack a set: a codec and a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Scheme {
    pub(crate) codec: Codec,
    pub(crate) layout: Layout,
}

impl Scheme {
    /// Every scheme the format allows, simplest first (by decoder size):
    /// a tie goes to the earlier one (less code, less work at run time).
    pub(crate) const ALL: [Scheme; 10] = [
        Scheme { codec: Codec::Spirv, layout: Layout::PerModule },
        Scheme { codec: Codec::SpirvRelativeIds, layout: Layout::PerModule },
        Scheme { codec: Codec::SpirvRelativeIdsLz4, layout: Layout::PerModule },
        Scheme { codec: Codec::SpirvRelativeIdsLz4, layout: Layout::Stream },
        Scheme { codec: Codec::Smolv, layout: Layout::PerModule },
        Scheme { codec: Codec::SmolvLz4, layout: Layout::PerModule },
        Scheme { codec: Codec::SmolvLz4, layout: Layout::Stream },
        Scheme { codec: Codec::SmolvZstd, layout: Layout::PerModule },
        Scheme { codec: Codec::SmolvZstd, layout: Layout::Stream },
        Scheme { codec: Codec::SmolvZstdDictionary, layout: Layout::PerModule },
    ];

    /// The scheme's name as `SMOLV_PACKING` and `--packing` spell it.
    pub(crate) fn packing_name(self) -> &'static str {
        match (self.codec, self.layout) {
            (Codec::Spirv, _) => "raw",
            (Codec::SpirvRelativeIds, _) => "relative-ids",
            (Codec::SpirvRelativeIdsLz4, Layout::PerModule) => "relative-ids-lz4",
            (Codec::SpirvRelativeIdsLz4, Layout::Stream) => "relative-ids-lz4-stream",
            (Codec::Smolv, _) => "smolv",
            (Codec::SmolvLz4, Layout::PerModule) => "lz4",
            (Codec::SmolvLz4, Layout::Stream) => "lz4-stream",
            (Codec::SmolvZstd, Layout::PerModule) => "zstd",
            (Codec::SmolvZstd, Layout::Stream) => "zstd-stream",
            (Codec::SmolvZstdDictionary, _) => "zstd-dictionary",
        }
    }

    /// Every codec, in [`Scheme::ALL`] order.
    pub(crate) const CODECS: [Codec; 7] = [
        Codec::Spirv,
        Codec::SpirvRelativeIds,
        Codec::SpirvRelativeIdsLz4,
        Codec::Smolv,
        Codec::SmolvLz4,
        Codec::SmolvZstd,
        Codec::SmolvZstdDictionary,
    ];

    /// Its position in [`Scheme::ALL`], the tie-breaking rank.
    pub(crate) fn rank(self) -> usize {
        Self::ALL.iter().position(|s| *s == self).unwrap_or(Self::ALL.len())
    }
}

/// Packs one block (a module or a stream) alone with
/// `codec`: LZ4 HC, or one zstd frame with the content size and without
/// checksum or dictionary id.
pub(crate) fn pack_block(
    codec: Codec,
    bytes: &[u8],
    zstd_level: i32,
    dictionary: Option<&Dictionary>,
) -> Result<Vec<u8>, Error> {
    let zstd = |dictionary| {
        compress(bytes, zstd_level, dictionary).map_err(|e| Error::Internal(format!("packing the shaders: {e}")))
    };
    match codec {
        Codec::Spirv | Codec::SpirvRelativeIds | Codec::Smolv => Ok(bytes.to_vec()),
        Codec::SmolvLz4 | Codec::SpirvRelativeIdsLz4 => lz4::compress_block(bytes),
        Codec::SmolvZstd => zstd(None),
        Codec::SmolvZstdDictionary => match dictionary {
            Some(dictionary) => zstd(Some(dictionary)),
            None => Err(Error::Internal("packing with a zstd dictionary, but none was trained".to_owned())),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Packing;

    #[test]
    fn every_scheme_has_a_packing_name_and_every_codec_a_scheme() {
        let names: Vec<&str> = Scheme::ALL.iter().map(|s| s.packing_name()).collect();
        assert_eq!(Packing::NAMES[0], "auto");
        assert_eq!(&Packing::NAMES[1..], names.as_slice());
        let mut codecs: Vec<Codec> = Vec::new();
        for scheme in Scheme::ALL {
            if !codecs.contains(&scheme.codec) {
                codecs.push(scheme.codec);
            }
        }
        assert_eq!(codecs, Scheme::CODECS);
    }
}
