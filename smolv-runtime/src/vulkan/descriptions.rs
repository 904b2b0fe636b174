//! ash's descriptions of the plain interface data in [`crate::interface`].

use ash::vk;

use crate::interface::{Binding, VertexAttribute, VertexBufferLayout};

impl Binding {
    /// The binding as a `VkDescriptorSetLayoutBinding` (a runtime-sized array has `count` 0).
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::interface::Binding;
    /// use smolv_runtime::reflect::DescriptorKind;
    /// // A generated constant, e.g. `lit_frag::SET0_BINDING1`.
    /// let texture = Binding { set: 0, binding: 1, kind: DescriptorKind::CombinedImageSampler, count: 1, stages: 0x10 };
    /// let vk_binding = texture.vk_layout_binding();
    /// assert_eq!(vk_binding.descriptor_type, vk::DescriptorType::COMBINED_IMAGE_SAMPLER);
    /// assert_eq!(vk_binding.stage_flags, vk::ShaderStageFlags::FRAGMENT);
    /// ```
    pub fn vk_layout_binding(&self) -> vk::DescriptorSetLayoutBinding<'static> {
        vk::DescriptorSetLayoutBinding::default()
            .binding(self.binding)
            .descriptor_type(vk::DescriptorType::from_raw(self.kind.vk_descriptor_type()))
            .descriptor_count(self.count)
            .stage_flags(vk::ShaderStageFlags::from_raw(self.stages))
    }
}

impl VertexAttribute {
    /// The format as ash's type (out of range: a format no device has).
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::VertexAttribute;
    /// let attribute = VertexAttribute { location: 1, format: 37, offset: 8 };
    /// assert_eq!(attribute.vk_format(), vk::Format::R8G8B8A8_UNORM);
    /// ```
    pub fn vk_format(&self) -> vk::Format {
        vk::Format::from_raw(i32::try_from(self.format).unwrap_or(i32::MAX))
    }

    /// The attribute as ash describes it, read from vertex buffer `binding`.
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::interface::VertexAttribute;
    /// let uv = VertexAttribute { location: 1, format: 103, offset: 12 };
    /// let description = uv.vk_description(0);
    /// assert_eq!(description.format, vk::Format::R32G32_SFLOAT);
    /// assert_eq!((description.location, description.binding, description.offset), (1, 0, 12));
    /// ```
    pub fn vk_description(&self, binding: u32) -> vk::VertexInputAttributeDescription {
        vk::VertexInputAttributeDescription {
            location: self.location,
            binding,
            format: self.vk_format(),
            offset: self.offset,
        }
    }
}

impl VertexBufferLayout<'_> {
    /// The buffer as ash describes it, bound at `binding`; instancing takes a second layout,
    /// as in [`VertexInput::from_buffers`](super::VertexInput::from_buffers):
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::interface::{VertexAttribute, VertexBufferLayout};
    /// // The mesh, per vertex (generated: `VERTEX_LAYOUT`), and a
    /// // per-instance offset at location 2.
    /// const MESH: VertexBufferLayout<'static> = VertexBufferLayout {
    ///     stride: 20,
    ///     per_instance: false,
    ///     attributes: &[
    ///         VertexAttribute { location: 0, format: 106, offset: 0 }, // R32G32B32_SFLOAT
    ///         VertexAttribute { location: 1, format: 103, offset: 12 }, // R32G32_SFLOAT
    ///     ],
    /// };
    /// const INSTANCES: VertexBufferLayout<'static> = VertexBufferLayout {
    ///     stride: 16,
    ///     per_instance: true,
    ///     attributes: &[VertexAttribute { location: 2, format: 109, offset: 0 }], // R32G32B32A32_SFLOAT
    /// };
    /// let bindings = [MESH.vk_binding(0), INSTANCES.vk_binding(1)];
    /// let attributes: Vec<vk::VertexInputAttributeDescription> =
    ///     MESH.vk_attributes(0).chain(INSTANCES.vk_attributes(1)).collect();
    /// assert_eq!(bindings[1].input_rate, vk::VertexInputRate::INSTANCE);
    /// assert_eq!((attributes[2].location, attributes[2].binding), (2, 1));
    /// let info = vk::PipelineVertexInputStateCreateInfo::default()
    ///     .vertex_binding_descriptions(&bindings)
    ///     .vertex_attribute_descriptions(&attributes);
    /// assert_eq!(info.vertex_attribute_description_count, 3);
    /// ```
    pub fn vk_binding(&self, binding: u32) -> vk::VertexInputBindingDescription {
        let input_rate = if self.per_instance { vk::VertexInputRate::INSTANCE } else { vk::VertexInputRate::VERTEX };
        vk::VertexInputBindingDescription { binding, stride: self.stride, input_rate }
    }

    /// Each attribute as ash describes it, read from buffer `binding` ([`vk_binding`](Self::vk_binding)).
    pub fn vk_attributes(&self, binding: u32) -> impl Iterator<Item = vk::VertexInputAttributeDescription> + '_ {
        self.attributes.iter().map(move |a| a.vk_description(binding))
    }
}
