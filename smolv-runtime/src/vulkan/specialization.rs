//! Specialization constants for the driver, each at its constant's size.

use std::collections::HashMap;

use ash::vk;
use smolv_format::spirv::{self, Decoration, Op};

use super::VulkanError;
use smolv_codec::specialize::{Scalar, Value, describe_type, fit_value};

/// The scalar type of every specialization constant of `spirv`, by SpecId.
fn spec_constant_types(spirv: &[u32]) -> HashMap<u32, Scalar> {
    if spirv.first() != Some(&spirv::MAGIC) {
        return HashMap::new();
    }
    // SpecId by result id, scalar by type id, and each constant's (result id, type id).
    let (mut spec_ids, mut types, mut constants) = (HashMap::new(), HashMap::new(), Vec::new());
    // Types and constants all come before the first function.
    for inst in spirv::globals(spirv).map_while(Result::ok) {
        match (inst.op(), inst.operands()) {
            (Some(Op::Decorate), &[target, decoration, id, ..]) if decoration == Decoration::SpecId as u32 => {
                spec_ids.insert(target, id);
            }
            (Some(Op::TypeBool), &[result, ..]) => {
                types.insert(result, Scalar::Bool);
            }
            (Some(Op::TypeInt), &[result, width, signedness, ..]) => {
                types.insert(result, Scalar::Int { width, signed: signedness != 0 });
            }
            (Some(Op::TypeFloat), &[result, width, ..]) => {
                types.insert(result, Scalar::Float { width });
            }
            (Some(Op::SpecConstantTrue | Op::SpecConstantFalse | Op::SpecConstant), &[ty, result, ..]) => {
                constants.push((result, ty));
            }
            _ => {}
        }
    }
    constants.into_iter().filter_map(|(result, ty)| Some((*spec_ids.get(&result)?, *types.get(&ty)?))).collect()
}

/// `value` for a constant of type `ty`: its size and bits, or an error if it does not fit.
fn encode(id: u32, value: Value, ty: Option<Scalar>) -> Result<(u32, u64), VulkanError> {
    let Some(ty) = ty else {
        // No such constant (optimized away?): the driver ignores the entry.
        return Ok(if value.bits() > u64::from(u32::MAX) { (8, value.bits()) } else { (4, value.bits()) });
    };
    // The specializer's rule too: the same values refused, the same bits.
    let wrong = || VulkanError::SpecConstantValue { id, ty: describe_type(ty).to_owned(), value };
    let bits = fit_value(ty, value).ok_or_else(wrong)?;
    // Bytes in `VkSpecializationInfo` data (`VkBool32` for bools).
    match ty {
        Scalar::Bool => Ok((4, bits)),
        Scalar::Int { width, .. } | Scalar::Float { width } if width >= 8 => Ok((width / 8, bits)),
        _ => Err(wrong()),
    }
}

/// Specialization data for the driver, kept alive while pipelines are made.
#[derive(Debug)]
pub(super) struct SpecializationData {
    entries: Vec<vk::SpecializationMapEntry>,
    data: Vec<u8>,
}

