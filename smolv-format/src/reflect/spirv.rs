//! The one parse of a SPIR-V module, which [`Reflection`], [`StageInterface`] and the `Interface` read.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::binary::ReflectionError;
use super::interface::{Capability, ScalarKind, ScalarType};
use super::stage_io::{StageInterface, StageVariable};
use super::types::{
    DescriptorBinding, DescriptorKind, InterfaceVariable, PushConstantRange, Reflection, ShaderStage, SpecConstant,
    SpecConstantType,
};
use crate::spirv::spec::{Dim, ExecutionMode};
use crate::spirv::{Decoration, MAGIC, Op, StorageClass, instructions, literal_string, literal_string_words};

const DIM_BUFFER: u32 = Dim::DimBuffer as u32;
const DIM_SUBPASS_DATA: u32 = Dim::DimSubpassData as u32;

/// A SPIR-V type as declared, by operand ids; an array's `count` is its `OpConstant` length (else 1).
pub(super) enum Raw {
    Scalar(ScalarType),
    Vector { component: u32, count: u32 },
    Matrix { column: u32, count: u32 },
    Array { element: u32, length: u32, count: u32 },
    RuntimeArray { element: u32 },
    Struct { members: Vec<u32> },
    Pointer { storage: u32, pointee: u32 },
    Image { dim: u32, sampled: u32 },
    Sampler,
    SampledImage,
    AccelerationStructure,
}

/// A constant's value: `Bool` from `OpConstantTrue`/`False`, `Spec` from a spec constant.
pub(super) enum Constant {
    Value(u64),
    Bool(u64),
    Spec(u64),
    Composite(Vec<u32>),
    Expression,
}

#[derive(Default)]
pub(super) struct Decorations {
    pub(super) set: Option<u32>,
    pub(super) binding: Option<u32>,
    pub(super) location: Option<u32>,
    pub(super) component: Option<u32>,
    pub(super) spec_id: Option<u32>,
    pub(super) builtin: Option<u32>,
    pub(super) patch: bool,
    pub(super) buffer_block: bool,
    pub(super) array_stride: Option<u32>,
}

#[derive(Default, Clone, Copy)]
pub(super) struct MemberLayout {
    pub(super) offset: Option<u32>,
    pub(super) matrix_stride: Option<u32>,
    pub(super) row_major: bool,
    pub(super) builtin: bool,
}

#[derive(Default)]
pub(super) struct Module {
    pub(super) names: BTreeMap<u32, String>,
    pub(super) member_names: BTreeMap<(u32, u32), String>,
    pub(super) strings: BTreeMap<u32, String>,
    pub(super) source_file: Option<u32>,
    /// The `OpLine` (file id, line) in force before each struct type.
    pub(super) struct_lines: BTreeMap<u32, (u32, u32)>,
    pub(super) types: BTreeMap<u32, Raw>,
    /// Id → (result type, constant).
    pub(super) constants: BTreeMap<u32, (u32, Constant)>,
    pub(super) decorations: BTreeMap<u32, Decorations>,
    pub(super) members: BTreeMap<(u32, u32), MemberLayout>,
    /// (pointer type, id, storage class), in module order.
    pub(super) variables: Vec<(u32, u32, StorageClass)>,
    /// Execution model and id of the first entry point.
    pub(super) entry: Option<(u32, u32)>,
    /// Execution model, id, name and interface ids of the first entry point with a name.
    entry_point: Option<(u32, u32, String, Vec<u32>)>,
    /// `LocalSize` of each id that has one (any `OpExecutionMode`).
    local_sizes: BTreeMap<u32, [u32; 3]>,
    /// (result type, id, value) of each spec constant, in module order.
    spec_constants: Vec<(u32, u32, u64)>,
    pub(super) local_size: Option<[u32; 3]>,
    pub(super) local_size_id: Option<[u32; 3]>,
    pub(super) capabilities: Vec<Capability>,
    pub(super) extensions: Vec<String>,
}

impl Module {
    /// What `spirv` declares, up to the first damaged instruction.
    pub(super) fn parse(spirv: &[u32]) -> Result<Self, ReflectionError> {
        if spirv.first() != Some(&MAGIC) {
            return Err(ReflectionError::NotSpirv);
        }
        let mut module = Self::default();
        let mut line = None;
        for inst in instructions(spirv).until_damage() {
            if let Some(opcode) = inst.op() {
                module.instruction(opcode, inst.words, &mut line);
            }
        }
        Ok(module)
    }

