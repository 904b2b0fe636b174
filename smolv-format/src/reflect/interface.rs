//! The typed interface of a module: block layouts, workgroup size and device needs; apart from
//! [`Reflection`](super::Reflection), so that games link none of it.

use alloc::string::String;
use alloc::vec::Vec;

/// What kind of number a scalar is.
///
/// ```
/// use smolv_format::reflect::ScalarKind;
/// assert_ne!(ScalarKind::Sint, ScalarKind::Uint);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum ScalarKind {
    /// `OpTypeBool` (spec constants and vertex interfaces only).
    Bool,
    /// Signed integer (`OpTypeInt` with signedness 1).
    Sint,
    /// Unsigned integer (`OpTypeInt` with signedness 0).
    Uint,
    /// IEEE float (`OpTypeFloat`).
    Float,
}

/// A scalar type: its kind and width.
///
/// ```
/// use smolv_format::reflect::{ScalarKind, ScalarType};
/// let half = ScalarType::new(ScalarKind::Float, 16);
/// assert_eq!(half.size(), 2);
/// assert_eq!(ScalarType::new(ScalarKind::Bool, 1).size(), 4, "a bool is a 32-bit VkBool32");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScalarType {
    /// Integer, float or bool.
    pub kind: ScalarKind,
    /// Width in bits: 8, 16, 32 or 64 (32 for a bool, a `VkBool32`).
    pub width: u32,
}

impl ScalarType {
    /// A scalar of `kind` and `width` bits; a bool is always 32 bits wide.
    ///
    /// ```
    /// use smolv_format::reflect::{ScalarKind, ScalarType};
    /// assert_eq!(ScalarType::new(ScalarKind::Bool, 8).width, 32);
    /// ```
    pub fn new(kind: ScalarKind, width: u32) -> Self {
        let width = if kind == ScalarKind::Bool { 32 } else { width };
        Self { kind, width }
    }

    /// Bytes one value takes (`width / 8`).
    ///
    /// ```
    /// use smolv_format::reflect::{ScalarKind, ScalarType};
    /// assert_eq!(ScalarType::new(ScalarKind::Uint, 64).size(), 8);
    /// ```
    pub fn size(self) -> u32 {
        self.width / 8
    }
}

/// How many elements an array has.
///
/// ```
/// use smolv_format::reflect::ArrayLength;
/// let lights = ArrayLength::SpecConstant { id: 3, default: 16 };
/// assert_eq!(lights.default_length(), Some(16));
/// assert_eq!(ArrayLength::Runtime.default_length(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum ArrayLength {
    /// A constant length.
    Fixed(u32),
    /// `OpTypeRuntimeArray`: sized by the buffer bound at run time.
    Runtime,
    /// A length set by a specialization constant.
    SpecConstant {
        /// The constant's `SpecId`.
        id: u32,
        /// Its default value, the length without specialization.
        default: u32,
    },
    /// A length computed from specialization constants (`OpSpecConstantOp`).
    SpecExpression,
}

impl ArrayLength {
    /// The length without specialization, if there is one.
    ///
    /// ```
    /// use smolv_format::reflect::ArrayLength;
    /// assert_eq!(ArrayLength::Fixed(4).default_length(), Some(4));
    /// ```
    pub fn default_length(self) -> Option<u32> {
        match self {
            Self::Fixed(n) | Self::SpecConstant { default: n, .. } => Some(n),
            Self::Runtime | Self::SpecExpression => None,
        }
    }
}

/// The laid-out type of a member, array element, vertex input or spec constant; structs index [`Interface::types`].
///
/// ```
/// use smolv_format::reflect::{ScalarKind, ScalarType, Type};
/// let f32 = ScalarType::new(ScalarKind::Float, 32);
/// // A column-major std140 `mat3`: three vec3 columns, 16 bytes apart.
/// let mat3 = Type::Matrix { scalar: f32, columns: 3, rows: 3, stride: 16, row_major: false };
/// assert_eq!(mat3.size(&[]), Some(48));
/// assert_eq!(Type::Vector { scalar: f32, count: 3 }.size(&[]), Some(12));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Type {
    /// One scalar.
    Scalar(ScalarType),
    /// `count` (2, 3 or 4) scalars, tightly packed.
    Vector {
        /// The component type.
        scalar: ScalarType,
        /// Number of components.
        count: u32,
    },
    /// `columns` column vectors of `rows` components (`mat4x3`: 4 columns).
    Matrix {
        /// The component type.
        scalar: ScalarType,
        /// Number of columns.
        columns: u32,
        /// Number of rows.
        rows: u32,
        /// `MatrixStride`: bytes from one column (row if `row_major`) to the next; 0 if none.
        stride: u32,
        /// `RowMajor`: rows, not columns, are contiguous in memory.
        row_major: bool,
    },
    /// An array.
    Array {
        /// The element type.
        element: alloc::boxed::Box<Type>,
        /// How many elements.
        length: ArrayLength,
        /// `ArrayStride`: bytes from one element to the next; 0 if none.
        stride: u32,
    },
    /// A struct: its index in [`Interface::types`].
    Struct(usize),
    /// A `PhysicalStorageBuffer` pointer (`buffer_reference`): a 64-bit address.
    DeviceAddress {
        /// The struct it points to, as an index in [`Interface::types`].
        pointee: Option<usize>,
    },
}

