//! Unpacking embedded shaders: decompress, decode, check. Each codec is a table of
//! functions only the macros name, so a binary links only the decoders it needs.

use smolv_format::Codec;

use super::{EmbeddedModule, EmbeddedSet};
use crate::shader_error::{Failure, ShaderError};
use smolv_codec::DecodeOptions;
use smolv_codec::smolv::decode_current_into;
use xxhash_rust::xxh32::xxh32;

const SPIRV_MAGIC: u32 = 0x0723_0203;

/// The error for an inconsistent table or damaged data.
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn corrupt(reason: &'static str) -> ShaderError {
    Failure::Corrupt(reason).into()
}

/// A length from a generated table; one that does not fit is an error.
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn len(value: u32) -> Result<usize, ShaderError> {
    usize::try_from(value).map_err(|_| corrupt("a length does not fit this target"))
}

/// One module as stored, with what decoding it needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Packed<'a> {
    pub(crate) stored: &'a [u8],
    /// The codec's dictionary, unpacked; empty without one.
    pub(crate) dictionary: &'a [u8],
    pub(crate) unpacked_len: u32,
    pub(crate) spirv_len: u32,
    /// xxHash32 (seed 0) of the decoded SPIR-V.
    pub(crate) check: u32,
    /// Stored as it decodes: a module of an unpacked stream.
    pub(crate) unpacked: bool,
}

/// Decompresses `packed` (with `dictionary`, maybe empty) into `out`, exactly as long as the result.
type Decompress = fn(packed: &[u8], dictionary: &[u8], out: &mut [u8]) -> Result<(), ShaderError>;

/// Decodes one module into `out`, checked.
pub(crate) type Decode = fn(&Packed<'_>, &DecodeOptions, &mut Vec<u32>) -> Result<(), ShaderError>;

/// Unpacks a set's stream or dictionary to `(length, check)`.
pub(crate) type UnpackOnce = fn(&[u8], (u32, u32)) -> Result<Vec<u8>, ShaderError>;

/// Decodes module `index` of a set.
type DecodeInSet = fn(&EmbeddedSet, usize, &DecodeOptions, &mut Vec<u32>) -> Result<(), ShaderError>;

/// Decodes a module embedded on its own.
type DecodeAlone = fn(&EmbeddedModule, &DecodeOptions, &mut Vec<u32>) -> Result<(), ShaderError>;

/// One codec of the embedded-set format, as the macros name it. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct Unpacker {
    /// The codec it unpacks.
    pub(crate) codec: Codec,
    pub(crate) decode_in_set: DecodeInSet,
    /// Unpacks a stream or dictionary (for `Shader::stored_bytes`).
    pub(crate) unpack_once: Option<UnpackOnce>,
    /// Whether modules are packed against a dictionary (unpacked once).
    pub(crate) dictionary: bool,
    /// Raw SPIR-V: stored as it decodes, so it can be served zero-copy.
    pub(crate) raw: bool,
}

impl Unpacker {
    const fn new(codec: Codec, decode_in_set: DecodeInSet, unpack_once: Option<UnpackOnce>) -> Self {
        Self { codec, decode_in_set, unpack_once, dictionary: false, raw: false }
    }
}

/// Each codec's entry points, from a set's table (or a lone module) to checked words.
macro_rules! entry_points {
    ($in_set:ident, $alone:ident, $decode:expr, $unpack_once:expr) => {
        entry_points!($in_set, $decode, $unpack_once);

        #[cfg_attr(not(debug_assertions), inline)]
        fn $alone(module: &EmbeddedModule, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
            module.decode(options, out, $decode, $unpack_once)
        }
    };
    ($in_set:ident, $decode:expr, $unpack_once:expr) => {
        #[cfg_attr(not(debug_assertions), inline)]
        fn $in_set(
            set: &EmbeddedSet,
            index: usize,
            options: &DecodeOptions,
            out: &mut Vec<u32>,
        ) -> Result<(), ShaderError> {
            $decode(&set.packed(index, $unpack_once)?, options, out)
        }
    };
}