    /// The module and the stage of its first entry point.
    fn with_entry(spirv: &[u32]) -> Result<(Self, ShaderStage), ReflectionError> {
        let module = Self::parse(spirv)?;
        let model = module.entry_point.as_ref().ok_or(ReflectionError::NoEntryPoint)?.0;
        let stage = ShaderStage::from_execution_model(model).ok_or(ReflectionError::NoEntryPoint)?;
        Ok((module, stage))
    }

    fn instruction(&mut self, opcode: Op, inst: &[u32], line: &mut Option<(u32, u32)>) {
        let op = |i: usize| inst.get(i).copied().unwrap_or(0);
        let rest = |i: usize| inst.get(i..).unwrap_or_default();
        let literal64 = || u64::from(op(3)) | u64::from(op(4)) << 32;
        match opcode {
            Op::Source if inst.len() > 3 => self.source_file = Some(op(3)),
            Op::Name if inst.len() > 2 => {
                self.names.insert(op(1), literal_string(rest(2)));
            }
            Op::MemberName if inst.len() > 3 => {
                self.member_names.insert((op(1), op(2)), literal_string(rest(3)));
            }
            Op::String if inst.len() > 2 => {
                self.strings.insert(op(1), literal_string(rest(2)));
            }
            Op::Line if inst.len() > 2 => *line = Some((op(1), op(2))),
            Op::NoLine | Op::FunctionEnd => *line = None,
            Op::Extension if inst.len() > 1 => self.extensions.push(literal_string(rest(1))),
            Op::Capability if inst.len() > 1 => self.capabilities.push(Capability(op(1))),
            Op::EntryPoint if inst.len() > 2 => {
                self.entry.get_or_insert((op(1), op(2)));
                if inst.len() > 3 && self.entry_point.is_none() {
                    let interface = rest(3 + literal_string_words(rest(3))).to_vec();
                    self.entry_point = Some((op(1), op(2), literal_string(rest(3)), interface));
                }
            }
            Op::ExecutionMode | Op::ExecutionModeId if inst.len() >= 6 => {
                let (size, of_entry) = ([op(3), op(4), op(5)], self.entry.is_some_and(|(_, id)| id == op(1)));
                match ExecutionMode::from_u32(op(2)) {
                    Some(ExecutionMode::LocalSize) => {
                        if opcode == Op::ExecutionMode {
                            self.local_sizes.insert(op(1), size);
                        }
                        if of_entry {
                            self.local_size = Some(size);
                        }
                    }
                    Some(ExecutionMode::LocalSizeId) if of_entry => self.local_size_id = Some(size),
                    _ => {}
                }
            }
            Op::TypeBool => self.ty(op(1), Raw::Scalar(ScalarType::new(ScalarKind::Bool, 32))),
            Op::TypeInt => {
                let kind = if op(3) == 0 { ScalarKind::Uint } else { ScalarKind::Sint };
                self.ty(op(1), Raw::Scalar(ScalarType::new(kind, op(2))));
            }
            Op::TypeFloat => self.ty(op(1), Raw::Scalar(ScalarType::new(ScalarKind::Float, op(2)))),
            Op::TypeVector => self.ty(op(1), Raw::Vector { component: op(2), count: op(3) }),
            Op::TypeMatrix => self.ty(op(1), Raw::Matrix { column: op(2), count: op(3) }),
            Op::TypeImage => self.ty(op(1), Raw::Image { dim: op(3), sampled: op(7) }),
            Op::TypeSampler => self.ty(op(1), Raw::Sampler),
            Op::TypeSampledImage => self.ty(op(1), Raw::SampledImage),
            Op::TypeArray => {
                let count = match self.constants.get(&op(3)) {
                    Some((_, Constant::Value(l))) => u32::try_from(*l).unwrap_or(u32::MAX),
                    _ => 1,
                };
                self.ty(op(1), Raw::Array { element: op(2), length: op(3), count });
            }
            Op::TypeRuntimeArray => self.ty(op(1), Raw::RuntimeArray { element: op(2) }),
            Op::TypeStruct => {
                if let Some(at) = *line {
                    self.struct_lines.insert(op(1), at);
                }
                self.ty(op(1), Raw::Struct { members: rest(2).to_vec() });
            }
            Op::TypePointer => self.ty(op(1), Raw::Pointer { storage: op(2), pointee: op(3) }),
            Op::TypeAccelerationStructureKHR => self.ty(op(1), Raw::AccelerationStructure),
            Op::ConstantTrue | Op::ConstantFalse => {
                self.constant(op(2), op(1), Constant::Bool(u64::from(opcode == Op::ConstantTrue)))
            }
            Op::Constant if inst.len() >= 4 => self.constant(op(2), op(1), Constant::Value(literal64())),
            Op::SpecConstantTrue | Op::SpecConstantFalse => {
                self.spec(op(1), op(2), u64::from(opcode == Op::SpecConstantTrue))
            }
            Op::SpecConstant if inst.len() >= 4 => self.spec(op(1), op(2), literal64()),
            Op::ConstantComposite | Op::SpecConstantComposite if inst.len() >= 3 => {
                self.constant(op(2), op(1), Constant::Composite(rest(3).to_vec()))
            }
            Op::SpecConstantOp if inst.len() >= 3 => self.constant(op(2), op(1), Constant::Expression),
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
                    Decoration::BuiltIn => d.builtin = Some(op(3)),
                    Decoration::BufferBlock => d.buffer_block = true,
                    Decoration::ArrayStride => d.array_stride = Some(op(3)),
                    _ => {}
                }
            }
            Op::MemberDecorate if inst.len() >= 4 => {
                let m = self.members.entry((op(1), op(2))).or_default();
                let Some(decoration) = Decoration::from_u32(op(3)) else { return };
                match decoration {
                    Decoration::Offset => m.offset = Some(op(4)),
                    Decoration::MatrixStride => m.matrix_stride = Some(op(4)),
                    Decoration::RowMajor => m.row_major = true,
                    Decoration::ColMajor => m.row_major = false,
                    Decoration::BuiltIn => m.builtin = true,
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn ty(&mut self, id: u32, raw: Raw) {
        self.types.insert(id, raw);
    }

    fn constant(&mut self, id: u32, ty: u32, constant: Constant) {
        self.constants.insert(id, (ty, constant));
    }

    fn spec(&mut self, ty: u32, id: u32, value: u64) {
        self.spec_constants.push((ty, id, value));
        self.constant(id, ty, Constant::Spec(value));
    }

    pub(super) fn name(&self, id: u32) -> String {
        self.names.get(&id).cloned().unwrap_or_default()
    }

    /// The value of a scalar constant, with its `SpecId` if it is a spec constant.
    pub(super) fn scalar_constant(&self, id: u32) -> Option<(u64, Option<u32>)> {
        match self.constants.get(&id)? {
            (_, Constant::Value(v) | Constant::Bool(v)) => Some((*v, None)),
            (_, Constant::Spec(v)) => Some((*v, self.decorations.get(&id).and_then(|d| d.spec_id))),
            _ => None,
        }
    }

    fn pointee(&self, pointer: u32) -> Option<u32> {
        match self.types.get(&pointer) {
            Some(Raw::Pointer { pointee, .. }) => Some(*pointee),
            _ => None,
        }
    }

    /// The element type and total count under any arrays (0 = runtime-sized).
    fn strip_arrays(&self, mut ty: u32) -> (u32, u32) {
        let mut count = 1u32;
        for _ in 0..16 {
            (ty, count) = match self.types.get(&ty) {
                Some(Raw::Array { element, count: length, .. }) => (*element, count.saturating_mul(*length)),
                Some(Raw::RuntimeArray { element }) => (*element, 0),
                _ => break,
            };
        }
        (ty, count)
    }

    fn descriptor_kind(&self, ty: u32, storage: StorageClass) -> Option<DescriptorKind> {
        Some(match self.types.get(&ty)? {
            Raw::Sampler => DescriptorKind::Sampler,
            Raw::SampledImage => DescriptorKind::CombinedImageSampler,
            Raw::Image { dim: DIM_BUFFER, sampled: 2 } => DescriptorKind::StorageTexelBuffer,
            Raw::Image { dim: DIM_BUFFER, .. } => DescriptorKind::UniformTexelBuffer,
            Raw::Image { dim: DIM_SUBPASS_DATA, .. } => DescriptorKind::InputAttachment,
            Raw::Image { sampled: 2, .. } => DescriptorKind::StorageImage,
            Raw::Image { .. } => DescriptorKind::SampledImage,
            Raw::AccelerationStructure => DescriptorKind::AccelerationStructure,
            Raw::Struct { .. } if storage == StorageClass::StorageBuffer => DescriptorKind::StorageBuffer,
            Raw::Struct { .. } if self.decorations.get(&ty).is_some_and(|d| d.buffer_block) => {
                DescriptorKind::StorageBuffer
            }
            Raw::Struct { .. } => DescriptorKind::UniformBuffer,
            _ => return None,
        })
    }

    /// Byte size of a type in a block, each size worked out once (`known`), else nested structs take exponential time.
    fn size_in(
        &self,
        ty: u32,
        matrix_stride: Option<u32>,
        depth: u32,
        known: &mut BTreeMap<(u32, Option<u32>), u32>,
    ) -> u32 {
        if depth > 32 {
            return 0;
        }
        if let Some(&size) = known.get(&(ty, matrix_stride)) {
            return size;
        }
        let size = match self.types.get(&ty) {
            // Saturating throughout: hostile counts must not overflow.
            Some(Raw::Scalar(scalar)) => scalar.size(),
            Some(Raw::Vector { component, count }) => {
                count.saturating_mul(self.size_in(*component, None, depth + 1, known))
            }
            Some(Raw::Matrix { column, count }) => {
                count.saturating_mul(matrix_stride.unwrap_or_else(|| self.size_in(*column, None, depth + 1, known)))
            }
            Some(Raw::Array { element, count, .. }) => {
                let stride = self.decorations.get(&ty).and_then(|d| d.array_stride);
                count.saturating_mul(stride.unwrap_or_else(|| self.size_in(*element, matrix_stride, depth + 1, known)))
            }
            Some(Raw::Struct { members }) => members
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
            Some(Raw::Struct { members }) => {
                (0u32..).take(members.len()).all(|i| self.members.get(&(ty, i)).is_some_and(|m| m.builtin))
            }
            _ => false,
        }
    }

    /// The locations from `first`, with their `VkFormat` (0 for a struct), of an interface variable of type `ty`: one
    /// per element and column (read as vectors: a matrix of itself ends), two per `dvec3`/`dvec4`, bounded.
    fn locations(&self, first: u32, ty: u32) -> impl Iterator<Item = (u32, u32)> {
        let (element, count) = self.strip_arrays(ty);
        let (format, columns) = match self.types.get(&element) {
            Some(Raw::Matrix { column, count }) => (self.vector_format(*column), *count),
            _ => (self.vector_format(element), 1),
        };
        let wide = vk_format(ScalarKind::Uint, 64, 3)..=vk_format(ScalarKind::Float, 64, 4);
        let step = if wide.contains(&format) { 2 } else { 1 };
        let slots = count.max(1).saturating_mul(columns).min(MAX_INTERFACE_LOCATIONS);
        (0..slots).map_while(move |i| Some((first.checked_add(i.checked_mul(step)?)?, format)))
    }

    /// `VkFormat` of a scalar or vector type (0 for anything else).
    fn vector_format(&self, ty: u32) -> u32 {
        let (scalar, count) = match self.types.get(&ty) {
            Some(Raw::Vector { component, count }) => (self.types.get(component), *count),
            scalar => (scalar, 1),
        };
        match scalar {
            Some(Raw::Scalar(s)) => vk_format(s.kind, s.width, count),
            _ => 0,
        }
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
    // R_UINT and the step to RG, RGB, RGBA (16 bits has UNORM, SNORM, USCALED, SSCALED between).
    let (first, step) = match width {
        16 => (74, 7),
        32 => (98, 3),
        64 => (110, 3),
        _ => return 0,
    };
    if (1..=4).contains(&count) { first + step * (count - 1) + kind } else { 0 }
}

fn spec_type(ty: Option<&Raw>) -> SpecConstantType {
    let Some(Raw::Scalar(ScalarType { kind, width })) = ty else { return SpecConstantType::Other };
    match (kind, width) {
        (ScalarKind::Bool, _) => SpecConstantType::Bool,
        (ScalarKind::Sint, 32) => SpecConstantType::I32,
        (ScalarKind::Uint, 32) => SpecConstantType::U32,
        (ScalarKind::Float, 32) => SpecConstantType::F32,
        (ScalarKind::Sint, 64) => SpecConstantType::I64,
        (ScalarKind::Uint, 64) => SpecConstantType::U64,
        (ScalarKind::Float, 64) => SpecConstantType::F64,
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
        let (_, entry_id, entry_point, _) = module.entry_point.as_ref().ok_or(ReflectionError::NoEntryPoint)?;
        let stage_flag = stage.vk_stage_flag();
        let mut reflection = Reflection::new(stage, entry_point.clone());
        reflection.workgroup_size = module.local_sizes.get(entry_id).copied();

        for &(pointer, id, storage) in &module.variables {
            let Some(pointee) = module.pointee(pointer) else { continue };
            let decorations = module.decorations.get(&id);
            match storage {
                StorageClass::UniformConstant | StorageClass::Uniform | StorageClass::StorageBuffer => {
                    let Some((set, binding)) = decorations.and_then(|d| d.set.zip(d.binding)) else { continue };
                    let (element, count) = module.strip_arrays(pointee);
                    let Some(kind) = module.descriptor_kind(element, storage) else { continue };
                    let name = Some(module.name(id)).filter(|n| !n.is_empty()).unwrap_or_else(|| module.name(element));
                    reflection.bindings.push(DescriptorBinding { set, binding, kind, count, stages: stage_flag, name });
                }
                StorageClass::PushConstant => {
                    let Some(Raw::Struct { members }) = module.types.get(&pointee) else { continue };
                    let offsets =
                        (0u32..).take(members.len()).filter_map(|i| module.members.get(&(pointee, i))?.offset);
                    // Vulkan wants both in multiples of 4 (VUID-VkPushConstantRange-offset-00295).
                    let offset = offsets.min().unwrap_or(0) & !3;
                    let end = module.size_in(pointee, None, 0, &mut BTreeMap::new());
                    let end = end.checked_add(3).map_or(!3, |e| e & !3);
                    let size = end.saturating_sub(offset);
                    // Vulkan has no range of size 0 (VUID-VkPushConstantRange-size-00296).
                    if size > 0 {
                        reflection.push_constants.push(PushConstantRange { offset, size, stages: stage_flag });
                    }
                }
                StorageClass::Input | StorageClass::Output => {
                    let list = match (storage, stage) {
                        (StorageClass::Input, ShaderStage::Vertex) => &mut reflection.inputs,
                        (StorageClass::Output, ShaderStage::Fragment) => &mut reflection.outputs,
                        _ => continue,
                    };
                    let Some(location) = decorations.filter(|d| d.builtin.is_none()).and_then(|d| d.location) else {
                        continue;
                    };
                    for (location, format) in module.locations(location, pointee) {
                        list.push(InterfaceVariable { location, format, name: module.name(id) });
                    }
                }
                _ => {}
            }
        }

        for &(ty, id, value) in &module.spec_constants {
            let Some(spec_id) = module.decorations.get(&id).and_then(|d| d.spec_id) else { continue };
            let ty = spec_type(module.types.get(&ty));
            let default = if ty.size() == 4 { value & 0xFFFF_FFFF } else { value };
            reflection.spec_constants.push(SpecConstant { id: spec_id, ty, default, name: module.name(id) });
        }

        reflection.bindings.sort_by_key(|b| (b.set, b.binding));
        reflection.spec_constants.sort_by_key(|s| s.id);
        reflection.inputs.sort_by_key(|v| v.location);
        reflection.outputs.sort_by_key(|v| v.location);
        Ok(reflection)
    }
}

/// Most entries one interface variable is reflected as (far beyond any device's).
const MAX_INTERFACE_LOCATIONS: u32 = 1024;

impl StageInterface {
    /// Reads the interface of a SPIR-V module's first entry point.
    ///
    /// # Errors
    /// [`ReflectionError::NotSpirv`] and [`ReflectionError::NoEntryPoint`],
    /// as [`Reflection::from_spirv`].
    ///
    /// ```
    /// use smolv_format::reflect::StageInterface;
    /// assert!(StageInterface::from_spirv(&[1, 2, 3]).is_err());
    /// ```
    pub fn from_spirv(spirv: &[u32]) -> Result<Self, ReflectionError> {
        let (module, stage) = Module::with_entry(spirv)?;
        let entry_interface = module.entry_point.as_ref().map(|e| e.3.as_slice()).unwrap_or_default();
        let mut interface = StageInterface::new(stage);
        for &(pointer, id, storage) in &module.variables {
            let input = storage == StorageClass::Input;
            if !(input || storage == StorageClass::Output) || !entry_interface.contains(&id) {
                continue;
            }
            let Some(mut ty) = module.pointee(pointer) else { continue };
            let decorations = module.decorations.get(&id);
            if decorations.is_some_and(|d| d.builtin.is_some()) {
                continue;
            }
            let Some(location) = decorations.and_then(|d| d.location) else {
                // A block whose members carry the `Location`s: unknown, as members are not followed.
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
            if per_vertex
                && let Some(Raw::Array { element, .. } | Raw::RuntimeArray { element }) = module.types.get(&ty)
            {
                ty = *element;
            }
            let list = if input { &mut interface.inputs } else { &mut interface.outputs };
            // A struct's members take locations of their own: one entry, no format.
            for (location, format) in module.locations(location, ty) {
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
}