impl SpecializationData {
    /// The map entries and data of `values` for the module `spirv`.
    ///
    /// # Errors
    /// A value that does not fit its constant's type, or an id given twice.
    pub(super) fn new(spirv: &[u32], values: &[(u32, Value)]) -> Result<Self, VulkanError> {
        let mut ids: Vec<u32> = values.iter().map(|&(id, _)| id).collect();
        ids.sort_unstable();
        if let Some(pair) = ids.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(VulkanError::DuplicateSpecConstant(pair[0]));
        }
        let types = if values.is_empty() { HashMap::new() } else { spec_constant_types(spirv) };
        let mut entries = Vec::with_capacity(values.len());
        let mut data = Vec::with_capacity(values.len() * 8);
        for &(id, value) in values {
            let (size, bits) = encode(id, value, types.get(&id).copied())?;
            let offset = u32::try_from(data.len()).map_err(|_| VulkanError::TooManySpecConstants(values.len()))?;
            let bytes = usize::try_from(size).map_err(|_| VulkanError::TooManySpecConstants(values.len()))?;
            entries.push(vk::SpecializationMapEntry { constant_id: id, offset, size: bytes });
            data.extend_from_slice(&bits.to_le_bytes()[..bytes]);
        }
        Ok(Self { entries, data })
    }

    /// The info to point a shader stage at, if there are any values.
    pub(super) fn info(&self) -> Option<vk::SpecializationInfo<'_>> {
        (!self.entries.is_empty())
            .then(|| vk::SpecializationInfo::default().map_entries(&self.entries).data(&self.data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module declaring spec constants of every type the tests need:
    /// SpecIds 0 bool, 1 i32, 2 u32, 3 f32, 4 i64, 5 u64, 6 f64, 7 u16.
    fn module() -> Vec<u32> {
        let op = |opcode: Op, operands: &[u32]| {
            let mut words = vec![((u32::try_from(operands.len()).unwrap() + 1) << 16) | opcode as u32];
            words.extend_from_slice(operands);
            words
        };
        let mut words = vec![spirv::MAGIC, 0x0001_0000, 0, 100, 0];
        // %10 bool, %11 i32, %12 u32, %13 f32, %14 i64, %15 u64, %16 f64, %17 u16
        let types = [
            op(Op::TypeBool, &[10]),
            op(Op::TypeInt, &[11, 32, 1]),
            op(Op::TypeInt, &[12, 32, 0]),
            op(Op::TypeFloat, &[13, 32]),
            op(Op::TypeInt, &[14, 64, 1]),
            op(Op::TypeInt, &[15, 64, 0]),
            op(Op::TypeFloat, &[16, 64]),
            op(Op::TypeInt, &[17, 16, 0]),
        ];
        for (spec_id, result) in (20..28).enumerate() {
            words.extend(op(Op::Decorate, &[result, Decoration::SpecId as u32, u32::try_from(spec_id).unwrap()]));
        }
        types.into_iter().for_each(|t| words.extend(t));
        words.extend(op(Op::SpecConstantTrue, &[10, 20]));
        words.extend(op(Op::SpecConstant, &[11, 21, 0]));
        words.extend(op(Op::SpecConstant, &[12, 22, 0]));
        words.extend(op(Op::SpecConstant, &[13, 23, 0]));
        words.extend(op(Op::SpecConstant, &[14, 24, 0, 0]));
        words.extend(op(Op::SpecConstant, &[15, 25, 0, 0]));
        words.extend(op(Op::SpecConstant, &[16, 26, 0, 0]));
        words.extend(op(Op::SpecConstant, &[17, 27, 0]));
        words
    }

    fn entries(data: &SpecializationData) -> Vec<(u32, u32, usize)> {
        data.entries.iter().map(|e| (e.constant_id, e.offset, e.size)).collect()
    }

    #[test]
    fn the_module_declares_each_constants_type() {
        let types = spec_constant_types(&module());
        assert_eq!(types.len(), 8);
        assert_eq!(types[&0], Scalar::Bool);
        assert_eq!(types[&4], Scalar::Int { width: 64, signed: true });
        assert_eq!(types[&6], Scalar::Float { width: 64 });
        assert_eq!(types[&7], Scalar::Int { width: 16, signed: false });
    }

    #[test]
    fn sixty_four_bit_constants_take_eight_bytes() {
        let values = [
            (0, Value::Bool(true)),
            (4, Value::Bits(0x1122_3344_5566_7788)),
            (1, Value::I32(-2)),
            (5, Value::Bits(u64::MAX)),
            (6, Value::Bits(2.5f64.to_bits())),
            (3, Value::F32(0.5)),
            (2, Value::U32(7)),
        ];
        let data = SpecializationData::new(&module(), &values).unwrap();
        assert_eq!(entries(&data), [(0, 0, 4), (4, 4, 8), (1, 12, 4), (5, 16, 8), (6, 24, 8), (3, 32, 4), (2, 36, 4)]);
        let mut expected = Vec::new();
        expected.extend_from_slice(&1u32.to_le_bytes());
        expected.extend_from_slice(&0x1122_3344_5566_7788u64.to_le_bytes());
        expected.extend_from_slice(&(-2i32).to_le_bytes());
        expected.extend_from_slice(&u64::MAX.to_le_bytes());
        expected.extend_from_slice(&2.5f64.to_le_bytes());
        expected.extend_from_slice(&0.5f32.to_le_bytes());
        expected.extend_from_slice(&7u32.to_le_bytes());
        assert_eq!(data.data, expected);
        let info = data.info().unwrap();
        assert_eq!((info.map_entry_count, info.data_size), (7, 40));
    }

    #[test]
    fn narrower_values_widen_to_the_constants_type() {
        let values = [(4, Value::I32(-1)), (5, Value::U32(9)), (6, Value::F32(0.25)), (7, Value::U32(0xFFFF))];
        let data = SpecializationData::new(&module(), &values).unwrap();
        assert_eq!(entries(&data), [(4, 0, 8), (5, 8, 8), (6, 16, 8), (7, 24, 2)]);
        assert_eq!(&data.data[..8], &(-1i64).to_le_bytes());
        assert_eq!(&data.data[8..16], &9u64.to_le_bytes());
        assert_eq!(&data.data[16..24], &0.25f64.to_le_bytes());
        assert_eq!(&data.data[24..], &0xFFFFu16.to_le_bytes());
    }

    #[test]
    fn values_that_do_not_fit_are_errors_not_truncated() {
        for (id, value) in [
            (1, Value::Bits(1 << 32)),
            (2, Value::F32(1.0)),
            (3, Value::I32(1)),
            (6, Value::U32(1)),
            (7, Value::U32(0x1_0000)),
            (7, Value::I32(-40_000)),
            (0, Value::U32(2)),
        ] {
            let err = SpecializationData::new(&module(), &[(id, value)]).unwrap_err();
            assert!(matches!(err, VulkanError::SpecConstantValue { id: i, .. } if i == id), "{id} {value:?}: {err}");
        }
    }

    #[test]
    fn an_id_given_twice_is_an_error() {
        let err = SpecializationData::new(&module(), &[(1, Value::I32(1)), (1, Value::I32(2))]).unwrap_err();
        assert!(matches!(err, VulkanError::DuplicateSpecConstant(1)), "{err}");
    }

    #[test]
    fn ids_the_module_lacks_keep_their_natural_size() {
        let data = SpecializationData::new(&module(), &[(40, Value::U32(1)), (41, Value::Bits(1 << 40))]).unwrap();
        assert_eq!(entries(&data), [(40, 0, 4), (41, 4, 8)]);
        // Not SPIR-V at all: nothing is known, nothing panics.
        assert!(SpecializationData::new(&[1, 2, 3], &[(0, Value::Bool(true))]).is_ok());
        assert!(SpecializationData::new(&[spirv::MAGIC, 0, 0, 0, 0, 0xFFFF_0047], &[(0, Value::Bool(true))]).is_ok());
    }
}
