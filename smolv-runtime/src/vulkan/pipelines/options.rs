//! How a manager builds pipelines, and what the device it builds them on
//! was created with.

use ash::vk;

use crate::vulkan::device_features::DeviceFeatures;
use crate::vulkan::spirv_version::SpirvSupport;

/// How the manager builds pipelines, and what the device was created
/// with: its Vulkan version and the features some state needs.
///
/// Start from [`new`](Self::new) (the defaults) and change what differs
/// with the setters, one per field:
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::PipelineOptions;
/// // A device without VK_EXT_graphics_pipeline_library: monolithic pipelines,
/// // with spec constants folded into the SPIR-V by smolv's specializer.
/// let options = PipelineOptions::new().graphics_pipeline_library(false).specialize_ahead(true);
/// assert_eq!(options.workers, 1);
/// assert_eq!(options.api_version, vk::API_VERSION_1_3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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
    /// The defaults: graphics pipeline libraries used, not forced
    /// monolithic, spec constants passed to the driver, one worker, no
    /// features, Vulkan 1.3 without VK_KHR_spirv_1_4.
    ///
    /// ```
    /// use smolv_runtime::vulkan::PipelineOptions;
    /// let options = PipelineOptions::new();
    /// assert!(options.graphics_pipeline_library && !options.force_monolithic);
    /// assert_eq!(options, PipelineOptions::default());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self {
            graphics_pipeline_library: true,
            force_monolithic: false,
            specialize_ahead: false,
            workers: 1,
            features: DeviceFeatures::NONE,
            api_version: vk::API_VERSION_1_3,
            khr_spirv_1_4: false,
        }
    }

    /// Sets whether the device has VK_EXT_graphics_pipeline_library
    /// enabled (default: true).
    ///
    /// ```
    /// let options = smolv_runtime::vulkan::PipelineOptions::new().graphics_pipeline_library(false);
    /// assert!(!options.graphics_pipeline_library);
    /// ```
    #[must_use]
    pub const fn graphics_pipeline_library(mut self, enabled: bool) -> Self {
        self.graphics_pipeline_library = enabled;
        self
    }

    /// Builds monolithic pipelines even with libraries available
    /// (default: false).
    ///
    /// ```
    /// let options = smolv_runtime::vulkan::PipelineOptions::new().force_monolithic(true);
    /// assert!(options.force_monolithic);
    /// ```
    #[must_use]
    pub const fn force_monolithic(mut self, force: bool) -> Self {
        self.force_monolithic = force;
        self
    }

    /// Folds spec constants into the SPIR-V before creating a library
    /// (default: false).
    ///
    /// ```
    /// let options = smolv_runtime::vulkan::PipelineOptions::new().specialize_ahead(true);
    /// assert!(options.specialize_ahead);
    /// ```
    #[must_use]
    pub const fn specialize_ahead(mut self, ahead: bool) -> Self {
        self.specialize_ahead = ahead;
        self
    }

    /// Sets the number of background workers (default: 1).
    ///
    /// ```
    /// let options = smolv_runtime::vulkan::PipelineOptions::new().workers(2);
    /// assert_eq!(options.workers, 2);
    /// ```
    #[must_use]
    pub const fn workers(mut self, workers: usize) -> Self {
        self.workers = workers;
        self
    }

    /// Sets the features, extensions and subgroup operations enabled on
    /// the device (default: none).
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::{DeviceFeatures, PipelineOptions};
    /// // The features given to vkCreateDevice:
    /// let enabled = vk::PhysicalDeviceFeatures::default().geometry_shader(true);
    /// let options = PipelineOptions::new().features(DeviceFeatures::from_enabled(&enabled));
    /// assert_eq!(options.features, DeviceFeatures::from_enabled(&enabled));
    /// ```
    #[must_use]
    pub const fn features(mut self, features: DeviceFeatures) -> Self {
        self.features = features;
        self
    }

    /// Sets the Vulkan version the device was created for (default:
    /// `vk::API_VERSION_1_3`).
    ///
    /// ```
    /// use ash::vk;
    /// let options = smolv_runtime::vulkan::PipelineOptions::new().api_version(vk::API_VERSION_1_1);
    /// assert_eq!(options.api_version, vk::API_VERSION_1_1);
    /// ```
    #[must_use]
    pub const fn api_version(mut self, version: u32) -> Self {
        self.api_version = version;
        self
    }

    /// Sets whether VK_KHR_spirv_1_4 is enabled on the device (default:
    /// false).
    ///
    /// ```
    /// use ash::vk;
    /// use smolv_runtime::vulkan::PipelineOptions;
    /// // A Vulkan 1.1 device that takes SPIR-V 1.4 through the extension.
    /// let options = PipelineOptions::new().api_version(vk::API_VERSION_1_1).khr_spirv_1_4(true);
    /// assert!(options.khr_spirv_1_4);
    /// ```
    #[must_use]
    pub const fn khr_spirv_1_4(mut self, enabled: bool) -> Self {
        self.khr_spirv_1_4 = enabled;
        self
    }

    /// The SPIR-V versions the device takes.
    pub(super) fn spirv_support(&self) -> SpirvSupport {
        SpirvSupport::new(self.api_version, self.khr_spirv_1_4)
    }
}

impl Default for PipelineOptions {
    fn default() -> Self {
        Self::new()
    }
}
