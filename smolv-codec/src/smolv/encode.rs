//! SPIR-V to SMOL-V.

use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

use smolv_format::spirv;

use super::error::EncodeError;
use super::header::{
    CURRENT_ENCODING_VERSION, SMOLV_MAGIC, SPIRV_HEADER_WORDS, SPIRV_MAGIC, is_supported_spirv_version,
};
use super::input::SpirvInput;
use super::opcodes::{DECORATION_OFFSET, OpCoding, is_debug_info, member_decoration_extra_operands, op};
use super::varint::{Sink, zigzag};

/// Decides, by name, which `OpName`s survive [`EncodeOptions::strip_debug`] (`true`: kept).
pub type NameFilter = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// Settings for [`encode`]; the default is lossless.
///
/// ```
/// use smolv_codec::EncodeOptions;
///
/// // Drop debug info, but keep the names of entry-point interface blocks.
/// let options = EncodeOptions::new()
///     .strip_debug(true)
///     .keep_names(|name| name.starts_with("u_"));
/// assert!(options.strips_debug());
/// ```
#[derive(Clone, Default)]
pub struct EncodeOptions {
    strip_debug: bool,
    keep_names: Option<NameFilter>,
}

impl EncodeOptions {
    /// Lossless encoding.
    ///
    /// ```
    /// use smolv_codec::{decode, encode, DecodeOptions, EncodeOptions};
    /// # let spirv = smolv_codec::doc_example_module();
    /// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
    /// assert_eq!(decode(&smolv, &DecodeOptions::new())?, spirv, "bit for bit");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Drops debug-only instructions (`OpSource*`, `OpName`, `OpLine`, ...).
    ///
    /// ```
    /// use smolv_codec::{decode, encode, DecodeOptions, EncodeOptions};
    /// # let spirv = smolv_codec::doc_example_module();
    /// let smolv = encode(&spirv[..], &EncodeOptions::new().strip_debug(true))?;
    /// // The module names `main` with an OpName, which stripping drops.
    /// assert!(decode(&smolv, &DecodeOptions::new())?.len() < spirv.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn strip_debug(mut self, strip: bool) -> Self {
        self.strip_debug = strip;
        self
    }

    /// While stripping, keeps each `OpName` whose name (lossily UTF-8) `keep` accepts.
    ///
    /// ```
    /// use smolv_codec::{decode, encode, DecodeOptions, EncodeOptions};
    /// # let spirv = smolv_codec::doc_example_module();
    /// let keep_main = EncodeOptions::new().strip_debug(true).keep_names(|name| name == "main");
    /// let smolv = encode(&spirv[..], &keep_main)?;
    /// assert_eq!(decode(&smolv, &DecodeOptions::new())?, spirv, "its only debug info is OpName %main");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn keep_names(mut self, keep: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        self.keep_names = Some(Arc::new(keep));
        self
    }

    /// Whether debug instructions are stripped.
    ///
    /// ```
    /// use smolv_codec::EncodeOptions;
    /// assert!(!EncodeOptions::new().strips_debug());
    /// assert!(EncodeOptions::new().strip_debug(true).strips_debug());
    /// ```
    pub fn strips_debug(&self) -> bool {
        self.strip_debug
    }

    fn strips(&self, opcode: u32, instruction: &[u32]) -> bool {
        if !self.strip_debug || !is_debug_info(opcode) {
            return false;
        }
        match &self.keep_names {
            Some(keep) if opcode == op::NAME => !keep(&spirv::literal_string(instruction.get(2..).unwrap_or_default())),
            _ => true,
        }
    }
}

impl fmt::Debug for EncodeOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodeOptions")
            .field("strip_debug", &self.strip_debug)
            .field("keep_names", &self.keep_names.as_ref().map(|_| "Fn(&str) -> bool"))
            .finish()
    }
}

