//! SMOL-V to SPIR-V.

use alloc::vec::Vec;

use super::error::DecodeError;
use super::header::{SMOLV_HEADER_BYTES, SPIRV_HEADER_WORDS, SPIRV_MAGIC, SmolvInfo};
#[cfg(feature = "std")]
use super::opcodes::ComputedV1;
use super::opcodes::{
    Codings, DECORATION_OFFSET, DecodingTable, member_decoration_extra_operands, op, zigzag_in_2016_dialect,
};
use super::varint::{Reader, unzigzag};
use crate::options::DecodeOptions;

/// Reads and checks the header of a SMOL-V blob without decoding it.
///
/// ```
/// use smolv_codec::{encode, inspect, EncodeOptions};
/// # let spirv = smolv_codec::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
/// let info = inspect(&smolv)?;
/// assert_eq!(info.encoding_version, 1);
/// assert_eq!(info.decoded_len, spirv.len() * 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inspect(smolv: &[u8]) -> Result<SmolvInfo, DecodeError> {
    SmolvInfo::parse(smolv)
}

/// Size in bytes of the SPIR-V that `smolv` decodes to, from its checked header: safe to allocate.
///
/// ```
/// use smolv_codec::{decoded_len, encode, EncodeOptions};
/// # let spirv = smolv_codec::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
/// assert_eq!(decoded_len(&smolv)?, spirv.len() * 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decoded_len(smolv: &[u8]) -> Result<usize, DecodeError> {
    Ok(SmolvInfo::parse(smolv)?.decoded_len)
}

/// Decodes SMOL-V (encoding version 0 or 1) to SPIR-V words.
///
/// ```
/// use smolv_codec::{decode, encode, DecodeOptions, EncodeOptions};
/// # let spirv = smolv_codec::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
/// let words = decode(&smolv, &DecodeOptions::new())?;
/// assert_eq!(words, spirv);
///
/// // Corrupt data is an error, never a panic.
/// assert!(decode(&smolv[..smolv.len() - 1], &DecodeOptions::new()).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode(smolv: &[u8], options: &DecodeOptions) -> Result<Vec<u32>, DecodeError> {
    let mut out = Vec::new();
    decode_into(smolv, &mut out, options)?;
    Ok(out)
}

/// Decodes into `out`, replacing its contents and reusing its allocation; on error, `out` is left empty.
///
/// ```
/// use smolv_codec::{decode_into, encode, DecodeOptions, EncodeOptions};
/// # let spirv = smolv_codec::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
/// let mut words = Vec::new();
/// for _ in 0..3 {
///     decode_into(&smolv, &mut words, &DecodeOptions::new())?;
///     assert_eq!(words, spirv);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_into(smolv: &[u8], out: &mut Vec<u32>, options: &DecodeOptions) -> Result<(), DecodeError> {
    decode_with(smolv, out, options, DecodingTable::for_version)
}

/// [`decode_into`] for encoding version 1 alone, without the opcode tables (for embedded shaders),
/// refusing SPIR-V of more than `max_decoded_len` bytes.
///
/// ```
/// use smolv_codec::{encode, EncodeOptions};
/// use smolv_codec::smolv::decode_current_into;
/// # let spirv = smolv_codec::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
/// let mut words = Vec::new();
/// decode_current_into(&smolv, &mut words, spirv.len() * 4)?;
/// assert_eq!(words, spirv);
/// assert!(decode_current_into(&smolv, &mut words, 8).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "std")]
#[inline]
pub fn decode_current_into(smolv: &[u8], out: &mut Vec<u32>, max_decoded_len: usize) -> Result<(), DecodeError> {
    if let Some(version) = SmolvInfo::parse(smolv).ok().map(|info| info.encoding_version).filter(|&v| v != 1) {
        out.clear();
        return Err(DecodeError::UnsupportedEncodingVersion { version });
    }
    decode_with(smolv, out, &DecodeOptions::new().max_decoded_len(max_decoded_len), |_| ComputedV1)
}

