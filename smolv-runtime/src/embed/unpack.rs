//! Unpacking embedded shaders: decompress (LZ4 or zstd, if packed), then
//! decode (SMOL-V, or plain words).
//!
//! Each codec is a table of two functions. `include_shaders!` names the
//! table its build chose, and nothing else refers to the functions, so a
//! binary links exactly the decoders its shaders need: a raw set links no
//! decompressor and no SMOL-V decoder, a SMOL-V set no decompressor, and an
//! LZ4 set no zstd.

use alloc::vec::Vec;

use crate::codec::decode_current_into;
use crate::container::ContainerError;

const WHAT: &str = "embedded shader";

/// Decompresses `packed` into `out`, which is exactly as long as the
/// unpacked data; `dictionary` is empty unless the codec uses one.
pub(crate) type Decompress = fn(packed: &[u8], dictionary: &[u8], out: &mut [u8]) -> Result<(), ContainerError>;

/// Turns unpacked bytes into exactly `spirv_len` bytes of SPIR-V words.
pub(crate) type Decode = fn(unpacked: &[u8], spirv_len: usize, out: &mut Vec<u32>) -> Result<(), ContainerError>;

/// One codec of the embedded-set format (`docs/format.md`): what the macros
/// name, so that the binary links only its functions. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct Unpacker {
    /// The codec's name in the build manifest (`smolv-lz4`, ...).
    pub(crate) name: &'static str,
    /// `None` when modules are stored as they decode (raw SPIR-V, SMOL-V).
    pub(crate) decompress: Option<Decompress>,
    pub(crate) decode: Decode,
    /// The hash decoded modules (and a stream) are checked with; `None`
    /// for raw SPIR-V, which is served as stored and checked by its magic
    /// number, so that a raw set links no hash code.
    pub(crate) hash: Option<Hash>,
}

/// xxHash32 (seed 0) of bytes.
pub(crate) type Hash = fn(&[u8]) -> u32;

#[inline]
fn xxh32(bytes: &[u8]) -> u32 {
    xxhash_rust::xxh32::xxh32(bytes, 0)
}

/// Raw SPIR-V: nothing to decompress or decode.
pub const RAW: Unpacker = Unpacker { name: "spirv", decompress: None, decode: copy_words, hash: None };

/// SMOL-V, stored as is.
pub const SMOLV: Unpacker = Unpacker { name: "smolv", decompress: None, decode: decode_smolv, hash: Some(xxh32) };

/// SMOL-V + LZ4 blocks.
#[cfg(feature = "lz4")]
pub const SMOLV_LZ4: Unpacker =
    Unpacker { name: "smolv-lz4", decompress: Some(decompress_lz4), decode: decode_smolv, hash: Some(xxh32) };

/// SMOL-V + zstd frames.
#[cfg(feature = "zstd-fast")]
pub const SMOLV_ZSTD: Unpacker =
    Unpacker { name: "smolv-zstd", decompress: Some(decompress_zstd), decode: decode_smolv, hash: Some(xxh32) };

/// SMOL-V + zstd frames with a shared dictionary.
#[cfg(feature = "zstd-fast")]
pub const SMOLV_ZSTD_DICTIONARY: Unpacker = Unpacker {
    name: "smolv-zstd-dictionary",
    decompress: Some(decompress_zstd),
    decode: decode_smolv,
    hash: Some(xxh32),
};

#[inline]
fn copy_words(unpacked: &[u8], spirv_len: usize, out: &mut Vec<u32>) -> Result<(), ContainerError> {
    if unpacked.len() != spirv_len {
        return Err(ContainerError::Corrupt { what: WHAT, reason: "raw SPIR-V is not the recorded size" });
    }
    out.clear();
    out.extend(unpacked.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    Ok(())
}

#[inline]
fn decode_smolv(unpacked: &[u8], spirv_len: usize, out: &mut Vec<u32>) -> Result<(), ContainerError> {
    decode_current_into(unpacked, out, spirv_len)?;
    if out.len().checked_mul(4) != Some(spirv_len) {
        out.clear();
        return Err(ContainerError::Corrupt { what: WHAT, reason: "SMOL-V decodes to a different size than recorded" });
    }
    Ok(())
}

#[cfg(feature = "lz4")]
#[inline]
fn decompress_lz4(packed: &[u8], _dictionary: &[u8], out: &mut [u8]) -> Result<(), ContainerError> {
    match lz4_flex::block::decompress_into(packed, out) {
        Ok(len) if len == out.len() => Ok(()),
        Ok(_) => {
            Err(ContainerError::Corrupt { what: WHAT, reason: "LZ4 block unpacks to a different size than recorded" })
        }
        Err(_) => Err(ContainerError::Corrupt { what: WHAT, reason: "LZ4 block is invalid" }),
    }
}

#[cfg(feature = "zstd-fast")]
#[inline]
fn decompress_zstd(packed: &[u8], dictionary: &[u8], out: &mut [u8]) -> Result<(), ContainerError> {
    use zstd::zstd_safe::{DCtx, get_frame_content_size};
    if !matches!(get_frame_content_size(packed), Ok(Some(len)) if u64::try_from(out.len()) == Ok(len)) {
        return Err(ContainerError::Corrupt {
            what: WHAT,
            reason: "zstd frame records a different size than the directory",
        });
    }
    // A context per call, with no `static` to keep one in: a static here
    // would be an item of this crate, and taking it would link this crate's
    // object files (and their unwinding tables) into every binary that
    // unpacks zstd (see the module docs). Embedded sets unpack once, at
    // start.
    let mut dctx = DCtx::create();
    if !dictionary.is_empty() {
        dctx.load_dictionary(dictionary)
            .map_err(|_| ContainerError::Corrupt { what: WHAT, reason: "the zstd dictionary is invalid" })?;
    }
    match dctx.decompress(out, packed) {
        Ok(len) if len == out.len() => Ok(()),
        _ => Err(ContainerError::Corrupt { what: WHAT, reason: "zstd frame is invalid" }),
    }
}