/// Encodes SPIR-V as SMOL-V (encoding version 1), byte-for-byte as the reference encoder does.
///
/// ```
/// use smolv_codec::{decode, encode, DecodeOptions, EncodeOptions};
/// # let spirv = smolv_codec::doc_example_module();
/// let smolv = encode(&spirv[..], &EncodeOptions::new())?;
/// assert!(smolv.len() < spirv.len() * 4);
/// assert_eq!(decode(&smolv, &DecodeOptions::new())?, spirv);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode<S: SpirvInput + ?Sized>(spirv: &S, options: &EncodeOptions) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_into(spirv, options, &mut out)?;
    Ok(out)
}

/// Like [`encode`], but appends to `out`; on error, `out` is left as it was.
///
/// ```
/// use smolv_codec::{encode_into, EncodeOptions};
/// # let (a, b) = (smolv_codec::doc_example_module(), smolv_codec::doc_example_module());
/// let mut out = Vec::new();
/// encode_into(&a[..], &EncodeOptions::new(), &mut out)?;
/// let first = out.len();
/// encode_into(&b[..], &EncodeOptions::new(), &mut out)?; // appended
/// assert_eq!(out.len(), 2 * first);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn encode_into<S: SpirvInput + ?Sized>(
    spirv: &S,
    options: &EncodeOptions,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let words = spirv.spirv_words()?;
    check_header(&words)?;
    let decoded_len = decoded_len_field(words.len())?;
    let start = out.len();
    let mut encoder = Encoder {
        words: &words,
        options,
        out: Sink::new(core::mem::take(out)),
        decoded_len,
        size_field_at: 0,
        prev_result: 0,
        prev_decorate: 0,
    };
    let result = encoder.run();
    *out = encoder.out.finish();
    if result.is_err() {
        out.truncate(start);
    }
    result
}

fn check_header(words: &[u32]) -> Result<(), EncodeError> {
    if words.len() < SPIRV_HEADER_WORDS {
        return Err(EncodeError::TooShort { words: words.len() });
    }
    if words[0] != SPIRV_MAGIC {
        return Err(EncodeError::BadMagic { found: words[0] });
    }
    if !is_supported_spirv_version(words[1]) {
        return Err(EncodeError::UnsupportedVersion { version: words[1] });
    }
    Ok(())
}

/// The header's decoded-size field for a module of `words` words (bytes, in 32 bits).
fn decoded_len_field(words: usize) -> Result<u32, EncodeError> {
    words.checked_mul(4).and_then(|bytes| u32::try_from(bytes).ok()).ok_or(EncodeError::TooLarge { words })
}

struct Encoder<'a> {
    words: &'a [u32],
    options: &'a EncodeOptions,
    out: Sink,
    /// Bytes of the input module, as [`decoded_len_field`] checked them.
    decoded_len: u32,
    size_field_at: usize,
    prev_result: u32,
    prev_decorate: u32,
}

impl<'a> Encoder<'a> {
    /// Encodes a module whose header [`check_header`] accepted.
    fn run(&mut self) -> Result<(), EncodeError> {
        let words = self.words;
        // SMOL-V usually lands near a third of the SPIR-V size.
        self.out.reserve(words.len() * 2);
        self.out.word(SMOLV_MAGIC);
        self.out.word(words[1] | u32::from(CURRENT_ENCODING_VERSION) << 24);
        for &w in &words[2..SPIRV_HEADER_WORDS] {
            self.out.word(w);
        }
        self.size_field_at = self.out.len();
        self.out.word(self.decoded_len);

        let mut stripped_words = 0usize;
        let mut at = SPIRV_HEADER_WORDS;
        while at < words.len() {
            let (opcode, instruction) = self.instruction_at(at)?;
            if self.options.strips(opcode, instruction) {
                stripped_words += instruction.len();
                at += instruction.len();
                continue;
            }
            // At most five bytes per word, plus a member-decoration count.
            self.out.reserve(5 * instruction.len() + 1);
            at = self.instruction(at, opcode, instruction)?;
        }
        if stripped_words > 0 {
            // Smaller than the whole module, whose size fit.
            let size = decoded_len_field(words.len() - stripped_words)?;
            self.out.patch(self.size_field_at, &size.to_le_bytes());
        }
        Ok(())
    }

