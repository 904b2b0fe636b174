//! The features, extensions and subgroup operations the device was created
//! with, as far as pipeline state and shader capabilities need them.

use std::ffi::CStr;

use ash::vk;

use super::capabilities::{Extension, Feature};

/// The device features and extensions enabled on the device: state and
/// [`capabilities`](super::capabilities) that need one missing here are
/// refused ([`VulkanError::FeatureNotEnabled`](super::VulkanError::FeatureNotEnabled)).
/// Fill it from the structures given to `vkCreateDevice`:
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::DeviceFeatures;
/// use smolv_runtime::vulkan::capabilities::{Extension, Feature};
/// let core = vk::PhysicalDeviceFeatures::default().geometry_shader(true).shader_float64(true);
/// let vulkan12 = vk::PhysicalDeviceVulkan12Features::default().shader_int8(true);
/// let extensions = [ash::khr::ray_query::NAME];
/// let ray_query = vk::PhysicalDeviceRayQueryFeaturesKHR::default().ray_query(true);
/// // ... the same structures go into vk::DeviceCreateInfo ...
/// let features = DeviceFeatures::from_enabled(&core)
///     .with_vulkan12(&vulkan12)
///     .with_extension_names(&extensions)
///     .with(Feature::RayQuery, ray_query.ray_query == vk::TRUE);
/// assert!(features.has(Feature::ShaderFloat64) && features.has(Feature::ShaderInt8));
/// assert!(features.has(Feature::RayQuery) && features.has_extension(Extension::KhrRayQuery));
/// assert!(!features.has(Feature::ShaderInt16));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DeviceFeatures {
    /// Bit `Feature as u8`.
    features: u128,
    /// Bit `Extension as u8`.
    extensions: u64,
    subgroup_operations: vk::SubgroupFeatureFlags,
    subgroup_stages: vk::ShaderStageFlags,
}

fn on(value: vk::Bool32) -> bool {
    value == vk::TRUE
}

impl DeviceFeatures {
    /// Nothing enabled: `default()` in `const`.
    pub(crate) const NONE: Self = Self {
        features: 0,
        extensions: 0,
        subgroup_operations: vk::SubgroupFeatureFlags::empty(),
        subgroup_stages: vk::ShaderStageFlags::empty(),
    };

    /// The Vulkan 1.0 features of `enabled` (`VkDeviceCreateInfo::pEnabledFeatures`,
    /// or `VkPhysicalDeviceFeatures2::features`).
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// assert_eq!(DeviceFeatures::from_enabled(&vk::PhysicalDeviceFeatures::default()), DeviceFeatures::default());
    /// ```
    pub fn from_enabled(enabled: &vk::PhysicalDeviceFeatures) -> Self {
        Self::default().with_enabled(enabled)
    }

    /// These features added: the Vulkan 1.0 ones `enabled` turns on.
    fn with_enabled(self, enabled: &vk::PhysicalDeviceFeatures) -> Self {
        use Feature as F;
        let e = enabled;
        self.with_all(&[
            (F::GeometryShader, e.geometry_shader),
            (F::TessellationShader, e.tessellation_shader),
            (F::SampleRateShading, e.sample_rate_shading),
            (F::DepthBounds, e.depth_bounds),
            (F::FillModeNonSolid, e.fill_mode_non_solid),
            (F::DepthBiasClamp, e.depth_bias_clamp),
            (F::DepthClamp, e.depth_clamp),
            (F::WideLines, e.wide_lines),
            (F::LogicOp, e.logic_op),
            (F::AlphaToOne, e.alpha_to_one),
            (F::IndependentBlend, e.independent_blend),
            (F::ShaderFloat64, e.shader_float64),
            (F::ShaderInt64, e.shader_int64),
            (F::ShaderInt16, e.shader_int16),
            (F::ShaderTessellationAndGeometryPointSize, e.shader_tessellation_and_geometry_point_size),
            (F::ShaderImageGatherExtended, e.shader_image_gather_extended),
            (F::ShaderStorageImageMultisample, e.shader_storage_image_multisample),
            (F::ShaderUniformBufferArrayDynamicIndexing, e.shader_uniform_buffer_array_dynamic_indexing),
            (F::ShaderSampledImageArrayDynamicIndexing, e.shader_sampled_image_array_dynamic_indexing),
            (F::ShaderStorageBufferArrayDynamicIndexing, e.shader_storage_buffer_array_dynamic_indexing),
            (F::ShaderStorageImageArrayDynamicIndexing, e.shader_storage_image_array_dynamic_indexing),
            (F::ShaderClipDistance, e.shader_clip_distance),
            (F::ShaderCullDistance, e.shader_cull_distance),
            (F::ImageCubeArray, e.image_cube_array),
            (F::ShaderResourceResidency, e.shader_resource_residency),
            (F::ShaderResourceMinLod, e.shader_resource_min_lod),
            (F::ShaderStorageImageReadWithoutFormat, e.shader_storage_image_read_without_format),
            (F::ShaderStorageImageWriteWithoutFormat, e.shader_storage_image_write_without_format),
            (F::MultiViewport, e.multi_viewport),
        ])
    }