fn decode_with<C: Codings>(
    smolv: &[u8],
    out: &mut Vec<u32>,
    options: &DecodeOptions,
    codings_for_version: fn(u8) -> C,
) -> Result<(), DecodeError> {
    let result = SmolvInfo::parse(smolv).and_then(|info| {
        let max = options.decoded_len_limit();
        if info.decoded_len > max {
            return Err(DecodeError::DecodedSizeOverLimit { declared: info.decoded_len, limit: max });
        }
        // Every word is written before success, so old words need no zeroing.
        out.resize(info.decoded_len / 4, 0);
        decode_body(smolv, out, &info, codings_for_version(info.encoding_version), options)
    });
    if result.is_err() {
        out.clear();
    }
    result
}

/// The output buffer, sized from the header; instructions claim their words up front.
struct Output<'a> {
    words: &'a mut [u32],
    filled: usize,
}

impl Output<'_> {
    /// The next `len` words, or an error if the declared size has no room.
    #[inline]
    fn claim(&mut self, len: usize, at: usize) -> Result<&mut [u32], DecodeError> {
        let start = self.filled;
        let declared = self.words.len() * 4;
        let words =
            self.words.get_mut(start..start + len).ok_or(DecodeError::OutputOverflow { offset: at, declared })?;
        self.filled += len;
        Ok(words)
    }

    fn is_full(&self) -> bool {
        self.filled == self.words.len()
    }
}

/// Stores `word` in the next slot (claimed, so always there).
#[inline]
fn put(slots: &mut core::slice::IterMut<'_, u32>, word: u32) {
    if let Some(slot) = slots.next() {
        *slot = word;
    }
}

/// State carried between instructions; the cursors are locals of [`decode_body`], to stay in registers.
struct Decoder<C> {
    codings: C,
    legacy: bool,
    prev_result: u32,
    prev_decorate: u32,
}

/// Decodes everything after the header into `out`, of the declared size.
fn decode_body<C: Codings>(
    smolv: &[u8],
    out: &mut [u32],
    info: &SmolvInfo,
    codings: C,
    options: &DecodeOptions,
) -> Result<(), DecodeError> {
    let mut output = Output { words: out, filled: 0 };
    let header = [SPIRV_MAGIC, info.spirv_version, info.generator, info.bound, info.schema];
    output.claim(SPIRV_HEADER_WORDS, 0)?.copy_from_slice(&header);
    let mut input = Reader::new(smolv, SMOLV_HEADER_BYTES);
    let mut decoder = Decoder {
        codings,
        legacy: info.encoding_version == 0 && options.reads_legacy_2016_08_31(),
        prev_result: 0,
        prev_decorate: 0,
    };
    while !input.is_at_end() {
        if output.is_full() {
            return Err(DecodeError::TrailingBytes { remaining: input.remaining(), declared: output.words.len() * 4 });
        }
        decoder.instruction(&mut input, &mut output)?;
    }
    if !output.is_full() {
        return Err(DecodeError::SizeMismatch { declared: output.words.len() * 4, actual: output.filled * 4 });
    }
    Ok(())
}

impl<C: Codings> Decoder<C> {
    /// One varint: inline for the fast decoder, out of line for the compact one.
    #[inline(always)]
    fn varint(input: &mut Reader<'_>) -> Result<u32, DecodeError> {
        if C::COMPACT { Self::varint_out_of_line(input) } else { input.varint() }
    }

    #[inline(never)]
    fn varint_out_of_line(input: &mut Reader<'_>) -> Result<u32, DecodeError> {
        input.varint()
    }

