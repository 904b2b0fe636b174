//! SMOL-V to SPIR-V.

use alloc::vec::Vec;

use super::error::DecodeError;
use super::header::{SMOLV_HEADER_BYTES, SPIRV_HEADER_WORDS, SPIRV_MAGIC, SmolvInfo};
use super::opcodes::{
    DECORATION_OFFSET, OPS_KNOWN_V0, OPS_KNOWN_V1, OpLayout, member_decoration_extra_operands,
    minimum_length, op, swap_frequent, zigzag_in_2016_dialect,
};
use super::varint::{Reader, unzigzag};

/// Settings for [`decode`] and [`decode_into`].
///
/// ```
/// use smolv_runtime::DecodeOptions;
///
/// // Unity 2017-2020 shipped SMOL-V in the 2016-08-31 dialect.
/// let unity = DecodeOptions::new().legacy_2016_08_31(true);
/// // Refuse anything that would decode to more than 1 MiB.
/// let bounded = DecodeOptions::new().max_decoded_len(1 << 20);
/// # let _ = (unity, bounded);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecodeOptions {
    legacy_2016_08_31: bool,
    max_decoded_len: Option<usize>,
}

impl DecodeOptions {
    /// Default settings: current dialect, size bounded only by the input.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads encoding-version-0 data in the dialect of the 2016-08-31
    /// encoder, which Unity 2017–2020 used. That dialect shares version byte
    /// 0 with later encoders, so it cannot be detected and must be asked for.
    /// Has no effect on version-1 data.
    pub fn legacy_2016_08_31(mut self, legacy: bool) -> Self {
        self.legacy_2016_08_31 = legacy;
        self
    }

    /// Refuses data whose header declares more than `max` bytes of SPIR-V,
    /// before allocating anything. Without this, the bound is what the input
    /// length can justify (at most eight times the input).
    pub fn max_decoded_len(mut self, max: usize) -> Self {
        self.max_decoded_len = Some(max);
        self
    }
}

/// Reads and checks the header of a SMOL-V blob without decoding it.
///
/// ```
/// use smolv_runtime::{encode, inspect, EncodeOptions};
/// # let spirv = smolv_runtime::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
/// let info = inspect(&smolv)?;
/// assert_eq!(info.encoding_version, 1);
/// assert_eq!(info.decoded_len, spirv.len() * 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn inspect(smolv: &[u8]) -> Result<SmolvInfo, DecodeError> {
    SmolvInfo::parse(smolv)
}

/// Size in bytes of the SPIR-V that `smolv` decodes to, from its header.
///
/// The header is checked, and the size is refused if the input could not
/// possibly produce it, so the result is safe to allocate.
///
/// ```
/// use smolv_runtime::{decoded_len, encode, EncodeOptions};
/// # let spirv = smolv_runtime::doc_example_module();
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
/// use smolv_runtime::{decode, encode, DecodeOptions, EncodeOptions};
/// # let spirv = smolv_runtime::doc_example_module();
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

/// Decodes into `out`, replacing its contents and reusing its allocation.
///
/// Decoding many modules through one buffer allocates only when a module is
/// larger than every one before it. On error, `out` is left empty.
///
/// ```
/// use smolv_runtime::{decode_into, encode, DecodeOptions, EncodeOptions};
/// # let spirv = smolv_runtime::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
/// let mut words = Vec::new();
/// for _ in 0..3 {
///     decode_into(&smolv, &mut words, &DecodeOptions::new())?;
///     assert_eq!(words, spirv);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_into(
    smolv: &[u8],
    out: &mut Vec<u32>,
    options: &DecodeOptions,
) -> Result<(), DecodeError> {
    out.clear();
    let info = SmolvInfo::parse(smolv)?;
    if let Some(max) = options.max_decoded_len {
        if info.decoded_len > max {
            return Err(DecodeError::DecodedSizeTooLarge {
                declared: info.decoded_len as u32,
                limit: max,
            });
        }
    }
    out.resize(info.decoded_len / 4, 0);
    let result = Decoder::new(smolv, out, &info, options).run();
    if result.is_err() {
        out.clear();
    }
    result
}