    /// These features added: the Vulkan 1.1 ones `enabled` turns on.
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Feature;
    /// let v11 = vk::PhysicalDeviceVulkan11Features::default().storage_buffer16_bit_access(true);
    /// assert!(DeviceFeatures::default().with_vulkan11(&v11).has(Feature::StorageBuffer16BitAccess));
    /// ```
    #[must_use]
    pub fn with_vulkan11(self, enabled: &vk::PhysicalDeviceVulkan11Features<'_>) -> Self {
        use Feature as F;
        let e = enabled;
        self.with_all(&[
            (F::StorageBuffer16BitAccess, e.storage_buffer16_bit_access),
            (F::UniformAndStorageBuffer16BitAccess, e.uniform_and_storage_buffer16_bit_access),
            (F::StoragePushConstant16, e.storage_push_constant16),
            (F::StorageInputOutput16, e.storage_input_output16),
            (F::Multiview, e.multiview),
            (F::VariablePointersStorageBuffer, e.variable_pointers_storage_buffer),
            (F::VariablePointers, e.variable_pointers),
            (F::ShaderDrawParameters, e.shader_draw_parameters),
        ])
    }

    /// These features added: the Vulkan 1.2 ones `enabled` turns on.
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Feature;
    /// let v12 = vk::PhysicalDeviceVulkan12Features::default().shader_float16(true);
    /// assert!(DeviceFeatures::default().with_vulkan12(&v12).has(Feature::ShaderFloat16));
    /// ```
    #[must_use]
    pub fn with_vulkan12(self, enabled: &vk::PhysicalDeviceVulkan12Features<'_>) -> Self {
        use Feature as F;
        let e = enabled;
        self.with_all(&[
            (F::ShaderBufferInt64Atomics, e.shader_buffer_int64_atomics),
            (F::ShaderSharedInt64Atomics, e.shader_shared_int64_atomics),
            (F::ShaderFloat16, e.shader_float16),
            (F::ShaderInt8, e.shader_int8),
            (F::StorageBuffer8BitAccess, e.storage_buffer8_bit_access),
            (F::UniformAndStorageBuffer8BitAccess, e.uniform_and_storage_buffer8_bit_access),
            (F::StoragePushConstant8, e.storage_push_constant8),
            (F::ShaderInputAttachmentArrayDynamicIndexing, e.shader_input_attachment_array_dynamic_indexing),
            (F::ShaderUniformTexelBufferArrayDynamicIndexing, e.shader_uniform_texel_buffer_array_dynamic_indexing),
            (F::ShaderStorageTexelBufferArrayDynamicIndexing, e.shader_storage_texel_buffer_array_dynamic_indexing),
            (F::ShaderUniformBufferArrayNonUniformIndexing, e.shader_uniform_buffer_array_non_uniform_indexing),
            (F::ShaderSampledImageArrayNonUniformIndexing, e.shader_sampled_image_array_non_uniform_indexing),
            (F::ShaderStorageBufferArrayNonUniformIndexing, e.shader_storage_buffer_array_non_uniform_indexing),
            (F::ShaderStorageImageArrayNonUniformIndexing, e.shader_storage_image_array_non_uniform_indexing),
            (F::ShaderInputAttachmentArrayNonUniformIndexing, e.shader_input_attachment_array_non_uniform_indexing),
            (
                F::ShaderUniformTexelBufferArrayNonUniformIndexing,
                e.shader_uniform_texel_buffer_array_non_uniform_indexing,
            ),
            (
                F::ShaderStorageTexelBufferArrayNonUniformIndexing,
                e.shader_storage_texel_buffer_array_non_uniform_indexing,
            ),
            (F::RuntimeDescriptorArray, e.runtime_descriptor_array),
            (F::VulkanMemoryModel, e.vulkan_memory_model),
            (F::VulkanMemoryModelDeviceScope, e.vulkan_memory_model_device_scope),
            (F::BufferDeviceAddress, e.buffer_device_address),
            (F::ShaderOutputViewportIndex, e.shader_output_viewport_index),
            (F::ShaderOutputLayer, e.shader_output_layer),
        ])
    }

