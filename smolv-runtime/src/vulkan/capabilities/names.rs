//! The device features and extensions shader capabilities need, by name.

/// Defines [`Feature`], with the structure and member that enable each.
macro_rules! features {
    ($($variant:ident => $structure:literal, $member:literal;)*) => {
        /// A Vulkan device feature: a `VkBool32` member of one of the
        /// feature structures passed to `vkCreateDevice`.
        ///
        /// ```
        /// use smolv_runtime::vulkan::capabilities::Feature;
        /// assert_eq!(Feature::ShaderFloat64.name(), "shaderFloat64");
        /// assert_eq!(Feature::ShaderFloat64.structure(), "VkPhysicalDeviceFeatures");
        /// assert_eq!(Feature::ShaderInt8.structure(), "VkPhysicalDeviceVulkan12Features");
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[repr(u8)]
        pub enum Feature {
            $(
                #[doc = concat!("`", $structure, "::", $member, "`.")]
                $variant,
            )*
        }

        impl Feature {
            /// Every feature, in declaration order.
            pub const ALL: &'static [Feature] = &[$(Feature::$variant,)*];

            /// The member's name, e.g. `shaderFloat64`.
            ///
            /// ```
            /// # use smolv_runtime::vulkan::capabilities::Feature;
            /// assert_eq!(Feature::RayQuery.name(), "rayQuery");
            /// ```
            pub fn name(self) -> &'static str {
                match self {
                    $(Feature::$variant => $member,)*
                }
            }

            /// The structure that holds it, e.g. `VkPhysicalDeviceFeatures`.
            ///
            /// ```
            /// # use smolv_runtime::vulkan::capabilities::Feature;
            /// assert_eq!(Feature::RayQuery.structure(), "VkPhysicalDeviceRayQueryFeaturesKHR");
            /// ```
            pub fn structure(self) -> &'static str {
                match self {
                    $(Feature::$variant => $structure,)*
                }
            }
        }
    };
}

