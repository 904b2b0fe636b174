//! Reading SPIR-V alike for every walker in smolv: the header, bytes → words, the instructions (a
//! [`BadInstruction`] ends them) and literal strings. Names come from the [`spirv`] crate ([`spec`]).
//!
//! ```
//! use smolv_format::spirv::{self, Op};
//! let module = smolv_format::doc_example_module();
//! assert_eq!(spirv::Header::read(&module).map(|h| h.bound), Some(5));
//! let ops: Vec<_> = spirv::instructions(&module).map(|i| i.unwrap().op()).take(2).collect();
//! assert_eq!(ops, [Some(Op::Capability), Some(Op::MemoryModel)]);
//! ```

use alloc::string::String;
use alloc::vec::Vec;

pub use ::spirv as spec;
pub use ::spirv::{Decoration, Op, StorageClass};

/// The first word of every SPIR-V module.
pub const MAGIC: u32 = ::spirv::MAGIC_NUMBER;
/// Words in a module header: magic, version, generator, id bound, schema.
pub const HEADER_WORDS: usize = 5;

/// The header of a module, after its magic number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The version word (`0x0001_0300` for 1.3).
    pub version: u32,
    /// The generator's magic word.
    pub generator: u32,
    /// Every id is below it.
    pub bound: u32,
    /// Reserved; 0.
    pub schema: u32,
}

impl Header {
    /// The header of `words`: `None` unless they start with [`MAGIC`] and hold all five.
    #[inline]
    pub fn read(words: &[u32]) -> Option<Self> {
        match *words {
            [MAGIC, version, generator, bound, schema, ..] => Some(Self { version, generator, bound, schema }),
            _ => None,
        }
    }
}

/// Why bytes are not a SPIR-V module ([`words_from_bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotSpirv {
    /// Not a whole number of words.
    #[error("not a SPIR-V module: {len} bytes is not a whole number of 32-bit words")]
    Unaligned {
        /// The length in bytes.
        len: usize,
    },
    /// No bytes at all.
    #[error("not a SPIR-V module: the file is empty")]
    Empty,
    /// The first word is not [`MAGIC`] in either byte order.
    #[error("not a SPIR-V module: the magic number is {found:#010x}, not 0x07230203")]
    Magic {
        /// The first word, read little-endian.
        found: u32,
    },
    /// Shorter than [`HEADER_WORDS`].
    #[error("not a SPIR-V module: {words} words is shorter than the 5-word header")]
    Short {
        /// The length in words.
        words: usize,
    },
}

/// The words of a module stored as bytes in either byte order, checked.
///
/// ```
/// use smolv_format::spirv::{NotSpirv, words_from_bytes};
/// let module = smolv_format::doc_example_module();
/// let big: Vec<u8> = module.iter().flat_map(|w| w.to_be_bytes()).collect();
/// assert_eq!(words_from_bytes(&big)?, module);
/// assert_eq!(words_from_bytes(&[0; 3]), Err(NotSpirv::Unaligned { len: 3 }));
/// # Ok::<(), NotSpirv>(())
/// ```
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, NotSpirv> {
    if !bytes.len().is_multiple_of(4) {
        return Err(NotSpirv::Unaligned { len: bytes.len() });
    }
    let word = |c: &[u8]| [c[0], c[1], c[2], c[3]];
    let words: Vec<u32> = match bytes.get(..4).map(word) {
        None => return Err(NotSpirv::Empty),
        Some(first) if u32::from_le_bytes(first) == MAGIC => {
            bytes.chunks_exact(4).map(|c| u32::from_le_bytes(word(c))).collect()
        }
        Some(first) if u32::from_be_bytes(first) == MAGIC => {
            bytes.chunks_exact(4).map(|c| u32::from_be_bytes(word(c))).collect()
        }
        Some(first) => return Err(NotSpirv::Magic { found: u32::from_le_bytes(first) }),
    };
    if words.len() < HEADER_WORDS {
        return Err(NotSpirv::Short { words: words.len() });
    }
    Ok(words)
}

/// An instruction whose word count is zero or runs past the end of the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the SPIR-V instruction at word {offset} (opcode {opcode}) has a word count of {word_count}, but {available} \
     words are left: the module is truncated or not SPIR-V"
)]
pub struct BadInstruction {
    /// Index of the instruction's first word in the module.
    pub offset: usize,
    /// Its opcode.
    pub opcode: u32,
    /// Its word count: 0, or more than `available`.
    pub word_count: usize,
    /// Words from `offset` to the end of the module.
    pub available: usize,
}

/// The word count and opcode an instruction's first word holds.
#[inline(always)]
pub const fn split_first_word(first: u32) -> (usize, u32) {
    ((first >> 16) as usize, first & 0xFFFF)
}

/// Where the instruction at word `at` (first word `first`) of a `len`-word module ends ([`instruction_at`]'s check).
///
/// # Errors
/// - [`BadInstruction`]: a word count of zero or one past `len`.
#[inline(always)]
pub fn instruction_end(len: usize, at: usize, first: u32) -> Result<usize, BadInstruction> {
    let (word_count, opcode) = split_first_word(first);
    let available = len.saturating_sub(at);
    if word_count == 0 || word_count > available {
        return Err(BadInstruction { offset: at, opcode, word_count, available });
    }
    Ok(at + word_count)
}