    /// These features added: the Vulkan 1.3 ones `enabled` turns on.
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Feature;
    /// let v13 = vk::PhysicalDeviceVulkan13Features::default().shader_demote_to_helper_invocation(true);
    /// assert!(DeviceFeatures::default().with_vulkan13(&v13).has(Feature::ShaderDemoteToHelperInvocation));
    /// ```
    #[must_use]
    pub fn with_vulkan13(self, enabled: &vk::PhysicalDeviceVulkan13Features<'_>) -> Self {
        use Feature as F;
        self.with_all(&[
            (F::ShaderDemoteToHelperInvocation, enabled.shader_demote_to_helper_invocation),
            (F::ShaderIntegerDotProduct, enabled.shader_integer_dot_product),
        ])
    }

    /// These features added: those of `chain` and of the structures in its
    /// `pNext` chain that the manager knows (Vulkan 1.1 to 1.3, ray query,
    /// mesh shader, fragment shading rate, graphics pipeline library; add
    /// others with [`with`](Self::with)).
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Feature;
    /// let mut v12 = vk::PhysicalDeviceVulkan12Features::default().shader_int8(true);
    /// let chain = vk::PhysicalDeviceFeatures2::default()
    ///     .features(vk::PhysicalDeviceFeatures::default().shader_int16(true))
    ///     .push_next(&mut v12);
    /// // SAFETY: built with ash's builders, the chain holds valid structures.
    /// let features = unsafe { DeviceFeatures::default().with_chain(&chain) };
    /// assert!(features.has(Feature::ShaderInt16) && features.has(Feature::ShaderInt8));
    /// ```
    ///
    /// # Safety
    /// `chain.p_next` is null or points to a valid chain of Vulkan
    /// structures, each with its `sType` and `pNext` set, as
    /// `vkCreateDevice` requires (ash's `push_next` builds one).
    #[must_use]
    pub unsafe fn with_chain(self, chain: &vk::PhysicalDeviceFeatures2<'_>) -> Self {
        let mut features = self.with_enabled(&chain.features);
        let mut next = chain.p_next.cast::<vk::BaseOutStructure<'_>>().cast_const();
        // A chain is short; the bound keeps a cyclic one from looping.
        for _ in 0..256 {
            // SAFETY: null or a valid structure (the contract).
            let Some(base) = (unsafe { next.as_ref() }) else { break };
            // SAFETY: `s_type` says which structure `next` points to.
            unsafe {
                use vk::StructureType as T;
                features = match base.s_type {
                    // The structure type each method takes.
                    T::PHYSICAL_DEVICE_VULKAN_1_1_FEATURES => features.with_vulkan11(&*next.cast()),
                    T::PHYSICAL_DEVICE_VULKAN_1_2_FEATURES => features.with_vulkan12(&*next.cast()),
                    T::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES => features.with_vulkan13(&*next.cast()),
                    T::PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR => {
                        let s = &*next.cast::<vk::PhysicalDeviceRayQueryFeaturesKHR<'_>>();
                        features.with(Feature::RayQuery, on(s.ray_query))
                    }
                    T::PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT => {
                        let s = &*next.cast::<vk::PhysicalDeviceMeshShaderFeaturesEXT<'_>>();
                        features
                            .with(Feature::MeshShader, on(s.mesh_shader))
                            .with(Feature::TaskShader, on(s.task_shader))
                    }
                    T::PHYSICAL_DEVICE_GRAPHICS_PIPELINE_LIBRARY_FEATURES_EXT => {
                        let s = &*next.cast::<vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT<'_>>();
                        features.with(Feature::GraphicsPipelineLibrary, on(s.graphics_pipeline_library))
                    }
                    T::PHYSICAL_DEVICE_FRAGMENT_SHADING_RATE_FEATURES_KHR => {
                        let s = &*next.cast::<vk::PhysicalDeviceFragmentShadingRateFeaturesKHR<'_>>();
                        features.with_all(&[
                            (Feature::PipelineFragmentShadingRate, s.pipeline_fragment_shading_rate),
                            (Feature::PrimitiveFragmentShadingRate, s.primitive_fragment_shading_rate),
                            (Feature::AttachmentFragmentShadingRate, s.attachment_fragment_shading_rate),
                        ])
                    }
                    _ => features,
                };
            }
            next = base.p_next.cast_const();
        }
        features
    }

