//! Embedded sets: how `include_shaders!` and `include_shader!` carry
//! shaders in a binary (`docs/format.md`, "Embedded sets").
//!
//! `smolv-build` packs a crate's shaders in whichever way makes the binary
//! smallest, decoder code included: raw SPIR-V, SPIR-V with relative ids
//! (alone or + LZ4), SMOL-V, or SMOL-V + LZ4 or zstd, per module or as one
//! stream. The macros read the set's directory
//! at compile time and turn it into constant tables (no pointers, so no
//! relocations) and one `static` [`Shader`](crate::Shader) per module, so
//! nothing is built at run time, and name the [`Unpacker`] of that
//! packing, so only its decoders are linked. Decoded modules are checked
//! with a 32-bit xxHash (a stream or dictionary once, when it is
//! unpacked); see the format's threat model for why not blake3. Raw
//! modules are served as stored, zero-copy, and relative ids, which have
//! no decompression step, are checked by their conversion back.

// Inline in release builds, and only there (`debug_assertions` stands for
// the profile, as no cfg names the optimization level): everything an
// embedded set's decoding reaches (the shaders' vtable methods, the
// unpackers) is `#[inline]` in release, so that it is compiled into the
// crate that embeds the set and the binary links no object file of
// smolv-runtime. Linking one would bring all of that object's unwinding
// tables, which the linker keeps whether used or not, and through its
// references other objects' (about 5–11 KB; see the size test). In
// development builds the same code is compiled once, here, and the crate
// that embeds shaders only calls it: a Rust-only edit then recompiles
// none of it.

pub(crate) mod source;
// Without the macros nothing names the unpackers; without LZ4 and zstd the
// shared unpacking code has no user.
#[cfg_attr(not(all(feature = "macros", any(feature = "lz4", feature = "zstd-fast"))), allow(dead_code))]
#[cfg_attr(not(feature = "macros"), allow(unreachable_pub))]
pub(crate) mod unpack;
// Without the macros nothing names the WGSL kinds but the tests.
#[cfg_attr(not(feature = "macros"), allow(dead_code, unreachable_pub))]
mod wgsl;
#[cfg(feature = "macros")]
mod words;

use core::mem::ManuallyDrop;
use std::sync::OnceLock;

use source::{Cache, ShaderSource};
use unpack::{Decode, ModuleUnpacker, Packed, UnpackOnce, Unpacker, corrupt, len};
#[cfg(all(feature = "macros", feature = "lz4"))]
pub use wgsl::WGSL_LZ4;
#[cfg(all(feature = "macros", feature = "zstd-fast"))]
pub use wgsl::WGSL_ZSTD;
#[cfg(feature = "macros")]
pub use wgsl::{WGSL, WgslEntry, WgslModule, WgslSet, WgslUnpacker};
#[cfg(not(feature = "macros"))]
pub(crate) use wgsl::{WgslModule, WgslSet};
#[cfg(feature = "macros")]
pub use words::{le_words, spirv_module};

use crate::shader_error::{Failure, ShaderError};
use smolv_codec::DecodeOptions;

/// Decodes module `index` of `source` once and keeps the words, or serves
/// raw ones in place. One function for every kind, outside the vtables, so
/// that only programs that call `Shader::decode_cached` (or what uses it)
/// link it.
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn decode_cached(source: &dyn ShaderSource, index: usize) -> Result<&[u32], ShaderError> {
    let slot = match source.cache(index)? {
        Cache::One(slot) => slot,
        Cache::InSet(set) => {
            if let Some(words) = set.borrow_raw(index)? {
                return Ok(words);
            }
            // Leaked: an embedded set lives as long as the program.
            let slots = set.decoded.get_or_init(|| Vec::leak((0..set.len()).map(|_| OnceLock::new()).collect()));
            slots.get(index).ok_or_else(|| corrupt("a shader lies outside its set's table"))?
        }
    };
    if let Some(words) = slot.get() {
        return Ok(words);
    }
    let mut words = Vec::new();
    source.decode(index, &DecodeOptions::new(), &mut words)?;
    Ok(slot.get_or_init(|| words))
}

