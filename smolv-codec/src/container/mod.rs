//! Shader containers (`SMVC`: one shader, its hash and its reflection)
//! and bundles (`SMVB`: many containers, a shared zstd dictionary, a name index); see `docs/format.md`.
//!
//! ```
//! use smolv_codec::container::{Codec, Container, ContainerBuilder};
//! use smolv_format::reflect::{Reflection, ShaderStage};
//!
//! # let spirv = smolv_codec::doc_example_module();
//! let reflection = Reflection::new(ShaderStage::Compute, "main");
//! let bytes = ContainerBuilder::new(&spirv, &reflection).codec(Codec::SmolvZstd).build()?;
//! let container = Container::parse(&bytes)?;
//! assert_eq!(container.reflection()?, reflection);
//! assert_eq!(container.decode()?, spirv);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "zstd-fast")]
mod bundle;
mod error;
mod format;
#[cfg(feature = "zstd-fast")]
mod payload;

#[cfg(feature = "zstd-fast")]
pub use bundle::{Bundle, BundleBuilder, BundleEntry, Span};
pub use error::{ContainerError, LookupError, NotFound, OpenError};
pub use format::{Codec, Container, ContentHash};
#[cfg(feature = "zstd-fast")]
pub use payload::{ContainerBuilder, Dictionary, assemble, compress};
#[cfg(feature = "zstd-fast")]
use smolv_format::reflect::{Reflection, ShaderStage};

/// The doc examples' module, its reflection and its container.
#[doc(hidden)]
#[cfg(feature = "zstd-fast")]
pub fn doc_example_container() -> Result<(Vec<u32>, Reflection, Vec<u8>), ContainerError> {
    let spirv = smolv_format::doc_example_module();
    let reflection = Reflection::new(ShaderStage::Compute, "main");
    let bytes = ContainerBuilder::new(&spirv, &reflection).build()?;
    Ok((spirv, reflection, bytes))
}

/// The doc examples' samples to train a zstd dictionary on.
#[doc(hidden)]
#[cfg(feature = "zstd-fast")]
pub fn doc_example_samples() -> Vec<Vec<u8>> {
    let shader =
        |i| format!("#version 450\nlayout(location = {i}) out vec4 c{i};\nvoid main() {{ c{i} = vec4({i}.0); }}\n");
    (0..64).map(|i| shader(i).repeat(4).into_bytes()).collect()
}

/// The doc examples' module, and a bundle of it as `blur.comp` and `sky.comp`.
#[doc(hidden)]
#[cfg(feature = "zstd-fast")]
pub fn doc_example_bundle() -> Result<(Vec<u32>, Vec<u8>), ContainerError> {
    let (spirv, _, container) = doc_example_container()?;
    let bytes = BundleBuilder::new().add("blur.comp", container.clone()).add("sky.comp", container).build()?;
    Ok((spirv, bytes))
}

#[cfg(all(test, feature = "zstd-fast"))]
mod tests {
    use super::*;
    use smolv_format::reflect::{Reflection, ShaderStage};

    fn sample_bundle() -> (Vec<u8>, Vec<u8>) {
        let spirv = smolv_format::doc_example_module();
        let reflection = Reflection::new(ShaderStage::Compute, "main");
        let container = ContainerBuilder::new(&spirv, &reflection).build().unwrap();
        let bundle =
            BundleBuilder::new().add("a.comp", container.clone()).add("b.comp", container.clone()).build().unwrap();
        (container, bundle)
    }

