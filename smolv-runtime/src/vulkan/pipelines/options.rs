use ash::vk;

use crate::vulkan::VulkanError;
use crate::vulkan::device_features::DeviceFeatures;

/// What [`VulkanError::FeatureNotEnabled`] names for libraries asked for.
pub(crate) const LIBRARIES_ASKED: &str = "PipelineOptions::graphics_pipeline_library(true)";

/// `pub const fn` setters of the fields of the same names.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {$(
        $(#[$doc])*
        #[must_use]
        pub const fn $name(mut self, $name: $ty) -> Self {
            self.$name = $name;
            self
        }
    )*};
}

/// How the manager builds pipelines, and what the device was created with: [`new`](Self::new) (valid on any
/// Vulkan 1.3 device) then the setters, or what [`DeviceRequirements`](crate::vulkan::DeviceRequirements) gives.
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::{DeviceFeatures, PipelineOptions};
/// // Without VK_EXT_graphics_pipeline_library: monolithic pipelines, spec constants folded by smolv.
/// let options = PipelineOptions::new().specialize_ahead(true);
/// assert!(!options.uses_libraries());
/// assert_eq!(options.workers, 1);
/// assert_eq!(options.api_version, vk::API_VERSION_1_3);
/// // One created with it (the two extensions and the `graphicsPipelineLibrary` feature):
/// let options = PipelineOptions::new().features(DeviceFeatures::default().with_graphics_pipeline_library(true));
/// assert!(options.uses_libraries());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PipelineOptions {
    /// Whether to build graphics pipelines from libraries: `None` (default) where
    /// [`features`](Self#structfield.features) has them ([`DeviceFeatures::has_graphics_pipeline_library`]);
    /// `Some(true)` asked for ([`VulkanError::FeatureNotEnabled`] where `features` lacks them); `Some(false)` never.
    pub graphics_pipeline_library: Option<bool>,
    /// Build monolithic pipelines even with libraries (or set `SMOLV_FORCE_MONOLITHIC=1`).
    pub force_monolithic: bool,
    /// Fold spec constants into the SPIR-V with [`specialize`](crate::specialize) where it can, not in the driver.
    pub specialize_ahead: bool,
    /// Background workers (default 1).
    pub workers: usize,
    /// The features, extensions and subgroup operations enabled on the device (default: none).
    pub features: DeviceFeatures,
    /// The Vulkan version the device was created for (default: `vk::API_VERSION_1_3`), which bounds the SPIR-V.
    pub api_version: u32,
    /// Whether VK_KHR_spirv_1_4 is enabled, letting a Vulkan 1.1 device take SPIR-V 1.4 (default: false).
    pub khr_spirv_1_4: bool,
}