    /// The instruction starting at word `at`, checked to lie within the module.
    #[inline]
    fn instruction_at(&self, at: usize) -> Result<(u32, &'a [u32]), EncodeError> {
        match spirv::instruction_at(self.words, at) {
            Ok(instruction) => Ok((instruction.opcode(), instruction.words)),
            Err(bad) if bad.word_count == 0 => Err(EncodeError::ZeroLengthInstruction { offset: at }),
            Err(bad) => Err(EncodeError::TruncatedInstruction {
                offset: at,
                opcode: bad.opcode,
                len: bad.word_count,
                available: bad.available,
            }),
        }
    }

    /// Encodes the instruction at word `at` and returns where the next one starts.
    #[inline]
    fn instruction(&mut self, at: usize, opcode: u32, instruction: &[u32]) -> Result<usize, EncodeError> {
        let malformed = |reason| EncodeError::MalformedInstruction { offset: at, opcode, reason };
        let len = instruction.len();
        if opcode == op::VECTOR_SHUFFLE_COMPACT {
            // SMOL-V's compact shuffle, which would decode as an OpVectorShuffle.
            return Err(malformed("opcode 13 is not a SPIR-V instruction"));
        }

        // Shuffles of up to four components from the first four pack their selectors in one byte.
        let compact_swizzle = if opcode == op::VECTOR_SHUFFLE && len <= 9 {
            let selector = |i: usize| instruction.get(i).copied().unwrap_or(0);
            let selectors = [selector(5), selector(6), selector(7), selector(8)];
            selectors.iter().try_fold(0u8, |acc, &s| u8::try_from(s).ok().filter(|&s| s < 4).map(|s| acc << 2 | s))
        } else {
            None
        };
        let coded_op = if compact_swizzle.is_some() { op::VECTOR_SHUFFLE_COMPACT } else { opcode };

        let coding = OpCoding::for_encoding(coded_op);
        self.length_and_opcode(coding, len).ok_or_else(|| malformed("it is shorter than its opcode requires"))?;

        let layout = coding.layout();
        let mut operand = 1;
        if layout.has_type() {
            let ty = *instruction.get(operand).ok_or_else(|| malformed("its result type is missing"))?;
            self.out.varint(ty);
            operand += 1;
        }
        if layout.has_result() {
            let id = *instruction.get(operand).ok_or_else(|| malformed("its result id is missing"))?;
            self.out.varint(zigzag(id.wrapping_sub(self.prev_result)));
            self.prev_result = id;
            operand += 1;
        }
        if opcode == op::DECORATE || opcode == op::MEMBER_DECORATE {
            let target = *instruction.get(operand).ok_or_else(|| malformed("its target id is missing"))?;
            self.out.varint(zigzag(target.wrapping_sub(self.prev_decorate)));
            self.prev_decorate = target;
            if opcode == op::MEMBER_DECORATE {
                return self.member_decoration_run(at, target);
            }
            operand += 1;
        }

        let delta_end = (operand + layout.id_deltas()).min(len);
        for &id in &instruction[operand..delta_end] {
            self.out.varint(zigzag(self.prev_result.wrapping_sub(id)));
        }
        operand = delta_end;

        let rest = &instruction[operand..];
        if let Some(swizzle) = compact_swizzle {
            self.out.byte(swizzle);
        } else if layout.varint_rest() {
            for &w in rest {
                self.out.varint(w);
            }
        } else {
            for &w in rest {
                self.out.word(w);
            }
        }
        Ok(at + len)
    }

