//! How shaders are decoded: the checks and limits every decoder applies.

/// Settings for decoding a container.
///
/// ```
/// use smolv_runtime::container::{Container, ContainerBuilder, DecodeSettings};
/// use smolv_runtime::reflect::{Reflection, ShaderStage};
/// # let spirv = smolv_runtime::doc_example_module();
/// let bytes = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
/// let strict = DecodeSettings { max_decoded_len: 16, ..DecodeSettings::default() };
/// let mut words = Vec::new();
/// assert!(Container::parse(&bytes)?.decode_with(None, &strict, &mut words).is_err(), "larger than allowed");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeSettings {
    /// Check the decoded SPIR-V against the hash recorded at build time:
    /// blake3 for containers and bundles (files), xxHash32 for embedded
    /// shaders that were compressed. On by default. Embedded raw SPIR-V and
    /// SPIR-V with relative ids carry no hash: nothing decompresses them,
    /// and they are checked for their recorded size, the SPIR-V magic
    /// number and (relative ids) every instruction's word count.
    pub verify_hash: bool,
    /// Refuse containers that declare more SPIR-V than this, before
    /// allocating. Default: 256 MiB.
    pub max_decoded_len: usize,
}

impl Default for DecodeSettings {
    fn default() -> Self {
        Self { verify_hash: true, max_decoded_len: 256 << 20 }
    }
}
