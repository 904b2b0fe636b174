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
    /// SMOL-V, stored as is.
    Smolv,
    /// SMOL-V + LZ4 blocks (LZ4 HC level 12).
    SmolvLz4,
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
        }
    }

    /// The manifest's name for it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Spirv => "spirv",
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
    /// Every scheme the format allows, simplest first: a tie goes to the
    /// earlier one (less code, less work at run time).
    pub(crate) const ALL: [Scheme; 7] = [
        Scheme { codec: Codec::Spirv, layout: Layout::PerModule },
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
            (Codec::Smolv, _) => "smolv",
            (Codec::SmolvLz4, Layout::PerModule) => "lz4",
            (Codec::SmolvLz4, Layout::Stream) => "lz4-stream",
            (Codec::SmolvZstd, Layout::PerModule) => "zstd",
            (Codec::SmolvZstd, Layout::Stream) => "zstd-stream",
            (Codec::SmolvZstdDictionary, _) => "zstd-dictionary",
        }
    }

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
        Codec::Spirv | Codec::Smolv => Ok(bytes.to_vec()),
        Codec::SmolvLz4 => lz4::compress_block(bytes),
        Codec::SmolvZstd => zstd(None),
        Codec::SmolvZstdDictionary => match dictionary {
            Some(dictionary) => zstd(Some(dictionary)),
            None => Err(Error::Internal("packing with a zstd dictionary, but none was trained".to_owned())),
        },
    }
}