    fn with_all(self, list: &[(Feature, vk::Bool32)]) -> Self {
        list.iter().fold(self, |features, &(feature, value)| features.with(feature, on(value)))
    }

    /// `feature` added when `enabled`, for structures the others do not read.
    ///
    /// ```
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Feature;
    /// let features = DeviceFeatures::default().with(Feature::MeshShader, true);
    /// assert!(features.has(Feature::MeshShader));
    /// ```
    #[must_use]
    pub fn with(mut self, feature: Feature, enabled: bool) -> Self {
        if enabled {
            self.features |= 1 << feature as u8;
        }
        self
    }

    /// Whether `feature` is enabled.
    ///
    /// ```
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Feature;
    /// assert!(!DeviceFeatures::default().has(Feature::GeometryShader));
    /// ```
    pub fn has(&self, feature: Feature) -> bool {
        self.features & (1 << feature as u8) != 0
    }

    /// `extension` added.
    ///
    /// ```
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Extension;
    /// assert!(DeviceFeatures::default().with_extension(Extension::ExtMeshShader).has_extension(Extension::ExtMeshShader));
    /// ```
    #[must_use]
    pub fn with_extension(mut self, extension: Extension) -> Self {
        self.extensions |= 1 << extension as u8;
        self
    }

    /// The extensions among `names` (`ppEnabledExtensionNames`) added.
    ///
    /// ```
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Extension;
    /// let features = DeviceFeatures::default().with_extension_names(&[ash::khr::swapchain::NAME, ash::khr::ray_query::NAME]);
    /// assert!(features.has_extension(Extension::KhrRayQuery));
    /// ```
    #[must_use]
    pub fn with_extension_names(self, names: &[&CStr]) -> Self {
        names
            .iter()
            .filter_map(|name| name.to_str().ok().and_then(Extension::from_name))
            .fold(self, Self::with_extension)
    }

    /// VK_KHR_pipeline_library, VK_EXT_graphics_pipeline_library and the
    /// `graphicsPipelineLibrary` feature added when `enabled`.
    ///
    /// ```
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// assert!(DeviceFeatures::default().with_graphics_pipeline_library(true).has_graphics_pipeline_library());
    /// assert!(!DeviceFeatures::default().with_graphics_pipeline_library(false).has_graphics_pipeline_library());
    /// ```
    #[must_use]
    pub fn with_graphics_pipeline_library(self, enabled: bool) -> Self {
        if !enabled {
            return self;
        }
        self.with_extension(Extension::KhrPipelineLibrary)
            .with_extension(Extension::ExtGraphicsPipelineLibrary)
            .with(Feature::GraphicsPipelineLibrary, true)
    }