// Small sets of words are made at compile time (`super::spirv_module`); these serve large ones.
entry_points!(raw_in_set, decode_raw, None);
entry_points!(relative_ids_in_set, decode_relative_ids, None);
entry_points!(smolv_in_set, smolv_alone, decode_smolv, None);
#[cfg(feature = "lz4")]
entry_points!(lz4_in_set, lz4_alone, decode_lz4, Some(unpack_once_lz4 as UnpackOnce));
#[cfg(feature = "lz4")]
entry_points!(
    relative_ids_lz4_in_set,
    relative_ids_lz4_alone,
    decode_relative_ids_lz4,
    Some(unpack_once_lz4 as UnpackOnce)
);
#[cfg(feature = "zstd-fast")]
entry_points!(zstd_in_set, zstd_alone, decode_zstd, Some(unpack_once_zstd as UnpackOnce));

/// What `include_shader!` names for a lone module (apart from sets', so neither links the
/// other's code). Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct ModuleUnpacker {
    pub(crate) decode: DecodeAlone,
}

/// SMOL-V, one module.
pub const SMOLV_MODULE: ModuleUnpacker = ModuleUnpacker { decode: smolv_alone };
/// SMOL-V + LZ4, one module.
#[cfg(feature = "lz4")]
pub const SMOLV_LZ4_MODULE: ModuleUnpacker = ModuleUnpacker { decode: lz4_alone };
/// SPIR-V with relative ids + LZ4, one module.
#[cfg(feature = "lz4")]
pub const RELATIVE_IDS_LZ4_MODULE: ModuleUnpacker = ModuleUnpacker { decode: relative_ids_lz4_alone };
/// SMOL-V + zstd, one module, with or without the set's dictionary.
#[cfg(feature = "zstd-fast")]
pub const SMOLV_ZSTD_MODULE: ModuleUnpacker = ModuleUnpacker { decode: zstd_alone };

/// Raw SPIR-V: nothing to decompress or decode.
pub const RAW: Unpacker = Unpacker { raw: true, ..Unpacker::new(Codec::Spirv, raw_in_set, None) };
/// SPIR-V with relative ids ([`crate::relative_ids`]).
pub const RELATIVE_IDS: Unpacker = Unpacker::new(Codec::SpirvRelativeIds, relative_ids_in_set, None);
/// SMOL-V, stored as is.
pub const SMOLV: Unpacker = Unpacker::new(Codec::Smolv, smolv_in_set, None);
/// SMOL-V + LZ4 blocks.
#[cfg(feature = "lz4")]
pub const SMOLV_LZ4: Unpacker = Unpacker::new(Codec::SmolvLz4, lz4_in_set, Some(unpack_once_lz4));
/// SPIR-V with relative ids + LZ4 blocks.
#[cfg(feature = "lz4")]
pub const RELATIVE_IDS_LZ4: Unpacker =
    Unpacker::new(Codec::SpirvRelativeIdsLz4, relative_ids_lz4_in_set, Some(unpack_once_lz4));
/// SMOL-V + zstd frames.
#[cfg(feature = "zstd-fast")]
pub const SMOLV_ZSTD: Unpacker = Unpacker::new(Codec::SmolvZstd, zstd_in_set, Some(unpack_once_zstd));
/// SMOL-V + zstd frames with a shared dictionary (itself one zstd frame).
#[cfg(feature = "zstd-fast")]
pub const SMOLV_ZSTD_DICTIONARY: Unpacker =
    Unpacker { dictionary: true, ..Unpacker::new(Codec::SmolvZstdDictionary, zstd_in_set, Some(unpack_once_zstd)) };

/// The module's SPIR-V length, if `options` allow it.
#[cfg_attr(not(debug_assertions), inline)]
fn spirv_len(module: &Packed<'_>, options: &DecodeOptions) -> Result<usize, ShaderError> {
    let spirv_len = len(module.spirv_len)?;
    if spirv_len > options.decoded_len_limit() {
        return Err(Failure::TooLarge { declared: spirv_len, limit: options.decoded_len_limit() }.into());
    }
    Ok(spirv_len)
}