    #[test]
    fn every_truncation_and_bit_flip_is_an_error_or_a_checked_decode() {
        let (container, bundle) = sample_bundle();
        let spirv = smolv_format::doc_example_module();
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
            if let Ok(bundle) = Bundle::parse(&flipped) {
                for entry in bundle.entries().flatten() {
                    if let Ok(words) = entry.container.decode() {
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

    #[test]
    fn forged_section_lengths_near_u32_max_are_errors() {
        let (container, _) = sample_bundle();
        for field in [48, 52] {
            for value in [u32::MAX, u32::MAX - 3, u32::MAX - 56] {
                let mut forged = container.clone();
                forged[field..field + 4].copy_from_slice(&value.to_le_bytes());
                assert!(Container::parse(&forged).is_err(), "field {field} = {value:#x}");
            }
        }
    }

    fn module_of(words: usize) -> Vec<u32> {
        // A valid module padded with OpNop-free filler: repeated OpName.
        let mut spirv = crate::doc_example_module();
        for i in 0..words / 4 {
            spirv.extend([0x0004_0005, 1, 0x6E69_616D ^ u32::from(i.to_le_bytes()[0]), 0]);
        }
        spirv
    }

    #[test]
    fn a_zstd_frame_larger_than_its_container_allows_is_refused_before_allocating() {
        let reflection = Reflection::new(ShaderStage::Compute, "main");
        let (small, large) = (crate::doc_example_module(), module_of(4096));
        let large_payload =
            Container::parse(&ContainerBuilder::new(&large, &reflection).build().unwrap()).unwrap().payload().to_vec();
        let forged = assemble(Codec::SmolvZstd, &small, 0, &reflection, &large_payload).unwrap();
        let err = Container::parse(&forged).unwrap().decode().unwrap_err();
        assert!(matches!(err, ContainerError::Corrupt { .. }), "{err}");
    }

    #[test]
    fn a_dictionary_zstd_cannot_load_is_an_error_not_a_panic() {
        // Found by the bundle fuzz target: zstd-safe's `DDict::create`
        // panics where zstd refuses the dictionary.
        let reflection = Reflection::new(ShaderStage::Compute, "main");
        let samples: Vec<Vec<u8>> =
            (0..64).map(|i| crate::encode(&module_of(64 + i)[..], &crate::EncodeOptions::new()).unwrap()).collect();
        let good = Dictionary::new(zstd::dict::from_samples(&samples, 4096).unwrap()).unwrap();
        let spirv = module_of(80);
        let container = ContainerBuilder::new(&spirv, &reflection).dictionary(&good).build().unwrap();
        // The same magic and id, then entropy tables zstd cannot read.
        let mut bytes = good.as_bytes()[..8].to_vec();
        bytes.extend([0xFF; 64]);
        let damaged = Dictionary::new(bytes).unwrap();
        assert_eq!(damaged.id(), good.id());
        let mut out = Vec::new();
        let err = Container::parse(&container)
            .unwrap()
            .decode_with(Some(&damaged), &crate::DecodeOptions::new(), &mut out)
            .unwrap_err();
        assert!(matches!(err, ContainerError::Corrupt { what: "zstd dictionary", .. }), "{err}");
        // The good one still decodes on the same thread afterwards.
        Container::parse(&container).unwrap().decode_with(Some(&good), &crate::DecodeOptions::new(), &mut out).unwrap();
        assert_eq!(out, spirv);
    }

    #[test]
    fn dictionaries_that_share_an_id_are_told_apart() {
        let reflection = Reflection::new(ShaderStage::Compute, "main");
        let samples: Vec<Vec<u8>> =
            (0..64).map(|i| crate::encode(&module_of(64 + i)[..], &crate::EncodeOptions::new()).unwrap()).collect();
        let first = Dictionary::new(zstd::dict::from_samples(&samples, 4096).unwrap()).unwrap();
        // Same header (and so the same id), different content at the end.
        let mut bytes = first.as_bytes().to_vec();
        let last = bytes.len() - 1;
        for byte in &mut bytes[last - 64..] {
            *byte ^= 0x5A;
        }
        let second = Dictionary::new(bytes).unwrap();
        assert_eq!(first.id(), second.id());
        let spirv = module_of(80);
        let with = |d: &Dictionary| ContainerBuilder::new(&spirv, &reflection).dictionary(d).build().unwrap();
        let (a, b) = (with(&first), with(&second));
        let mut out = Vec::new();
        for _ in 0..2 {
            Container::parse(&a).unwrap().decode_with(Some(&first), &crate::DecodeOptions::new(), &mut out).unwrap();
            assert_eq!(out, spirv);
            Container::parse(&b).unwrap().decode_with(Some(&second), &crate::DecodeOptions::new(), &mut out).unwrap();
            assert_eq!(out, spirv);
        }
    }
}
