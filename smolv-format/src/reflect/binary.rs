//! The compact binary form of [`Reflection`] in shader containers (`docs/format.md`). It reaches Vulkan
//! through safe functions, so it ends in a checksum and the reader refuses what no writer produces.

use alloc::string::String;
use alloc::vec::Vec;

use super::types::{
    DescriptorBinding, DescriptorKind, InterfaceVariable, PushConstantRange, Reflection, ShaderStage, SpecConstant,
    SpecConstantType,
};

/// Version byte of the binary reflection layout.
const VERSION: u8 = 2;

/// Every `VkShaderStageFlagBits` a [`ShaderStage`] has.
const KNOWN_STAGE_FLAGS: u32 = 0x3FFF;

/// FNV-1a (64-bit): the checksum ending the binary form, against damage (an adversary could rewrite it).
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3))
}

/// Why stored reflection data could not be read.
///
/// ```
/// use smolv_format::reflect::{Reflection, ReflectionError};
/// assert!(matches!(Reflection::from_spirv(&[1, 2, 3]), Err(ReflectionError::NotSpirv)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReflectionError {
    /// The data ends inside a field.
    #[error("reflection data is truncated at byte {offset}; the shader container is corrupt")]
    Truncated {
        /// Byte offset of the field.
        offset: usize,
    },
    /// A field holds a value no writer produces.
    #[error("reflection data has an invalid {field} at byte {offset}; the shader container is corrupt")]
    Invalid {
        /// Which field.
        field: &'static str,
        /// Byte offset of the field.
        offset: usize,
    },
    /// Written by another smolv (version 1 has no checksum).
    #[error(
        "reflection data version {version} is not the version 2 this smolv-runtime reads; rebuild the shaders with \
         the smolv-build that matches this smolv-runtime"
    )]
    UnsupportedVersion {
        /// The version byte.
        version: u8,
    },
    /// [`Reflection::from_spirv`] was given something that is not SPIR-V.
    #[error("cannot reflect: the words are not a SPIR-V module (no magic number)")]
    NotSpirv,
    /// [`Reflection::from_spirv`] found no `OpEntryPoint` of a known stage.
    #[error("cannot reflect: the SPIR-V module has no entry point of a known stage")]
    NoEntryPoint,
    /// [`Interface::from_spirv`](super::Interface::from_spirv) found a type no layout describes.
    #[error("cannot read the shader's interface: SPIR-V type %{id} {reason}")]
    BadType {
        /// The SPIR-V id of the type.
        id: u32,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The bytes do not match their checksum: the container is damaged.
    #[error("reflection data does not match its checksum; the shader container is damaged")]
    ChecksumMismatch,
    /// Bytes remain after the last record.
    #[error("reflection data has {remaining} trailing bytes; the shader container is corrupt")]
    TrailingBytes {
        /// Bytes left unread.
        remaining: usize,
    },
    /// [`Reflection::to_bytes`] was given a name or list longer than the binary form holds.
    #[error("cannot store reflection: {field} has length {len}, over the binary form's limit of {max}")]
    TooLong {
        /// Which name or list.
        field: &'static str,
        /// Its length: bytes for a name, records for a list.
        len: usize,
        /// The limit.
        max: u32,
    },
}