impl PipelineOptions {
    /// The defaults: no features (so no libraries), spec constants to the driver, one worker, Vulkan 1.3.
    ///
    /// ```
    /// use smolv_runtime::vulkan::PipelineOptions;
    /// let options = PipelineOptions::new();
    /// assert_eq!(options.graphics_pipeline_library, None);
    /// assert!(!options.uses_libraries() && !options.force_monolithic);
    /// assert_eq!(options, PipelineOptions::default());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self {
            graphics_pipeline_library: None,
            force_monolithic: false,
            specialize_ahead: false,
            workers: 1,
            features: DeviceFeatures::NONE,
            api_version: vk::API_VERSION_1_3,
            khr_spirv_1_4: false,
        }
    }

    /// Asks for graphics pipeline libraries (`true`) or monolithic pipelines (`false`) instead of following
    /// [`features`](Self#structfield.features); libraries where `features` lack them fail [`check`](Self::check).
    ///
    /// ```
    /// use smolv_runtime::vulkan::{DeviceFeatures, PipelineOptions, VulkanError};
    /// let monolithic = PipelineOptions::new()
    ///     .features(DeviceFeatures::default().with_graphics_pipeline_library(true))
    ///     .graphics_pipeline_library(false);
    /// assert!(!monolithic.uses_libraries());
    /// // Libraries asked for, on a device created without them:
    /// let asked = PipelineOptions::new().graphics_pipeline_library(true);
    /// assert!(!asked.uses_libraries());
    /// assert!(matches!(asked.check(), Err(VulkanError::FeatureNotEnabled { .. })));
    /// ```
    #[must_use]
    pub const fn graphics_pipeline_library(mut self, enabled: bool) -> Self {
        self.graphics_pipeline_library = Some(enabled);
        self
    }

    /// Whether graphics pipelines are built from libraries: where [`features`](Self#structfield.features) has them,
    /// unless [`graphics_pipeline_library`](Self::graphics_pipeline_library) says `false` or
    /// [`force_monolithic`](Self::force_monolithic) is set.
    ///
    /// ```
    /// use smolv_runtime::vulkan::{DeviceFeatures, PipelineOptions};
    /// let gpl = PipelineOptions::new().features(DeviceFeatures::default().with_graphics_pipeline_library(true));
    /// assert!(gpl.uses_libraries());
    /// assert!(!gpl.force_monolithic(true).uses_libraries());
    /// ```
    pub fn uses_libraries(&self) -> bool {
        self.graphics_pipeline_library.unwrap_or(true)
            && self.features.has_graphics_pipeline_library()
            && !self.force_monolithic
    }

    /// An error where libraries are asked for ([`graphics_pipeline_library(true)`](Self::graphics_pipeline_library))
    /// and [`features`](Self#structfield.features) lacks them.
    ///
    /// # Errors
    /// [`VulkanError::FeatureNotEnabled`], naming the first missing extension or feature.
    ///
    /// ```
    /// use smolv_runtime::vulkan::{DeviceFeatures, PipelineOptions};
    /// assert!(PipelineOptions::new().check().is_ok());
    /// let error = PipelineOptions::new().graphics_pipeline_library(true).check().unwrap_err();
    /// assert!(error.to_string().contains("VK_KHR_pipeline_library"), "{error}");
    /// let enabled = DeviceFeatures::default().with_graphics_pipeline_library(true);
    /// assert!(PipelineOptions::new().graphics_pipeline_library(true).features(enabled).check().is_ok());
    /// ```
    pub fn check(&self) -> Result<(), VulkanError> {
        if self.graphics_pipeline_library != Some(true) {
            return Ok(());
        }
        let Some((feature, structure)) = self.features.missing_graphics_pipeline_library() else { return Ok(()) };
        Err(VulkanError::FeatureNotEnabled { feature, structure, state: LIBRARIES_ASKED, shader: None })
    }

    setters! {
        /// Sets [`force_monolithic`](Self#structfield.force_monolithic) (default: false).
        ///
        /// ```
        /// let options = smolv_runtime::vulkan::PipelineOptions::new().force_monolithic(true);
        /// assert!(options.force_monolithic);
        /// ```
        force_monolithic: bool;

        /// Sets [`specialize_ahead`](Self#structfield.specialize_ahead) (default: false).
        ///
        /// ```
        /// let options = smolv_runtime::vulkan::PipelineOptions::new().specialize_ahead(true);
        /// assert!(options.specialize_ahead);
        /// ```
        specialize_ahead: bool;

        /// Sets the number of background workers (default: 1).
        ///
        /// ```
        /// let options = smolv_runtime::vulkan::PipelineOptions::new().workers(2);
        /// assert_eq!(options.workers, 2);
        /// ```
        workers: usize;

        /// Sets the features, extensions and subgroup operations enabled on the device (default: none).
        ///
        /// ```
        /// use ash::vk;
        /// use smolv_runtime::vulkan::{DeviceFeatures, PipelineOptions};
        /// // The features given to vkCreateDevice:
        /// let enabled = vk::PhysicalDeviceFeatures::default().geometry_shader(true);
        /// let options = PipelineOptions::new().features(DeviceFeatures::from_enabled(&enabled));
        /// assert_eq!(options.features, DeviceFeatures::from_enabled(&enabled));
        /// ```
        features: DeviceFeatures;

        /// Sets the Vulkan version the device was created for (default: `vk::API_VERSION_1_3`).
        ///
        /// ```
        /// use ash::vk;
        /// let options = smolv_runtime::vulkan::PipelineOptions::new().api_version(vk::API_VERSION_1_1);
        /// assert_eq!(options.api_version, vk::API_VERSION_1_1);
        /// ```
        api_version: u32;

        /// Sets whether VK_KHR_spirv_1_4 is enabled on the device (default: false).
        ///
        /// ```
        /// use ash::vk;
        /// use smolv_runtime::vulkan::PipelineOptions;
        /// // A Vulkan 1.1 device that takes SPIR-V 1.4 through the extension.
        /// let options = PipelineOptions::new().api_version(vk::API_VERSION_1_1).khr_spirv_1_4(true);
        /// assert!(options.khr_spirv_1_4);
        /// ```
        khr_spirv_1_4: bool;
    }
}

impl Default for PipelineOptions {
    fn default() -> Self {
        Self::new()
    }
}
