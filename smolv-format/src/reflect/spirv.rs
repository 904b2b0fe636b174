//! Reading reflection from SPIR-V, at build time or when an embedded
//! shader's reflection is asked for.

use alloc::borrow::ToOwned;
use alloc::collections::BTreeMap as HashMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::binary::ReflectionError;
use super::interface::ScalarKind;
use super::stage_io::{StageInterface, StageVariable};
use super::types::{
    DescriptorBinding, DescriptorKind, InterfaceVariable, PushConstantRange, Reflection, ShaderStage, SpecConstant,
    SpecConstantType,
};
use crate::spirv::spec::{Dim, ExecutionMode};
use crate::spirv::{Decoration, MAGIC, Op, StorageClass, instructions, literal_string, literal_string_words};

const DIM_BUFFER: u32 = Dim::DimBuffer as u32;
const DIM_SUBPASS_DATA: u32 = Dim::DimSubpassData as u32;

#[derive(Clone, Debug)]
enum Type {
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
    Vector { component: u32, count: u32 },
    Matrix { column: u32, count: u32 },
    Image { dim: u32, sampled: u32 },
    Sampler,
    SampledImage,
    Array { element: u32, length: u32 },
    RuntimeArray { element: u32 },
    Struct { members: Vec<u32> },
    Pointer { pointee: u32 },
    AccelerationStructure,
}

#[derive(Default)]
struct Decorations {
    set: Option<u32>,
    binding: Option<u32>,
    location: Option<u32>,
    component: Option<u32>,
    spec_id: Option<u32>,
    builtin: bool,
    patch: bool,
    buffer_block: bool,
    array_stride: Option<u32>,
}

#[derive(Default)]
struct MemberDecorations {
    offset: Option<u32>,
    matrix_stride: Option<u32>,
    builtin: bool,
}

#[derive(Default)]
struct Module {
    names: HashMap<u32, String>,
    decorations: HashMap<u32, Decorations>,
    members: HashMap<(u32, u32), MemberDecorations>,
    types: HashMap<u32, Type>,
    constants: HashMap<u32, u64>,
    /// (result type, id, value words) of spec constants.
    spec_constants: Vec<(u32, u32, SpecDefault)>,
    /// (pointer type, id, storage class).
    variables: Vec<(u32, u32, StorageClass)>,
    entry: Option<(u32, u32, String)>,
    /// The ids of the first entry point's interface.
    entry_interface: Vec<u32>,
    local_size: HashMap<u32, [u32; 3]>,
}

enum SpecDefault {
    Bool(bool),
    Words(u64),
}

impl Module {
    /// What `spirv` declares, up to the first damaged instruction.
    fn parse(spirv: &[u32]) -> Self {
        let mut module = Self::default();
        for inst in instructions(spirv).until_damage() {
            if let Some(opcode) = inst.op() {
                module.instruction(opcode, inst.words);
            }
        }
        module
    }

    /// The module and the stage of its first entry point.
    fn with_entry(spirv: &[u32]) -> Result<(Self, ShaderStage), ReflectionError> {
        if spirv.first() != Some(&MAGIC) {
            return Err(ReflectionError::NotSpirv);
        }
        let module = Self::parse(spirv);
        let model = module.entry.as_ref().ok_or(ReflectionError::NoEntryPoint)?.0;
        let stage = ShaderStage::from_execution_model(model).ok_or(ReflectionError::NoEntryPoint)?;
        Ok((module, stage))
    }

