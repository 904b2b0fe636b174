//! The features, extensions and subgroup operations the device was created with.

use std::ffi::CStr;

use ash::vk;

use super::capabilities::{Extension, Feature, FeatureStructure};

/// The features and extensions enabled on the device, from the structures given to
/// `vkCreateDevice`; what needs one missing here is refused
/// ([`VulkanError::FeatureNotEnabled`](super::VulkanError::FeatureNotEnabled)).
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

/// The extensions graphics pipeline libraries need, dependency first.
pub(crate) const LIBRARY_EXTENSIONS: [&CStr; 2] =
    [ash::khr::pipeline_library::NAME, ash::ext::graphics_pipeline_library::NAME];

impl DeviceFeatures {
    /// Nothing enabled: `default()` in `const`.
    pub(crate) const NONE: Self = Self {
        features: 0,
        extensions: 0,
        subgroup_operations: vk::SubgroupFeatureFlags::empty(),
        subgroup_stages: vk::ShaderStageFlags::empty(),
    };

    /// The Vulkan 1.0 features of `enabled` (`pEnabledFeatures`).
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// assert_eq!(DeviceFeatures::from_enabled(&vk::PhysicalDeviceFeatures::default()), DeviceFeatures::default());
    /// ```
    pub fn from_enabled(enabled: &vk::PhysicalDeviceFeatures) -> Self {
        Self::default().added(enabled)
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
        self.added(enabled)
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
        self.added(enabled)
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
        self.added(enabled)
    }

    /// These features added: those of `chain` and the structures of its `pNext` chain
    /// the manager knows (others: [`with`](Self::with)).
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
    /// `chain.p_next` is null or a valid chain of Vulkan structures (as ash's `push_next` builds).
    #[must_use]
    pub unsafe fn with_chain(self, chain: &vk::PhysicalDeviceFeatures2<'_>) -> Self {
        let mut features = self.added(&chain.features);
        let mut next = chain.p_next.cast::<vk::BaseOutStructure<'_>>().cast_const();
        // A chain is short; the bound keeps a cyclic one from looping.
        for _ in 0..256 {
            // SAFETY: null or a valid structure (the contract).
            let Some(base) = (unsafe { next.as_ref() }) else { break };
            // SAFETY: `next` is a valid structure with its `sType` (the contract).
            unsafe {
                features = add::<vk::PhysicalDeviceVulkan11Features<'_>>(features, next);
                features = add::<vk::PhysicalDeviceVulkan12Features<'_>>(features, next);
                features = add::<vk::PhysicalDeviceVulkan13Features<'_>>(features, next);
                features = add::<vk::PhysicalDeviceRayQueryFeaturesKHR<'_>>(features, next);
                features = add::<vk::PhysicalDeviceMeshShaderFeaturesEXT<'_>>(features, next);
                features = add::<vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT<'_>>(features, next);
                features = add::<vk::PhysicalDeviceFragmentShadingRateFeaturesKHR<'_>>(features, next);
            }
            next = base.p_next.cast_const();
        }
        features
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

    /// These features added: those `structure` turns on.
    fn added(mut self, structure: &impl FeatureStructure) -> Self {
        structure.each(&mut |feature, enabled| self = self.with(feature, enabled));
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

    /// The pipeline-library extensions, and the `graphicsPipelineLibrary` feature when `enabled`.
    ///
    /// ```
    /// use smolv_runtime::vulkan::DeviceFeatures;
    /// assert!(DeviceFeatures::default().with_graphics_pipeline_library(true).has_graphics_pipeline_library());
    /// assert!(!DeviceFeatures::default().with_graphics_pipeline_library(false).has_graphics_pipeline_library());
    /// ```
    #[must_use]
    pub fn with_graphics_pipeline_library(self, enabled: bool) -> Self {
        let extensions = self.with_extension_names(&LIBRARY_EXTENSIONS);
        if enabled { extensions.with(Feature::GraphicsPipelineLibrary, true) } else { self }
    }

    /// Whether both pipeline-library extensions and the `graphicsPipelineLibrary` feature are enabled.
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
        self.missing_graphics_pipeline_library().is_none()
    }

    /// The first thing libraries need that is missing, and where it is enabled.
    pub(crate) fn missing_graphics_pipeline_library(&self) -> Option<(&'static str, &'static str)> {
        let feature = Feature::GraphicsPipelineLibrary;
        let mut known = LIBRARY_EXTENSIONS.iter().filter_map(|name| name.to_str().ok().and_then(Extension::from_name));
        match known.find(|&e| !self.has_extension(e)) {
            Some(e) => Some((e.name(), "VkDeviceCreateInfo::ppEnabledExtensionNames")),
            None => (!self.has(feature)).then(|| (feature.name(), feature.structure())),
        }
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

    /// The device's subgroup operations and stages, for `GroupNonUniform*`.
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

/// `features` with those of `next`, if it is an `S`.
///
/// # Safety
/// `next` points to a valid structure of the type its `sType` names.
unsafe fn add<S: FeatureStructure + vk::TaggedStructure>(
    features: DeviceFeatures,
    next: *const vk::BaseOutStructure<'_>,
) -> DeviceFeatures {
    // SAFETY: `s_type` says which structure `next` points to (the contract).
    unsafe { if (*next).s_type == S::STRUCTURE_TYPE { features.added(&*next.cast::<S>()) } else { features } }
}
