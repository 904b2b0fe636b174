//! The schemes an embedded set may be packed with ([`Codec`], [`Framing`]), and each codec's packing.

use smolv_codec::container::compress;
use smolv_format::{Codec, Framing};

use super::lz4;
use crate::error::Error;
use crate::options::Packing;

/// One way to pack a set: a codec and a framing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Scheme {
    pub(crate) codec: Codec,
    pub(crate) framing: Framing,
}

impl Scheme {
    /// Every scheme the format allows, simplest (smallest decoder) first: a tie goes to the earlier.
    pub(crate) const ALL: [Scheme; 10] = [
        Scheme { codec: Codec::Spirv, framing: Framing::PerModule },
        Scheme { codec: Codec::SpirvRelativeIds, framing: Framing::PerModule },
        Scheme { codec: Codec::SpirvRelativeIdsLz4, framing: Framing::PerModule },
        Scheme { codec: Codec::SpirvRelativeIdsLz4, framing: Framing::Stream },
        Scheme { codec: Codec::Smolv, framing: Framing::PerModule },
        Scheme { codec: Codec::SmolvLz4, framing: Framing::PerModule },
        Scheme { codec: Codec::SmolvLz4, framing: Framing::Stream },
        Scheme { codec: Codec::SmolvZstd, framing: Framing::PerModule },
        Scheme { codec: Codec::SmolvZstd, framing: Framing::Stream },
        Scheme { codec: Codec::SmolvZstdDictionary, framing: Framing::PerModule },
    ];

    /// The scheme's name as `SMOLV_PACKING` spells it: its forced [`Packing`]'s.
    pub(crate) fn packing_name(self) -> &'static str {
        let forces = |name: &&str| Packing::parse(name).and_then(Packing::scheme) == Some(self);
        Packing::NAMES.iter().copied().find(forces).unwrap_or_default()
    }

    /// Its position in [`Scheme::ALL`], the tie-breaking rank.
    pub(crate) fn rank(self) -> usize {
        Self::ALL.iter().position(|s| *s == self).unwrap_or(Self::ALL.len())
    }
}

/// Packs one block alone with `codec`: LZ4 HC, or one zstd frame with its size, no checksum or dictionary id.
pub(crate) fn pack_block(codec: Codec, bytes: &[u8], zstd_level: i32) -> Result<Vec<u8>, Error> {
    match codec {
        Codec::Spirv | Codec::SpirvRelativeIds | Codec::Smolv => Ok(bytes.to_vec()),
        Codec::SmolvLz4 | Codec::SpirvRelativeIdsLz4 => lz4::compress_block(bytes),
        Codec::SmolvZstd => {
            compress(bytes, zstd_level, None).map_err(|e| Error::Internal(format!("packing the shaders: {e}")))
        }
        // Its modules come packed with the set's dictionary (`dictionary::train`).
        Codec::SmolvZstdDictionary => {
            Err(Error::Internal("packing with a zstd dictionary, but none was trained".to_owned()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(codecs, Codec::ALL);
    }
}