/// Copies raw `words` into `out`: into its allocation where they fit, else
/// as a fresh copy, so that no call links `Vec`'s growth path. Raw words are
/// served as the binary holds them, whatever the `DecodeOptions` say: they
/// were checked when it was compiled, and copying them allocates no more
/// than the binary already holds.
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn copy_words(words: &[u32], out: &mut Vec<u32>) {
    if out.capacity() >= words.len() {
        out.clear();
        out.extend_from_slice(words);
    } else {
        *out = words.to_vec();
    }
}

/// A module of SPIR-V with relative ids ([`crate::relative_ids`]) that the
/// macros embedded as words made at compile time. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct RelativeIdsModule {
    name: &'static str,
    words: &'static [u32],
    /// What `Shader::decode_cached` keeps.
    decoded: OnceLock<Vec<u32>>,
}

impl RelativeIdsModule {
    /// The module `name` of `words`. Not a stable API.
    #[cfg_attr(not(debug_assertions), inline)]
    pub const fn new(name: &'static str, words: &'static [u32]) -> Self {
        Self { name, words, decoded: OnceLock::new() }
    }
}

impl ShaderSource for RelativeIdsModule {
    #[cfg_attr(not(debug_assertions), inline)]
    fn name(&self, _: usize) -> &str {
        self.name
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn stored(&self, _: usize) -> &[u8] {
        bytemuck::cast_slice(self.words)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn spirv_len(&self, _: usize) -> usize {
        // Relative ids are exactly as many words as the SPIR-V.
        size_of_val(self.words)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn decode(&self, _: usize, _: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
        copy_words(self.words, out);
        unpack::relative_ids_back(out)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn cache(&self, _: usize) -> Result<Cache<'_>, ShaderError> {
        Ok(Cache::One(&self.decoded))
    }
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
    #[cfg_attr(not(debug_assertions), inline)]
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

/// Whether raw `words` can be served: they start with the SPIR-V magic.
#[cfg_attr(not(debug_assertions), inline)]
fn raw_intact(words: &[u32]) -> Result<&[u32], ShaderError> {
    match words.first() {
        Some(&0x0723_0203) => Ok(words),
        _ => Err(Failure::HashMismatch.into()),
    }
}

/// The words of a raw module, straight from the binary; `None` where they
/// cannot be borrowed (not raw, unaligned, or a big-endian target).
#[cfg_attr(not(debug_assertions), inline)]
fn borrow_raw(raw: bool, stored: &'static [u8], spirv_len: u32) -> Result<Option<&'static [u32]>, ShaderError> {
    if !raw || !cfg!(target_endian = "little") || stored.len() != len(spirv_len)? {
        return Ok(None);
    }
    match bytemuck::try_cast_slice::<u8, u32>(stored) {
        Ok(words) => raw_intact(words).map(Some),
        Err(_) => Ok(None),
    }
}

/// One module embedded on its own by `include_shader!`. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct EmbeddedModule {
    name: &'static str,
    unpacker: &'static ModuleUnpacker,
    stored: &'static [u8],
    /// The set's dictionary as stored (packed), if the codec uses one: it
    /// is unpacked on each decode.
    dictionary: &'static [u8],
    /// `(unpacked length, xxHash32)` of `dictionary`; `(0, 0)` without one.
    packed_dictionary: (u32, u32),
    unpacked_len: u32,
    spirv_len: u32,
    check: u32,
    /// What `Shader::decode_cached` keeps.
    decoded: OnceLock<Vec<u32>>,
}

impl EmbeddedModule {
    /// A module packed alone with `unpacker`'s codec; `dictionary` is the
    /// set's dictionary as stored, `packed_dictionary` its unpacked length
    /// and xxHash32, or `(0, 0)` without one.
    #[allow(clippy::too_many_arguments)]
    #[cfg_attr(not(debug_assertions), inline)]
    pub const fn new(
        name: &'static str,
        unpacker: &'static ModuleUnpacker,
        stored: &'static [u8],
        dictionary: &'static [u8],
        packed_dictionary: (u32, u32),
        unpacked_len: u32,
        spirv_len: u32,
        check: u32,
    ) -> Self {
        Self {
            name,
            unpacker,
            stored,
            dictionary,
            packed_dictionary,
            unpacked_len,
            spirv_len,
            check,
            decoded: OnceLock::new(),
        }
    }

    /// Decodes with the codec's `decode`; `unpack_once` unpacks the
    /// dictionary (on each decode), `None` for codecs without one.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn decode(
        &self,
        options: &DecodeOptions,
        out: &mut Vec<u32>,
        decode: Decode,
        unpack_once: Option<UnpackOnce>,
    ) -> Result<(), ShaderError> {
        let unpacked_dictionary = match (self.packed_dictionary, unpack_once) {
            ((0, _), _) | (_, None) => Vec::new(),
            (once, Some(unpack_once)) => unpack_once(self.dictionary, once)?,
        };
        let module = Packed {
            stored: self.stored,
            dictionary: &unpacked_dictionary,
            unpacked_len: self.unpacked_len,
            spirv_len: self.spirv_len,
            check: self.check,
            unpacked: false,
        };
        decode(&module, options, out)
    }

    /// Decodes with the codec's own entry point.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn decode_checked(&self, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
        (self.unpacker.decode)(self, options, out)
    }
}

/// What `include_shaders!` generates: the set's data and tables, and
/// what it unpacked once (a stream or a dictionary). Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct EmbeddedSet {
    unpacker: &'static Unpacker,
    data: &'static [u8],
    /// The codec's dictionary as stored (packed), if it uses one.
    dictionary: &'static [u8],
    names: &'static str,
    entries: &'static [EmbeddedEntry],
    /// `(unpacked length, xxHash32)` of what the set unpacks once: its
    /// stream (layout "one stream"), or its dictionary (a dictionary
    /// codec); `(0, 0)` for modules packed one by one without one.
    once: (u32, u32),
    /// What the set unpacked once, leaked (the set lives as long as the
    /// program). The cells are `ManuallyDrop` so that the set has no drop
    /// glue for its vtable to link.
    unpacked: ManuallyDrop<OnceLock<&'static [u8]>>,
    /// What `Shader::decode_cached` keeps, one slot per module, made on its
    /// first use (by [`decode_cached`]), leaked likewise.
    decoded: ManuallyDrop<OnceLock<&'static [OnceLock<Vec<u32>>]>>,
}

impl EmbeddedSet {
    /// A set: its codec, data, dictionary (as stored), names (one string),
    /// table, and the length and xxHash32 of what it unpacks once.
    #[cfg_attr(not(debug_assertions), inline)]
    pub const fn new(
        unpacker: &'static Unpacker,
        data: &'static [u8],
        dictionary: &'static [u8],
        names: &'static str,
        entries: &'static [EmbeddedEntry],
        once: (u32, u32),
    ) -> Self {
        Self {
            unpacker,
            data,
            dictionary,
            names,
            entries,
            once,
            unpacked: ManuallyDrop::new(OnceLock::new()),
            decoded: ManuallyDrop::new(OnceLock::new()),
        }
    }

