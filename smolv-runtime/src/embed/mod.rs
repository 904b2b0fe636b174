//! Embedded sets: how `include_shaders!` and `include_shader!` carry
//! shaders in a binary (`docs/format.md`, "Embedded sets").
//!
//! `smolv-build` packs a crate's shaders in whichever way makes the binary
//! smallest, decoder code included: raw SPIR-V, SMOL-V, or SMOL-V + LZ4 or
//! zstd, per module or as one stream. The macros read the set's directory
//! at compile time and turn it into constant tables (no pointers, so no
//! relocations), and name the [`Unpacker`] of that packing, so only its
//! decoders are linked. Decoded modules are checked with a 32-bit xxHash
//! (and a stream once, when it is unpacked); see the format's threat model
//! for why not blake3. Raw modules are served as stored, zero-copy.

// Without the macros nothing names the unpackers.
#[cfg_attr(not(feature = "macros"), allow(dead_code, unreachable_pub))]
pub(crate) mod unpack;

use unpack::{Hash, Unpacker};

use crate::container::{ContainerError, DecodeSettings};
use crate::shader::{Name, Shader, Source};

const WHAT: &str = "embedded shader";
const SPIRV_MAGIC: u32 = 0x0723_0203;

/// Whether decoded `words` are intact: their hash (of the words as
/// little-endian bytes) is `check`, or, for raw SPIR-V (no hash), they
/// start with the SPIR-V magic number.
#[inline]
fn intact(words: &[u32], hash: Option<Hash>, check: u32) -> bool {
    match hash {
        None => words.first() == Some(&SPIRV_MAGIC),
        Some(hash) if cfg!(target_endian = "little") => hash(bytemuck::cast_slice(words)) == check,
        Some(hash) => hash(&words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()) == check,
    }
}

/// Most bytes of SMOL-V that `spirv_len` bytes of SPIR-V can encode to: at
/// most five bytes per word plus a count byte, and the header.
#[inline]
fn max_smolv_len(spirv_len: usize) -> usize {
    24 + spirv_len / 4 * 6
}

#[inline]
fn corrupt(reason: &'static str) -> ContainerError {
    ContainerError::Corrupt { what: WHAT, reason }
}

/// A length from a generated table: tables hold `u32`s, which fit every
/// target Rust supports with `std` (`None` would mean one that does not).
#[inline]
fn len(value: u32) -> Option<usize> {
    usize::try_from(value).ok()
}

/// A length [`len`] already accepted.
#[inline]
fn checked(value: u32) -> usize {
    len(value).unwrap_or(usize::MAX)
}

/// One module of an embedded set's table, as `include_shaders!` writes it
/// from the directory (`docs/format.md`). Not a stable API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct EmbeddedEntry {
    name_end: u32,
    offset: u32,
    packed_len: u32,
    unpacked_len: u32,
    spirv_len: u32,
    check: u32,
}

impl EmbeddedEntry {
    /// An entry: where its name ends in the set's names, where its packed
    /// bytes are in the data (or the unpacked stream), their packed and
    /// unpacked lengths, its SPIR-V length and the xxHash32 of its SPIR-V.
    pub const fn new(
        name_end: u32,
        offset: u32,
        packed_len: u32,
        unpacked_len: u32,
        spirv_len: u32,
        check: u32,
    ) -> Self {
        Self { name_end, offset, packed_len, unpacked_len, spirv_len, check }
    }
}

/// One embedded module: its bytes, how to unpack them, and what they
/// must decode to.
#[derive(Debug)]
pub(crate) struct EmbeddedModule {
    pub(crate) stored: &'static [u8],
    pub(crate) unpacker: &'static Unpacker,
    pub(crate) dictionary: &'static [u8],
    pub(crate) unpacked_len: u32,
    pub(crate) spirv_len: u32,
    pub(crate) check: u32,
    /// A module of an unpacked stream: stored as it decodes.
    pub(crate) unpacked: bool,
}

