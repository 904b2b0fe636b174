//! What wgpu's binding types need beyond the reflection (image types, read-only access),
//! read from the module's SPIR-V in one pass.

use std::collections::{BTreeMap, BTreeSet};

use smolv_format::spirv::{self, Decoration, Op};

/// An `OpTypeImage`, as wgpu needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Image {
    /// SPIR-V `Dim`: 0 1D, 1 2D, 2 3D, 3 Cube, 4 Rect, 5 Buffer, 6 SubpassData.
    pub(crate) dim: u32,
    /// A depth image (`Depth` operand 1).
    pub(crate) depth: bool,
    pub(crate) arrayed: bool,
    pub(crate) multisampled: bool,
    /// The sampled type: float, or an integer of this signedness.
    pub(crate) sampled: Sampled,
    /// SPIR-V `ImageFormat` (0: unknown).
    pub(crate) format: u32,
}

/// An image's sampled type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sampled {
    Float,
    Sint,
    Uint,
}

/// What one `(set, binding)` variable is, beyond its descriptor kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Resource {
    /// The image type, for images (through a sampled image or an array).
    pub(crate) image: Option<Image>,
    /// `NonWritable` on the variable, or on every member of its block.
    pub(crate) non_writable: bool,
    /// `NonReadable` on the variable.
    pub(crate) non_readable: bool,
}

/// The module is malformed at word `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Malformed {
    pub(crate) offset: usize,
    pub(crate) reason: &'static str,
}

/// Per variable id: its decorations that matter here.
#[derive(Default)]
struct Decorations {
    set: Option<u32>,
    binding: Option<u32>,
    /// `NonWritable` and `NonReadable` on the variable (no image yet).
    resource: Resource,
}

/// The types this pass follows from a variable to its image or block.
enum Ty {
    Scalar(Sampled),
    Image(u32, Image),
    /// Sampled image, array or pointer: the type it wraps.
    Wraps(u32),
    Struct(u32),
}

