//! What a shader that is not raw SPIR-V reads its bytes through.

use std::sync::OnceLock;

use super::EmbeddedSet;
use crate::shader_error::ShaderError;
use smolv_codec::DecodeOptions;
use smolv_codec::container::ContentHash;

/// Module `index` of an encoded shader's source (a lone module ignores `index`); a trait
/// object, so a binary links the code of the kinds it holds only.
pub(crate) trait ShaderSource: Send + Sync {
    fn name(&self, index: usize) -> &str;
    /// The module as stored (see `Shader::stored_bytes`).
    fn stored(&self, index: usize) -> &[u8];
    /// Bytes of SPIR-V, from the table (0 if it is damaged).
    fn spirv_len(&self, index: usize) -> usize;
    fn decode(&self, index: usize, options: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError>;
    /// Where `Shader::decode_cached` finds module `index`'s words.
    fn cache(&self, index: usize) -> Result<Cache<'_>, ShaderError>;
    /// A loaded container's stored reflection and content hash.
    #[inline]
    fn recorded(&self) -> Option<(&[u8], ContentHash)> {
        None
    }
    /// Module `index`'s WGSL, where the build shipped it.
    #[inline]
    fn wgsl(&self, _index: usize) -> Result<Option<&str>, ShaderError> {
        Ok(None)
    }
}

/// Where `decode_cached` finds or keeps a module's words.
pub(crate) enum Cache<'a> {
    /// A module's own slot.
    One(&'a OnceLock<Vec<u32>>),
    /// Module `index` of a set: from the binary if raw, else in the set's slots.
    InSet(&'a EmbeddedSet),
}
