//! Explicit vertex input from plain data, checked against the vertex shader.

use ash::vk;

use super::VulkanError;
use super::state::VertexInput;
use crate::interface::VertexBufferLayout;
use crate::reflect::Reflection;

impl VertexInput {
    /// Explicit vertex input from plain layouts: buffer `i` is binding `i`.
    ///
    /// ```
    /// use smolv_runtime::vulkan::{VertexAttribute, VertexBufferLayout, VertexInput};
    /// let corners = VertexBufferLayout {
    ///     stride: 8,
    ///     per_instance: false,
    ///     attributes: &[VertexAttribute { location: 0, format: 103, offset: 0 }],
    /// };
    /// let sprites = VertexBufferLayout {
    ///     stride: 16,
    ///     per_instance: true,
    ///     attributes: &[VertexAttribute { location: 1, format: 109, offset: 0 }],
    /// };
    /// let VertexInput::Explicit { bindings, attributes } = VertexInput::from_buffers(&[corners, sprites]) else {
    ///     unreachable!()
    /// };
    /// assert_eq!((bindings[1].binding, attributes[1].binding), (1, 1));
    /// ```
    pub fn from_buffers(buffers: &[VertexBufferLayout<'_>]) -> Self {
        let bindings = (0u32..).zip(buffers).map(|(binding, buffer)| buffer.vk_binding(binding)).collect();
        let attributes = (0u32..).zip(buffers).flat_map(|(binding, buffer)| buffer.vk_attributes(binding)).collect();
        Self::Explicit { bindings, attributes }
    }

    /// An error unless explicit vertex input feeds every input `vertex` reads, from a
    /// described binding, in a format of the same numeric type.
    pub(crate) fn check(&self, vertex: &Reflection) -> Result<(), VulkanError> {
        let Self::Explicit { bindings, attributes } = self else { return Ok(()) };
        if let Some(attribute) = attributes.iter().find(|a| !bindings.iter().any(|b| b.binding == a.binding)) {
            let binding = attribute.binding;
            let reason = format!("its attribute reads binding {binding}, which has no VkVertexInputBindingDescription");
            return Err(VulkanError::VertexInputMismatch { location: attribute.location, reason });
        }
        for input in &vertex.inputs {
            let Some(attribute) = attributes.iter().find(|a| a.location == input.location) else {
                let reason = format!("the vertex shader reads {} there, and no attribute feeds it", described(input));
                return Err(VulkanError::VertexInputMismatch { location: input.location, reason });
            };
            let shader = vk::Format::from_raw(i32::try_from(input.format).unwrap_or(i32::MAX));
            let Some(wanted) = numeric_type(shader) else {
                // No format reflected (bools, structs): the driver checks it.
                continue;
            };
            let given = numeric_type(attribute.format);
            if given != Some(wanted) {
                let (read, format) = (described(input), attribute.format);
                let given = given.unwrap_or("not a vertex format");
                let reason = format!(
                    "the vertex shader reads {read} as {shader:?} ({wanted}), and the attribute is {format:?} ({given})"
                );
                return Err(VulkanError::VertexInputMismatch { location: input.location, reason });
            }
        }
        Ok(())
    }
}

/// An input in words: `` `name` `` where the module kept it, else "an input".
fn described(input: &crate::reflect::InterfaceVariable) -> String {
    if input.name.is_empty() { "an input".to_owned() } else { format!("`{}`", input.name) }
}

/// The numeric type of a colour format, in words, from ash's name for it (`R8G8B8A8_UNORM`).
fn numeric_type(format: vk::Format) -> Option<&'static str> {
    let name = format!("{format:?}");
    let wide = name.starts_with("R64");
    name.split('_').find_map(|part| match part {
        "UNORM" | "SNORM" | "USCALED" | "SSCALED" | "UFLOAT" | "SRGB" => (!wide).then_some("float"),
        "SFLOAT" => Some(if wide { "64-bit float" } else { "float" }),
        "SINT" => Some(if wide { "64-bit signed integer" } else { "signed integer" }),
        "UINT" => Some(if wide { "64-bit unsigned integer" } else { "unsigned integer" }),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interface::VertexAttribute;
    use crate::reflect::{InterfaceVariable, ShaderStage};

    fn vertex(inputs: &[(u32, vk::Format)]) -> Reflection {
        let mut reflection = Reflection::new(ShaderStage::Vertex, "main");
        reflection.inputs = inputs
            .iter()
            .map(|&(location, format)| InterfaceVariable {
                location,
                format: format.as_raw() as u32,
                name: format!("in{location}"),
            })
            .collect();
        reflection
    }

    fn buffer(attributes: &[VertexAttribute]) -> VertexInput {
        VertexInput::from_buffers(&[VertexBufferLayout { stride: 32, per_instance: false, attributes }])
    }

    fn attribute(location: u32, format: vk::Format, offset: u32) -> VertexAttribute {
        VertexAttribute { location, format: format.as_raw() as u32, offset }
    }

    #[test]
    fn formats_of_the_same_numeric_type_fit_whatever_their_width() {
        let shader = vertex(&[(0, vk::Format::R32G32_SFLOAT), (1, vk::Format::R32G32B32A32_SFLOAT)]);
        let input = buffer(&[attribute(0, vk::Format::R16G16_SNORM, 0), attribute(1, vk::Format::R8G8B8A8_UNORM, 4)]);
        input.check(&shader).unwrap();
        VertexInput::FromReflection.check(&shader).unwrap();
    }

    #[test]
    fn a_missing_location_or_another_numeric_type_is_refused() {
        let shader = vertex(&[(0, vk::Format::R32G32_SFLOAT), (1, vk::Format::R32_UINT)]);
        let missing = buffer(&[attribute(0, vk::Format::R32G32_SFLOAT, 0)]);
        let error = missing.check(&shader).unwrap_err();
        assert!(matches!(error, VulkanError::VertexInputMismatch { location: 1, .. }), "{error}");
        assert!(error.to_string().contains("`in1`"), "{error}");
        let mut stripped = shader.clone();
        stripped.inputs.iter_mut().for_each(|input| input.name.clear());
        let error = missing.check(&stripped).unwrap_err().to_string();
        assert!(error.contains("reads an input there") && error.contains("location 1"), "{error}");

        let float_for_uint =
            buffer(&[attribute(0, vk::Format::R32G32_SFLOAT, 0), attribute(1, vk::Format::R32_SFLOAT, 8)]);
        let error = float_for_uint.check(&shader).unwrap_err();
        assert!(matches!(error, VulkanError::VertexInputMismatch { location: 1, .. }), "{error}");
        assert!(error.to_string().contains("unsigned integer"), "{error}");

        let double = vertex(&[(0, vk::Format::R64_SFLOAT)]);
        assert!(buffer(&[attribute(0, vk::Format::R32_SFLOAT, 0)]).check(&double).is_err());
        buffer(&[attribute(0, vk::Format::R64_SFLOAT, 0)]).check(&double).unwrap();
    }

    #[test]
    fn an_attribute_of_an_undescribed_binding_is_refused() {
        let shader = vertex(&[(0, vk::Format::R32G32_SFLOAT)]);
        let input = VertexInput::Explicit {
            bindings: Vec::new(),
            attributes: vec![vk::VertexInputAttributeDescription {
                location: 0,
                binding: 2,
                format: vk::Format::R32G32_SFLOAT,
                offset: 0,
            }],
        };
        assert!(matches!(input.check(&shader), Err(VulkanError::VertexInputMismatch { location: 0, .. })));
    }
}