impl EmbeddedModule {
    #[inline]
    pub(crate) fn stored(&self) -> &'static [u8] {
        self.stored
    }

    #[inline]
    pub(crate) fn spirv_len(&self) -> usize {
        checked(self.spirv_len)
    }

    /// Unpacks and decodes. Decoded modules are checked against their
    /// xxHash32; raw ones are served as stored, so only their magic number
    /// is checked (there is no decoding step to go wrong, and no hash code
    /// to link).
    #[inline]
    pub(crate) fn decode(&self, settings: &DecodeSettings, out: &mut Vec<u32>) -> Result<(), ContainerError> {
        let (spirv_len, unpacker) = (checked(self.spirv_len), self.unpacker);
        if spirv_len > settings.max_decoded_len {
            return Err(ContainerError::TooLarge { declared: spirv_len, limit: settings.max_decoded_len });
        }
        match unpacker.decompress.filter(|_| !self.unpacked) {
            None => (unpacker.decode)(self.stored, spirv_len, out)?,
            Some(decompress) => {
                let unpacked_len = checked(self.unpacked_len);
                if unpacked_len > max_smolv_len(spirv_len) {
                    return Err(corrupt("the packed module is larger than its SPIR-V could encode to"));
                }
                let mut unpacked = vec![0; unpacked_len];
                decompress(self.stored, self.dictionary, &mut unpacked)?;
                (unpacker.decode)(&unpacked, spirv_len, out)?;
            }
        }
        if (settings.verify_hash || unpacker.hash.is_none()) && !intact(out, unpacker.hash, self.check) {
            return Err(ContainerError::HashMismatch);
        }
        Ok(())
    }

    /// The words of a raw module, straight from the binary; `None` where
    /// they cannot be borrowed (not raw, unaligned, or a big-endian target).
    #[inline]
    pub(crate) fn borrow_raw(&self) -> Result<Option<&'static [u32]>, ContainerError> {
        let raw = self.unpacker.hash.is_none();
        if !raw || !cfg!(target_endian = "little") || self.stored.len() != checked(self.spirv_len) {
            return Ok(None);
        }
        let Ok(words) = bytemuck::try_cast_slice::<u8, u32>(self.stored) else {
            return Ok(None);
        };
        if !intact(words, None, self.check) {
            return Err(ContainerError::HashMismatch);
        }
        Ok(Some(words))
    }
}

/// The statics `include_shaders!` generates.
#[derive(Debug)]
pub(crate) struct EmbeddedSet {
    pub(crate) unpacker: &'static Unpacker,
    pub(crate) data: &'static [u8],
    pub(crate) dictionary: &'static [u8],
    pub(crate) names: &'static str,
    pub(crate) entries: &'static [EmbeddedEntry],
    /// Layout "one stream": its unpacked length and xxHash32; `(0, 0)` for
    /// modules packed one by one.
    pub(crate) stream: (u32, u32),
}

impl EmbeddedSet {
    #[inline]
    pub(crate) fn packing(&self) -> crate::shader::Packing {
        crate::shader::Packing { codec: self.unpacker.name, one_stream: self.stream.0 != 0 }
    }

    /// Bytes of data, dictionary, names and table.
    #[inline]
    pub(crate) fn stored_len(&self) -> usize {
        self.data.len() + self.dictionary.len() + self.names.len() + size_of_val(self.entries)
    }

    /// Makes one [`Shader`] per entry. A stream is unpacked and checked
    /// here, once, for the life of the program: an embedded set is a
    /// `static`, and its shaders borrow what it unpacked.
    #[inline]
    pub(crate) fn shaders(&self) -> Result<Vec<Shader>, ContainerError> {
        let (modules, unpacked) = match (self.stream, self.unpacker.decompress, self.unpacker.hash) {
            ((0, _), _, _) => (self.data, false),
            ((stream_len, check), Some(decompress), Some(hash)) => {
                let mut stream = vec![0; len(stream_len).ok_or_else(|| corrupt("the stream is too large"))?];
                decompress(self.data, self.dictionary, &mut stream)?;
                if hash(&stream) != check {
                    return Err(ContainerError::HashMismatch);
                }
                (&*Vec::leak(stream), true)
            }
            _ => return Err(corrupt("a set stored as is cannot be a stream")),
        };
        // Every range is checked first, so that the shaders are then made
        // by one exact-size `collect` (whose allocation code is generic, so
        // compiled where the set is embedded: see `unpack`).
        let mut name_start = 0;
        for entry in self.entries {
            let fits = |entry: &EmbeddedEntry| -> Option<usize> {
                let (name_end, offset, packed_len) = (len(entry.name_end)?, len(entry.offset)?, len(entry.packed_len)?);
                self.names.get(name_start..name_end)?;
                modules.get(offset..offset.checked_add(packed_len)?)?;
                len(entry.unpacked_len)?;
                len(entry.spirv_len)?;
                Some(name_end)
            };
            name_start = fits(entry).ok_or_else(|| corrupt("a name or module lies outside the set's data"))?;
        }
        let mut name_start = 0;
        let shaders = self
            .entries
            .iter()
            .map(|entry| {
                let (name_end, offset) = (checked(entry.name_end), checked(entry.offset));
                let name = self.names.get(name_start..name_end).unwrap_or_default();
                name_start = name_end;
                let module = EmbeddedModule {
                    stored: modules.get(offset..offset.saturating_add(checked(entry.packed_len))).unwrap_or_default(),
                    unpacker: self.unpacker,
                    dictionary: self.dictionary,
                    unpacked_len: entry.unpacked_len,
                    spirv_len: entry.spirv_len,
                    check: entry.check,
                    unpacked,
                };
                Shader::new(Name::Static(name), Source::Embedded(module))
            })
            .collect();
        Ok(shaders)
    }
}