impl Reflection {
    /// Serializes to the compact binary form.
    ///
    /// # Errors
    /// - [`ReflectionError::TooLong`]: a name over 65,535 bytes, or a list over `u32::MAX` records.
    ///
    /// ```
    /// use smolv_format::reflect::Reflection;
    /// let reflection = Reflection::from_spirv(&smolv_format::doc_example_module())?;
    /// let bytes = reflection.to_bytes()?;
    /// assert_eq!(Reflection::from_bytes(&bytes)?, reflection);
    /// # Ok::<(), smolv_format::reflect::ReflectionError>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, ReflectionError> {
        let mut w = Writer(Vec::with_capacity(64));
        w.u8(VERSION);
        w.u8(self.stage.to_byte());
        w.str("entry point name", &self.entry_point)?;
        w.u8(u8::from(self.workgroup_size.is_some()));
        self.workgroup_size.iter().flatten().for_each(|&v| w.u32(v));
        w.count("descriptor bindings", self.bindings.len())?;
        for b in &self.bindings {
            w.u32(b.set);
            w.u32(b.binding);
            w.u8(b.kind.to_byte());
            w.u32(b.count);
            w.u32(b.stages);
            w.str("descriptor binding name", &b.name)?;
        }
        w.count("push constant ranges", self.push_constants.len())?;
        for p in &self.push_constants {
            w.u32(p.offset);
            w.u32(p.size);
            w.u32(p.stages);
        }
        w.count("specialization constants", self.spec_constants.len())?;
        for s in &self.spec_constants {
            w.u32(s.id);
            w.u8(s.ty.to_byte());
            w.u64(s.default);
            w.str("specialization constant name", &s.name)?;
        }
        for (list, what) in [(&self.inputs, "inputs"), (&self.outputs, "outputs")] {
            w.count(what, list.len())?;
            for v in list {
                w.u32(v.location);
                w.u32(v.format);
                w.str("interface variable name", &v.name)?;
            }
        }
        let sum = checksum(&w.0);
        w.u64(sum);
        Ok(w.0)
    }

    /// Parses the compact binary form (counts checked before allocating).
    ///
    /// ```
    /// use smolv_format::reflect::Reflection;
    /// let bytes = Reflection::from_spirv(&smolv_format::doc_example_module())?.to_bytes()?;
    /// assert!(Reflection::from_bytes(&bytes[..bytes.len() - 1]).is_err(), "truncated data is an error");
    /// # Ok::<(), smolv_format::reflect::ReflectionError>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ReflectionError> {
        let version = *bytes.first().ok_or(ReflectionError::Truncated { offset: 0 })?;
        if version != VERSION {
            return Err(ReflectionError::UnsupportedVersion { version });
        }
        let Some(split) = bytes.len().checked_sub(8).filter(|&n| n > 0) else {
            return Err(ReflectionError::Truncated { offset: bytes.len() });
        };
        let (bytes, sum) = bytes.split_at(split);
        if sum != checksum(bytes).to_le_bytes() {
            return Err(ReflectionError::ChecksumMismatch);
        }
        let mut r = Reader { bytes, pos: 1 };
        let at = r.pos;
        let stage = ShaderStage::from_byte(r.u8()?).ok_or(ReflectionError::Invalid { field: "stage", offset: at })?;
        // Never none, never bits Vulkan does not define, always this module's own stage.
        let stages = |r: &mut Reader<'_>| {
            let at = r.pos;
            let flags = r.u32()?;
            let own = stage.vk_stage_flag();
            if flags & own == 0 || flags & !KNOWN_STAGE_FLAGS != 0 {
                return Err(ReflectionError::Invalid { field: "stage flags", offset: at });
            }
            Ok(flags)
        };
        let entry_point = r.str()?;
        let workgroup_size = match r.u8()? {
            0 => None,
            1 => Some([r.u32()?, r.u32()?, r.u32()?]),
            _ => return Err(ReflectionError::Invalid { field: "workgroup size flag", offset: r.pos - 1 }),
        };
        let bindings = r.list(19, |r| {
            let (set, binding) = (r.u32()?, r.u32()?);
            let at = r.pos;
            let kind = DescriptorKind::from_byte(r.u8()?)
                .ok_or(ReflectionError::Invalid { field: "descriptor kind", offset: at })?;
            Ok(DescriptorBinding { set, binding, kind, count: r.u32()?, stages: stages(r)?, name: r.str()? })
        })?;
        let push_constants = r.list(12, |r| {
            let at = r.pos;
            let (offset, size) = (r.u32()?, r.u32()?);
            // VUID-VkPushConstantRange-offset-00295, -size-00296 and -00297.
            if offset % 4 != 0 || size == 0 || size % 4 != 0 || offset.checked_add(size).is_none() {
                return Err(ReflectionError::Invalid { field: "push-constant range", offset: at });
            }
            Ok(PushConstantRange { offset, size, stages: stages(r)? })
        })?;
        let spec_constants = r.list(15, |r| {
            let id = r.u32()?;
            let at = r.pos;
            let ty = SpecConstantType::from_byte(r.u8()?)
                .ok_or(ReflectionError::Invalid { field: "spec constant type", offset: at })?;
            Ok(SpecConstant { id, ty, default: r.u64()?, name: r.str()? })
        })?;
        let interface = |r: &mut Reader<'_>| {
            r.list(10, |r| Ok(InterfaceVariable { location: r.u32()?, format: r.u32()?, name: r.str()? }))
        };
        let inputs = interface(&mut r)?;
        let outputs = interface(&mut r)?;
        if r.pos != bytes.len() {
            return Err(ReflectionError::TrailingBytes { remaining: bytes.len() - r.pos });
        }
        Ok(Self { stage, entry_point, bindings, push_constants, spec_constants, inputs, outputs, workgroup_size })
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn count(&mut self, field: &'static str, n: usize) -> Result<(), ReflectionError> {
        let count = u32::try_from(n).map_err(|_| ReflectionError::TooLong { field, len: n, max: u32::MAX })?;
        self.u32(count);
        Ok(())
    }
    fn str(&mut self, field: &'static str, s: &str) -> Result<(), ReflectionError> {
        let len = u16::try_from(s.len()).map_err(|_| ReflectionError::TooLong {
            field,
            len: s.len(),
            max: u32::from(u16::MAX),
        })?;
        self.0.extend_from_slice(&len.to_le_bytes());
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], ReflectionError> {
        let chunk = self.bytes.get(self.pos..self.pos + n).ok_or(ReflectionError::Truncated { offset: self.pos })?;
        self.pos += n;
        Ok(chunk)
    }
    fn u8(&mut self) -> Result<u8, ReflectionError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, ReflectionError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&mut self) -> Result<u64, ReflectionError> {
        Ok(u64::from(self.u32()?) | u64::from(self.u32()?) << 32)
    }
    fn str(&mut self) -> Result<String, ReflectionError> {
        let len = self.take(2)?;
        let len = usize::from(u16::from_le_bytes([len[0], len[1]]));
        let at = self.pos;
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| ReflectionError::Invalid { field: "name", offset: at })
    }
    /// A count, then that many records of at least `min_record` bytes each.
    fn list<T>(
        &mut self,
        min_record: usize,
        mut read: impl FnMut(&mut Self) -> Result<T, ReflectionError>,
    ) -> Result<Vec<T>, ReflectionError> {
        let at = self.pos;
        // A count that does not fit `usize` (16-bit targets) cannot fit the bytes either.
        let count = usize::try_from(self.u32()?).unwrap_or(usize::MAX);
        if count.saturating_mul(min_record) > self.bytes.len() - self.pos {
            return Err(ReflectionError::Invalid { field: "record count", offset: at });
        }
        (0..count).map(|_| read(self)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn names_longer_than_65535_bytes_are_errors_never_bytes_the_reader_rejects() {
        // 'é' is two bytes, so byte 65,535 falls inside one: cutting there
        // gave bytes that are not UTF-8, which the reader refused.
        let long: String = core::iter::repeat_n('é', 40_000).collect();
        let mut reflection = Reflection::new(ShaderStage::Fragment, "main");
        reflection.entry_point = long.clone();
        assert_eq!(
            reflection.to_bytes(),
            Err(ReflectionError::TooLong { field: "entry point name", len: 80_000, max: 65_535 })
        );
        let mut reflection = sample();
        reflection.bindings[0].name = long;
        assert!(matches!(
            reflection.to_bytes(),
            Err(ReflectionError::TooLong { field: "descriptor binding name", .. })
        ));
    }

    #[test]
    fn names_of_exactly_65535_bytes_round_trip() {
        let mut reflection = sample();
        reflection.entry_point = core::iter::repeat_n('é', 32_767).chain(['x']).collect();
        reflection.outputs[0].name = "o".repeat(65_535);
        assert_eq!(reflection.entry_point.len(), 65_535);
        assert_eq!(Reflection::from_bytes(&reflection.to_bytes().unwrap()).unwrap(), reflection);
    }

    fn sample() -> Reflection {
        Reflection {
            stage: ShaderStage::Fragment,
            entry_point: "main".into(),
            bindings: vec![DescriptorBinding {
                set: 1,
                binding: 2,
                kind: DescriptorKind::CombinedImageSampler,
                count: 4,
                stages: 0x10,
                name: "albedo".into(),
            }],
            push_constants: vec![PushConstantRange { offset: 0, size: 64, stages: 0x11 }],
            spec_constants: vec![SpecConstant {
                id: 3,
                ty: SpecConstantType::F32,
                default: 0x3F80_0000,
                name: "gain".into(),
            }],
            inputs: vec![],
            outputs: vec![InterfaceVariable { location: 0, format: 109, name: "color".into() }],
            workgroup_size: Some([8, 8, 1]),
        }
    }

    #[test]
    fn binary_form_round_trips() {
        let info = sample();
        assert_eq!(Reflection::from_bytes(&info.to_bytes().unwrap()).unwrap(), info);
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = sample().to_bytes().unwrap();
        for len in 0..bytes.len() {
            assert!(Reflection::from_bytes(&bytes[..len]).is_err(), "{len}");
        }
    }

    /// `bytes` with its checksum written again, as a writer that meant
    /// them would.
    fn resealed(mut bytes: Vec<u8>) -> Vec<u8> {
        let end = bytes.len() - 8;
        let sum = checksum(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn hostile_counts_are_refused_before_allocating() {
        let mut bytes = Reflection::new(ShaderStage::Vertex, "main").to_bytes().unwrap();
        // The bindings count follows version, stage, the 2+4 byte name and the workgroup flag.
        bytes[9..13].copy_from_slice(&u32::MAX.to_le_bytes());
        let bytes = resealed(bytes);
        assert!(matches!(Reflection::from_bytes(&bytes), Err(ReflectionError::Invalid { field: "record count", .. })));
    }

    #[test]
    fn every_damaged_byte_is_refused() {
        let bytes = sample().to_bytes().unwrap();
        for at in 0..bytes.len() {
            for flip in [0x01, 0x80, 0xFF] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                assert!(Reflection::from_bytes(&damaged).is_err(), "byte {at} ^ {flip:#x} went unnoticed");
            }
        }
    }

    #[test]
    fn stage_flags_that_are_zero_unknown_or_miss_the_own_stage_are_refused() {
        // The sample's only binding's stage flags sit after its set,
        // binding, kind and count.
        let at = 1 + 1 + 2 + 4 + 1 + 12 + 4 + 4 + 4 + 1 + 4;
        let bytes = sample().to_bytes().unwrap();
        assert_eq!(bytes[at..at + 4], 0x10u32.to_le_bytes(), "the fragment stage's flag");
        for flags in [0u32, 0x10 | 0x4000, 0x8000_0010, 0x1] {
            let mut damaged = bytes.clone();
            damaged[at..at + 4].copy_from_slice(&flags.to_le_bytes());
            assert_eq!(
                Reflection::from_bytes(&resealed(damaged)),
                Err(ReflectionError::Invalid { field: "stage flags", offset: at }),
                "{flags:#x}"
            );
        }
    }

    #[test]
    fn push_constant_ranges_vulkan_would_refuse_are_refused() {
        for (offset, size) in [(2, 64), (0, 62), (0, 0), (u32::MAX - 3, 8)] {
            let mut reflection = sample();
            reflection.push_constants[0] = PushConstantRange { offset, size, stages: 0x10 };
            assert!(
                matches!(
                    Reflection::from_bytes(&reflection.to_bytes().unwrap()),
                    Err(ReflectionError::Invalid { field: "push-constant range", .. })
                ),
                "{offset} {size}"
            );
        }
    }

    #[test]
    fn version_1_containers_get_an_error_that_says_to_rebuild() {
        let mut bytes = sample().to_bytes().unwrap();
        bytes[0] = 1;
        let error = Reflection::from_bytes(&bytes).unwrap_err();
        assert_eq!(error, ReflectionError::UnsupportedVersion { version: 1 });
        assert!(error.to_string().contains("rebuild the shaders"), "{error}");
    }
}
