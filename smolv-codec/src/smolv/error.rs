//! Errors of the SMOL-V codec.

/// Why a SPIR-V module could not be encoded to SMOL-V; offsets are in words, as `spirv-dis --offsets` prints.
///
/// ```
/// use smolv_codec::{encode, EncodeError, EncodeOptions};
/// let truncated: [u8; 5] = [0x03, 0x02, 0x23, 0x07, 0x00];
/// let error = encode(&truncated[..], &EncodeOptions::new()).unwrap_err();
/// assert_eq!(error, EncodeError::NotWordAligned { len: 5 });
/// println!("{error}"); // says what is wrong and what to check
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The byte length is not a multiple of four.
    #[error(
        "SPIR-V input is {len} bytes, which is not a whole number of 32-bit words; \
         the file is truncated or is not SPIR-V"
    )]
    NotWordAligned {
        /// Length of the input in bytes.
        len: usize,
    },
    /// Fewer than the five header words.
    #[error(
        "SPIR-V input is {words} words long, shorter than the 5-word header; \
         the file is truncated or is not SPIR-V"
    )]
    TooShort {
        /// Length of the input in words.
        words: usize,
    },
    /// The first word is not the SPIR-V magic number in either byte order.
    #[error(
        "input does not start with the SPIR-V magic number 0x07230203 (found {found:#010x}); \
         pass a compiled .spv module, not shader source or SMOL-V"
    )]
    BadMagic {
        /// The first word as read.
        found: u32,
    },
    /// The header names a SPIR-V version outside 1.0–1.6.
    #[error(
        "SPIR-V version word {version:#010x} is outside the supported range 1.0-1.6; \
         recompile the shader for a SPIR-V version between 1.0 and 1.6"
    )]
    UnsupportedVersion {
        /// The version word from the header.
        version: u32,
    },
    /// An instruction declares a word count of zero.
    #[error(
        "instruction at word {offset} has a word count of 0; the module is corrupt \
         (check it with spirv-val)"
    )]
    ZeroLengthInstruction {
        /// Word offset of the instruction.
        offset: usize,
    },
    /// An instruction runs past the end of the module.
    #[error(
        "instruction Op{opcode} at word {offset} declares {len} words but only {available} remain; \
         the module is truncated (check it with spirv-val)"
    )]
    TruncatedInstruction {
        /// Word offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u32,
        /// Its declared word count.
        len: usize,
        /// Words left in the module from `offset`.
        available: usize,
    },
    /// An instruction's operands do not match what its opcode requires.
    #[error(
        "instruction Op{opcode} at word {offset} is malformed: {reason}; \
         the module is invalid (check it with spirv-val)"
    )]
    MalformedInstruction {
        /// Word offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u32,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The module is 4 GiB or larger (SMOL-V records its size in 32 bits).
    #[error("SPIR-V input is {words} words long; SMOL-V holds modules under 4 GiB (fewer than 1,073,741,824 words)")]
    TooLarge {
        /// Length of the input in words.
        words: usize,
    },
}