/// Raw SPIR-V: copied as stored, checked by its magic number only.
#[cfg_attr(not(debug_assertions), inline)]
fn decode_raw(module: &Packed<'_>, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
    if module.stored.len() != spirv_len(module, options)? {
        return Err(corrupt("raw SPIR-V is not the recorded size"));
    }
    if cfg!(target_endian = "little") {
        let words = bytemuck::try_cast_slice::<u8, u32>(module.stored)
            .map_err(|_| corrupt("raw SPIR-V is not 4-byte aligned"))?;
        super::copy_words(words, out);
    } else {
        words_from_bytes(module.stored, out);
    }
    if out.first() != Some(&SPIRV_MAGIC) {
        return Err(Failure::HashMismatch.into());
    }
    Ok(())
}

/// SPIR-V with relative ids, converted back in place. No hash: the build checked the
/// conversion, which checks the magic number and every instruction's word count.
#[cfg_attr(not(debug_assertions), inline)]
fn decode_relative_ids(module: &Packed<'_>, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
    if module.stored.len() != spirv_len(module, options)? || !module.stored.len().is_multiple_of(4) {
        return Err(corrupt("SPIR-V with relative ids is not the recorded size"));
    }
    words_from_bytes(module.stored, out);
    relative_ids_back(out)
}

/// Converts words with relative ids back to SPIR-V in place.
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn relative_ids_back(words: &mut [u32]) -> Result<(), ShaderError> {
    Ok(smolv_codec::relative_ids::decode_in_place(words)?)
}

/// Little-endian `bytes`, at any alignment, as the words of `out`.
#[cfg_attr(not(debug_assertions), inline)]
fn words_from_bytes(bytes: &[u8], out: &mut Vec<u32>) {
    let words = bytes.len() / 4;
    out.clear();
    out.resize(words, 0);
    bytemuck::cast_slice_mut::<u32, u8>(out).copy_from_slice(&bytes[..words * 4]);
    from_le_in_place(out);
}

/// Words just copied from little-endian bytes, in the target's order.
#[cfg_attr(not(debug_assertions), inline)]
fn from_le_in_place(words: &mut [u32]) {
    if cfg!(target_endian = "big") {
        words.iter_mut().for_each(|word| *word = u32::from_le(*word));
    }
}

/// Whether decoded `words` hash (as little-endian bytes) to `check`.
#[cfg_attr(not(debug_assertions), inline)]
fn intact(words: &[u32], check: u32) -> bool {
    if cfg!(target_endian = "little") {
        xxh32(bytemuck::cast_slice(words), 0) == check
    } else {
        xxh32(&words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>(), 0) == check
    }
}

/// Decodes unpacked SMOL-V to exactly `spirv_len` bytes, and checks them.
#[cfg_attr(not(debug_assertions), inline)]
fn finish_smolv(
    smolv: &[u8],
    spirv_len: usize,
    module: &Packed<'_>,
    options: &DecodeOptions,
    out: &mut Vec<u32>,
) -> Result<(), ShaderError> {
    decode_current_into(smolv, out, spirv_len)?;
    if out.len().checked_mul(4) != Some(spirv_len) {
        out.clear();
        return Err(corrupt("SMOL-V decodes to a different size than recorded"));
    }
    if options.verifies_hash() && !intact(out, module.check) {
        return Err(Failure::HashMismatch.into());
    }
    Ok(())
}

#[cfg_attr(not(debug_assertions), inline)]
fn decode_smolv(module: &Packed<'_>, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
    let spirv_len = spirv_len(module, options)?;
    finish_smolv(module.stored, spirv_len, module, options, out)
}

/// Decompresses a module (unless it is in an unpacked stream), then decodes its SMOL-V.
#[cfg_attr(not(debug_assertions), inline)]
fn decode_packed(
    module: &Packed<'_>,
    options: &DecodeOptions,
    out: &mut Vec<u32>,
    decompress: Decompress,
) -> Result<(), ShaderError> {
    let spirv_len = spirv_len(module, options)?;
    if module.unpacked {
        return finish_smolv(module.stored, spirv_len, module, options, out);
    }
    let unpacked_len = len(module.unpacked_len)?;
    // The most bytes of SMOL-V that `spirv_len` bytes of SPIR-V can encode to: 6 a word, and the header.
    if unpacked_len > 24 + spirv_len / 4 * 6 {
        return Err(corrupt("the packed module is larger than its SMOL-V could encode to"));
    }
    let mut unpacked = vec![0; unpacked_len];
    decompress(module.stored, module.dictionary, &mut unpacked)?;
    finish_smolv(&unpacked, spirv_len, module, options, out)
}