impl Type {
    /// Bytes the type takes; `None` for a runtime- or spec-expression-sized array, or a struct `types` lacks.
    ///
    /// ```
    /// use smolv_format::reflect::{ArrayLength, ScalarKind, ScalarType, Type};
    /// let float = Type::Scalar(ScalarType::new(ScalarKind::Float, 32));
    /// // std140 `float x[4]`: each element padded to 16 bytes.
    /// let array = Type::Array { element: Box::new(float), length: ArrayLength::Fixed(4), stride: 16 };
    /// assert_eq!(array.size(&[]), Some(64));
    /// ```
    pub fn size(&self, types: &[TypeDef]) -> Option<u32> {
        match self {
            Self::Scalar(scalar) => Some(scalar.size()),
            Self::Vector { scalar, count } => scalar.size().checked_mul(*count),
            Self::Matrix { scalar, columns, rows, stride, row_major } => {
                let (major, minor) = if *row_major { (*rows, *columns) } else { (*columns, *rows) };
                let stride = if *stride == 0 { scalar.size().checked_mul(minor)? } else { *stride };
                stride.checked_mul(major)
            }
            Self::Array { length, stride, .. } => length.default_length()?.checked_mul(*stride),
            Self::Struct(index) => types.get(*index).map(|def| def.size),
            Self::DeviceAddress { .. } => Some(8),
        }
    }
}

/// Where a definition is in its source (`OpLine` before it, or `OpSource`).
///
/// ```
/// let at = smolv_format::reflect::SourceLine { file: "include/frame.glsl".into(), line: Some(3) };
/// assert_eq!(at.line, Some(3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SourceLine {
    /// The file, as the front end wrote it in `OpString`.
    pub file: String,
    /// Its 1-based line, if the module has an `OpLine` for it.
    pub line: Option<u32>,
}

/// One member of a struct.
///
/// ```
/// use smolv_format::reflect::{Member, ScalarKind, ScalarType, Type};
/// let time = Member {
///     name: "time".into(),
///     offset: 12,
///     ty: Type::Scalar(ScalarType::new(ScalarKind::Float, 32)),
///     size: 4,
/// };
/// assert_eq!(time.offset + time.size, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Member {
    /// `OpMemberName`; empty without debug info.
    pub name: String,
    /// `Offset`: bytes from the start of the struct.
    pub offset: u32,
    /// Its type, with the member's `MatrixStride` and `RowMajor`.
    pub ty: Type,
    /// Bytes it takes ([`Type::size`]); 0 for a runtime-sized array.
    pub size: u32,
}

/// A struct definition, as one module lays it out.
///
/// ```
/// use smolv_format::reflect::TypeDef;
/// let empty = TypeDef::new("Frame");
/// assert_eq!((empty.name.as_str(), empty.size, empty.members.len()), ("Frame", 0, 0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TypeDef {
    /// The struct's `OpName` as the front end wrote it; empty without debug info.
    pub name: String,
    /// The members, in declaration (and offset) order.
    pub members: Vec<Member>,
    /// Bytes to the end of the last member (a runtime-sized array's offset).
    pub size: u32,
    /// Where it is defined, if the module says.
    pub source: Option<SourceLine>,
}

impl TypeDef {
    /// An empty struct named `name`, to which members are added.
    ///
    /// ```
    /// let def = smolv_format::reflect::TypeDef::new("Particle");
    /// assert!(def.source.is_none());
    /// ```
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into(), members: Vec::new(), size: 0, source: None }
    }

    /// Whether the last member is a runtime-sized array.
    ///
    /// ```
    /// let def = smolv_format::reflect::TypeDef::new("Empty");
    /// assert!(!def.is_runtime_sized());
    /// ```
    pub fn is_runtime_sized(&self) -> bool {
        matches!(self.members.last(), Some(Member { ty: Type::Array { length: ArrayLength::Runtime, .. }, .. }))
    }
}

