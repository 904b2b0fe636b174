//! The reflection data model.

use alloc::string::String;
use alloc::vec::Vec;

/// A fieldless enum with `ALL` (declaration order); the binary form stores each variant as its index there.
macro_rules! indexed_enum {
    ($(#[$attr:meta])* pub enum $ty:ident { $($(#[$doc:meta])* $variant:ident,)* } $all_vis:vis const ALL;) => {
        $(#[$attr])*
        pub enum $ty {
            $($(#[$doc])* $variant,)*
        }

        impl $ty {
            /// Every variant, in declaration order.
            $all_vis const ALL: [$ty; [$(stringify!($variant)),*].len()] = [$(Self::$variant),*];

            pub(crate) fn to_byte(self) -> u8 {
                self as u8
            }

            pub(crate) fn from_byte(byte: u8) -> Option<Self> {
                Self::ALL.get(usize::from(byte)).copied()
            }
        }

        const _: () = assert!(<$ty>::ALL.len() <= 256);
    };
}

indexed_enum! {
    /// A pipeline stage, as a SPIR-V execution model.
    ///
    /// ```
    /// use smolv_format::reflect::{Reflection, ShaderStage};
    /// let reflection = Reflection::from_spirv(&smolv_format::doc_example_module())?;
    /// assert_eq!(reflection.stage, ShaderStage::Compute);
    /// assert_eq!(reflection.stage.name(), "compute");
    /// # Ok::<(), smolv_format::reflect::ReflectionError>(())
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
    #[non_exhaustive]
    pub enum ShaderStage {
        /// Vertex shader.
        Vertex,
        /// Tessellation control shader.
        TessellationControl,
        /// Tessellation evaluation shader.
        TessellationEvaluation,
        /// Geometry shader.
        Geometry,
        /// Fragment shader.
        Fragment,
        /// Compute shader.
        Compute,
        /// Task (amplification) shader.
        Task,
        /// Mesh shader.
        Mesh,
        /// Ray generation shader.
        RayGeneration,
        /// Intersection shader.
        Intersection,
        /// Any-hit shader.
        AnyHit,
        /// Closest-hit shader.
        ClosestHit,
        /// Miss shader.
        Miss,
        /// Callable shader.
        Callable,
    }
    pub const ALL;
}

impl ShaderStage {
    /// The stage of an `OpEntryPoint` execution model, if it is a Vulkan one.
    ///
    /// ```
    /// use smolv_format::reflect::ShaderStage;
    /// assert_eq!(ShaderStage::from_execution_model(4), Some(ShaderStage::Fragment)); // Fragment
    /// assert_eq!(ShaderStage::from_execution_model(6), None); // Kernel: OpenCL, not Vulkan
    /// ```
    pub fn from_execution_model(model: u32) -> Option<Self> {
        Some(match model {
            0 => Self::Vertex,
            1 => Self::TessellationControl,
            2 => Self::TessellationEvaluation,
            3 => Self::Geometry,
            4 => Self::Fragment,
            5 => Self::Compute,
            5267 | 5364 => Self::Task,
            5268 | 5365 => Self::Mesh,
            5313 => Self::RayGeneration,
            5314 => Self::Intersection,
            5315 => Self::AnyHit,
            5316 => Self::ClosestHit,
            5317 => Self::Miss,
            5318 => Self::Callable,
            _ => return None,
        })
    }

    /// The stage's `VkShaderStageFlagBits` value.
    ///
    /// ```
    /// use smolv_format::reflect::ShaderStage;
    /// assert_eq!(ShaderStage::Vertex.vk_stage_flag(), 0x1); // VK_SHADER_STAGE_VERTEX_BIT
    /// assert_eq!(ShaderStage::Compute.vk_stage_flag(), 0x20); // VK_SHADER_STAGE_COMPUTE_BIT
    /// ```
    pub fn vk_stage_flag(self) -> u32 {
        STAGES[self as usize].1
    }

    /// Short lower-case name, as in `#pragma shader_stage(...)`.
    ///
    /// ```
    /// use smolv_format::reflect::ShaderStage;
    /// assert_eq!(ShaderStage::Fragment.name(), "fragment");
    /// assert!(ShaderStage::ALL.iter().all(|stage| !stage.name().is_empty()));
    /// ```
    pub fn name(self) -> &'static str {
        STAGES[self as usize].0
    }

    /// The file extension glslc gives each stage, in the order of [`ALL`](Self::ALL).
    pub const EXTENSIONS: [&'static str; 14] = [
        "vert", "tesc", "tese", "geom", "frag", "comp", "task", "mesh", "rgen", "rint", "rahit", "rchit", "rmiss",
        "rcall",
    ];

    /// The stage a file extension names (one of [`EXTENSIONS`](Self::EXTENSIONS)).
    ///
    /// ```
    /// use smolv_format::reflect::ShaderStage;
    /// assert_eq!(ShaderStage::from_extension("tesc"), Some(ShaderStage::TessellationControl));
    /// assert_eq!(ShaderStage::from_extension("glsl"), None);
    /// assert!(ShaderStage::ALL[8..].iter().all(|&ray| ShaderStage::from_extension(ray.name()) == Some(ray)));
    /// ```
    pub fn from_extension(ext: &str) -> Option<Self> {
        Self::ALL.into_iter().zip(Self::EXTENSIONS).find(|&(_, name)| name == ext).map(|(stage, _)| stage)
    }

    /// The stage `text` names by its [`name`](Self::name) or its extension.
    ///
    /// ```
    /// use smolv_format::reflect::ShaderStage;
    /// assert_eq!(ShaderStage::from_name_or_extension("frag"), Some(ShaderStage::Fragment));
    /// assert_eq!(ShaderStage::from_name_or_extension("pixel"), None);
    /// assert!(ShaderStage::ALL.iter().all(|&stage| ShaderStage::from_name_or_extension(stage.name()) == Some(stage)));
    /// ```
    pub fn from_name_or_extension(text: &str) -> Option<Self> {
        Self::from_extension(text).or_else(|| Self::ALL.into_iter().find(|stage| stage.name() == text))
    }
}

/// Each stage's name and `VkShaderStageFlagBits`, in [`ShaderStage::ALL`] order.
const STAGES: [(&str, u32); 14] = [
    ("vertex", 0x1),
    ("tesscontrol", 0x2),
    ("tesseval", 0x4),
    ("geometry", 0x8),
    ("fragment", 0x10),
    ("compute", 0x20),
    ("task", 0x40),
    ("mesh", 0x80),
    ("rgen", 0x100),
    ("rint", 0x1000),
    ("rahit", 0x200),
    ("rchit", 0x400),
    ("rmiss", 0x800),
    ("rcall", 0x2000),
];

indexed_enum! {
    /// The kind of resource a descriptor binding holds.
    ///
    /// ```
    /// use smolv_format::reflect::{DescriptorKind, Reflection};
    /// # let spirv = smolv_format::doc_example_module();
    /// let reflection = Reflection::from_spirv(&spirv)?;
    /// let buffers = reflection.bindings.iter().filter(|b| b.kind == DescriptorKind::StorageBuffer).count();
    /// assert_eq!(buffers, 0, "the example module binds nothing");
    /// # Ok::<(), smolv_format::reflect::ReflectionError>(())
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
    #[non_exhaustive]
    pub enum DescriptorKind {
        /// `sampler`
        Sampler,
        /// `sampler2D` and friends: image and sampler together.
        CombinedImageSampler,
        /// `texture2D`: an image read through a separate sampler.
        SampledImage,
        /// `image2D`: a storage image.
        StorageImage,
        /// `samplerBuffer` / `textureBuffer`.
        UniformTexelBuffer,
        /// `imageBuffer`.
        StorageTexelBuffer,
        /// `uniform` block.
        UniformBuffer,
        /// `buffer` block.
        StorageBuffer,
        /// `subpassInput`.
        InputAttachment,
        /// Ray-tracing acceleration structure.
        AccelerationStructure,
    }
    const ALL;
}

impl DescriptorKind {
    /// The matching `VkDescriptorType` value.
    ///
    /// ```
    /// use smolv_format::reflect::DescriptorKind;
    /// assert_eq!(DescriptorKind::UniformBuffer.vk_descriptor_type(), 6); // VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
    /// ```
    pub fn vk_descriptor_type(self) -> i32 {
        // In declaration order.
        [0, 1, 2, 3, 4, 5, 6, 7, 10, 1_000_150_000][self as usize]
    }
}

/// One descriptor binding used by the shader.
///
/// ```
/// use smolv_format::reflect::{DescriptorBinding, DescriptorKind};
/// let camera = DescriptorBinding {
///     set: 0,
///     binding: 1,
///     kind: DescriptorKind::UniformBuffer,
///     count: 1,
///     stages: 0x1 | 0x10, // vertex and fragment
///     name: "Camera".into(),
/// };
/// assert_eq!(camera.kind.vk_descriptor_type(), 6);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DescriptorBinding {
    /// `layout(set = ...)`.
    pub set: u32,
    /// `layout(binding = ...)`.
    pub binding: u32,
    /// What the binding holds.
    pub kind: DescriptorKind,
    /// Array length; 1 for a single resource, 0 for a runtime-sized array.
    pub count: u32,
    /// `VkShaderStageFlags` of the stages that use it.
    pub stages: u32,
    /// The variable's name, or its block's type name; empty if stripped.
    pub name: String,
}

/// A push-constant block.
///
/// ```
/// use smolv_format::reflect::{PushConstantRange, Reflection};
/// let reflection = Reflection::from_spirv(&smolv_format::doc_example_module())?;
/// let bytes: u32 = reflection.push_constants.iter().map(|range: &PushConstantRange| range.size).sum();
/// assert_eq!(bytes, 0);
/// # Ok::<(), smolv_format::reflect::ReflectionError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PushConstantRange {
    /// Byte offset of the first member used.
    pub offset: u32,
    /// Size in bytes, from `offset`.
    pub size: u32,
    /// `VkShaderStageFlags` of the stages that use it.
    pub stages: u32,
}

indexed_enum! {
    /// The scalar type of a specialization constant.
    ///
    /// ```
    /// use smolv_format::reflect::SpecConstantType;
    /// assert_eq!(SpecConstantType::Bool.size(), 4); // a VkBool32
    /// assert_eq!(SpecConstantType::F64.size(), 8);
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
    #[non_exhaustive]
    pub enum SpecConstantType {
        /// `bool` (4 bytes in `VkSpecializationInfo`).
        Bool,
        /// Signed 32-bit integer.
        I32,
        /// Unsigned 32-bit integer.
        U32,
        /// 32-bit float.
        F32,
        /// Signed 64-bit integer.
        I64,
        /// Unsigned 64-bit integer.
        U64,
        /// 64-bit float.
        F64,
        /// Any other scalar type (16-bit, 8-bit).
        Other,
    }
    const ALL;
}

impl SpecConstantType {
    /// Bytes the value takes in `VkSpecializationInfo` data.
    ///
    /// ```
    /// use smolv_format::reflect::SpecConstantType;
    /// assert_eq!(SpecConstantType::U32.size() + SpecConstantType::I64.size(), 12);
    /// ```
    pub fn size(self) -> usize {
        match self {
            Self::I64 | Self::U64 | Self::F64 => 8,
            _ => 4,
        }
    }
}

/// A specialization constant (`layout(constant_id = ...)`).
///
/// ```
/// use smolv_format::reflect::{SpecConstant, SpecConstantType};
/// let quality = SpecConstant { id: 0, ty: SpecConstantType::U32, default: 2, name: "QUALITY".into() };
/// // Where it goes in VkSpecializationInfo data.
/// let entry = (quality.id, 0usize, quality.ty.size());
/// assert_eq!(entry, (0, 0, 4));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SpecConstant {
    /// The `constant_id` / `SpecId`.
    pub id: u32,
    /// Its scalar type.
    pub ty: SpecConstantType,
    /// The default value's bits, zero-extended (bools are 0 or 1).
    pub default: u64,
    /// Its name; empty if stripped.
    pub name: String,
}