/// Unpacks one block to exactly `unpacked_len` bytes hashing to `check`.
#[cfg_attr(not(debug_assertions), inline)]
fn unpack_once_with(
    packed: &[u8],
    (unpacked_len, check): (u32, u32),
    decompress: Decompress,
) -> Result<Vec<u8>, ShaderError> {
    let mut unpacked = vec![0; len(unpacked_len)?];
    decompress(packed, &[], &mut unpacked)?;
    if xxh32(&unpacked, 0) != check {
        return Err(Failure::HashMismatch.into());
    }
    Ok(unpacked)
}

#[cfg(feature = "lz4")]
#[cfg_attr(not(debug_assertions), inline)]
fn decode_lz4(module: &Packed<'_>, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
    decode_packed(module, options, out, decompress_lz4)
}

/// SPIR-V with relative ids + LZ4, converted back and checked against its hash.
#[cfg(feature = "lz4")]
#[cfg_attr(not(debug_assertions), inline)]
fn decode_relative_ids_lz4(
    module: &Packed<'_>,
    options: &DecodeOptions,
    out: &mut Vec<u32>,
) -> Result<(), ShaderError> {
    let spirv_len = spirv_len(module, options)?;
    let unpacked_len = if module.unpacked { module.stored.len() } else { len(module.unpacked_len)? };
    if unpacked_len != spirv_len || !spirv_len.is_multiple_of(4) {
        return Err(corrupt("relative ids unpack to a different size than the SPIR-V"));
    }
    if module.unpacked {
        words_from_bytes(module.stored, out);
    } else {
        out.clear();
        out.resize(spirv_len / 4, 0);
        decompress_lz4(module.stored, &[], bytemuck::cast_slice_mut(out.as_mut_slice()))?;
        from_le_in_place(out);
    }
    relative_ids_back(out)?;
    if options.verifies_hash() && !intact(out, module.check) {
        return Err(Failure::HashMismatch.into());
    }
    Ok(())
}

#[cfg(feature = "lz4")]
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn unpack_once_lz4(packed: &[u8], once: (u32, u32)) -> Result<Vec<u8>, ShaderError> {
    unpack_once_with(packed, once, decompress_lz4)
}

#[cfg(feature = "lz4")]
#[cfg_attr(not(debug_assertions), inline)]
fn decompress_lz4(packed: &[u8], _dictionary: &[u8], out: &mut [u8]) -> Result<(), ShaderError> {
    match lz4_flex::block::decompress_into(packed, out) {
        Ok(len) if len == out.len() => Ok(()),
        Ok(_) => Err(corrupt("LZ4 block unpacks to a different size than recorded")),
        Err(_) => Err(corrupt("LZ4 block is invalid")),
    }
}

#[cfg(feature = "zstd-fast")]
#[cfg_attr(not(debug_assertions), inline)]
fn decode_zstd(module: &Packed<'_>, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
    decode_packed(module, options, out, decompress_zstd)
}

#[cfg(feature = "zstd-fast")]
#[cfg_attr(not(debug_assertions), inline)]
pub(crate) fn unpack_once_zstd(packed: &[u8], once: (u32, u32)) -> Result<Vec<u8>, ShaderError> {
    unpack_once_with(packed, once, decompress_zstd)
}

#[cfg(feature = "zstd-fast")]
#[cfg_attr(not(debug_assertions), inline)]
fn decompress_zstd(packed: &[u8], dictionary: &[u8], out: &mut [u8]) -> Result<(), ShaderError> {
    use zstd::zstd_safe::{DCtx, get_frame_content_size};
    if !matches!(get_frame_content_size(packed), Ok(Some(len)) if u64::try_from(out.len()) == Ok(len)) {
        return Err(corrupt("zstd frame records a different size than the directory"));
    }
    // A context per call: a `static` would link this crate's object files.
    let mut dctx = DCtx::create();
    if !dictionary.is_empty() {
        dctx.load_dictionary(dictionary).map_err(|_| corrupt("the zstd dictionary is invalid"))?;
    }
    match dctx.decompress(out, packed) {
        Ok(len) if len == out.len() => Ok(()),
        _ => Err(corrupt("zstd frame is invalid")),
    }
}