/// What a block is bound as.
///
/// ```
/// use smolv_format::reflect::BlockKind;
/// assert_eq!(BlockKind::PushConstant.name(), "push constant");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum BlockKind {
    /// A uniform buffer (`uniform` block, HLSL `cbuffer`).
    Uniform,
    /// A storage buffer (`buffer` block, HLSL `RWStructuredBuffer`).
    Storage,
    /// A push-constant block.
    PushConstant,
}

impl BlockKind {
    /// The kind in words, for messages.
    ///
    /// ```
    /// assert_eq!(smolv_format::reflect::BlockKind::Storage.name(), "storage buffer");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Self::Uniform => "uniform buffer",
            Self::Storage => "storage buffer",
            Self::PushConstant => "push constant",
        }
    }
}

/// A uniform, storage or push-constant block the module declares.
///
/// ```
/// use smolv_format::reflect::{Block, BlockKind};
/// let frame = Block::new(BlockKind::Uniform, 0);
/// assert_eq!((frame.set, frame.binding, frame.count), (None, None, 1));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Block {
    /// Uniform, storage or push constant.
    pub kind: BlockKind,
    /// `DescriptorSet`; `None` for a push-constant block.
    pub set: Option<u32>,
    /// `Binding`; `None` for a push-constant block.
    pub binding: Option<u32>,
    /// Descriptor array length: 1 for one buffer, 0 for a runtime-sized array.
    pub count: u32,
    /// The block's struct, as an index in [`Interface::types`].
    pub ty: usize,
    /// The variable's `OpName` (the GLSL instance name); empty without one.
    pub name: String,
    /// Whether the struct's last member is a runtime-sized array.
    pub runtime_sized: bool,
}

impl Block {
    /// A block of `kind` over struct `ty`, with no binding and no name.
    ///
    /// ```
    /// use smolv_format::reflect::{Block, BlockKind};
    /// assert!(!Block::new(BlockKind::PushConstant, 2).runtime_sized);
    /// ```
    pub fn new(kind: BlockKind, ty: usize) -> Self {
        Self { kind, set: None, binding: None, count: 1, ty, name: String::new(), runtime_sized: false }
    }
}

/// A compute, task or mesh shader's workgroup size.
///
/// ```
/// use smolv_format::reflect::WorkgroupSize;
/// // layout(local_size_x_id = 0, local_size_y = 8) in;
/// let size = WorkgroupSize { size: [64, 8, 1], spec_ids: [Some(0), None, None] };
/// assert_eq!(size.invocations(), Some(512));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WorkgroupSize {
    /// x, y and z without specialization.
    pub size: [u32; 3],
    /// The `SpecId` that sets each of x, y and z, where one does.
    pub spec_ids: [Option<u32>; 3],
}

impl WorkgroupSize {
    /// `x × y × z` without specialization; `None` on overflow.
    ///
    /// ```
    /// let size = smolv_format::reflect::WorkgroupSize { size: [8, 8, 1], spec_ids: [None; 3] };
    /// assert_eq!(size.invocations(), Some(64));
    /// ```
    pub fn invocations(&self) -> Option<u32> {
        self.size[0].checked_mul(self.size[1])?.checked_mul(self.size[2])
    }
}

/// A specialization constant, with its exact scalar type.
///
/// ```
/// use smolv_format::reflect::{ScalarKind, ScalarType, SpecConstantDef};
/// let gain = SpecConstantDef {
///     id: 1,
///     name: "gain".into(),
///     scalar: ScalarType::new(ScalarKind::Float, 32),
///     default: 1.5f32.to_bits().into(),
/// };
/// assert_eq!(f32::from_bits(gain.default as u32), 1.5);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SpecConstantDef {
    /// The `SpecId` (`constant_id`).
    pub id: u32,
    /// Its `OpName`; empty without debug info.
    pub name: String,
    /// Its type.
    pub scalar: ScalarType,
    /// The default value's bits, zero-extended (a bool is 0 or 1).
    pub default: u64,
}

