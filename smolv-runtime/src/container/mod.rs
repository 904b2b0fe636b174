//! Shader containers and bundles: how smolv ships shaders.
//!
//! A **container** (`SMVC`) holds one shader: its payload (raw SPIR-V,
//! SMOL-V, or SMOL-V compressed with zstd, optionally with a shared
//! dictionary), the decoded size, a blake3 hash of the decoded SPIR-V, and
//! its [`Reflection`](crate::reflect::Reflection).
//!
//! A **bundle** (`SMVB`) holds many containers, one shared zstd dictionary
//! and a name index. `include_shaders!` embeds one, and games can ship
//! them as asset files. `docs/format.md` gives the byte layout of both.
//!
//! ```
//! use smolv_runtime::container::{Codec, Container, ContainerBuilder};
//! use smolv_runtime::reflect::{Reflection, ShaderStage};
//!
//! # let spirv = smolv_runtime::doc_example_module();
//! let reflection = Reflection::new(ShaderStage::Compute, "main");
//! let bytes = ContainerBuilder::new(&spirv, &reflection).codec(Codec::SmolvZstd).build()?;
//! let container = Container::parse(&bytes)?;
//! assert_eq!(container.reflection()?, reflection);
//! assert_eq!(container.decode()?, spirv);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bundle;
mod error;
mod format;
mod payload;

pub(crate) use bundle::suggest;
pub use bundle::{Bundle, BundleBuilder, BundleEntry};
pub use error::ContainerError;
pub use format::{Codec, Container, ContentHash};
pub use payload::{ContainerBuilder, DecodeSettings, Dictionary, assemble, compress};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{Reflection, ShaderStage};
    use crate::shader::ShaderSet;

    fn sample_bundle() -> (Vec<u8>, Vec<u8>) {
        let spirv = crate::doc_example_module();
        let reflection = Reflection::new(ShaderStage::Compute, "main");
        let container = ContainerBuilder::new(&spirv, &reflection).build().unwrap();
        let bundle = BundleBuilder::new().add("a.comp", container.clone()).add("b.comp", container.clone()).build();
        (container, bundle)
    }

    #[test]
    fn every_truncation_and_bit_flip_is_an_error_or_a_checked_decode() {
        let (container, bundle) = sample_bundle();
        let spirv = crate::doc_example_module();
        for len in 0..container.len() {
            assert!(Container::parse(&container[..len]).is_err(), "container truncated to {len}");
        }
        for len in 0..bundle.len() {
            assert!(Bundle::parse(&bundle[..len]).is_err(), "bundle truncated to {len}");
        }
        for bit in 0..container.len() * 8 {
            let mut flipped = container.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            // Either rejected, or (a flip in the reflection's names, say) decoded
            // to exactly the right module: the hash check allows nothing else.
            if let Ok(words) = Container::parse(&flipped).and_then(|c| c.decode()) {
                assert_eq!(words, spirv, "bit {bit}");
            }
        }
        for bit in 0..bundle.len() * 8 {
            let mut flipped = bundle.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            if let Ok(set) = ShaderSet::from_vec(flipped) {
                for shader in set.iter() {
                    if let Ok(words) = shader.decode() {
                        assert_eq!(words, spirv, "bit {bit}");
                    }
                }
            }
        }
    }

    #[test]
    fn hostile_sizes_are_refused_before_allocating() {
        let (mut container, _) = sample_bundle();
        container[8..12].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let err = Container::parse(&container).unwrap().decode().unwrap_err();
        assert!(matches!(err, ContainerError::TooLarge { .. }), "{err}");
        let (_, mut bundle) = sample_bundle();
        bundle[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(Bundle::parse(&bundle).is_err());
    }
}