/// Defines [`Extension`], with each one's name.
macro_rules! extensions {
    ($($variant:ident => $name:literal;)*) => {
        /// A Vulkan device extension, enabled through
        /// `VkDeviceCreateInfo::ppEnabledExtensionNames`.
        ///
        /// ```
        /// use smolv_runtime::vulkan::capabilities::Extension;
        /// assert_eq!(Extension::KhrRayQuery.name(), "VK_KHR_ray_query");
        /// assert_eq!(Extension::from_name("VK_EXT_mesh_shader"), Some(Extension::ExtMeshShader));
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[repr(u8)]
        pub enum Extension {
            $(
                #[doc = concat!("`", $name, "`.")]
                $variant,
            )*
        }

        impl Extension {
            /// Every extension, in declaration order.
            pub const ALL: &'static [Extension] = &[$(Extension::$variant,)*];

            /// The extension's name, e.g. `VK_KHR_ray_query`.
            ///
            /// ```
            /// # use smolv_runtime::vulkan::capabilities::Extension;
            /// assert_eq!(Extension::ExtMeshShader.name(), "VK_EXT_mesh_shader");
            /// ```
            pub fn name(self) -> &'static str {
                match self {
                    $(Extension::$variant => $name,)*
                }
            }

            /// The extension called `name`, if the table knows it.
            ///
            /// ```
            /// # use smolv_runtime::vulkan::capabilities::Extension;
            /// assert_eq!(Extension::from_name("VK_KHR_swapchain"), None);
            /// ```
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($name => Some(Extension::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

features! {
    // VkPhysicalDeviceFeatures (Vulkan 1.0): pipeline state.
    GeometryShader => "VkPhysicalDeviceFeatures", "geometryShader";
    TessellationShader => "VkPhysicalDeviceFeatures", "tessellationShader";
    SampleRateShading => "VkPhysicalDeviceFeatures", "sampleRateShading";
    DepthBounds => "VkPhysicalDeviceFeatures", "depthBounds";
    FillModeNonSolid => "VkPhysicalDeviceFeatures", "fillModeNonSolid";
    DepthBiasClamp => "VkPhysicalDeviceFeatures", "depthBiasClamp";
    DepthClamp => "VkPhysicalDeviceFeatures", "depthClamp";
    WideLines => "VkPhysicalDeviceFeatures", "wideLines";
    LogicOp => "VkPhysicalDeviceFeatures", "logicOp";
    AlphaToOne => "VkPhysicalDeviceFeatures", "alphaToOne";
    IndependentBlend => "VkPhysicalDeviceFeatures", "independentBlend";
    // VkPhysicalDeviceFeatures (Vulkan 1.0): shaders.
    ShaderFloat64 => "VkPhysicalDeviceFeatures", "shaderFloat64";
    ShaderInt64 => "VkPhysicalDeviceFeatures", "shaderInt64";
    ShaderInt16 => "VkPhysicalDeviceFeatures", "shaderInt16";
    ShaderTessellationAndGeometryPointSize => "VkPhysicalDeviceFeatures", "shaderTessellationAndGeometryPointSize";
    ShaderImageGatherExtended => "VkPhysicalDeviceFeatures", "shaderImageGatherExtended";
    ShaderStorageImageMultisample => "VkPhysicalDeviceFeatures", "shaderStorageImageMultisample";
    ShaderUniformBufferArrayDynamicIndexing => "VkPhysicalDeviceFeatures", "shaderUniformBufferArrayDynamicIndexing";
    ShaderSampledImageArrayDynamicIndexing => "VkPhysicalDeviceFeatures", "shaderSampledImageArrayDynamicIndexing";
    ShaderStorageBufferArrayDynamicIndexing => "VkPhysicalDeviceFeatures", "shaderStorageBufferArrayDynamicIndexing";
    ShaderStorageImageArrayDynamicIndexing => "VkPhysicalDeviceFeatures", "shaderStorageImageArrayDynamicIndexing";
    ShaderClipDistance => "VkPhysicalDeviceFeatures", "shaderClipDistance";
    ShaderCullDistance => "VkPhysicalDeviceFeatures", "shaderCullDistance";
    ImageCubeArray => "VkPhysicalDeviceFeatures", "imageCubeArray";
    ShaderResourceResidency => "VkPhysicalDeviceFeatures", "shaderResourceResidency";
    ShaderResourceMinLod => "VkPhysicalDeviceFeatures", "shaderResourceMinLod";
    ShaderStorageImageReadWithoutFormat => "VkPhysicalDeviceFeatures", "shaderStorageImageReadWithoutFormat";
    ShaderStorageImageWriteWithoutFormat => "VkPhysicalDeviceFeatures", "shaderStorageImageWriteWithoutFormat";
    MultiViewport => "VkPhysicalDeviceFeatures", "multiViewport";
    // VkPhysicalDeviceVulkan11Features.
    StorageBuffer16BitAccess => "VkPhysicalDeviceVulkan11Features", "storageBuffer16BitAccess";
    UniformAndStorageBuffer16BitAccess => "VkPhysicalDeviceVulkan11Features", "uniformAndStorageBuffer16BitAccess";
    StoragePushConstant16 => "VkPhysicalDeviceVulkan11Features", "storagePushConstant16";
    StorageInputOutput16 => "VkPhysicalDeviceVulkan11Features", "storageInputOutput16";
    Multiview => "VkPhysicalDeviceVulkan11Features", "multiview";
    VariablePointersStorageBuffer => "VkPhysicalDeviceVulkan11Features", "variablePointersStorageBuffer";
    VariablePointers => "VkPhysicalDeviceVulkan11Features", "variablePointers";
    ShaderDrawParameters => "VkPhysicalDeviceVulkan11Features", "shaderDrawParameters";
    // VkPhysicalDeviceVulkan12Features.
    ShaderBufferInt64Atomics => "VkPhysicalDeviceVulkan12Features", "shaderBufferInt64Atomics";
    ShaderSharedInt64Atomics => "VkPhysicalDeviceVulkan12Features", "shaderSharedInt64Atomics";
    ShaderFloat16 => "VkPhysicalDeviceVulkan12Features", "shaderFloat16";
    ShaderInt8 => "VkPhysicalDeviceVulkan12Features", "shaderInt8";
    StorageBuffer8BitAccess => "VkPhysicalDeviceVulkan12Features", "storageBuffer8BitAccess";
    UniformAndStorageBuffer8BitAccess => "VkPhysicalDeviceVulkan12Features", "uniformAndStorageBuffer8BitAccess";
    StoragePushConstant8 => "VkPhysicalDeviceVulkan12Features", "storagePushConstant8";
    ShaderInputAttachmentArrayDynamicIndexing => "VkPhysicalDeviceVulkan12Features", "shaderInputAttachmentArrayDynamicIndexing";
    ShaderUniformTexelBufferArrayDynamicIndexing => "VkPhysicalDeviceVulkan12Features", "shaderUniformTexelBufferArrayDynamicIndexing";
    ShaderStorageTexelBufferArrayDynamicIndexing => "VkPhysicalDeviceVulkan12Features", "shaderStorageTexelBufferArrayDynamicIndexing";
    ShaderUniformBufferArrayNonUniformIndexing => "VkPhysicalDeviceVulkan12Features", "shaderUniformBufferArrayNonUniformIndexing";
    ShaderSampledImageArrayNonUniformIndexing => "VkPhysicalDeviceVulkan12Features", "shaderSampledImageArrayNonUniformIndexing";
    ShaderStorageBufferArrayNonUniformIndexing => "VkPhysicalDeviceVulkan12Features", "shaderStorageBufferArrayNonUniformIndexing";
    ShaderStorageImageArrayNonUniformIndexing => "VkPhysicalDeviceVulkan12Features", "shaderStorageImageArrayNonUniformIndexing";
    ShaderInputAttachmentArrayNonUniformIndexing => "VkPhysicalDeviceVulkan12Features", "shaderInputAttachmentArrayNonUniformIndexing";
    ShaderUniformTexelBufferArrayNonUniformIndexing => "VkPhysicalDeviceVulkan12Features", "shaderUniformTexelBufferArrayNonUniformIndexing";
    ShaderStorageTexelBufferArrayNonUniformIndexing => "VkPhysicalDeviceVulkan12Features", "shaderStorageTexelBufferArrayNonUniformIndexing";
    RuntimeDescriptorArray => "VkPhysicalDeviceVulkan12Features", "runtimeDescriptorArray";
    VulkanMemoryModel => "VkPhysicalDeviceVulkan12Features", "vulkanMemoryModel";
    VulkanMemoryModelDeviceScope => "VkPhysicalDeviceVulkan12Features", "vulkanMemoryModelDeviceScope";
    BufferDeviceAddress => "VkPhysicalDeviceVulkan12Features", "bufferDeviceAddress";
    ShaderOutputViewportIndex => "VkPhysicalDeviceVulkan12Features", "shaderOutputViewportIndex";
    ShaderOutputLayer => "VkPhysicalDeviceVulkan12Features", "shaderOutputLayer";
    // VkPhysicalDeviceVulkan13Features.
    ShaderDemoteToHelperInvocation => "VkPhysicalDeviceVulkan13Features", "shaderDemoteToHelperInvocation";
    ShaderIntegerDotProduct => "VkPhysicalDeviceVulkan13Features", "shaderIntegerDotProduct";
    // Extensions' feature structures.
    RayQuery => "VkPhysicalDeviceRayQueryFeaturesKHR", "rayQuery";
    RayTracingPipeline => "VkPhysicalDeviceRayTracingPipelineFeaturesKHR", "rayTracingPipeline";
    RayTraversalPrimitiveCulling => "VkPhysicalDeviceRayTracingPipelineFeaturesKHR", "rayTraversalPrimitiveCulling";
    RayTracingPositionFetch => "VkPhysicalDeviceRayTracingPositionFetchFeaturesKHR", "rayTracingPositionFetch";
    RayTracingMaintenance1 => "VkPhysicalDeviceRayTracingMaintenance1FeaturesKHR", "rayTracingMaintenance1";
    MeshShader => "VkPhysicalDeviceMeshShaderFeaturesEXT", "meshShader";
    TaskShader => "VkPhysicalDeviceMeshShaderFeaturesEXT", "taskShader";
    PipelineFragmentShadingRate => "VkPhysicalDeviceFragmentShadingRateFeaturesKHR", "pipelineFragmentShadingRate";
    PrimitiveFragmentShadingRate => "VkPhysicalDeviceFragmentShadingRateFeaturesKHR", "primitiveFragmentShadingRate";
    AttachmentFragmentShadingRate => "VkPhysicalDeviceFragmentShadingRateFeaturesKHR", "attachmentFragmentShadingRate";
    FragmentShaderBarycentric => "VkPhysicalDeviceFragmentShaderBarycentricFeaturesKHR", "fragmentShaderBarycentric";
    FragmentShaderSampleInterlock => "VkPhysicalDeviceFragmentShaderInterlockFeaturesEXT", "fragmentShaderSampleInterlock";
    FragmentShaderPixelInterlock => "VkPhysicalDeviceFragmentShaderInterlockFeaturesEXT", "fragmentShaderPixelInterlock";
    FragmentShaderShadingRateInterlock => "VkPhysicalDeviceFragmentShaderInterlockFeaturesEXT", "fragmentShaderShadingRateInterlock";
    FragmentDensityMap => "VkPhysicalDeviceFragmentDensityMapFeaturesEXT", "fragmentDensityMap";
    TransformFeedback => "VkPhysicalDeviceTransformFeedbackFeaturesEXT", "transformFeedback";
    GeometryStreams => "VkPhysicalDeviceTransformFeedbackFeaturesEXT", "geometryStreams";
    ShaderBufferFloat32AtomicAdd => "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT", "shaderBufferFloat32AtomicAdd";
    ShaderSharedFloat32AtomicAdd => "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT", "shaderSharedFloat32AtomicAdd";
    ShaderImageFloat32AtomicAdd => "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT", "shaderImageFloat32AtomicAdd";
    ShaderBufferFloat64AtomicAdd => "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT", "shaderBufferFloat64AtomicAdd";
    ShaderSharedFloat64AtomicAdd => "VkPhysicalDeviceShaderAtomicFloatFeaturesEXT", "shaderSharedFloat64AtomicAdd";
    ShaderBufferFloat16AtomicAdd => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderBufferFloat16AtomicAdd";
    ShaderSharedFloat16AtomicAdd => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderSharedFloat16AtomicAdd";
    ShaderBufferFloat16AtomicMinMax => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderBufferFloat16AtomicMinMax";
    ShaderSharedFloat16AtomicMinMax => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderSharedFloat16AtomicMinMax";
    ShaderBufferFloat32AtomicMinMax => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderBufferFloat32AtomicMinMax";
    ShaderSharedFloat32AtomicMinMax => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderSharedFloat32AtomicMinMax";
    ShaderImageFloat32AtomicMinMax => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderImageFloat32AtomicMinMax";
    ShaderBufferFloat64AtomicMinMax => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderBufferFloat64AtomicMinMax";
    ShaderSharedFloat64AtomicMinMax => "VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT", "shaderSharedFloat64AtomicMinMax";
    ShaderImageInt64Atomics => "VkPhysicalDeviceShaderImageAtomicInt64FeaturesEXT", "shaderImageInt64Atomics";
    WorkgroupMemoryExplicitLayout => "VkPhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR", "workgroupMemoryExplicitLayout";
    WorkgroupMemoryExplicitLayout8BitAccess => "VkPhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR", "workgroupMemoryExplicitLayout8BitAccess";
    WorkgroupMemoryExplicitLayout16BitAccess => "VkPhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR", "workgroupMemoryExplicitLayout16BitAccess";
    ShaderSubgroupClock => "VkPhysicalDeviceShaderClockFeaturesKHR", "shaderSubgroupClock";
    CooperativeMatrix => "VkPhysicalDeviceCooperativeMatrixFeaturesKHR", "cooperativeMatrix";
    ShaderSubgroupRotate => "VkPhysicalDeviceShaderSubgroupRotateFeaturesKHR", "shaderSubgroupRotate";
    // Not promoted, a structure of its own: VK_EXT_buffer_device_address
    // (not the KHR extension Vulkan 1.2 took in).
    BufferDeviceAddressExt => "VkPhysicalDeviceBufferDeviceAddressFeaturesEXT", "bufferDeviceAddress";
    // A vendor's, that the registry names as one way to a capability the
    // table lists (FragmentDensityEXT, FragmentShaderShadingRateInterlockEXT).
    ShadingRateImage => "VkPhysicalDeviceShadingRateImageFeaturesNV", "shadingRateImage";
    // Not a shader's need: what `PipelineManager` needs for graphics
    // pipeline libraries (see `DeviceFeatures::has_graphics_pipeline_library`).
    GraphicsPipelineLibrary => "VkPhysicalDeviceGraphicsPipelineLibraryFeaturesEXT", "graphicsPipelineLibrary";
}

// The device's feature set is a `u128` bit per feature.
const _: () = assert!(Feature::ALL.len() <= 128);

extensions! {
    // Not promoted to Vulkan 1.3 core.
    KhrRayQuery => "VK_KHR_ray_query";
    KhrRayTracingPipeline => "VK_KHR_ray_tracing_pipeline";
    KhrRayTracingPositionFetch => "VK_KHR_ray_tracing_position_fetch";
    KhrRayTracingMaintenance1 => "VK_KHR_ray_tracing_maintenance1";
    ExtOpacityMicromap => "VK_EXT_opacity_micromap";
    ExtMeshShader => "VK_EXT_mesh_shader";
    KhrFragmentShadingRate => "VK_KHR_fragment_shading_rate";
    KhrFragmentShaderBarycentric => "VK_KHR_fragment_shader_barycentric";
    ExtFragmentShaderInterlock => "VK_EXT_fragment_shader_interlock";
    ExtFragmentDensityMap => "VK_EXT_fragment_density_map";
    ExtShaderAtomicFloat => "VK_EXT_shader_atomic_float";
    ExtShaderAtomicFloat2 => "VK_EXT_shader_atomic_float2";
    ExtShaderImageAtomicInt64 => "VK_EXT_shader_image_atomic_int64";
    KhrWorkgroupMemoryExplicitLayout => "VK_KHR_workgroup_memory_explicit_layout";
    KhrShaderClock => "VK_KHR_shader_clock";
    ExtShaderStencilExport => "VK_EXT_shader_stencil_export";
    ExtPostDepthCoverage => "VK_EXT_post_depth_coverage";
    ExtConservativeRasterization => "VK_EXT_conservative_rasterization";
    ExtShaderSubgroupBallot => "VK_EXT_shader_subgroup_ballot";
    ExtShaderSubgroupVote => "VK_EXT_shader_subgroup_vote";
    ExtBufferDeviceAddress => "VK_EXT_buffer_device_address";
    KhrCooperativeMatrix => "VK_KHR_cooperative_matrix";
    KhrShaderSubgroupRotate => "VK_KHR_shader_subgroup_rotate";
    KhrShaderSubgroupUniformControlFlow => "VK_KHR_shader_subgroup_uniform_control_flow";
    KhrShaderMaximalReconvergence => "VK_KHR_shader_maximal_reconvergence";
    GoogleHlslFunctionality1 => "VK_GOOGLE_hlsl_functionality1";
    GoogleUserType => "VK_GOOGLE_user_type";
    GoogleDecorateString => "VK_GOOGLE_decorate_string";
    // Vendors' extensions that the registry names as one way to a
    // capability the table lists (Float16, ShaderViewportIndexLayerEXT).
    AmdGpuShaderHalfFloat => "VK_AMD_gpu_shader_half_float";
    NvViewportArray2 => "VK_NV_viewport_array2";
    // Promoted: the Vulkan version named in the table serves too.
    KhrShaderDrawParameters => "VK_KHR_shader_draw_parameters";
    KhrStorageBufferStorageClass => "VK_KHR_storage_buffer_storage_class";
    Khr16bitStorage => "VK_KHR_16bit_storage";
    KhrVariablePointers => "VK_KHR_variable_pointers";
    KhrMultiview => "VK_KHR_multiview";
    KhrDeviceGroup => "VK_KHR_device_group";
    Khr8bitStorage => "VK_KHR_8bit_storage";
    KhrShaderFloat16Int8 => "VK_KHR_shader_float16_int8";
    KhrShaderAtomicInt64 => "VK_KHR_shader_atomic_int64";
    KhrShaderFloatControls => "VK_KHR_shader_float_controls";
    ExtDescriptorIndexing => "VK_EXT_descriptor_indexing";
    KhrVulkanMemoryModel => "VK_KHR_vulkan_memory_model";
    KhrBufferDeviceAddress => "VK_KHR_buffer_device_address";
    ExtShaderViewportIndexLayer => "VK_EXT_shader_viewport_index_layer";
    ExtShaderDemoteToHelperInvocation => "VK_EXT_shader_demote_to_helper_invocation";
    KhrShaderNonSemanticInfo => "VK_KHR_shader_non_semantic_info";
    KhrShaderTerminateInvocation => "VK_KHR_shader_terminate_invocation";
    KhrShaderIntegerDotProduct => "VK_KHR_shader_integer_dot_product";
    KhrFormatFeatureFlags2 => "VK_KHR_format_feature_flags2";
    // Not a shader's need: graphics pipeline libraries, which
    // `PipelineManager` uses where the device enabled them.
    KhrPipelineLibrary => "VK_KHR_pipeline_library";
    ExtGraphicsPipelineLibrary => "VK_EXT_graphics_pipeline_library";
}

// The device's extension set is a `u64` bit per extension.
const _: () = assert!(Extension::ALL.len() <= 64);
