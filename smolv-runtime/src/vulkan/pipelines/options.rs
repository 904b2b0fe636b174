//! How a manager builds pipelines, and what the device it builds them on
//! was created with.

use ash::vk;

use crate::vulkan::device_features::DeviceFeatures;
use crate::vulkan::spirv_version::SpirvSupport;

/// How the manager builds pipelines, and what the device was created
/// with: its Vulkan version and the features some state needs.
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::PipelineOptions;
/// // A device without VK_EXT_graphics_pipeline_library: monolithic pipelines,
/// // with spec constants folded into the SPIR-V by smolv's specializer.
/// let options = PipelineOptions { graphics_pipeline_library: false, specialize_ahead: true, ..PipelineOptions::default() };
/// assert_eq!(options.workers, 1);
/// assert_eq!(options.api_version, vk::API_VERSION_1_3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineOptions {
    /// Whether the device has VK_EXT_graphics_pipeline_library enabled.
    pub graphics_pipeline_library: bool,
    /// Build monolithic pipelines even with libraries available. The
    /// environment variable `SMOLV_FORCE_MONOLITHIC=1` does the same.
    pub force_monolithic: bool,
    /// Fold spec constants into the SPIR-V with
    /// [`specialize`](crate::specialize) before creating a library, instead
    /// of passing them to the driver. A module the specializer cannot
    /// handle goes to the driver with its values instead.
    pub specialize_ahead: bool,
    /// Background workers, for link-time-optimized links and compute
    /// pipelines asked for in the background (default 1).
    pub workers: usize,
    /// The features, extensions and subgroup operations enabled on the
    /// device, which some state, stages and shader capabilities need
    /// (default: none). What needs a missing one is refused.
    pub features: DeviceFeatures,
    /// The Vulkan version the device was created for: the instance's
    /// `VkApplicationInfo::apiVersion`, or the physical device's
    /// `apiVersion` where that is lower (default: `vk::API_VERSION_1_3`,
    /// the version whose dynamic rendering the manager uses). A module
    /// whose SPIR-V version is newer than this version takes is refused
    /// with [`VulkanError::SpirvVersionUnsupported`](crate::vulkan::VulkanError::SpirvVersionUnsupported)
    /// before the driver sees it: set it for a device created for an
    /// older version.
    pub api_version: u32,
    /// Whether VK_KHR_spirv_1_4 is enabled on the device, which lets a
    /// Vulkan 1.1 device take SPIR-V 1.4 (default: false).
    pub khr_spirv_1_4: bool,
}

impl PipelineOptions {
    /// The SPIR-V versions the device takes.
    pub(super) fn spirv_support(&self) -> SpirvSupport {
        SpirvSupport::new(self.api_version, self.khr_spirv_1_4)
    }
}

impl Default for PipelineOptions {
    fn default() -> Self {
        Self {
            graphics_pipeline_library: true,
            force_monolithic: false,
            specialize_ahead: false,
            workers: 1,
            features: DeviceFeatures::default(),
            api_version: vk::API_VERSION_1_3,
            khr_spirv_1_4: false,
        }
    }
}
