//! Reading an [`Interface`] from SPIR-V, bounded by the module's words: each type converted once, arrays at
//! most [`MAX_DEPTH`] deep, and no allocation sized by a count read from it.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::binary::ReflectionError;
use super::interface::{
    ArrayLength, Block, BlockKind, Interface, Member, ScalarType, SourceLine, SpecConstantDef, Type, TypeDef,
    VertexInput, WorkgroupSize,
};
use super::spirv::{Constant, MemberLayout, Module, Raw, vk_format};
use crate::spirv::StorageClass;
use crate::spirv::spec::{BuiltIn, ExecutionModel};

const PHYSICAL_STORAGE_BUFFER: u32 = StorageClass::PhysicalStorageBuffer as u32;

/// Deepest nesting of arrays and structs converted; a cycle of ids stops here.
const MAX_DEPTH: u32 = 64;

/// Builds the [`Interface`], converting each struct once.
struct Converter<'a> {
    module: &'a Module,
    interface: Interface,
    /// SPIR-V struct id → index in `interface.types`.
    structs: BTreeMap<u32, usize>,
    /// Structs whose members are being converted (met again, they hold themselves).
    open: alloc::collections::BTreeSet<u32>,
}

fn bad(id: u32, reason: &'static str) -> ReflectionError {
    ReflectionError::BadType { id, reason }
}