    /// The codec the set is packed with.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn codec(&self) -> smolv_format::Codec {
        self.unpacker.codec
    }

    /// Whether the modules are packed as one stream, unpacked on first
    /// access.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn one_stream(&self) -> bool {
        self.once != (0, 0) && !self.unpacker.dictionary
    }

    /// Bytes of data, dictionary, names and table.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn stored_len(&self) -> usize {
        self.data.len() + self.dictionary.len() + self.names.len() + size_of_val(self.entries)
    }

    /// How many modules the set holds.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn entry(&self, index: usize) -> Result<&EmbeddedEntry, ShaderError> {
        self.entries.get(index).ok_or_else(|| corrupt("a shader lies outside its set's table"))
    }

    /// The name of module `index` (empty if the table is damaged).
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn name(&self, index: usize) -> &'static str {
        let start = match index.checked_sub(1) {
            Some(previous) => self.entries.get(previous).map_or(usize::MAX, |e| len(e.name_end).unwrap_or(usize::MAX)),
            None => 0,
        };
        let end = self.entries.get(index).map_or(0, |e| len(e.name_end).unwrap_or(0));
        self.names.get(start..end).unwrap_or_default()
    }

    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn spirv_len(&self, index: usize) -> Result<usize, ShaderError> {
        len(self.entry(index)?.spirv_len)
    }

    /// The stream or dictionary, unpacked and checked on first use and
    /// kept for the life of the program (an embedded set is a `static`).
    /// A failure is not kept: the next call tries again.
    #[cfg_attr(not(debug_assertions), inline)]
    fn unpacked_once(&self, unpack_once: UnpackOnce) -> Result<&'static [u8], ShaderError> {
        if let Some(unpacked) = self.unpacked.get() {
            return Ok(unpacked);
        }
        let packed = if self.unpacker.dictionary { self.dictionary } else { self.data };
        let unpacked = unpack_once(packed, self.once)?;
        Ok(self.unpacked.get_or_init(|| Vec::leak(unpacked)))
    }

    /// Module `index` as stored, with its dictionary if any; `stored` is
    /// its packed bytes, or its SMOL-V or relative ids in the unpacked
    /// stream.
    /// `unpack_once` unpacks streams and dictionaries: `None` for codecs
    /// that have neither.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn packed(&self, index: usize, unpack_once: Option<UnpackOnce>) -> Result<Packed<'static>, ShaderError> {
        let entry = self.entry(index)?;
        let (modules, dictionary, unpacked) = match unpack_once {
            None => (self.data, &[][..], false),
            Some(_) if self.once == (0, 0) && self.unpacker.dictionary => {
                return Err(corrupt("a set packed with a dictionary has none"));
            }
            Some(_) if self.once == (0, 0) => (self.data, &[][..], false),
            Some(unpack_once) if self.unpacker.dictionary => (self.data, self.unpacked_once(unpack_once)?, false),
            Some(unpack_once) => (self.unpacked_once(unpack_once)?, &[][..], true),
        };
        let offset = len(entry.offset)?;
        let end = offset.checked_add(len(entry.packed_len)?);
        let stored = end
            .and_then(|end| modules.get(offset..end))
            .ok_or_else(|| corrupt("a module lies outside its set's data"))?;
        Ok(Packed {
            stored,
            dictionary,
            unpacked_len: entry.unpacked_len,
            spirv_len: entry.spirv_len,
            check: entry.check,
            unpacked,
        })
    }

    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn borrow_raw(&self, index: usize) -> Result<Option<&'static [u32]>, ShaderError> {
        if !self.unpacker.raw {
            return Ok(None);
        }
        let module = self.packed(index, None)?;
        borrow_raw(true, module.stored, module.spirv_len)
    }
}

impl ShaderSource for EmbeddedModule {
    #[cfg_attr(not(debug_assertions), inline)]
    fn name(&self, _: usize) -> &str {
        self.name
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn stored(&self, _: usize) -> &[u8] {
        self.stored
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn spirv_len(&self, _: usize) -> usize {
        len(self.spirv_len).unwrap_or(0)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn decode(&self, _: usize, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
        self.decode_checked(options, out)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn cache(&self, _: usize) -> Result<Cache<'_>, ShaderError> {
        Ok(Cache::One(&self.decoded))
    }
}

impl ShaderSource for EmbeddedSet {
    #[cfg_attr(not(debug_assertions), inline)]
    fn name(&self, index: usize) -> &str {
        EmbeddedSet::name(self, index)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn stored(&self, index: usize) -> &[u8] {
        self.packed(index, self.unpacker.unpack_once).map_or(&[][..], |module| module.stored)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn spirv_len(&self, index: usize) -> usize {
        EmbeddedSet::spirv_len(self, index).unwrap_or(0)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn decode(&self, index: usize, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
        (self.unpacker.decode_in_set)(self, index, options, out)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn cache(&self, _: usize) -> Result<Cache<'_>, ShaderError> {
        Ok(Cache::InSet(self))
    }
}