/// Writes SPIR-V words into a buffer sized from the header, refusing to
/// write past it.
struct Output<'a> {
    words: &'a mut [u32],
    len: usize,
}

impl Output<'_> {
    #[inline]
    fn push(&mut self, word: u32, at_byte: usize) -> Result<(), DecodeError> {
        match self.words.get_mut(self.len) {
            Some(slot) => {
                *slot = word;
                self.len += 1;
                Ok(())
            }
            None => Err(DecodeError::OutputOverflow {
                offset: at_byte,
                declared: self.words.len() * 4,
            }),
        }
    }
}

struct Decoder<'a> {
    input: Reader<'a>,
    output: Output<'a>,
    known_ops: usize,
    legacy: bool,
    prev_result: u32,
    prev_decorate: u32,
}

impl<'a> Decoder<'a> {
    fn new(smolv: &'a [u8], out: &'a mut [u32], info: &SmolvInfo, options: &DecodeOptions) -> Self {
        let mut output = Output { words: out, len: 0 };
        // The header was checked by `SmolvInfo::parse`, and the buffer holds
        // at least the SPIR-V header.
        for word in [
            SPIRV_MAGIC,
            info.spirv_version,
            info.generator,
            info.bound,
            info.schema,
        ] {
            output.words[output.len] = word;
            output.len += 1;
        }
        debug_assert_eq!(output.len, SPIRV_HEADER_WORDS);
        Self {
            input: Reader::new(smolv, SMOLV_HEADER_BYTES),
            output,
            known_ops: if info.encoding_version == 0 {
                OPS_KNOWN_V0
            } else {
                OPS_KNOWN_V1
            },
            legacy: info.encoding_version == 0 && options.legacy_2016_08_31,
            prev_result: 0,
            prev_decorate: 0,
        }
    }

    fn run(mut self) -> Result<(), DecodeError> {
        while !self.input.is_at_end() {
            if self.output.len == self.output.words.len() {
                return Err(DecodeError::TrailingBytes {
                    remaining: self.input.remaining(),
                    declared: self.output.words.len() * 4,
                });
            }
            self.instruction()?;
        }
        if self.output.len != self.output.words.len() {
            return Err(DecodeError::SizeMismatch {
                declared: self.output.words.len() * 4,
                actual: self.output.len * 4,
            });
        }
        Ok(())
    }

    #[inline]
    fn instruction(&mut self) -> Result<(), DecodeError> {
        let at = self.input.offset();
        let packed = self.input.varint()?;
        let coded_op = swap_frequent((packed >> 4) & 0xFFF0 | packed & 0xF);
        let stored_len = (packed >> 20) << 4 | (packed >> 4) & 0xF;
        let len = stored_len + minimum_length(coded_op);
        let compact = coded_op == op::VECTOR_SHUFFLE_COMPACT;
        let opcode = if compact {
            op::VECTOR_SHUFFLE
        } else {
            coded_op
        };
        if len > 0xFFFF {
            return Err(DecodeError::InvalidInstructionLength {
                offset: at,
                opcode,
                len: u64::from(len),
            });
        }

        let start = self.output.len;
        self.output.push(len << 16 | opcode, at)?;
        let layout = OpLayout::of(opcode, self.known_ops);
        let mut operand = 1;
        if layout.has_type() {
            let ty = self.input.varint()?;
            self.output.push(ty, at)?;
            operand += 1;
        }
        if layout.has_result() {
            self.prev_result = self
                .prev_result
                .wrapping_add(unzigzag(self.input.varint()?));
            self.output.push(self.prev_result, at)?;
            operand += 1;
        }
        if opcode == op::DECORATE || opcode == op::MEMBER_DECORATE {
            let coded = self.input.varint()?;
            let delta = if self.legacy { coded } else { unzigzag(coded) };
            self.prev_decorate = self.prev_decorate.wrapping_add(delta);
            self.output.push(self.prev_decorate, at)?;
            operand += 1;
            if opcode == op::MEMBER_DECORATE && !self.legacy {
                return self.member_decoration_run(at, start, len);
            }
        }

        let zigzag_ids = !self.legacy || zigzag_in_2016_dialect(opcode);
        let len = len as usize;
        let delta_end = (operand + layout.id_deltas()).min(len.max(operand));
        for _ in operand..delta_end {
            let coded = self.input.varint()?;
            let delta = if zigzag_ids { unzigzag(coded) } else { coded };
            self.output.push(self.prev_result.wrapping_sub(delta), at)?;
        }
        operand = delta_end;

        if compact && len <= 9 {
            let swizzle = u32::from(self.input.byte()?);
            for selector in operand..len {
                // Selector 5 sits in the top two bits, selector 8 in the bottom two.
                let shift = 2 * (8 - selector as u32);
                self.output.push(swizzle >> shift & 3, at)?;
            }
        } else if layout.varint_rest() {
            for _ in operand..len {
                let word = self.input.varint()?;
                self.output.push(word, at)?;
            }
        } else {
            for _ in operand..len {
                let word = self.input.word()?;
                self.output.push(word, at)?;
            }
        }
        self.check_length(at, start, opcode, len as u32)
    }