    #[inline]
    fn instruction(&mut self, input: &mut Reader<'_>, output: &mut Output<'_>) -> Result<(), DecodeError> {
        let at = input.offset();
        let packed = Self::varint(input)?;
        let coding = self.codings.coding((packed >> 4) & 0xFFF0 | packed & 0xF);
        let opcode = coding.mapped();
        let len = ((packed >> 20) << 4 | (packed >> 4) & 0xF) + coding.min_len();
        if len > 0xFFFF {
            return Err(DecodeError::InvalidInstructionLength { offset: at, opcode, len: u64::from(len) });
        }
        if opcode == op::MEMBER_DECORATE && !self.legacy {
            // By value, so the caller's cursor never escapes and stays in registers.
            *input = self.member_decoration_run(*input, output, at, len)?;
            return Ok(());
        }

        let layout = coding.layout();
        let is_decoration = opcode == op::DECORATE || opcode == op::MEMBER_DECORATE;
        let fixed = 1 + usize::from(layout.has_type()) + usize::from(layout.has_result()) + usize::from(is_decoration);
        // u32 to usize never truncates (smolv needs a 32- or 64-bit target).
        let words = len as usize;
        if fixed > words {
            return Err(DecodeError::InstructionLengthMismatch { offset: at, opcode, declared: len, actual: fixed });
        }
        let mut slots = output.claim(words, at)?.iter_mut();
        put(&mut slots, len << 16 | opcode);
        if layout.has_type() {
            put(&mut slots, Self::varint(input)?);
        }
        if layout.has_result() {
            self.prev_result = self.prev_result.wrapping_add(unzigzag(Self::varint(input)?));
            put(&mut slots, self.prev_result);
        }
        if is_decoration {
            let coded = Self::varint(input)?;
            let delta = if self.legacy { coded } else { unzigzag(coded) };
            self.prev_decorate = self.prev_decorate.wrapping_add(delta);
            put(&mut slots, self.prev_decorate);
        }

        let rest = slots.into_slice();
        let (ids, rest) = rest.split_at_mut(layout.id_deltas().min(rest.len()));
        let zigzag_ids = !self.legacy || zigzag_in_2016_dialect(opcode);
        for slot in ids {
            let coded = Self::varint(input)?;
            let delta = if zigzag_ids { unzigzag(coded) } else { coded };
            *slot = self.prev_result.wrapping_sub(delta);
        }
        if coding.is_compact_shuffle() && len <= 9 {
            // Up to four 2-bit selectors, the first in the top bits.
            let swizzle = u32::from(input.byte()?);
            for (slot, shift) in rest.iter_mut().zip([6, 4, 2, 0]) {
                *slot = swizzle >> shift & 3;
            }
        } else if layout.varint_rest() {
            for slot in rest {
                *slot = Self::varint(input)?;
            }
        } else {
            for slot in rest {
                *slot = input.word()?;
            }
        }
        Ok(())
    }

    /// Decodes a group of up to 255 `OpMemberDecorate`s on one target (the first one's length read).
    #[inline(never)]
    fn member_decoration_run<'r>(
        &mut self,
        mut input: Reader<'r>,
        output: &mut Output<'_>,
        at: usize,
        first_len: u32,
    ) -> Result<Reader<'r>, DecodeError> {
        let mismatch = |offset, declared, actual| DecodeError::InstructionLengthMismatch {
            offset,
            opcode: op::MEMBER_DECORATE,
            declared,
            actual,
        };
        self.prev_decorate = self.prev_decorate.wrapping_add(unzigzag(Self::varint(&mut input)?));
        let target = self.prev_decorate;
        let count = input.byte()?;
        if count == 0 {
            let words = [first_len << 16 | op::MEMBER_DECORATE, target];
            if first_len as usize != words.len() {
                return Err(mismatch(at, first_len, words.len()));
            }
            output.claim(words.len(), at)?.copy_from_slice(&words);
            return Ok(input);
        }
        let mut member = 0u32;
        let mut offset = 0u32;
        for index in 0..count {
            let member_at = if index == 0 { at } else { input.offset() };
            member = member.wrapping_add(Self::varint(&mut input)?);
            let decoration = Self::varint(&mut input)?;
            let extra = match member_decoration_extra_operands(decoration) {
                Some(n) => n,
                None => Self::varint(&mut input)?,
            };
            let len = extra.checked_add(4).filter(|&l| l <= 0xFFFF).ok_or(DecodeError::InvalidInstructionLength {
                offset: member_at,
                opcode: op::MEMBER_DECORATE,
                len: u64::from(extra) + 4,
            })?;
            if index == 0 && len != first_len {
                return Err(mismatch(at, first_len, len as usize));
            }
            let words = output.claim(len as usize, member_at)?;
            let (head, operands) = words.split_at_mut(4);
            head.copy_from_slice(&[len << 16 | op::MEMBER_DECORATE, target, member, decoration]);
            if decoration == DECORATION_OFFSET {
                let [slot] = operands else { return Err(mismatch(member_at, len, 5)) };
                offset = offset.wrapping_add(Self::varint(&mut input)?);
                *slot = offset;
            } else {
                for slot in operands {
                    *slot = Self::varint(&mut input)?;
                }
            }
        }
        Ok(input)
    }
}
