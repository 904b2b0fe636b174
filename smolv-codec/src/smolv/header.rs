//! The fixed headers of SPIR-V modules and SMOL-V blobs.

use super::error::DecodeError;

pub(crate) const SPIRV_MAGIC: u32 = smolv_format::spirv::MAGIC;
/// First word of every SMOL-V blob: the bytes `SMOL`, read little-endian.
pub(crate) const SMOLV_MAGIC: u32 = 0x534D_4F4C;
pub(crate) const CURRENT_ENCODING_VERSION: u8 = 1;
/// SPIR-V header words: magic, version, generator, id bound, schema.
pub(crate) const SPIRV_HEADER_WORDS: usize = smolv_format::spirv::HEADER_WORDS;
/// SMOL-V header bytes: the five SPIR-V header words plus the decoded size.
pub(crate) const SMOLV_HEADER_BYTES: usize = 24;
/// The smallest decoded size: a SPIR-V header alone, in bytes.
const MIN_DECODED_LEN: u32 = 20;
const _: () = assert!(MIN_DECODED_LEN as usize == SPIRV_HEADER_WORDS * 4);

const MIN_SPIRV_VERSION: u32 = 0x0001_0000;
const MAX_SPIRV_VERSION: u32 = 0x0001_0600;

/// Whether `version` (header word 1, without SMOL-V's version byte) is SPIR-V 1.0 through 1.6.
#[inline]
pub(crate) fn is_supported_spirv_version(version: u32) -> bool {
    (MIN_SPIRV_VERSION..=MAX_SPIRV_VERSION).contains(&version)
}

/// What the header of a SMOL-V blob says ([`inspect`](crate::inspect)), checked.
///
/// ```
/// use smolv_codec::{encode, inspect, EncodeOptions};
/// # let spirv = smolv_codec::doc_example_module();
/// let info = inspect(&encode(&spirv[..], &EncodeOptions::new())?)?;
/// assert_eq!((info.spirv_version, info.bound), (0x0001_0000, 5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SmolvInfo {
    /// SMOL-V encoding version: 0 (2016–2020 encoders) or 1 (2020 on).
    pub encoding_version: u8,
    /// SPIR-V version word of the encoded module, for example `0x0001_0300` for 1.3.
    pub spirv_version: u32,
    /// SPIR-V generator magic word.
    pub generator: u32,
    /// SPIR-V id bound.
    pub bound: u32,
    /// SPIR-V schema word.
    pub schema: u32,
    /// Size of the decoded SPIR-V in bytes.
    pub decoded_len: usize,
}

impl SmolvInfo {
    /// Parses and checks the 24-byte header, and that the input could produce the decoded size.
    #[inline]
    pub(crate) fn parse(smolv: &[u8]) -> Result<Self, DecodeError> {
        let Some(header) = smolv.get(..SMOLV_HEADER_BYTES) else {
            return Err(DecodeError::TooShort { len: smolv.len() });
        };
        let word =
            |i: usize| u32::from_le_bytes([header[4 * i], header[4 * i + 1], header[4 * i + 2], header[4 * i + 3]]);
        let magic = word(0);
        if magic != SMOLV_MAGIC {
            return Err(DecodeError::BadMagic { found: magic });
        }
        let spirv_version = word(1) & 0x00FF_FFFF;
        if !is_supported_spirv_version(spirv_version) {
            return Err(DecodeError::UnsupportedSpirvVersion { version: spirv_version });
        }
        // The high byte of word 1.
        let encoding_version = header[7];
        if encoding_version > CURRENT_ENCODING_VERSION {
            return Err(DecodeError::UnsupportedEncodingVersion { version: encoding_version });
        }
        let declared = word(5);
        if declared < MIN_DECODED_LEN || !declared.is_multiple_of(4) {
            return Err(DecodeError::InvalidDecodedSize { declared });
        }
        let limit = max_decoded_len(smolv.len());
        if declared as usize > limit {
            return Err(DecodeError::DecodedSizeTooLarge { declared, limit });
        }
        Ok(Self {
            encoding_version,
            spirv_version,
            generator: word(2),
            bound: word(3),
            schema: word(4),
            decoded_len: declared as usize,
        })
    }
}

/// Largest SPIR-V size that `smolv_len` bytes can decode to: the densest constructs expand eightfold.
pub(crate) fn max_decoded_len(smolv_len: usize) -> usize {
    let body = smolv_len.saturating_sub(SMOLV_HEADER_BYTES);
    SPIRV_HEADER_WORDS * 4 + body.saturating_mul(8)
}