    /// Decodes a group of up to 255 `OpMemberDecorate`s on one target. The
    /// first instruction's opcode word and target are already written.
    fn member_decoration_run(
        &mut self,
        at: usize,
        first_start: usize,
        first_len: u32,
    ) -> Result<(), DecodeError> {
        let count = self.input.byte()?;
        let target = self.prev_decorate;
        let mut member = 0u32;
        let mut offset = 0u32;
        let mut start = first_start;
        let mut declared_len = first_len;
        if count == 0 {
            return self.check_length(at, start, op::MEMBER_DECORATE, declared_len);
        }
        for index in 0..count {
            let member_at = self.input.offset();
            member = member.wrapping_add(self.input.varint()?);
            let decoration = self.input.varint()?;
            let extra = match member_decoration_extra_operands(decoration) {
                Some(n) => n,
                None => self.input.varint()?,
            };
            let member_len = extra.checked_add(4).filter(|&l| l <= 0xFFFF).ok_or(
                DecodeError::InvalidInstructionLength {
                    offset: member_at,
                    opcode: op::MEMBER_DECORATE,
                    len: u64::from(extra) + 4,
                },
            )?;
            if index > 0 {
                start = self.output.len;
                declared_len = member_len;
                self.output
                    .push(member_len << 16 | op::MEMBER_DECORATE, member_at)?;
                self.output.push(target, member_at)?;
            }
            self.output.push(member, member_at)?;
            self.output.push(decoration, member_at)?;
            if decoration == DECORATION_OFFSET {
                if member_len != 5 {
                    return Err(DecodeError::InstructionLengthMismatch {
                        offset: member_at,
                        opcode: op::MEMBER_DECORATE,
                        declared: member_len,
                        actual: 5,
                    });
                }
                offset = offset.wrapping_add(self.input.varint()?);
                self.output.push(offset, member_at)?;
            } else {
                for _ in 4..member_len {
                    let word = self.input.varint()?;
                    self.output.push(word, member_at)?;
                }
            }
            self.check_length(member_at, start, op::MEMBER_DECORATE, declared_len)?;
        }
        Ok(())
    }

    /// Every decoded instruction must be exactly as long as its length field
    /// says, or the output would not be a well-formed instruction stream.
    #[inline]
    fn check_length(
        &self,
        at: usize,
        start: usize,
        opcode: u32,
        declared: u32,
    ) -> Result<(), DecodeError> {
        let actual = self.output.len - start;
        if actual == declared as usize {
            Ok(())
        } else {
            Err(DecodeError::InstructionLengthMismatch {
                offset: at,
                opcode,
                declared,
                actual,
            })
        }
    }
}