impl Converter<'_> {
    fn scalar(&self, id: u32) -> Result<ScalarType, ReflectionError> {
        match self.module.types.get(&id) {
            Some(Raw::Scalar(scalar)) if matches!(scalar.width, 8 | 16 | 32 | 64) => Ok(*scalar),
            Some(Raw::Scalar(_)) => Err(bad(id, "is a scalar of a width other than 8, 16, 32 or 64 bits")),
            _ => Err(bad(id, "is used as a scalar but is not one")),
        }
    }

    fn vector(&self, id: u32) -> Result<(ScalarType, u32), ReflectionError> {
        match self.module.types.get(&id) {
            Some(Raw::Vector { component, count: count @ 2..=4 }) => Ok((self.scalar(*component)?, *count)),
            _ => Err(bad(id, "is used as a vector of 2 to 4 components but is not one")),
        }
    }

    /// The type `id`, as a member with `layout` or an array element under one.
    fn convert(&mut self, id: u32, layout: MemberLayout, depth: u32) -> Result<Type, ReflectionError> {
        if depth > MAX_DEPTH {
            return Err(bad(id, "nests arrays and structs too deeply (a cycle of types?)"));
        }
        let module = self.module;
        Ok(match module.types.get(&id) {
            Some(Raw::Scalar(_)) => Type::Scalar(self.scalar(id)?),
            Some(Raw::Vector { .. }) => {
                let (scalar, count) = self.vector(id)?;
                Type::Vector { scalar, count }
            }
            Some(Raw::Matrix { column, count }) => {
                let (scalar, rows) = self.vector(*column)?;
                if !(2..=4).contains(count) {
                    return Err(bad(id, "is a matrix with other than 2 to 4 columns"));
                }
                let stride = layout.matrix_stride.unwrap_or(0);
                Type::Matrix { scalar, columns: *count, rows, stride, row_major: layout.row_major }
            }
            Some(raw @ (Raw::Array { element, .. } | Raw::RuntimeArray { element })) => {
                let fits = |v: u64| u32::try_from(v).map_err(|_| bad(id, "is an array longer than u32::MAX elements"));
                let length = match raw {
                    Raw::Array { length, .. } => match module.scalar_constant(*length) {
                        Some((v, None)) => ArrayLength::Fixed(fits(v)?),
                        Some((v, Some(spec))) => ArrayLength::SpecConstant { id: spec, default: fits(v)? },
                        None if module.constants.contains_key(length) => ArrayLength::SpecExpression,
                        None => return Err(bad(id, "is an array whose length is not a constant")),
                    },
                    _ => ArrayLength::Runtime,
                };
                let stride = module.decorations.get(&id).and_then(|d| d.array_stride).unwrap_or(0);
                Type::Array { element: Box::new(self.convert(*element, layout, depth + 1)?), length, stride }
            }
            Some(Raw::Struct { .. }) => Type::Struct(self.struct_index(id, depth, false)?),
            Some(Raw::Pointer { storage: PHYSICAL_STORAGE_BUFFER, pointee }) => {
                let pointee = match module.types.get(pointee) {
                    Some(Raw::Struct { .. }) => Some(self.struct_index(*pointee, depth, true)?),
                    _ => None,
                };
                Type::DeviceAddress { pointee }
            }
            Some(Raw::Pointer { .. }) => return Err(bad(id, "is a pointer outside PhysicalStorageBuffer")),
            _ => return Err(bad(id, "is not a type this reader lays out (an image, sampler or unknown id)")),
        })
    }

    /// Struct `id`'s index in `interface.types`, converted the first time; taken before its members (self-references).
    fn struct_index(&mut self, id: u32, depth: u32, via_pointer: bool) -> Result<usize, ReflectionError> {
        if let Some(&index) = self.structs.get(&id) {
            if !via_pointer && self.open.contains(&id) {
                return Err(bad(id, "is a struct that holds itself"));
            }
            return Ok(index);
        }
        let module = self.module;
        let Some(Raw::Struct { members }) = module.types.get(&id) else { return Err(bad(id, "is not a struct")) };
        let index = self.interface.types.len();
        self.structs.insert(id, index);
        let mut def = TypeDef::new(module.name(id));
        def.source = module.struct_lines.get(&id).map(|&(file, line)| SourceLine {
            file: module.strings.get(&file).cloned().unwrap_or_default(),
            line: Some(line),
        });
        self.interface.types.push(def);
        self.open.insert(id);
        let mut converted = Vec::with_capacity(members.len());
        let mut size = 0u32;
        for (&member, i) in members.iter().zip(0u32..) {
            let layout = module.members.get(&(id, i)).copied().unwrap_or_default();
            let offset = layout.offset.ok_or(bad(id, "has a member without an Offset decoration"))?;
            let ty = self.convert(member, layout, depth + 1)?;
            let member_size = match &ty {
                Type::Array { length: ArrayLength::Runtime | ArrayLength::SpecExpression, .. } => 0,
                _ => ty.size(&self.interface.types).ok_or(bad(id, "has a member larger than 4 GiB"))?,
            };
            size = size.max(offset.checked_add(member_size).ok_or(bad(id, "ends beyond 4 GiB"))?);
            let name = module.member_names.get(&(id, i)).cloned().unwrap_or_default();
            converted.push(Member { name, offset, ty, size: member_size });
        }
        self.open.remove(&id);
        let def = &mut self.interface.types[index];
        def.members = converted;
        def.size = size;
        Ok(index)
    }

    fn blocks(&mut self) -> Result<(), ReflectionError> {
        let module = self.module;
        for &(pointer, id, storage) in &module.variables {
            let kind = match storage {
                StorageClass::PushConstant => BlockKind::PushConstant,
                StorageClass::StorageBuffer => BlockKind::Storage,
                StorageClass::Uniform => BlockKind::Uniform,
                _ => continue,
            };
            let Some(Raw::Pointer { pointee, .. }) = module.types.get(&pointer) else { continue };
            // A descriptor array of blocks: `uniform Light { .. } lights[4];`.
            let (element, count) = match module.types.get(pointee) {
                Some(Raw::Array { element, length, .. }) => {
                    let count = module.scalar_constant(*length).map_or(1, |(v, _)| v);
                    (*element, u32::try_from(count).unwrap_or(u32::MAX))
                }
                Some(Raw::RuntimeArray { element }) => (*element, 0),
                _ => (*pointee, 1),
            };
            if !matches!(module.types.get(&element), Some(Raw::Struct { .. })) {
                continue;
            }
            let buffer_block = module.decorations.get(&element).is_some_and(|d| d.buffer_block);
            let kind = if kind == BlockKind::Uniform && buffer_block { BlockKind::Storage } else { kind };
            let decorations = module.decorations.get(&id).filter(|_| kind != BlockKind::PushConstant);
            let ty = self.struct_index(element, 0, false)?;
            self.interface.blocks.push(Block {
                set: decorations.and_then(|d| d.set),
                binding: decorations.and_then(|d| d.binding),
                count,
                name: module.name(id),
                runtime_sized: self.interface.types[ty].is_runtime_sized(),
                ..Block::new(kind, ty)
            });
        }
        self.interface.blocks.sort_by_key(|b| (b.kind, b.set, b.binding));
        Ok(())
    }

    fn spec_constants(&mut self) {
        let module = self.module;
        for (&id, (ty, constant)) in &module.constants {
            let Constant::Spec(value) = constant else { continue };
            let Some(spec) = module.decorations.get(&id).and_then(|d| d.spec_id) else { continue };
            let Ok(scalar) = self.scalar(*ty) else { continue };
            let default = if scalar.width >= 64 { *value } else { value & ((1u64 << scalar.width) - 1) };
            self.interface.spec_constants.push(SpecConstantDef { id: spec, name: module.name(id), scalar, default });
        }
        self.interface.spec_constants.sort_by_key(|s| s.id);
    }

    fn vertex_inputs(&mut self) {
        let module = self.module;
        if module.entry.map(|(model, _)| model) != Some(ExecutionModel::Vertex as u32) {
            return;
        }
        for &(pointer, id, storage) in &module.variables {
            let decorations = module.decorations.get(&id);
            let Some(location) = decorations.and_then(|d| d.location) else { continue };
            let Some(Raw::Pointer { pointee, .. }) = module.types.get(&pointer) else { continue };
            if storage != StorageClass::Input || decorations.is_some_and(|d| d.builtin.is_some()) {
                continue;
            }
            // Anything else (which would add a struct to `types`) is left to `Reflection::inputs`.
            if !self.is_plain(*pointee, 0) {
                continue;
            }
            let Ok(ty) = self.convert(*pointee, MemberLayout::default(), 0) else { continue };
            self.interface.vertex_inputs.push(VertexInput {
                location,
                name: module.name(id),
                format: format_of(&ty),
                ty,
            });
        }
        self.interface.vertex_inputs.sort_by_key(|v| v.location);
    }

    /// Whether `id` is a scalar, vector or matrix, or an array of them.
    fn is_plain(&self, id: u32, depth: u32) -> bool {
        match self.module.types.get(&id) {
            Some(Raw::Scalar(_) | Raw::Vector { .. } | Raw::Matrix { .. }) => true,
            Some(Raw::Array { element, .. } | Raw::RuntimeArray { element }) => {
                depth < MAX_DEPTH && self.is_plain(*element, depth + 1)
            }
            _ => false,
        }
    }

    fn workgroup_size(&mut self) {
        let module = self.module;
        let built_in = module.constants.iter().find_map(|(id, (_, constant))| match constant {
            Constant::Composite(parts)
                if module.decorations.get(id).and_then(|d| d.builtin) == Some(BuiltIn::WorkgroupSize as u32) =>
            {
                Some(parts.as_slice())
            }
            _ => None,
        });
        let ids = built_in.and_then(|parts| <[u32; 3]>::try_from(parts).ok()).or(module.local_size_id);
        self.interface.workgroup_size = match (ids, module.local_size) {
            (Some(ids), literal) => {
                let mut size = WorkgroupSize { size: literal.unwrap_or([1; 3]), spec_ids: [None; 3] };
                for (axis, id) in ids.into_iter().enumerate() {
                    if let Some((value, spec)) = module.scalar_constant(id) {
                        // A 32-bit constant, so the high word is 0 in valid SPIR-V.
                        size.size[axis] = u32::try_from(value).unwrap_or(u32::MAX);
                        size.spec_ids[axis] = spec;
                    }
                }
                Some(size)
            }
            (None, Some(size)) => Some(WorkgroupSize { size, spec_ids: [None; 3] }),
            (None, None) => None,
        };
    }
}