/// Every descriptor variable of `words` by `(set, binding)`.
pub(crate) fn resources(words: &[u32]) -> Result<BTreeMap<(u32, u32), Resource>, Malformed> {
    if spirv::Header::read(words).is_none() {
        return Err(Malformed { offset: 0, reason: "no SPIR-V header" });
    }
    let mut decorations: BTreeMap<u32, Decorations> = BTreeMap::new();
    // Per struct id: its members decorated `NonWritable`.
    let mut members: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    let mut types: BTreeMap<u32, Ty> = BTreeMap::new();
    let mut variables: Vec<(u32, u32)> = Vec::new(); // (pointer type, id)
    for inst in spirv::instructions(words) {
        let inst = inst.map_err(|e| Malformed {
            offset: e.offset,
            reason: "an instruction's word count is zero or runs past the module",
        })?;
        let (offset, operands) = (inst.offset, inst.operands());
        let at = |i: usize| operands.get(i).copied().ok_or(Malformed { offset, reason: "too few operands" });
        match inst.op() {
            Some(Op::Decorate) => {
                let entry = decorations.entry(at(0)?).or_default();
                match Decoration::from_u32(at(1)?) {
                    Some(Decoration::DescriptorSet) => entry.set = Some(at(2)?),
                    Some(Decoration::Binding) => entry.binding = Some(at(2)?),
                    Some(Decoration::NonWritable) => entry.resource.non_writable = true,
                    Some(Decoration::NonReadable) => entry.resource.non_readable = true,
                    _ => {}
                }
            }
            Some(Op::MemberDecorate) if at(2)? == Decoration::NonWritable as u32 => {
                members.entry(at(0)?).or_default().insert(at(1)?);
            }
            Some(Op::TypeInt) => {
                let sampled = if at(2)? == 0 { Sampled::Uint } else { Sampled::Sint };
                types.insert(at(0)?, Ty::Scalar(sampled));
            }
            Some(Op::TypeFloat) => {
                types.insert(at(0)?, Ty::Scalar(Sampled::Float));
            }
            Some(Op::TypeImage) => {
                let image = Image {
                    dim: at(2)?,
                    depth: at(3)? == 1,
                    arrayed: at(4)? == 1,
                    multisampled: at(5)? == 1,
                    sampled: Sampled::Float,
                    format: at(7)?,
                };
                types.insert(at(0)?, Ty::Image(at(1)?, image));
            }
            Some(Op::TypeSampledImage | Op::TypeArray | Op::TypeRuntimeArray) => {
                types.insert(at(0)?, Ty::Wraps(at(1)?));
            }
            Some(Op::TypePointer) => {
                types.insert(at(0)?, Ty::Wraps(at(2)?));
            }
            Some(Op::TypeStruct) => {
                let (&id, member_types) = operands
                    .split_first()
                    .ok_or(Malformed { offset, reason: "an OpTypeStruct without a result id" })?;
                let count = u32::try_from(member_types.len())
                    .map_err(|_| Malformed { offset, reason: "a struct with more than 2^32 members" })?;
                types.insert(id, Ty::Struct(count));
            }
            Some(Op::Variable) => variables.push((at(0)?, at(1)?)),
            _ => {}
        }
    }
    let mut found = BTreeMap::new();
    for (pointer, id) in variables {
        let Some(decoration) = decorations.get(&id) else { continue };
        let (Some(set), Some(binding)) = (decoration.set, decoration.binding) else { continue };
        let mut resource = decoration.resource;
        // Follow the wrappers; a chain longer than the type count is a cycle.
        let mut ty = pointer;
        for _ in 0..=types.len() {
            match types.get(&ty) {
                Some(Ty::Wraps(inner)) => ty = *inner,
                Some(Ty::Image(sampled_type, image)) => {
                    let sampled = match types.get(sampled_type) {
                        Some(Ty::Scalar(sampled)) => *sampled,
                        _ => Sampled::Float,
                    };
                    resource.image = Some(Image { sampled, ..*image });
                    break;
                }
                Some(Ty::Struct(count)) => {
                    let read_only = members.get(&ty).is_some_and(|m| m.len() as u64 == u64::from(*count));
                    resource.non_writable |= *count > 0 && read_only;
                    break;
                }
                _ => break,
            }
        }
        found.insert((set, binding), resource);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module with a read-only storage buffer, a 2D array of uints and
    /// a write-only storage image, by hand.
    fn module() -> Vec<u32> {
        let inst = |op: Op, operands: &[u32]| {
            let count = u32::try_from(operands.len() + 1).expect("a short instruction");
            let mut words = vec![(count << 16) | op as u32];
            words.extend_from_slice(operands);
            words
        };
        let mut words = vec![spirv::MAGIC, 0x0001_0000, 0, 100, 0];
        for (id, set, binding) in [(10, 0, 0), (11, 0, 1), (12, 1, 3)] {
            words.extend(inst(Op::Decorate, &[id, Decoration::DescriptorSet as u32, set]));
            words.extend(inst(Op::Decorate, &[id, Decoration::Binding as u32, binding]));
        }
        words.extend(inst(Op::MemberDecorate, &[20, 0, Decoration::NonWritable as u32]));
        words.extend(inst(Op::Decorate, &[12, Decoration::NonReadable as u32]));
        words.extend(inst(Op::TypeInt, &[1, 32, 0]));
        words.extend(inst(Op::TypeFloat, &[2, 32]));
        words.extend(inst(Op::TypeStruct, &[20, 1]));
        words.extend(inst(Op::TypePointer, &[21, 12, 20]));
        words.extend(inst(Op::TypeImage, &[30, 1, 1, 0, 1, 0, 1, 0]));
        words.extend(inst(Op::TypePointer, &[31, 0, 30]));
        words.extend(inst(Op::TypeImage, &[32, 2, 1, 0, 0, 0, 2, 1]));
        words.extend(inst(Op::TypePointer, &[33, 0, 32]));
        words.extend(inst(Op::Variable, &[21, 10, 12]));
        words.extend(inst(Op::Variable, &[31, 11, 0]));
        words.extend(inst(Op::Variable, &[33, 12, 0]));
        words
    }

    #[test]
    fn images_and_read_only_blocks_are_read_from_the_types() {
        let found = resources(&module()).unwrap();
        assert!(found[&(0, 0)].non_writable && found[&(0, 0)].image.is_none());
        let texture = found[&(0, 1)].image.unwrap();
        assert_eq!((texture.dim, texture.arrayed, texture.sampled), (1, true, Sampled::Uint));
        let storage = found[&(1, 3)];
        assert!(storage.non_readable && !storage.non_writable);
        assert_eq!(storage.image.unwrap().format, 1, "Rgba32f");
    }

    #[test]
    fn a_truncated_module_is_an_error_never_a_panic() {
        let words = module();
        for len in 0..words.len() {
            let _ = resources(&words[..len]);
        }
        let mut damaged = words.clone();
        damaged[5] = 0xffff_0000 | Op::Decorate as u32;
        assert!(resources(&damaged).is_err());
    }

    #[test]
    fn a_struct_of_one_word_is_malformed_never_an_underflow() {
        let mut words = vec![spirv::MAGIC, 0x0001_0000, 0, 100, 0];
        words.push((1 << 16) | Op::TypeStruct as u32);
        let error = resources(&words).map(|_| ()).unwrap_err();
        assert_eq!(error, Malformed { offset: 5, reason: "an OpTypeStruct without a result id" });
        // With its id and no members it is an empty struct.
        words[5] = (2 << 16) | Op::TypeStruct as u32;
        words.push(7);
        assert!(resources(&words).is_ok());
    }
}