    /// Writes the length-and-opcode varint; `None` when shorter than the opcode's minimum.
    #[inline]
    fn length_and_opcode(&mut self, coding: OpCoding, len: usize) -> Option<()> {
        // Cannot fail: an instruction's word count is the 16-bit high half of its first word.
        let stored_len = u32::try_from(len).ok()?.checked_sub(coding.min_len())?;
        let coded = coding.mapped();
        // Interleaved so that an opcode below 16 with a stored length below 8 fits one byte.
        let packed = (stored_len >> 4) << 20 | (coded >> 4) << 8 | (stored_len & 0xF) << 4 | (coded & 0xF);
        self.out.varint(packed);
        Some(())
    }

    /// Encodes up to 255 `OpMemberDecorate`s on `target` from word `at` as one group; returns where they end.
    fn member_decoration_run(&mut self, at: usize, target: u32) -> Result<usize, EncodeError> {
        let count_at = self.out.len();
        self.out.byte(0);
        let mut count = 0u8;
        let mut prev_member = 0u32;
        let mut prev_offset = 0u32;
        let mut next = at;
        while next < self.words.len() && count < u8::MAX {
            let (opcode, instruction) = self.instruction_at(next)?;
            if opcode != op::MEMBER_DECORATE {
                break;
            }
            let malformed = |reason| EncodeError::MalformedInstruction { offset: next, opcode, reason };
            let [_, member_target, member, decoration, operands @ ..] = instruction else {
                return Err(malformed("it needs a target, a member index and a decoration"));
            };
            if *member_target != target {
                break;
            }
            self.out.reserve(5 * instruction.len());
            self.out.varint(member.wrapping_sub(prev_member));
            prev_member = *member;
            self.out.varint(*decoration);
            match member_decoration_extra_operands(*decoration) {
                None => self.out.varint(
                    // Cannot fail: the operands are part of one instruction, of at most 0xFFFF words.
                    u32::try_from(operands.len()).map_err(|_| malformed("it has more operands than SPIR-V allows"))?,
                ),
                Some(n) if n as usize == operands.len() => {}
                Some(_) => {
                    return Err(malformed("its decoration has the wrong number of operands"));
                }
            }
            if *decoration == DECORATION_OFFSET {
                // Checked above: Offset always carries exactly one operand.
                let offset = operands[0];
                self.out.varint(offset.wrapping_sub(prev_offset));
                prev_offset = offset;
            } else {
                for &w in operands {
                    self.out.varint(w);
                }
            }
            next += instruction.len();
            count += 1;
        }
        self.out.patch(count_at, &[count]);
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_of_4_gib_or_more_are_errors_not_a_truncated_size() {
        // Lengths only: nothing of this size is allocated.
        assert_eq!(decoded_len_field(5), Ok(20));
        assert_eq!(decoded_len_field((1 << 30) - 1), Ok(u32::MAX - 3));
        assert_eq!(decoded_len_field(1 << 30), Err(EncodeError::TooLarge { words: 1 << 30 }));
        assert_eq!(decoded_len_field(usize::MAX), Err(EncodeError::TooLarge { words: usize::MAX }));
    }

    #[test]
    fn compact_shuffles_take_only_selectors_below_four() {
        // %90 = OpVectorShuffle %2 %4 %4 <selectors>, inside the function:
        // compact (one byte for all four) only when each selector is 0..=3.
        let encoded_len = |selectors: [u32; 4]| {
            let mut module = crate::doc_example_module();
            let at = module.len() - 2; // before OpReturn, OpFunctionEnd
            module.splice(at..at, [0x0009_004F, 2, 90, 4, 4].into_iter().chain(selectors));
            module[3] = 91;
            let smolv = encode(&module[..], &EncodeOptions::new()).unwrap();
            assert_eq!(crate::decode(&smolv, &crate::DecodeOptions::new()).unwrap(), module, "{selectors:?}");
            smolv.len()
        };
        let compact = encoded_len([0, 1, 2, 3]);
        assert!(compact < encoded_len([0, 1, 2, 4]), "a selector of 4 is stored in full");
        // 0x103 would read as 3 if it were cut to a byte.
        assert!(compact < encoded_len([0, 1, 2, 0x103]), "a selector of 0x103 is stored in full");
    }
}