/// The `VkFormat` of one location of a vertex input.
fn format_of(ty: &Type) -> u32 {
    match ty {
        Type::Scalar(scalar) => vk_format(scalar.kind, scalar.width, 1),
        Type::Vector { scalar, count } => vk_format(scalar.kind, scalar.width, *count),
        Type::Matrix { scalar, rows, .. } => vk_format(scalar.kind, scalar.width, *rows),
        Type::Array { element, .. } => format_of(element),
        _ => 0,
    }
}

impl Interface {
    /// Reads the typed interface of a SPIR-V module (before stripping, for its names).
    ///
    /// # Errors
    /// - [`ReflectionError::NotSpirv`]: no SPIR-V magic number.
    /// - [`ReflectionError::BadType`]: a block no layout describes (a member without `Offset`, nesting too deep).
    ///
    /// ```
    /// use smolv_format::reflect::Interface;
    /// let interface = Interface::from_spirv(&smolv_format::doc_example_module())?;
    /// assert!(interface.blocks.is_empty());
    /// assert_eq!(interface.workgroup_size.map(|w| w.size), Some([1, 1, 1]));
    /// assert_eq!(interface.capability_names().collect::<Vec<_>>(), ["Shader"]);
    /// # Ok::<(), smolv_format::reflect::ReflectionError>(())
    /// ```
    pub fn from_spirv(spirv: &[u32]) -> Result<Self, ReflectionError> {
        let module = Module::parse(spirv)?;
        let mut converter = Converter {
            module: &module,
            interface: Interface::default(),
            structs: BTreeMap::new(),
            open: Default::default(),
        };
        converter.blocks()?;
        converter.spec_constants();
        converter.vertex_inputs();
        converter.workgroup_size();
        let mut interface = converter.interface;
        interface.capabilities.clone_from(&module.capabilities);
        interface.extensions.clone_from(&module.extensions);
        interface.source_file = module.source_file.and_then(|id| module.strings.get(&id).cloned());
        Ok(interface)
    }
}