/// A vertex input or fragment output.
///
/// ```
/// use smolv_format::reflect::InterfaceVariable;
/// let position = InterfaceVariable { location: 0, format: 106, name: "position".into() }; // R32G32B32_SFLOAT
/// assert_eq!(position.format, 106);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct InterfaceVariable {
    /// `layout(location = ...)`: an entry per column or element (two locations per `dvec3`/`dvec4`).
    pub location: u32,
    /// The matching `VkFormat` value (106, `R32G32B32_SFLOAT`, for a `vec3`); 0 if none.
    pub format: u32,
    /// The variable's name; empty if stripped.
    pub name: String,
}

/// Everything reflected from one shader module.
///
/// ```
/// use smolv_format::reflect::Reflection;
/// let reflection = Reflection::from_spirv(&smolv_format::doc_example_module())?;
/// println!("{} {:?}: {} bindings", reflection.entry_point, reflection.stage, reflection.bindings.len());
/// // The compact form containers store.
/// assert_eq!(Reflection::from_bytes(&reflection.to_bytes()?)?, reflection);
/// # Ok::<(), smolv_format::reflect::ReflectionError>(())
/// ```
///
/// By hand (it is `non_exhaustive`), start from [`Reflection::new`]:
///
/// ```
/// use smolv_format::reflect::{PushConstantRange, Reflection, ShaderStage};
/// let mut reflection = Reflection::new(ShaderStage::Compute, "main");
/// reflection.push_constants.push(PushConstantRange { offset: 0, size: 16, stages: ShaderStage::Compute.vk_stage_flag() });
/// reflection.workgroup_size = Some([64, 1, 1]);
/// assert_eq!(Reflection::from_bytes(&reflection.to_bytes()?)?, reflection);
/// # Ok::<(), smolv_format::reflect::ReflectionError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Reflection {
    /// The entry point's stage.
    pub stage: ShaderStage,
    /// The entry point's name.
    pub entry_point: String,
    /// Descriptor bindings, sorted by set then binding.
    pub bindings: Vec<DescriptorBinding>,
    /// Push-constant blocks.
    pub push_constants: Vec<PushConstantRange>,
    /// Specialization constants, sorted by id.
    pub spec_constants: Vec<SpecConstant>,
    /// Vertex inputs (vertex stage only), sorted by location.
    pub inputs: Vec<InterfaceVariable>,
    /// Fragment outputs (fragment stage only), sorted by location.
    pub outputs: Vec<InterfaceVariable>,
    /// `local_size` of compute, task and mesh shaders, when it is literal.
    pub workgroup_size: Option<[u32; 3]>,
}

impl Reflection {
    /// A reflection with nothing but a stage and an entry point.
    ///
    /// ```
    /// use smolv_format::reflect::{Reflection, ShaderStage};
    /// let empty = Reflection::new(ShaderStage::Vertex, "main");
    /// assert!(empty.bindings.is_empty() && empty.workgroup_size.is_none());
    /// ```
    pub fn new(stage: ShaderStage, entry_point: impl Into<String>) -> Self {
        Self {
            stage,
            entry_point: entry_point.into(),
            bindings: Vec::new(),
            push_constants: Vec::new(),
            spec_constants: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            workgroup_size: None,
        }
    }
}
