//! The device features and extensions shader capabilities need, by name.

use ash::vk;

/// Defines [`Feature`] by structure, and each structure's [`FeatureStructure`] impl.
macro_rules! features {
    ($($structure:ident $(<$lt:lifetime>)? {
        $($variant:ident => $member:literal, $field:ident);* $(;)?
    })*) => {
        /// A Vulkan device feature: a `VkBool32` member of a feature structure.
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
            $($(
                #[doc = concat!("`Vk", stringify!($structure), "::", $member, "`.")]
                $variant,
            )*)*
        }

        impl Feature {
            /// Every feature, in declaration order.
            pub const ALL: &'static [Feature] = &[$($(Feature::$variant,)*)*];

            /// The member's name, e.g. `shaderFloat64`.
            ///
            /// ```
            /// # use smolv_runtime::vulkan::capabilities::Feature;
            /// assert_eq!(Feature::RayQuery.name(), "rayQuery");
            /// ```
            pub fn name(self) -> &'static str {
                match self {
                    $($(Feature::$variant => $member,)*)*
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
                    $($(Feature::$variant)|* => concat!("Vk", stringify!($structure)),)*
                }
            }
        }

        $(impl FeatureStructure for vk::$structure $(<$lt>)? {
            fn each(&self, found: &mut dyn FnMut(Feature, bool)) {
                $(found(Feature::$variant, self.$field == vk::TRUE);)*
            }
        })*
    };
}

/// A feature structure of the [`Feature`] table.
pub(crate) trait FeatureStructure {
    /// Calls `found` with each feature of the structure and whether it is on.
    fn each(&self, found: &mut dyn FnMut(Feature, bool));
}

/// Defines [`Extension`], with each one's name.
macro_rules! extensions {
    ($($variant:ident => $name:literal;)*) => {
        /// A Vulkan device extension.
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
                Self::ALL.iter().copied().find(|extension| extension.name() == name)
            }
        }
    };
}