/// A vertex input, with its type.
///
/// ```
/// use smolv_format::reflect::{ScalarKind, ScalarType, Type, VertexInput};
/// let uv = VertexInput {
///     location: 1,
///     name: "uv".into(),
///     ty: Type::Vector { scalar: ScalarType::new(ScalarKind::Float, 32), count: 2 },
///     format: 103, // R32G32_SFLOAT
/// };
/// assert_eq!(uv.ty.size(&[]), Some(8));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VertexInput {
    /// Its first `Location` (one per column or element, two per `dvec3`/`dvec4`).
    pub location: u32,
    /// Its `OpName`; empty without debug info.
    pub name: String,
    /// Its type (scalar, vector, matrix, or an array of them), with no strides.
    pub ty: Type,
    /// The `VkFormat` of one location, as [`InterfaceVariable::format`](super::InterfaceVariable::format); 0 if none.
    pub format: u32,
}

/// A SPIR-V `OpCapability`, by its number in the SPIR-V specification.
///
/// ```
/// use smolv_format::reflect::Capability;
/// assert_eq!(Capability(10).name().as_deref(), Some("Float64"));
/// assert_eq!(Capability(4_000_000).name(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(transparent))]
pub struct Capability(pub u32);

/// The typed interface of one module, from [`Interface::from_spirv`] or by hand from [`Interface::new`]:
///
/// ```
/// use smolv_format::reflect::{Block, BlockKind, Capability, Interface, TypeDef};
/// let mut interface = Interface::new();
/// interface.types.push(TypeDef::new("Frame"));
/// interface.blocks.push(Block { set: Some(0), binding: Some(0), ..Block::new(BlockKind::Uniform, 0) });
/// interface.capabilities.push(Capability(1));
/// assert_eq!(interface.block_at(0, 0).and_then(|b| interface.type_of(b)).map(|t| t.name.as_str()), Some("Frame"));
/// assert_eq!(interface.capability_names().collect::<Vec<_>>(), ["Shader"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Interface {
    /// Every struct a block holds or a `buffer_reference` points to, once each.
    pub types: Vec<TypeDef>,
    /// Uniform, storage and push-constant blocks, sorted by kind, set and binding.
    pub blocks: Vec<Block>,
    /// Specialization constants, sorted by id.
    pub spec_constants: Vec<SpecConstantDef>,
    /// Vertex inputs (vertex stage only), sorted by location.
    pub vertex_inputs: Vec<VertexInput>,
    /// The workgroup size of a compute, task or mesh shader.
    pub workgroup_size: Option<WorkgroupSize>,
    /// Every `OpCapability`, in module order.
    pub capabilities: Vec<Capability>,
    /// Every `OpExtension` name, in module order.
    pub extensions: Vec<String>,
    /// The main source file, from `OpSource`, when the module names it.
    pub source_file: Option<String>,
}

impl Interface {
    /// An empty interface, as `Interface::default()`.
    ///
    /// ```
    /// use smolv_format::reflect::Interface;
    /// let interface = Interface::new();
    /// assert!(interface.blocks.is_empty() && interface.workgroup_size.is_none());
    /// assert_eq!(interface, Interface::default());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self {
            types: Vec::new(),
            blocks: Vec::new(),
            spec_constants: Vec::new(),
            vertex_inputs: Vec::new(),
            workgroup_size: None,
            capabilities: Vec::new(),
            extensions: Vec::new(),
            source_file: None,
        }
    }

    /// The names of the [`capabilities`](Self::capabilities) this crate knows.
    ///
    /// ```
    /// let interface = smolv_format::reflect::Interface::default();
    /// assert_eq!(interface.capability_names().count(), 0);
    /// ```
    pub fn capability_names(&self) -> impl Iterator<Item = String> + '_ {
        self.capabilities.iter().filter_map(|c| c.name())
    }

    /// The block bound at `set` and `binding`, if any.
    ///
    /// ```
    /// let interface = smolv_format::reflect::Interface::default();
    /// assert!(interface.block_at(0, 0).is_none());
    /// ```
    pub fn block_at(&self, set: u32, binding: u32) -> Option<&Block> {
        self.blocks.iter().find(|b| b.set == Some(set) && b.binding == Some(binding))
    }

    /// The struct a block holds.
    ///
    /// ```
    /// let interface = smolv_format::reflect::Interface::default();
    /// assert!(interface.blocks.iter().all(|b| interface.type_of(b).is_some()));
    /// ```
    pub fn type_of(&self, block: &Block) -> Option<&TypeDef> {
        self.types.get(block.ty)
    }
}
