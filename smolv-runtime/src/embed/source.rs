//! What a shader that is not raw SPIR-V reads its bytes through. Here,
//! beside the embedded kinds, which are most of its implementors and one
//! of which [`Cache::InSet`] names; a loaded container
//! (`shader::loaded`) implements it too.

use std::sync::OnceLock;

use super::EmbeddedSet;
use crate::shader_error::ShaderError;
use smolv_codec::DecodeOptions;
use smolv_codec::container::ContentHash;

/// Where an encoded shader's bytes are, and how they decode: module
/// `index` of an embedded set or module, or a loaded container (which
/// ignores `index`).
///
/// A [`Shader`](crate::Shader) holds one behind a trait object, and only
/// the macros' output for a set of that kind (or loading code) makes its
/// vtable. So a binary links the code of the kinds it holds, and nothing
/// else: a raw set, whose shaders are only a name and words, none of this.
/// One trait for every kind, so that a shader's methods make one indirect
/// call for all of them. The vtable holds only what `name` and `decode`
/// need and what every kind needs to find its cache: no `Debug` (a shader
/// prints its name instead), no drop glue for embedded kinds beyond a
/// `OnceLock`, and no caching code, which
/// [`decode_cached`](crate::embed::decode_cached) holds once for every
/// kind.
pub(crate) trait ShaderSource: Send + Sync {
    fn name(&self, index: usize) -> &str;
    /// The module as stored (see `Shader::stored_bytes`).
    fn stored(&self, index: usize) -> &[u8];
    /// Bytes of SPIR-V, from the table (0 if it is damaged).
    fn spirv_len(&self, index: usize) -> usize;
    fn decode(&self, index: usize, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError>;
    /// Where `Shader::decode_cached` finds module `index`'s words.
    fn cache(&self, index: usize) -> Result<Cache<'_>, ShaderError>;
    /// A loaded container's stored reflection and content hash; `None` for
    /// embedded shaders, which read them from their SPIR-V.
    #[inline]
    fn recorded(&self) -> Option<(&[u8], ContentHash)> {
        None
    }
    /// Module `index`'s WGSL, where the build shipped WGSL for wgpu
    /// instead of SPIR-V; `None` for every SPIR-V kind.
    #[inline]
    fn wgsl(&self, _index: usize) -> Result<Option<&str>, ShaderError> {
        Ok(None)
    }
}

/// Where `decode_cached` finds or keeps a module's words.
pub(crate) enum Cache<'a> {
    /// A module's own slot.
    One(&'a OnceLock<Vec<u32>>),
    /// Module `index` of a set: served from the binary if raw, else kept
    /// in the set's slots, made on first use.
    InSet(&'a EmbeddedSet),
}
