//! The plain data of a module's interface, shared by the generated code (`include_types!`) and the
//! Vulkan layer; with `vulkan`, each converts to ash's type.

use crate::reflect::DescriptorKind;

/// One descriptor binding of a shader module.
///
/// ```
/// use smolv_runtime::interface::Binding;
/// use smolv_runtime::reflect::DescriptorKind;
/// let texture = Binding { set: 0, binding: 1, kind: DescriptorKind::CombinedImageSampler, count: 1, stages: 0x10 };
/// assert_eq!(texture.binding, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    /// `layout(set = ...)`.
    pub set: u32,
    /// `layout(binding = ...)`.
    pub binding: u32,
    /// What the binding holds.
    pub kind: DescriptorKind,
    /// Array length: 1 for one resource, 0 for a runtime-sized array.
    pub count: u32,
    /// `VkShaderStageFlags` of the stages that use it.
    pub stages: u32,
}

/// A module's push constants: the bytes its stages read (the reflection's own type).
///
/// ```
/// use smolv_runtime::interface::PushConstantRange;
/// let range = PushConstantRange { offset: 16, size: 8, stages: 0x1 };
/// assert_eq!(range.offset + range.size, 24);
/// ```
pub use crate::reflect::PushConstantRange;

/// ash's description of a [`PushConstantRange`] (feature `vulkan`).
#[cfg(feature = "vulkan")]
pub trait VkPushConstantRange {
    /// The range as ash describes it in a `VkPipelineLayout`.
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::interface::{PushConstantRange, VkPushConstantRange};
    /// // A generated constant, e.g. `particles_comp::PUSH_CONSTANTS.unwrap()`.
    /// let range = PushConstantRange { offset: 0, size: 16, stages: 0x20 };
    /// let vk_range = range.vk_range();
    /// assert_eq!((vk_range.size, vk_range.stage_flags), (16, vk::ShaderStageFlags::COMPUTE));
    /// ```
    fn vk_range(&self) -> ash::vk::PushConstantRange;
}

#[cfg(feature = "vulkan")]
impl VkPushConstantRange for PushConstantRange {
    fn vk_range(&self) -> ash::vk::PushConstantRange {
        let stage_flags = ash::vk::ShaderStageFlags::from_raw(self.stages);
        ash::vk::PushConstantRange { stage_flags, offset: self.offset, size: self.size }
    }
}

/// One vertex attribute: where a location's data sits in an element (`VkVertexInputAttributeDescription` sans binding).
///
/// ```
/// use smolv_runtime::interface::VertexAttribute;
/// // VK_FORMAT_R32G32_SFLOAT
/// let position = VertexAttribute { location: 0, format: 103, offset: 0 };
/// assert_eq!(position.format, 103);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexAttribute {
    /// The vertex shader's input location.
    pub location: u32,
    /// The `VkFormat` value of the data in the buffer.
    pub format: u32,
    /// Bytes from the start of the element.
    pub offset: u32,
}

/// One vertex buffer: its element size and the attributes in an element.
///
/// ```
/// use smolv_runtime::interface::{VertexAttribute, VertexBufferLayout};
/// // struct Vertex { color: [u8; 4], position: [f32; 2] }
/// const VERTEX: VertexBufferLayout<'static> = VertexBufferLayout {
///     stride: 12,
///     per_instance: false,
///     attributes: &[
///         VertexAttribute { location: 1, format: 37, offset: 0 }, // R8G8B8A8_UNORM
///         VertexAttribute { location: 0, format: 103, offset: 4 }, // R32G32_SFLOAT
///     ],
/// };
/// assert_eq!(VERTEX.attributes.len(), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VertexBufferLayout<'a> {
    /// Bytes from one element to the next.
    pub stride: u32,
    /// One element per instance instead of per vertex.
    pub per_instance: bool,
    /// The attributes in an element.
    pub attributes: &'a [VertexAttribute],
}
