//! Embedded sets (`docs/format.md`): constant tables the macros write, with the
//! [`Unpacker`] of their packing, so only its decoders are linked.

// What embedded decoding reaches is `#[inline]` in release builds, so the binary links no
// object file of smolv-runtime (see the size test).

pub(crate) mod source;
#[cfg_attr(not(all(feature = "macros", any(feature = "lz4", feature = "zstd-fast"))), allow(dead_code))]
#[cfg_attr(not(feature = "macros"), allow(unreachable_pub))]
pub(crate) mod unpack;
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

/// Decodes module `index` of `source` once and keeps the words (linked only where called).
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn decode_cached(source: &dyn ShaderSource, index: usize) -> Result<&[u32], ShaderError> {
    let slot = match source.cache(index)? {
        Cache::One(slot) => slot,
        Cache::InSet(set) => {
            if let Some(words) = set.borrow_raw(index)? {
                return Ok(words);
            }
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

/// A stream or dictionary, unpacked on first use and kept in `slot` (a failure is not).
#[cfg_attr(not(debug_assertions), inline)]
fn unpacked_once(
    slot: &OnceLock<&'static [u8]>,
    unpack_once: UnpackOnce,
    packed: &[u8],
    once: (u32, u32),
) -> Result<&'static [u8], ShaderError> {
    if let Some(unpacked) = slot.get() {
        return Ok(unpacked);
    }
    let unpacked = unpack_once(packed, once)?;
    Ok(slot.get_or_init(|| Vec::leak(unpacked)))
}

/// Name `index` of a set's `names`, which end where `name_end` says.
#[cfg_attr(not(debug_assertions), inline)]
fn name_in(names: &str, name_end: impl Fn(usize) -> Option<u32>, index: usize) -> &str {
    let end = |i| name_end(i).map(|end| len(end).unwrap_or(usize::MAX));
    let start = index.checked_sub(1).map_or(Some(0), end).unwrap_or(usize::MAX);
    names.get(start..end(index).unwrap_or(0)).unwrap_or_default()
}

/// Copies raw `words` into `out` without linking `Vec`'s growth path.
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn copy_words(words: &[u32], out: &mut Vec<u32>) {
    if out.capacity() >= words.len() {
        out.clear();
        out.extend_from_slice(words);
    } else {
        *out = words.to_vec();
    }
}

/// A module of SPIR-V with relative ids embedded as words. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct RelativeIdsModule {
    name: &'static str,
    words: &'static [u32],
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

/// One module of an embedded set's table. Not a stable API.
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
    /// An entry: name end, offset, packed and unpacked lengths, SPIR-V length and xxHash32.
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

/// One module embedded on its own by `include_shader!`. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct EmbeddedModule {
    name: &'static str,
    unpacker: &'static ModuleUnpacker,
    stored: &'static [u8],
    /// The set's dictionary as stored, unpacked on each decode.
    dictionary: &'static [u8],
    /// `(unpacked length, xxHash32)` of `dictionary`, or `(0, 0)`.
    packed_dictionary: (u32, u32),
    unpacked_len: u32,
    spirv_len: u32,
    check: u32,
    decoded: OnceLock<Vec<u32>>,
}

impl EmbeddedModule {
    /// A module packed alone with `unpacker`'s codec.
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

    /// Decodes with the codec's `decode`; `unpack_once` unpacks the dictionary, if any.
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
}

/// What `include_shaders!` generates. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct EmbeddedSet {
    unpacker: &'static Unpacker,
    data: &'static [u8],
    /// The codec's dictionary as stored, if it uses one.
    dictionary: &'static [u8],
    names: &'static str,
    entries: &'static [EmbeddedEntry],
    /// `(unpacked length, xxHash32)` of its stream or dictionary; `(0, 0)` without.
    once: (u32, u32),
    /// What the set unpacked once, leaked; `ManuallyDrop` for no drop glue.
    unpacked: ManuallyDrop<OnceLock<&'static [u8]>>,
    /// What [`decode_cached`] keeps, one slot per module, leaked likewise.
    decoded: ManuallyDrop<OnceLock<&'static [OnceLock<Vec<u32>>]>>,
}

impl EmbeddedSet {
    /// A set: its codec, data, dictionary, names, table and `once`.
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

    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn codec(&self) -> smolv_format::Codec {
        self.unpacker.codec
    }

    /// Whether the modules are packed as one stream.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn one_stream(&self) -> bool {
        self.once != (0, 0) && !self.unpacker.dictionary
    }

    /// Bytes of data, dictionary, names and table.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn stored_len(&self) -> usize {
        self.data.len() + self.dictionary.len() + self.names.len() + size_of_val(self.entries)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn entry(&self, index: usize) -> Result<&EmbeddedEntry, ShaderError> {
        self.entries.get(index).ok_or_else(|| corrupt("a shader lies outside its set's table"))
    }

    /// Module `index` as stored, with its dictionary if any; `unpack_once` is `None` for
    /// codecs without streams and dictionaries.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn packed(&self, index: usize, unpack_once: Option<UnpackOnce>) -> Result<Packed<'static>, ShaderError> {
        let entry = self.entry(index)?;
        let (modules, dictionary, unpacked) = match unpack_once {
            None => (self.data, &[][..], false),
            Some(_) if self.once == (0, 0) && self.unpacker.dictionary => {
                return Err(corrupt("a set packed with a dictionary has none"));
            }
            Some(_) if self.once == (0, 0) => (self.data, &[][..], false),
            Some(unpack_once) if self.unpacker.dictionary => {
                (self.data, unpacked_once(&self.unpacked, unpack_once, self.dictionary, self.once)?, false)
            }
            Some(unpack_once) => (unpacked_once(&self.unpacked, unpack_once, self.data, self.once)?, &[][..], true),
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

    /// The words of a raw module, from the binary; `None` where they cannot be borrowed.
    #[cfg_attr(not(debug_assertions), inline)]
    pub(crate) fn borrow_raw(&self, index: usize) -> Result<Option<&'static [u32]>, ShaderError> {
        if !self.unpacker.raw {
            return Ok(None);
        }
        let module = self.packed(index, None)?;
        if !cfg!(target_endian = "little") || module.stored.len() != len(module.spirv_len)? {
            return Ok(None);
        }
        match bytemuck::try_cast_slice::<u8, u32>(module.stored) {
            Ok(words) if words.first() == Some(&0x0723_0203) => Ok(Some(words)),
            Ok(_) => Err(Failure::HashMismatch.into()),
            Err(_) => Ok(None),
        }
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
        (self.unpacker.decode)(self, options, out)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn cache(&self, _: usize) -> Result<Cache<'_>, ShaderError> {
        Ok(Cache::One(&self.decoded))
    }
}

impl ShaderSource for EmbeddedSet {
    #[cfg_attr(not(debug_assertions), inline)]
    fn name(&self, index: usize) -> &str {
        name_in(self.names, |i| self.entries.get(i).map(|e| e.name_end), index)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn stored(&self, index: usize) -> &[u8] {
        self.packed(index, self.unpacker.unpack_once).map_or(&[][..], |module| module.stored)
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn spirv_len(&self, index: usize) -> usize {
        self.entry(index).and_then(|entry| len(entry.spirv_len)).unwrap_or(0)
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