    fn instruction(&mut self, opcode: Op, inst: &[u32]) {
        let op = |i: usize| inst.get(i).copied().unwrap_or(0);
        let literal64 = || u64::from(op(3)) | u64::from(op(4)) << 32;
        match opcode {
            Op::Name if inst.len() > 2 => {
                self.names.insert(op(1), literal_string(&inst[2..]));
            }
            Op::EntryPoint if inst.len() > 3 && self.entry.is_none() => {
                self.entry = Some((op(1), op(2), literal_string(&inst[3..])));
                // The name takes the words up to the one holding its 0 byte.
                let name_words = literal_string_words(&inst[3..]);
                self.entry_interface = inst.get(3 + name_words..).unwrap_or_default().to_vec();
            }
            Op::ExecutionMode if op(2) == ExecutionMode::LocalSize as u32 && inst.len() >= 6 => {
                self.local_size.insert(op(1), [op(3), op(4), op(5)]);
            }
            Op::TypeBool => self.ty(op(1), Type::Bool),
            Op::TypeInt => self.ty(op(1), Type::Int { width: op(2), signed: op(3) != 0 }),
            Op::TypeFloat => self.ty(op(1), Type::Float { width: op(2) }),
            Op::TypeVector => self.ty(op(1), Type::Vector { component: op(2), count: op(3) }),
            Op::TypeMatrix => self.ty(op(1), Type::Matrix { column: op(2), count: op(3) }),
            Op::TypeImage => self.ty(op(1), Type::Image { dim: op(3), sampled: op(7) }),
            Op::TypeSampler => self.ty(op(1), Type::Sampler),
            Op::TypeSampledImage => self.ty(op(1), Type::SampledImage),
            Op::TypeArray => {
                let length = self.constants.get(&op(3)).map_or(1, |&l| u32::try_from(l).unwrap_or(u32::MAX));
                self.ty(op(1), Type::Array { element: op(2), length });
            }
            Op::TypeRuntimeArray => self.ty(op(1), Type::RuntimeArray { element: op(2) }),
            Op::TypeStruct => self.ty(op(1), Type::Struct { members: inst.get(2..).unwrap_or_default().to_vec() }),
            Op::TypePointer => self.ty(op(1), Type::Pointer { pointee: op(3) }),
            Op::TypeAccelerationStructureKHR => self.ty(op(1), Type::AccelerationStructure),
            Op::Constant if inst.len() >= 4 => {
                self.constants.insert(op(2), literal64());
            }
            Op::SpecConstantTrue | Op::SpecConstantFalse => {
                self.spec_constants.push((op(1), op(2), SpecDefault::Bool(opcode == Op::SpecConstantTrue)));
            }
            Op::SpecConstant if inst.len() >= 4 => {
                self.spec_constants.push((op(1), op(2), SpecDefault::Words(literal64())))
            }
            Op::Variable if inst.len() >= 4 => {
                if let Some(storage) = StorageClass::from_u32(op(3)) {
                    self.variables.push((op(1), op(2), storage));
                }
            }
            Op::Decorate if inst.len() >= 3 => {
                let d = self.decorations.entry(op(1)).or_default();
                let Some(decoration) = Decoration::from_u32(op(2)) else { return };
                match decoration {
                    Decoration::DescriptorSet => d.set = Some(op(3)),
                    Decoration::Binding => d.binding = Some(op(3)),
                    Decoration::Location => d.location = Some(op(3)),
                    Decoration::Component => d.component = Some(op(3)),
                    Decoration::Patch => d.patch = true,
                    Decoration::SpecId => d.spec_id = Some(op(3)),
                    Decoration::BuiltIn => d.builtin = true,
                    Decoration::BufferBlock => d.buffer_block = true,
                    Decoration::ArrayStride => d.array_stride = Some(op(3)),
                    _ => {}
                }
            }
            Op::MemberDecorate if inst.len() >= 4 => {
                let d = self.members.entry((op(1), op(2))).or_default();
                let Some(decoration) = Decoration::from_u32(op(3)) else { return };
                match decoration {
                    Decoration::Offset => d.offset = Some(op(4)),
                    Decoration::MatrixStride => d.matrix_stride = Some(op(4)),
                    Decoration::BuiltIn => d.builtin = true,
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn ty(&mut self, id: u32, ty: Type) {
        self.types.insert(id, ty);
    }

    fn name(&self, id: u32) -> String {
        self.names.get(&id).cloned().unwrap_or_default()
    }

    fn pointee(&self, pointer: u32) -> Option<u32> {
        match self.types.get(&pointer) {
            Some(Type::Pointer { pointee }) => Some(*pointee),
            _ => None,
        }
    }

    /// The element type and total count under any arrays (0 = runtime-sized).
    fn strip_arrays(&self, mut ty: u32) -> (u32, u32) {
        let mut count = 1u32;
        for _ in 0..16 {
            match self.types.get(&ty) {
                Some(Type::Array { element, length }) => {
                    count = count.saturating_mul(*length);
                    ty = *element;
                }
                Some(Type::RuntimeArray { element }) => {
                    count = 0;
                    ty = *element;
                }
                _ => break,
            }
        }
        (ty, count)
    }

    fn descriptor_kind(&self, ty: u32, storage: StorageClass) -> Option<DescriptorKind> {
        Some(match self.types.get(&ty)? {
            Type::Sampler => DescriptorKind::Sampler,
            Type::SampledImage => DescriptorKind::CombinedImageSampler,
            Type::Image { dim: DIM_BUFFER, sampled: 2 } => DescriptorKind::StorageTexelBuffer,
            Type::Image { dim: DIM_BUFFER, .. } => DescriptorKind::UniformTexelBuffer,
            Type::Image { dim: DIM_SUBPASS_DATA, .. } => DescriptorKind::InputAttachment,
            Type::Image { sampled: 2, .. } => DescriptorKind::StorageImage,
            Type::Image { .. } => DescriptorKind::SampledImage,
            Type::AccelerationStructure => DescriptorKind::AccelerationStructure,
            Type::Struct { .. } if storage == StorageClass::StorageBuffer => DescriptorKind::StorageBuffer,
            Type::Struct { .. } if self.decorations.get(&ty).is_some_and(|d| d.buffer_block) => {
                DescriptorKind::StorageBuffer
            }
            Type::Struct { .. } => DescriptorKind::UniformBuffer,
            _ => return None,
        })
    }

    /// Byte size of a type in a block.
    fn size_of(&self, ty: u32) -> u32 {
        self.size_in(ty, None, 0, &mut HashMap::new())
    }

    /// [`size_of`](Self::size_of) at `depth`, each type's size worked out once
    /// (`known`): nested copies of a struct would otherwise take exponential time.
    fn size_in(
        &self,
        ty: u32,
        matrix_stride: Option<u32>,
        depth: u32,
        known: &mut HashMap<(u32, Option<u32>), u32>,
    ) -> u32 {
        if depth > 32 {
            return 0;
        }
        if let Some(&size) = known.get(&(ty, matrix_stride)) {
            return size;
        }
        let size = match self.types.get(&ty) {
            Some(Type::Bool) => 4,
            // Saturating throughout: hostile counts must not overflow.
            Some(Type::Int { width, .. } | Type::Float { width }) => width / 8,
            Some(Type::Vector { component, count }) => {
                count.saturating_mul(self.size_in(*component, None, depth + 1, known))
            }
            Some(Type::Matrix { column, count }) => {
                count.saturating_mul(matrix_stride.unwrap_or_else(|| self.size_in(*column, None, depth + 1, known)))
            }
            Some(Type::Array { element, length }) => {
                let stride = self.decorations.get(&ty).and_then(|d| d.array_stride);
                length.saturating_mul(stride.unwrap_or_else(|| self.size_in(*element, matrix_stride, depth + 1, known)))
            }
            Some(Type::Struct { members }) => members
                .iter()
                .zip(0u32..)
                .map(|(&member, i)| {
                    let m = self.members.get(&(ty, i));
                    let offset = m.and_then(|m| m.offset).unwrap_or(0);
                    offset.saturating_add(self.size_in(member, m.and_then(|m| m.matrix_stride), depth + 1, known))
                })
                .max()
                .unwrap_or(0),
            _ => 0,
        };
        known.insert((ty, matrix_stride), size);
        size
    }

    /// Whether `ty` is a struct whose members are all built-ins (`gl_PerVertex`).
    fn all_members_builtin(&self, ty: u32) -> bool {
        match self.types.get(&ty) {
            Some(Type::Struct { members }) => {
                (0u32..).take(members.len()).all(|i| self.members.get(&(ty, i)).is_some_and(|m| m.builtin))
            }
            _ => false,
        }
    }

    /// `VkFormat` of a scalar, vector or matrix type, with its number of
    /// columns (read as vectors, so a hostile matrix of itself ends).
    fn format_of(&self, ty: u32) -> (u32, u32) {
        match self.types.get(&ty) {
            Some(Type::Matrix { column, count }) => (self.vector_format(*column), *count),
            _ => (self.vector_format(ty), 1),
        }
    }

    /// `VkFormat` of a scalar or vector type (0 for anything else).
    fn vector_format(&self, ty: u32) -> u32 {
        match self.types.get(&ty) {
            Some(Type::Vector { component, count }) => vk_format_of(self.types.get(component), *count),
            scalar => vk_format_of(scalar, 1),
        }
    }
}

/// The locations of an interface variable's `count` array elements of
/// `columns` columns each, from `first` (two each for `dvec3`/`dvec4`), bounded.
fn element_locations(first: u32, count: u32, columns: u32, format: u32) -> impl Iterator<Item = u32> {
    let step = if (vk_format(ScalarKind::Uint, 64, 3)..=vk_format(ScalarKind::Float, 64, 4)).contains(&format) {
        2
    } else {
        1
    };
    let slots = count.max(1).saturating_mul(columns).min(MAX_INTERFACE_LOCATIONS);
    (0..slots).map_while(move |i| i.checked_mul(step).and_then(|i| first.checked_add(i)))
}

/// The `VkFormat` for `count` components of a scalar type (0 if none fits).
fn vk_format_of(scalar: Option<&Type>, count: u32) -> u32 {
    match scalar {
        Some(Type::Int { width, signed: false }) => vk_format(ScalarKind::Uint, *width, count),
        Some(Type::Int { width, signed: true }) => vk_format(ScalarKind::Sint, *width, count),
        Some(Type::Float { width }) => vk_format(ScalarKind::Float, *width, count),
        _ => 0,
    }
}

/// The `VkFormat` for `count` components of `width`-bit scalars of `kind` (0 if none).
pub(super) fn vk_format(kind: ScalarKind, width: u32, count: u32) -> u32 {
    let kind = match kind {
        ScalarKind::Uint => 0,
        ScalarKind::Sint => 1,
        ScalarKind::Float => 2,
        ScalarKind::Bool => return 0,
    };
    // R_UINT and the step to RG, RGB, RGBA: (uint, sint, sfloat) of 16 bits
    // also have UNORM, SNORM, USCALED and SSCALED formats between them.
    let (first, step) = match width {
        16 => (74, 7),
        32 => (98, 3),
        64 => (110, 3),
        _ => return 0,
    };
    if (1..=4).contains(&count) { first + step * (count - 1) + kind } else { 0 }
}

fn spec_type(ty: Option<&Type>) -> SpecConstantType {
    match ty {
        Some(Type::Bool) => SpecConstantType::Bool,
        Some(Type::Int { width: 32, signed: true }) => SpecConstantType::I32,
        Some(Type::Int { width: 32, signed: false }) => SpecConstantType::U32,
        Some(Type::Float { width: 32 }) => SpecConstantType::F32,
        Some(Type::Int { width: 64, signed: true }) => SpecConstantType::I64,
        Some(Type::Int { width: 64, signed: false }) => SpecConstantType::U64,
        Some(Type::Float { width: 64 }) => SpecConstantType::F64,
        _ => SpecConstantType::Other,
    }
}

impl Reflection {
    /// Reads the reflection of a SPIR-V module's first `OpEntryPoint`.
    ///
    /// ```
    /// use smolv_format::reflect::{Reflection, ShaderStage};
    /// let reflection = Reflection::from_spirv(&smolv_format::doc_example_module())?;
    /// assert_eq!(reflection.stage, ShaderStage::Compute);
    /// assert_eq!(reflection.entry_point, "main");
    /// assert_eq!(reflection.workgroup_size, Some([1, 1, 1]));
    /// # Ok::<(), smolv_format::reflect::ReflectionError>(())
    /// ```
    pub fn from_spirv(spirv: &[u32]) -> Result<Self, ReflectionError> {
        let (module, stage) = Module::with_entry(spirv)?;
        let (_, entry_id, entry_point) = module.entry.as_ref().ok_or(ReflectionError::NoEntryPoint)?;
        Ok(reflect(&module, stage, *entry_id, entry_point.to_owned()))
    }
}

/// The user-defined inputs and outputs of a module's first entry point
/// (see [`StageInterface::from_spirv`]).
pub(super) fn stage_interface(spirv: &[u32]) -> Result<StageInterface, ReflectionError> {
    let (module, stage) = Module::with_entry(spirv)?;
    let mut interface = StageInterface::new(stage);
    for &(pointer, id, storage) in &module.variables {
        let input = storage == StorageClass::Input;
        if !(input || storage == StorageClass::Output) || !module.entry_interface.contains(&id) {
            continue;
        }
        let Some(mut ty) = module.pointee(pointer) else { continue };
        let decorations = module.decorations.get(&id);
        if decorations.is_some_and(|d| d.builtin) {
            continue;
        }
        let Some(location) = decorations.and_then(|d| d.location) else {
            // A block whose members carry their own `Location`s: members are
            // not followed, so its locations are unknown (`gl_PerVertex` aside).
            if !input && !module.all_members_builtin(module.strip_arrays(ty).0) {
                interface.unplaced_outputs = true;
            }
            continue;
        };
        let Some(decorations) = decorations else { continue };
        // Per-vertex variables of these stages are arrays with one element per vertex.
        let per_vertex = !decorations.patch
            && match stage {
                ShaderStage::TessellationControl => true,
                ShaderStage::TessellationEvaluation | ShaderStage::Geometry => input,
                _ => false,
            };
        if per_vertex && let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) = module.types.get(&ty)
        {
            ty = *element;
        }
        let (element, count) = module.strip_arrays(ty);
        // A struct's members take locations of their own: one entry, no format.
        let (format, locations) = match module.types.get(&element) {
            Some(Type::Struct { .. }) => (0, 1),
            _ => module.format_of(element),
        };
        let list = if input { &mut interface.inputs } else { &mut interface.outputs };
        for location in element_locations(location, count, locations, format) {
            list.push(StageVariable {
                location,
                component: decorations.component.unwrap_or(0),
                format,
                name: module.name(id),
            });
        }
    }
    interface.inputs.sort_by_key(|v| (v.location, v.component));
    interface.outputs.sort_by_key(|v| (v.location, v.component));
    Ok(interface)
}

/// Most entries one interface variable is reflected as (far beyond any device's).
const MAX_INTERFACE_LOCATIONS: u32 = 1024;

fn reflect(module: &Module, stage: ShaderStage, entry_id: u32, entry_point: String) -> Reflection {
    let stage_flag = stage.vk_stage_flag();
    let mut reflection = Reflection::new(stage, entry_point);
    reflection.workgroup_size = module.local_size.get(&entry_id).copied();

    for &(pointer, id, storage) in &module.variables {
        let Some(pointee) = module.pointee(pointer) else { continue };
        let decorations = module.decorations.get(&id);
        match storage {
            StorageClass::UniformConstant | StorageClass::Uniform | StorageClass::StorageBuffer => {
                let (Some(set), Some(binding)) = (decorations.and_then(|d| d.set), decorations.and_then(|d| d.binding))
                else {
                    continue;
                };
                let (element, count) = module.strip_arrays(pointee);
                let Some(kind) = module.descriptor_kind(element, storage) else { continue };
                let mut name = module.name(id);
                if name.is_empty() {
                    name = module.name(element);
                }
                reflection.bindings.push(DescriptorBinding { set, binding, kind, count, stages: stage_flag, name });
            }
            StorageClass::PushConstant => {
                let Some(Type::Struct { members }) = module.types.get(&pointee) else { continue };
                let offset = (0..u32::try_from(members.len()).unwrap_or(u32::MAX))
                    .filter_map(|i| module.members.get(&(pointee, i)).and_then(|m| m.offset))
                    .min()
                    .unwrap_or(0);
                // Vulkan wants both in multiples of 4 (VUID-VkPushConstantRange-offset-00295).
                let offset = offset & !3;
                let end = module.size_of(pointee);
                let end = end.checked_add(3).map_or(!3, |e| e & !3);
                let size = end.saturating_sub(offset);
                // Vulkan has no range of size 0 (VUID-VkPushConstantRange-size-00296).
                if size > 0 {
                    reflection.push_constants.push(PushConstantRange { offset, size, stages: stage_flag });
                }
            }
            StorageClass::Input | StorageClass::Output => {
                let wanted = (storage == StorageClass::Input && stage == ShaderStage::Vertex)
                    || (storage == StorageClass::Output && stage == ShaderStage::Fragment);
                let Some(location) = decorations.and_then(|d| d.location) else { continue };
                if !wanted || decorations.is_some_and(|d| d.builtin) {
                    continue;
                }
                let (element, count) = module.strip_arrays(pointee);
                let (format, locations) = module.format_of(element);
                let list =
                    if storage == StorageClass::Input { &mut reflection.inputs } else { &mut reflection.outputs };
                for location in element_locations(location, count, locations, format) {
                    list.push(InterfaceVariable { location, format, name: module.name(id) });
                }
            }
            _ => {}
        }
    }

    for (ty, id, default) in &module.spec_constants {
        let Some(spec_id) = module.decorations.get(id).and_then(|d| d.spec_id) else { continue };
        let ty = spec_type(module.types.get(ty));
        let default = match default {
            SpecDefault::Bool(b) => u64::from(*b),
            SpecDefault::Words(v) if ty.size() == 4 => v & 0xFFFF_FFFF,
            SpecDefault::Words(v) => *v,
        };
        reflection.spec_constants.push(SpecConstant { id: spec_id, ty, default, name: module.name(*id) });
    }

    reflection.bindings.sort_by_key(|b| (b.set, b.binding));
    reflection.spec_constants.sort_by_key(|s| s.id);
    reflection.inputs.sort_by_key(|v| v.location);
    reflection.outputs.sort_by_key(|v| v.location);
    reflection
}