/// The instruction at word `at` of `module`.
///
/// # Errors
/// - [`BadInstruction`]: a word count of zero or one that runs past the end.
#[inline(always)]
pub fn instruction_at(module: &[u32], at: usize) -> Result<Instruction<'_>, BadInstruction> {
    let first = module.get(at).copied().unwrap_or(0);
    let end = instruction_end(module.len(), at, first)?;
    Ok(Instruction { offset: at, words: &module[at..end] })
}

/// One instruction: its words, the first holding its word count and opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// Index of its first word in the module.
    pub offset: usize,
    /// All its words (at least one).
    pub words: &'a [u32],
}

impl<'a> Instruction<'a> {
    /// The opcode number.
    #[inline(always)]
    pub fn opcode(&self) -> u32 {
        self.words[0] & 0xFFFF
    }

    /// The opcode, if the SPIR-V grammar knows it.
    #[inline]
    pub fn op(&self) -> Option<Op> {
        Op::from_u32(self.opcode())
    }

    /// The words after the first.
    #[inline]
    pub fn operands(&self) -> &'a [u32] {
        &self.words[1..]
    }

    /// Operand `i` (from 0 after the first word), or 0 where there is none.
    #[inline]
    pub fn operand(&self, i: usize) -> u32 {
        self.operands().get(i).copied().unwrap_or(0)
    }

    /// The operands from `i` on (empty where there are fewer).
    #[inline]
    pub fn operands_from(&self, i: usize) -> &'a [u32] {
        self.operands().get(i..).unwrap_or_default()
    }

    /// The literal string starting at operand `i` ([`literal_string`]).
    pub fn string(&self, i: usize) -> String {
        literal_string(self.operands_from(i))
    }

    /// Whether it is debug information no consumer needs (names are not).
    #[inline]
    pub fn is_debug_source(&self) -> bool {
        matches!(
            self.op(),
            Some(
                Op::SourceContinued
                    | Op::Source
                    | Op::SourceExtension
                    | Op::String
                    | Op::Line
                    | Op::NoLine
                    | Op::ModuleProcessed
            )
        )
    }
}

/// The instructions of a module after its header; a [`BadInstruction`] ends them.
#[derive(Clone, Debug)]
pub struct Instructions<'a> {
    module: &'a [u32],
    at: usize,
}

/// The instructions of `module` (header included in `module`, not checked).
///
/// ```
/// use smolv_format::spirv::{BadInstruction, instructions};
/// let damaged = [0x0723_0203, 0x0001_0000, 0, 1, 0, (2 << 16) | 17, 1, 0];
/// let read: Vec<_> = instructions(&damaged).collect();
/// assert_eq!(read.len(), 2);
/// assert_eq!(read[1], Err(BadInstruction { offset: 7, opcode: 0, word_count: 0, available: 1 }));
/// ```
pub fn instructions(module: &[u32]) -> Instructions<'_> {
    Instructions { module, at: HEADER_WORDS.min(module.len()) }
}

impl<'a> Instructions<'a> {
    /// Until the first [`BadInstruction`], which is dropped.
    pub fn until_damage(self) -> impl Iterator<Item = Instruction<'a>> {
        self.map_while(Result::ok)
    }
}

impl<'a> Iterator for Instructions<'a> {
    type Item = Result<Instruction<'a>, BadInstruction>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.module.len() {
            return None;
        }
        let read = instruction_at(self.module, self.at);
        self.at = read.as_ref().map_or(self.module.len(), |i| i.offset + i.words.len());
        Some(read)
    }
}

impl core::iter::FusedIterator for Instructions<'_> {}

/// The `OpCapability` and `OpExtension` instructions of `module`, in order.
pub fn declarations(module: &[u32]) -> impl Iterator<Item = Instruction<'_>> {
    instructions(module)
        .until_damage()
        .take_while(|i| i.op() != Some(Op::MemoryModel))
        .filter(|i| matches!(i.op(), Some(Op::Capability | Op::Extension)))
}

/// The instructions of `module` before its first `OpFunction`.
pub fn globals(module: &[u32]) -> impl Iterator<Item = Result<Instruction<'_>, BadInstruction>> {
    instructions(module).take_while(|i| i.as_ref().map_or(true, |i| i.op() != Some(Op::Function)))
}

/// Words a literal string at the start of `words` takes, its NUL included.
///
/// ```
/// use smolv_format::spirv::literal_string_words;
/// assert_eq!(literal_string_words(&[u32::from_le_bytes(*b"main"), 0, 7]), 2);
/// ```
pub fn literal_string_words(words: &[u32]) -> usize {
    words.iter().position(|w| w.to_le_bytes().contains(&0)).map_or(words.len(), |i| i + 1)
}

/// A SPIR-V literal string, up to its NUL; bytes that are not UTF-8 become U+FFFD.
///
/// ```
/// use smolv_format::spirv::literal_string;
/// let main = u32::from_le_bytes(*b"main");
/// assert_eq!(literal_string(&[main, 0]), "main");
/// assert_eq!(literal_string(&[u32::from_le_bytes(*b"ab\0c")]), "ab");
/// ```
pub fn literal_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}