/// Why a SMOL-V blob could not be decoded; offsets are bytes from its start.
///
/// ```
/// use smolv_codec::{decode, DecodeError, DecodeOptions};
/// let error = decode(b"SMOL", &DecodeOptions::new()).unwrap_err();
/// assert_eq!(error, DecodeError::TooShort { len: 4 });
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Shorter than the 24-byte SMOL-V header.
    #[error("SMOL-V input is {len} bytes, shorter than the 24-byte header; the data is truncated")]
    TooShort {
        /// Length of the input in bytes.
        len: usize,
    },
    /// The first four bytes are not `SMOL`.
    #[error(
        "input does not start with the SMOL-V magic \"SMOL\" (found {found:#010x}); \
         pass data written by a SMOL-V encoder (plain SPIR-V starts with 0x07230203)"
    )]
    BadMagic {
        /// The first word as read (little-endian).
        found: u32,
    },
    /// The header names a SPIR-V version outside 1.0–1.6.
    #[error(
        "SMOL-V header names SPIR-V version {version:#08x}, outside the supported range 1.0-1.6; \
         the data is corrupt"
    )]
    UnsupportedSpirvVersion {
        /// The SPIR-V version bits of the header.
        version: u32,
    },
    /// The header names an encoding version this decoder does not know.
    #[error(
        "SMOL-V encoding version {version} is not supported (this decoder reads versions 0 and 1); \
         the data is corrupt or comes from a newer encoder, so upgrade smolv-runtime"
    )]
    UnsupportedEncodingVersion {
        /// The encoding version byte.
        version: u8,
    },
    /// The declared decoded size cannot hold SPIR-V.
    #[error(
        "SMOL-V header declares a decoded size of {declared} bytes, which is not a whole \
         SPIR-V module (at least 20 bytes and a multiple of 4); the data is corrupt"
    )]
    InvalidDecodedSize {
        /// The declared size in bytes.
        declared: u32,
    },
    /// The declared decoded size is more than the input could ever produce.
    #[error(
        "SMOL-V header declares a decoded size of {declared} bytes, but {limit} bytes is the most \
         this input could decode to; the data is corrupt or forged"
    )]
    DecodedSizeTooLarge {
        /// The declared size in bytes.
        declared: u32,
        /// The largest size the input could produce.
        limit: usize,
    },
    /// The declared decoded size is more than the caller allowed.
    #[error(
        "SMOL-V header declares a decoded size of {declared} bytes, over the limit of {limit} bytes \
         set with DecodeOptions::max_decoded_len; raise the limit if the shader is expected to be this large"
    )]
    DecodedSizeOverLimit {
        /// The declared size in bytes.
        declared: usize,
        /// The caller's limit.
        limit: usize,
    },
    /// A varint runs past the end of the input.
    #[error("varint at byte {offset} runs past the end of the input; the data is truncated")]
    TruncatedVarint {
        /// Byte offset where the varint starts.
        offset: usize,
    },
    /// A varint does not fit 32 bits.
    #[error("varint at byte {offset} does not fit in 32 bits; the data is corrupt")]
    VarintOverflow {
        /// Byte offset where the varint starts.
        offset: usize,
    },
    /// The input ends inside a fixed-size field.
    #[error("input ends at byte {offset} where {needed} more bytes were expected; the data is truncated")]
    UnexpectedEnd {
        /// Byte offset of the field.
        offset: usize,
        /// Bytes the field needs.
        needed: usize,
    },
    /// An instruction decodes to a length SPIR-V cannot express.
    #[error(
        "instruction at byte {offset} decodes to Op{opcode} with {len} words, which SPIR-V cannot \
         express; the data is corrupt"
    )]
    InvalidInstructionLength {
        /// Byte offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u32,
        /// The decoded word count.
        len: u64,
    },
    /// An instruction's operands do not add up to its declared length.
    #[error(
        "instruction at byte {offset} decodes to Op{opcode} declaring {declared} words but \
         carrying {actual}; the data is corrupt, or it uses the 2016-08-31 dialect and needs \
         DecodeOptions::legacy_2016_08_31 (or the reverse)"
    )]
    InstructionLengthMismatch {
        /// Byte offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u32,
        /// Word count from the length field.
        declared: u32,
        /// Words its operands produced.
        actual: usize,
    },
    /// The instructions produce more words than the header declared.
    #[error(
        "instruction at byte {offset} would write past the declared decoded size of {declared} \
         bytes; the data is corrupt, or it needs the other dialect setting"
    )]
    OutputOverflow {
        /// Byte offset of the instruction.
        offset: usize,
        /// The declared size in bytes.
        declared: usize,
    },
    /// Bytes remain after the declared output is complete.
    #[error(
        "{remaining} bytes remain after the declared {declared}-byte module was fully decoded; \
         the data has trailing garbage"
    )]
    TrailingBytes {
        /// Bytes left unread.
        remaining: usize,
        /// The declared size in bytes.
        declared: usize,
    },
    /// The instructions end before the declared size is reached.
    #[error(
        "the SMOL-V data decodes to {actual} bytes but its header declares {declared}; \
         the data is truncated or corrupt"
    )]
    SizeMismatch {
        /// The declared size in bytes.
        declared: usize,
        /// The decoded size in bytes.
        actual: usize,
    },
}