    /// Whether graphics pipeline libraries are enabled: both extensions and
    /// the `graphicsPipelineLibrary` feature (without it, Vulkan forbids
    /// library pipelines).
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// let extensions = [ash::khr::pipeline_library::NAME, ash::ext::graphics_pipeline_library::NAME];
    /// let names_only = DeviceFeatures::default().with_extension_names(&extensions);
    /// assert!(!names_only.has_graphics_pipeline_library());
    /// let mut gpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default().graphics_pipeline_library(true);
    /// let chain = vk::PhysicalDeviceFeatures2::default().push_next(&mut gpl);
    /// // SAFETY: built with ash's builders, the chain holds valid structures.
    /// let enabled = unsafe { names_only.with_chain(&chain) };
    /// assert!(enabled.has_graphics_pipeline_library());
    /// ```
    pub fn has_graphics_pipeline_library(&self) -> bool {
        self.has_extension(Extension::KhrPipelineLibrary)
            && self.has_extension(Extension::ExtGraphicsPipelineLibrary)
            && self.has(Feature::GraphicsPipelineLibrary)
    }

    /// The first thing libraries need that is missing, and where it is enabled.
    pub(crate) fn missing_graphics_pipeline_library(&self) -> Option<(&'static str, &'static str)> {
        let extensions = "VkDeviceCreateInfo::ppEnabledExtensionNames";
        [Extension::KhrPipelineLibrary, Extension::ExtGraphicsPipelineLibrary]
            .into_iter()
            .find(|&e| !self.has_extension(e))
            .map(|e| (e.name(), extensions))
            .or_else(|| {
                let feature = Feature::GraphicsPipelineLibrary;
                (!self.has(feature)).then(|| (feature.name(), feature.structure()))
            })
    }

    /// Whether `extension` is enabled.
    ///
    /// ```
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// use smolv_runtime::vulkan::capabilities::Extension;
    /// assert!(!DeviceFeatures::default().has_extension(Extension::KhrRayQuery));
    /// ```
    pub fn has_extension(&self, extension: Extension) -> bool {
        self.extensions & (1 << extension as u8) != 0
    }

    /// The device's subgroup operations and stages
    /// (`VkPhysicalDeviceSubgroupProperties`), for `GroupNonUniform*`.
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// let subgroup = vk::PhysicalDeviceSubgroupProperties::default()
    ///     .supported_operations(vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::BALLOT)
    ///     .supported_stages(vk::ShaderStageFlags::COMPUTE);
    /// let features = DeviceFeatures::default().with_subgroup(&subgroup);
    /// assert!(features.has_subgroup(vk::SubgroupFeatureFlags::BALLOT, vk::ShaderStageFlags::COMPUTE));
    /// assert!(!features.has_subgroup(vk::SubgroupFeatureFlags::BALLOT, vk::ShaderStageFlags::FRAGMENT));
    /// ```
    #[must_use]
    pub fn with_subgroup(self, properties: &vk::PhysicalDeviceSubgroupProperties<'_>) -> Self {
        Self {
            subgroup_operations: properties.supported_operations,
            subgroup_stages: properties.supported_stages,
            ..self
        }
    }

    /// Whether `stage` has the subgroup `operations`.
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// assert!(!DeviceFeatures::default().has_subgroup(vk::SubgroupFeatureFlags::BASIC, vk::ShaderStageFlags::COMPUTE));
    /// ```
    pub fn has_subgroup(&self, operations: vk::SubgroupFeatureFlags, stage: vk::ShaderStageFlags) -> bool {
        self.subgroup_operations.contains(operations) && self.subgroup_stages.contains(stage)
    }
}