features! {
    // Vulkan 1.0: pipeline state, then shaders.
    PhysicalDeviceFeatures {
        GeometryShader => "geometryShader", geometry_shader;
        TessellationShader => "tessellationShader", tessellation_shader;
        SampleRateShading => "sampleRateShading", sample_rate_shading;
        DepthBounds => "depthBounds", depth_bounds;
        FillModeNonSolid => "fillModeNonSolid", fill_mode_non_solid;
        DepthBiasClamp => "depthBiasClamp", depth_bias_clamp;
        DepthClamp => "depthClamp", depth_clamp;
        WideLines => "wideLines", wide_lines;
        LogicOp => "logicOp", logic_op;
        AlphaToOne => "alphaToOne", alpha_to_one;
        IndependentBlend => "independentBlend", independent_blend;
        ShaderFloat64 => "shaderFloat64", shader_float64;
        ShaderInt64 => "shaderInt64", shader_int64;
        ShaderInt16 => "shaderInt16", shader_int16;
        ShaderTessellationAndGeometryPointSize =>
            "shaderTessellationAndGeometryPointSize", shader_tessellation_and_geometry_point_size;
        ShaderImageGatherExtended => "shaderImageGatherExtended", shader_image_gather_extended;
        ShaderStorageImageMultisample => "shaderStorageImageMultisample", shader_storage_image_multisample;
        ShaderUniformBufferArrayDynamicIndexing =>
            "shaderUniformBufferArrayDynamicIndexing", shader_uniform_buffer_array_dynamic_indexing;
        ShaderSampledImageArrayDynamicIndexing =>
            "shaderSampledImageArrayDynamicIndexing", shader_sampled_image_array_dynamic_indexing;
        ShaderStorageBufferArrayDynamicIndexing =>
            "shaderStorageBufferArrayDynamicIndexing", shader_storage_buffer_array_dynamic_indexing;
        ShaderStorageImageArrayDynamicIndexing =>
            "shaderStorageImageArrayDynamicIndexing", shader_storage_image_array_dynamic_indexing;
        ShaderClipDistance => "shaderClipDistance", shader_clip_distance;
        ShaderCullDistance => "shaderCullDistance", shader_cull_distance;
        ImageCubeArray => "imageCubeArray", image_cube_array;
        ShaderResourceResidency => "shaderResourceResidency", shader_resource_residency;
        ShaderResourceMinLod => "shaderResourceMinLod", shader_resource_min_lod;
        ShaderStorageImageReadWithoutFormat =>
            "shaderStorageImageReadWithoutFormat", shader_storage_image_read_without_format;
        ShaderStorageImageWriteWithoutFormat =>
            "shaderStorageImageWriteWithoutFormat", shader_storage_image_write_without_format;
        MultiViewport => "multiViewport", multi_viewport;
    }
    PhysicalDeviceVulkan11Features<'_> {
        StorageBuffer16BitAccess => "storageBuffer16BitAccess", storage_buffer16_bit_access;
        UniformAndStorageBuffer16BitAccess =>
            "uniformAndStorageBuffer16BitAccess", uniform_and_storage_buffer16_bit_access;
        StoragePushConstant16 => "storagePushConstant16", storage_push_constant16;
        StorageInputOutput16 => "storageInputOutput16", storage_input_output16;
        Multiview => "multiview", multiview;
        VariablePointersStorageBuffer => "variablePointersStorageBuffer", variable_pointers_storage_buffer;
        VariablePointers => "variablePointers", variable_pointers;
        ShaderDrawParameters => "shaderDrawParameters", shader_draw_parameters;
    }
    PhysicalDeviceVulkan12Features<'_> {
        ShaderBufferInt64Atomics => "shaderBufferInt64Atomics", shader_buffer_int64_atomics;
        ShaderSharedInt64Atomics => "shaderSharedInt64Atomics", shader_shared_int64_atomics;
        ShaderFloat16 => "shaderFloat16", shader_float16;
        ShaderInt8 => "shaderInt8", shader_int8;
        StorageBuffer8BitAccess => "storageBuffer8BitAccess", storage_buffer8_bit_access;
        UniformAndStorageBuffer8BitAccess =>
            "uniformAndStorageBuffer8BitAccess", uniform_and_storage_buffer8_bit_access;
        StoragePushConstant8 => "storagePushConstant8", storage_push_constant8;
        ShaderInputAttachmentArrayDynamicIndexing =>
            "shaderInputAttachmentArrayDynamicIndexing", shader_input_attachment_array_dynamic_indexing;
        ShaderUniformTexelBufferArrayDynamicIndexing =>
            "shaderUniformTexelBufferArrayDynamicIndexing", shader_uniform_texel_buffer_array_dynamic_indexing;
        ShaderStorageTexelBufferArrayDynamicIndexing =>
            "shaderStorageTexelBufferArrayDynamicIndexing", shader_storage_texel_buffer_array_dynamic_indexing;
        ShaderUniformBufferArrayNonUniformIndexing =>
            "shaderUniformBufferArrayNonUniformIndexing", shader_uniform_buffer_array_non_uniform_indexing;
        ShaderSampledImageArrayNonUniformIndexing =>
            "shaderSampledImageArrayNonUniformIndexing", shader_sampled_image_array_non_uniform_indexing;
        ShaderStorageBufferArrayNonUniformIndexing =>
            "shaderStorageBufferArrayNonUniformIndexing", shader_storage_buffer_array_non_uniform_indexing;
        ShaderStorageImageArrayNonUniformIndexing =>
            "shaderStorageImageArrayNonUniformIndexing", shader_storage_image_array_non_uniform_indexing;
        ShaderInputAttachmentArrayNonUniformIndexing =>
            "shaderInputAttachmentArrayNonUniformIndexing", shader_input_attachment_array_non_uniform_indexing;
        ShaderUniformTexelBufferArrayNonUniformIndexing =>
            "shaderUniformTexelBufferArrayNonUniformIndexing", shader_uniform_texel_buffer_array_non_uniform_indexing;
        ShaderStorageTexelBufferArrayNonUniformIndexing =>
            "shaderStorageTexelBufferArrayNonUniformIndexing", shader_storage_texel_buffer_array_non_uniform_indexing;
        RuntimeDescriptorArray => "runtimeDescriptorArray", runtime_descriptor_array;
        VulkanMemoryModel => "vulkanMemoryModel", vulkan_memory_model;
        VulkanMemoryModelDeviceScope => "vulkanMemoryModelDeviceScope", vulkan_memory_model_device_scope;
        BufferDeviceAddress => "bufferDeviceAddress", buffer_device_address;
        ShaderOutputViewportIndex => "shaderOutputViewportIndex", shader_output_viewport_index;
        ShaderOutputLayer => "shaderOutputLayer", shader_output_layer;
    }
    PhysicalDeviceVulkan13Features<'_> {
        ShaderDemoteToHelperInvocation => "shaderDemoteToHelperInvocation", shader_demote_to_helper_invocation;
        ShaderIntegerDotProduct => "shaderIntegerDotProduct", shader_integer_dot_product;
    }
    // Extensions' feature structures.
    PhysicalDeviceRayQueryFeaturesKHR<'_> { RayQuery => "rayQuery", ray_query }
    PhysicalDeviceRayTracingPipelineFeaturesKHR<'_> {
        RayTracingPipeline => "rayTracingPipeline", ray_tracing_pipeline;
        RayTraversalPrimitiveCulling => "rayTraversalPrimitiveCulling", ray_traversal_primitive_culling;
    }
    PhysicalDeviceRayTracingPositionFetchFeaturesKHR<'_> {
        RayTracingPositionFetch => "rayTracingPositionFetch", ray_tracing_position_fetch;
    }
    PhysicalDeviceRayTracingMaintenance1FeaturesKHR<'_> {
        RayTracingMaintenance1 => "rayTracingMaintenance1", ray_tracing_maintenance1;
    }
    PhysicalDeviceMeshShaderFeaturesEXT<'_> {
        MeshShader => "meshShader", mesh_shader;
        TaskShader => "taskShader", task_shader;
    }
    PhysicalDeviceFragmentShadingRateFeaturesKHR<'_> {
        PipelineFragmentShadingRate => "pipelineFragmentShadingRate", pipeline_fragment_shading_rate;
        PrimitiveFragmentShadingRate => "primitiveFragmentShadingRate", primitive_fragment_shading_rate;
        AttachmentFragmentShadingRate => "attachmentFragmentShadingRate", attachment_fragment_shading_rate;
    }
    PhysicalDeviceFragmentShaderBarycentricFeaturesKHR<'_> {
        FragmentShaderBarycentric => "fragmentShaderBarycentric", fragment_shader_barycentric;
    }
    PhysicalDeviceFragmentShaderInterlockFeaturesEXT<'_> {
        FragmentShaderSampleInterlock => "fragmentShaderSampleInterlock", fragment_shader_sample_interlock;
        FragmentShaderPixelInterlock => "fragmentShaderPixelInterlock", fragment_shader_pixel_interlock;
        FragmentShaderShadingRateInterlock =>
            "fragmentShaderShadingRateInterlock", fragment_shader_shading_rate_interlock;
    }
    PhysicalDeviceFragmentDensityMapFeaturesEXT<'_> { FragmentDensityMap => "fragmentDensityMap", fragment_density_map }
    PhysicalDeviceTransformFeedbackFeaturesEXT<'_> {
        TransformFeedback => "transformFeedback", transform_feedback;
        GeometryStreams => "geometryStreams", geometry_streams;
    }
    PhysicalDeviceShaderAtomicFloatFeaturesEXT<'_> {
        ShaderBufferFloat32AtomicAdd => "shaderBufferFloat32AtomicAdd", shader_buffer_float32_atomic_add;
        ShaderSharedFloat32AtomicAdd => "shaderSharedFloat32AtomicAdd", shader_shared_float32_atomic_add;
        ShaderImageFloat32AtomicAdd => "shaderImageFloat32AtomicAdd", shader_image_float32_atomic_add;
        ShaderBufferFloat64AtomicAdd => "shaderBufferFloat64AtomicAdd", shader_buffer_float64_atomic_add;
        ShaderSharedFloat64AtomicAdd => "shaderSharedFloat64AtomicAdd", shader_shared_float64_atomic_add;
    }
    PhysicalDeviceShaderAtomicFloat2FeaturesEXT<'_> {
        ShaderBufferFloat16AtomicAdd => "shaderBufferFloat16AtomicAdd", shader_buffer_float16_atomic_add;
        ShaderSharedFloat16AtomicAdd => "shaderSharedFloat16AtomicAdd", shader_shared_float16_atomic_add;
        ShaderBufferFloat16AtomicMinMax => "shaderBufferFloat16AtomicMinMax", shader_buffer_float16_atomic_min_max;
        ShaderSharedFloat16AtomicMinMax => "shaderSharedFloat16AtomicMinMax", shader_shared_float16_atomic_min_max;
        ShaderBufferFloat32AtomicMinMax => "shaderBufferFloat32AtomicMinMax", shader_buffer_float32_atomic_min_max;
        ShaderSharedFloat32AtomicMinMax => "shaderSharedFloat32AtomicMinMax", shader_shared_float32_atomic_min_max;
        ShaderImageFloat32AtomicMinMax => "shaderImageFloat32AtomicMinMax", shader_image_float32_atomic_min_max;
        ShaderBufferFloat64AtomicMinMax => "shaderBufferFloat64AtomicMinMax", shader_buffer_float64_atomic_min_max;
        ShaderSharedFloat64AtomicMinMax => "shaderSharedFloat64AtomicMinMax", shader_shared_float64_atomic_min_max;
    }
    PhysicalDeviceShaderImageAtomicInt64FeaturesEXT<'_> {
        ShaderImageInt64Atomics => "shaderImageInt64Atomics", shader_image_int64_atomics;
    }
    PhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR<'_> {
        WorkgroupMemoryExplicitLayout => "workgroupMemoryExplicitLayout", workgroup_memory_explicit_layout;
        WorkgroupMemoryExplicitLayout8BitAccess =>
            "workgroupMemoryExplicitLayout8BitAccess", workgroup_memory_explicit_layout8_bit_access;
        WorkgroupMemoryExplicitLayout16BitAccess =>
            "workgroupMemoryExplicitLayout16BitAccess", workgroup_memory_explicit_layout16_bit_access;
    }
    PhysicalDeviceShaderClockFeaturesKHR<'_> { ShaderSubgroupClock => "shaderSubgroupClock", shader_subgroup_clock }
    PhysicalDeviceCooperativeMatrixFeaturesKHR<'_> { CooperativeMatrix => "cooperativeMatrix", cooperative_matrix }
    PhysicalDeviceShaderSubgroupRotateFeaturesKHR<'_> {
        ShaderSubgroupRotate => "shaderSubgroupRotate", shader_subgroup_rotate;
    }
    // VK_EXT_buffer_device_address's (not the KHR one Vulkan 1.2 took in).
    PhysicalDeviceBufferDeviceAddressFeaturesEXT<'_> {
        BufferDeviceAddressExt => "bufferDeviceAddress", buffer_device_address;
    }
    // Vendors', for FragmentDensityEXT and FragmentShaderShadingRateInterlockEXT.
    PhysicalDeviceShadingRateImageFeaturesNV<'_> { ShadingRateImage => "shadingRateImage", shading_rate_image }
    // Not a shader's need: `PipelineManager`'s, for graphics pipeline libraries.
    PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT<'_> {
        GraphicsPipelineLibrary => "graphicsPipelineLibrary", graphics_pipeline_library;
    }
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
    // Vendors', for Float16 and ShaderViewportIndexLayerEXT.
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
    // Not a shader's need: `PipelineManager`'s, for graphics pipeline libraries.
    KhrPipelineLibrary => "VK_KHR_pipeline_library";
    ExtGraphicsPipelineLibrary => "VK_EXT_graphics_pipeline_library";
}

// The device's extension set is a `u64` bit per extension.
const _: () = assert!(Extension::ALL.len() <= 64);
