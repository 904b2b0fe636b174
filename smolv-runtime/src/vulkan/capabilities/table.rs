//! SPIR-V capability → Vulkan feature, and SPIR-V extension → device
//! extension: the "SPIR-V Environment" appendix's tables as data. Each
//! entry lists alternatives, any one of which allows it (none: every
//! device does); what the table does not list is left to the driver.
//! `registry_tests.rs` compares every row with `vk.xml`.

use ash::vk;

use super::names::{Extension as E, Feature as F};

/// One way a device can allow a capability or SPIR-V extension.
///
/// ```
/// use smolv_runtime::vulkan::capabilities::{Extension, Feature, Need, capability};
/// // OpCapability Float16: shaderFloat16 (Vulkan 1.2 or VK_KHR_shader_float16_int8),
/// // or AMD's extension.
/// assert_eq!(
///     capability(9).unwrap().any_of,
///     &[Need::Feature(Feature::ShaderFloat16), Need::Extension(Extension::AmdGpuShaderHalfFloat)]
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A device feature, enabled.
    Feature(F),
    /// A device extension, enabled.
    Extension(E),
    /// At least this Vulkan version (a `vk::make_api_version` value; only
    /// major and minor count).
    Version(u32),
    /// Subgroup operations of these kinds
    /// (`VkPhysicalDeviceSubgroupProperties::supportedOperations`), in
    /// the shader's stage (`supportedStages`).
    Subgroup(vk::SubgroupFeatureFlags),
    /// A `VkPhysicalDeviceVulkan12Properties` (float-controls) property of
    /// this name, true. The manager does not know the device's properties,
    /// so it does not check these: the driver does.
    Property(&'static str),
}

/// What a device needs to take a module that declares one capability or
/// SPIR-V extension.
///
/// ```
/// use smolv_runtime::vulkan::capabilities::{Extension, Need, spirv_extension};
/// let ray_query = spirv_extension("SPV_KHR_ray_query").unwrap();
/// assert_eq!(ray_query.declared, "OpExtension SPV_KHR_ray_query");
/// assert_eq!(ray_query.any_of, &[Need::Extension(Extension::KhrRayQuery)]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The declaration, e.g. `OpCapability Float64`.
    pub declared: &'static str,
    /// Any one of these allows it; none at all: every device does.
    pub any_of: &'static [Need],
}

const V1_1: Need = Need::Version(vk::API_VERSION_1_1);
const V1_2: Need = Need::Version(vk::API_VERSION_1_2);
const V1_3: Need = Need::Version(vk::API_VERSION_1_3);

const fn feature(f: F) -> Need {
    Need::Feature(f)
}

const fn extension(e: E) -> Need {
    Need::Extension(e)
}

macro_rules! requirement {
    ($name:literal $(, $need:expr)* $(,)?) => {
        Requirement { declared: concat!("OpCapability ", $name), any_of: const { &[$($need),*] } }
    };
}

/// What `OpCapability capability` (its SPIR-V number) needs, or `None`
/// for a capability the table does not list.
///
/// ```
/// use smolv_runtime::vulkan::capabilities::{Feature, Need, capability};
/// let float64 = capability(10).unwrap();
/// assert_eq!(float64.declared, "OpCapability Float64");
/// assert_eq!(float64.any_of, &[Need::Feature(Feature::ShaderFloat64)]);
/// assert!(capability(1).unwrap().any_of.is_empty()); // Shader: every device
/// ```
#[allow(clippy::too_many_lines, reason = "one arm per row of the specification's table")]
pub fn capability(capability: u32) -> Option<Requirement> {
    use vk::SubgroupFeatureFlags as S;
    Some(match capability {
        0 => requirement!("Matrix"),
        1 => requirement!("Shader"),
        2 => requirement!("Geometry", feature(F::GeometryShader)),
        3 => requirement!("Tessellation", feature(F::TessellationShader)),
        9 => requirement!("Float16", feature(F::ShaderFloat16), extension(E::AmdGpuShaderHalfFloat)),
        10 => requirement!("Float64", feature(F::ShaderFloat64)),
        11 => requirement!("Int64", feature(F::ShaderInt64)),
        12 => requirement!(
            "Int64Atomics",
            feature(F::ShaderBufferInt64Atomics),
            feature(F::ShaderSharedInt64Atomics),
            feature(F::ShaderImageInt64Atomics),
        ),
        22 => requirement!("Int16", feature(F::ShaderInt16)),
        23 => requirement!("TessellationPointSize", feature(F::ShaderTessellationAndGeometryPointSize)),
        24 => requirement!("GeometryPointSize", feature(F::ShaderTessellationAndGeometryPointSize)),
        25 => requirement!("ImageGatherExtended", feature(F::ShaderImageGatherExtended)),
        27 => requirement!("StorageImageMultisample", feature(F::ShaderStorageImageMultisample)),
        28 => requirement!("UniformBufferArrayDynamicIndexing", feature(F::ShaderUniformBufferArrayDynamicIndexing)),
        29 => requirement!("SampledImageArrayDynamicIndexing", feature(F::ShaderSampledImageArrayDynamicIndexing)),
        30 => requirement!("StorageBufferArrayDynamicIndexing", feature(F::ShaderStorageBufferArrayDynamicIndexing)),
        31 => requirement!("StorageImageArrayDynamicIndexing", feature(F::ShaderStorageImageArrayDynamicIndexing)),
        32 => requirement!("ClipDistance", feature(F::ShaderClipDistance)),
        33 => requirement!("CullDistance", feature(F::ShaderCullDistance)),
        34 => requirement!("ImageCubeArray", feature(F::ImageCubeArray)),
        35 => requirement!("SampleRateShading", feature(F::SampleRateShading)),
        39 => requirement!("Int8", feature(F::ShaderInt8)),
        40 => requirement!("InputAttachment"),
        41 => requirement!("SparseResidency", feature(F::ShaderResourceResidency)),
        42 => requirement!("MinLod", feature(F::ShaderResourceMinLod)),
        43 => requirement!("Sampled1D"),
        44 => requirement!("Image1D"),
        45 => requirement!("SampledCubeArray", feature(F::ImageCubeArray)),
        46 => requirement!("SampledBuffer"),
        47 => requirement!("ImageBuffer"),
        48 => requirement!("ImageMSArray", feature(F::ShaderStorageImageMultisample)),
        49 => requirement!("StorageImageExtendedFormats"),
        50 => requirement!("ImageQuery"),
        51 => requirement!("DerivativeControl"),
        52 => requirement!("InterpolationFunction", feature(F::SampleRateShading)),
        53 => requirement!("TransformFeedback", feature(F::TransformFeedback)),
        54 => requirement!("GeometryStreams", feature(F::GeometryStreams)),
        55 => requirement!(
            "StorageImageReadWithoutFormat",
            feature(F::ShaderStorageImageReadWithoutFormat),
            V1_3,
            extension(E::KhrFormatFeatureFlags2),
        ),
        56 => requirement!(
            "StorageImageWriteWithoutFormat",
            feature(F::ShaderStorageImageWriteWithoutFormat),
            V1_3,
            extension(E::KhrFormatFeatureFlags2),
        ),
        57 => requirement!("MultiViewport", feature(F::MultiViewport)),
        61 => requirement!("GroupNonUniform", Need::Subgroup(S::BASIC)),
        62 => requirement!("GroupNonUniformVote", Need::Subgroup(S::VOTE)),
        63 => requirement!("GroupNonUniformArithmetic", Need::Subgroup(S::ARITHMETIC)),
        64 => requirement!("GroupNonUniformBallot", Need::Subgroup(S::BALLOT)),
        65 => requirement!("GroupNonUniformShuffle", Need::Subgroup(S::SHUFFLE)),
        66 => requirement!("GroupNonUniformShuffleRelative", Need::Subgroup(S::SHUFFLE_RELATIVE)),
        67 => requirement!("GroupNonUniformClustered", Need::Subgroup(S::CLUSTERED)),
        68 => requirement!("GroupNonUniformQuad", Need::Subgroup(S::QUAD)),
        69 => requirement!("ShaderLayer", feature(F::ShaderOutputLayer)),
        70 => requirement!("ShaderViewportIndex", feature(F::ShaderOutputViewportIndex)),
        4422 => requirement!(
            "FragmentShadingRateKHR",
            feature(F::PipelineFragmentShadingRate),
            feature(F::PrimitiveFragmentShadingRate),
            feature(F::AttachmentFragmentShadingRate),
        ),
        4423 => requirement!("SubgroupBallotKHR", extension(E::ExtShaderSubgroupBallot)),
        4427 => requirement!("DrawParameters", feature(F::ShaderDrawParameters), extension(E::KhrShaderDrawParameters)),
        4428 => requirement!("WorkgroupMemoryExplicitLayoutKHR", feature(F::WorkgroupMemoryExplicitLayout)),
        4429 => requirement!(
            "WorkgroupMemoryExplicitLayout8BitAccessKHR",
            feature(F::WorkgroupMemoryExplicitLayout8BitAccess)
        ),
        4430 => requirement!(
            "WorkgroupMemoryExplicitLayout16BitAccessKHR",
            feature(F::WorkgroupMemoryExplicitLayout16BitAccess)
        ),
        4431 => requirement!("SubgroupVoteKHR", extension(E::ExtShaderSubgroupVote)),
        4433 => requirement!("StorageBuffer16BitAccess", feature(F::StorageBuffer16BitAccess)),
        4434 => requirement!("UniformAndStorageBuffer16BitAccess", feature(F::UniformAndStorageBuffer16BitAccess)),
        4435 => requirement!("StoragePushConstant16", feature(F::StoragePushConstant16)),
        4436 => requirement!("StorageInputOutput16", feature(F::StorageInputOutput16)),
        4437 => requirement!("DeviceGroup", V1_1, extension(E::KhrDeviceGroup)),
        4439 => requirement!("MultiView", feature(F::Multiview)),
        4441 => requirement!("VariablePointersStorageBuffer", feature(F::VariablePointersStorageBuffer)),
        4442 => requirement!("VariablePointers", feature(F::VariablePointers)),
        4447 => requirement!("SampleMaskPostDepthCoverage", extension(E::ExtPostDepthCoverage)),
        4448 => requirement!("StorageBuffer8BitAccess", feature(F::StorageBuffer8BitAccess)),
        4449 => requirement!("UniformAndStorageBuffer8BitAccess", feature(F::UniformAndStorageBuffer8BitAccess)),
        4450 => requirement!("StoragePushConstant8", feature(F::StoragePushConstant8)),
        4464 => requirement!(
            "DenormPreserve",
            Need::Property("shaderDenormPreserveFloat16"),
            Need::Property("shaderDenormPreserveFloat32"),
            Need::Property("shaderDenormPreserveFloat64"),
        ),
        4465 => requirement!(
            "DenormFlushToZero",
            Need::Property("shaderDenormFlushToZeroFloat16"),
            Need::Property("shaderDenormFlushToZeroFloat32"),
            Need::Property("shaderDenormFlushToZeroFloat64"),
        ),
        4466 => requirement!(
            "SignedZeroInfNanPreserve",
            Need::Property("shaderSignedZeroInfNanPreserveFloat16"),
            Need::Property("shaderSignedZeroInfNanPreserveFloat32"),
            Need::Property("shaderSignedZeroInfNanPreserveFloat64"),
        ),
        4467 => requirement!(
            "RoundingModeRTE",
            Need::Property("shaderRoundingModeRTEFloat16"),
            Need::Property("shaderRoundingModeRTEFloat32"),
            Need::Property("shaderRoundingModeRTEFloat64"),
        ),
        4468 => requirement!(
            "RoundingModeRTZ",
            Need::Property("shaderRoundingModeRTZFloat16"),
            Need::Property("shaderRoundingModeRTZFloat32"),
            Need::Property("shaderRoundingModeRTZFloat64"),
        ),
        4472 => requirement!("RayQueryKHR", feature(F::RayQuery)),
        4478 => requirement!(
            "RayTraversalPrimitiveCullingKHR",
            feature(F::RayTraversalPrimitiveCulling),
            feature(F::RayQuery)
        ),
        4479 => requirement!("RayTracingKHR", feature(F::RayTracingPipeline)),
        5013 => requirement!("StencilExportEXT", extension(E::ExtShaderStencilExport)),
        5016 => requirement!("Int64ImageEXT", feature(F::ShaderImageInt64Atomics)),
        5055 => requirement!("ShaderClockKHR", extension(E::KhrShaderClock)),
        // Also ShaderViewportIndexLayerNV, the same number.
        5254 => requirement!(
            "ShaderViewportIndexLayerEXT",
            extension(E::ExtShaderViewportIndexLayer),
            extension(E::NvViewportArray2),
            // Vulkan 1.2 splits it in two; a device with both takes it (the
            // registry lists only the extensions: see registry_tests.rs).
            feature(F::ShaderOutputViewportIndex),
        ),
        5265 => requirement!("FragmentFullyCoveredEXT", extension(E::ExtConservativeRasterization)),
        5283 => requirement!("MeshShadingEXT", extension(E::ExtMeshShader)),
        5284 => requirement!("FragmentBarycentricKHR", feature(F::FragmentShaderBarycentric)),
        // Also ShadingRateNV, the same number.
        5291 => requirement!("FragmentDensityEXT", feature(F::FragmentDensityMap), feature(F::ShadingRateImage)),
        5301 => requirement!("ShaderNonUniform", V1_2, extension(E::ExtDescriptorIndexing)),
        5302 => requirement!("RuntimeDescriptorArray", feature(F::RuntimeDescriptorArray)),
        5303 => {
            requirement!("InputAttachmentArrayDynamicIndexing", feature(F::ShaderInputAttachmentArrayDynamicIndexing))
        }
        5304 => requirement!(
            "UniformTexelBufferArrayDynamicIndexing",
            feature(F::ShaderUniformTexelBufferArrayDynamicIndexing)
        ),
        5305 => requirement!(
            "StorageTexelBufferArrayDynamicIndexing",
            feature(F::ShaderStorageTexelBufferArrayDynamicIndexing)
        ),
        5306 => {
            requirement!("UniformBufferArrayNonUniformIndexing", feature(F::ShaderUniformBufferArrayNonUniformIndexing))
        }
        5307 => {
            requirement!("SampledImageArrayNonUniformIndexing", feature(F::ShaderSampledImageArrayNonUniformIndexing))
        }
        5308 => {
            requirement!("StorageBufferArrayNonUniformIndexing", feature(F::ShaderStorageBufferArrayNonUniformIndexing))
        }
        5309 => {
            requirement!("StorageImageArrayNonUniformIndexing", feature(F::ShaderStorageImageArrayNonUniformIndexing))
        }
        5310 => requirement!(
            "InputAttachmentArrayNonUniformIndexing",
            feature(F::ShaderInputAttachmentArrayNonUniformIndexing)
        ),
        5311 => requirement!(
            "UniformTexelBufferArrayNonUniformIndexing",
            feature(F::ShaderUniformTexelBufferArrayNonUniformIndexing)
        ),
        5312 => requirement!(
            "StorageTexelBufferArrayNonUniformIndexing",
            feature(F::ShaderStorageTexelBufferArrayNonUniformIndexing)
        ),
        5336 => requirement!("RayTracingPositionFetchKHR", feature(F::RayTracingPositionFetch)),
        5345 => requirement!("VulkanMemoryModel", feature(F::VulkanMemoryModel)),
        5346 => requirement!("VulkanMemoryModelDeviceScope", feature(F::VulkanMemoryModelDeviceScope)),
        5347 => requirement!(
            "PhysicalStorageBufferAddresses",
            feature(F::BufferDeviceAddress),
            feature(F::BufferDeviceAddressExt),
        ),
        5363 => requirement!("FragmentShaderSampleInterlockEXT", feature(F::FragmentShaderSampleInterlock)),
        5372 => requirement!(
            "FragmentShaderShadingRateInterlockEXT",
            feature(F::FragmentShaderShadingRateInterlock),
            feature(F::ShadingRateImage),
        ),
        5378 => requirement!("FragmentShaderPixelInterlockEXT", feature(F::FragmentShaderPixelInterlock)),
        5379 => requirement!("DemoteToHelperInvocation", feature(F::ShaderDemoteToHelperInvocation)),
        5381 => requirement!("RayTracingOpacityMicromapEXT", extension(E::ExtOpacityMicromap)),
        5391 => requirement!("RayQueryPositionFetchKHR", feature(F::RayTracingPositionFetch)),
        6016 => requirement!("DotProductInputAll", feature(F::ShaderIntegerDotProduct)),
        6017 => requirement!("DotProductInput4x8Bit", feature(F::ShaderIntegerDotProduct)),
        6018 => requirement!("DotProductInput4x8BitPacked", feature(F::ShaderIntegerDotProduct)),
        5612 => requirement!(
            "AtomicFloat32MinMaxEXT",
            feature(F::ShaderBufferFloat32AtomicMinMax),
            feature(F::ShaderSharedFloat32AtomicMinMax),
            feature(F::ShaderImageFloat32AtomicMinMax),
        ),
        5613 => requirement!(
            "AtomicFloat64MinMaxEXT",
            feature(F::ShaderBufferFloat64AtomicMinMax),
            feature(F::ShaderSharedFloat64AtomicMinMax),
        ),
        5616 => requirement!(
            "AtomicFloat16MinMaxEXT",
            feature(F::ShaderBufferFloat16AtomicMinMax),
            feature(F::ShaderSharedFloat16AtomicMinMax),
        ),
        6019 => requirement!("DotProduct", feature(F::ShaderIntegerDotProduct)),
        6020 => requirement!("RayCullMaskKHR", feature(F::RayTracingMaintenance1)),
        6022 => requirement!("CooperativeMatrixKHR", feature(F::CooperativeMatrix)),
        6026 => requirement!("GroupNonUniformRotateKHR", feature(F::ShaderSubgroupRotate)),
        6033 => requirement!(
            "AtomicFloat32AddEXT",
            feature(F::ShaderBufferFloat32AtomicAdd),
            feature(F::ShaderSharedFloat32AtomicAdd),
            feature(F::ShaderImageFloat32AtomicAdd),
        ),
        6034 => requirement!(
            "AtomicFloat64AddEXT",
            feature(F::ShaderBufferFloat64AtomicAdd),
            feature(F::ShaderSharedFloat64AtomicAdd),
        ),
        6095 => requirement!(
            "AtomicFloat16AddEXT",
            feature(F::ShaderBufferFloat16AtomicAdd),
            feature(F::ShaderSharedFloat16AtomicAdd),
        ),
        _ => return None,
    })
}

macro_rules! spv {
    ($name:literal $(, $need:expr)* $(,)?) => {
        Requirement { declared: concat!("OpExtension ", $name), any_of: const { &[$($need),*] } }
    };
}

/// What `OpExtension name` needs: the device extension that exposes it,
/// or the Vulkan version that promoted it. `None` for an extension the
/// table does not list.
///
/// ```
/// use smolv_runtime::vulkan::capabilities::{Extension, Need, spirv_extension};
/// use ash::vk;
/// let draw_parameters = spirv_extension("SPV_KHR_shader_draw_parameters").unwrap();
/// assert_eq!(
///     draw_parameters.any_of,
///     &[Need::Version(vk::API_VERSION_1_1), Need::Extension(Extension::KhrShaderDrawParameters)]
/// );
/// ```
pub fn spirv_extension(name: &str) -> Option<Requirement> {
    SPIRV_EXTENSIONS.iter().find(|row| row.declared.strip_prefix("OpExtension ") == Some(name)).copied()
}

/// The rows [`spirv_extension`] looks in, one per SPIR-V extension.
pub(super) const SPIRV_EXTENSIONS: &[Requirement] = &[
    // Not promoted: the device extension itself.
    spv!("SPV_KHR_ray_query", extension(E::KhrRayQuery)),
    spv!("SPV_KHR_ray_tracing", extension(E::KhrRayTracingPipeline)),
    spv!("SPV_KHR_ray_tracing_position_fetch", extension(E::KhrRayTracingPositionFetch)),
    spv!("SPV_EXT_mesh_shader", extension(E::ExtMeshShader)),
    spv!("SPV_KHR_fragment_shading_rate", extension(E::KhrFragmentShadingRate)),
    spv!("SPV_KHR_fragment_shader_barycentric", extension(E::KhrFragmentShaderBarycentric)),
    spv!("SPV_EXT_fragment_shader_interlock", extension(E::ExtFragmentShaderInterlock)),
    spv!("SPV_EXT_fragment_invocation_density", extension(E::ExtFragmentDensityMap)),
    spv!("SPV_EXT_shader_atomic_float_add", extension(E::ExtShaderAtomicFloat)),
    spv!("SPV_EXT_shader_atomic_float_min_max", extension(E::ExtShaderAtomicFloat2)),
    spv!("SPV_EXT_shader_atomic_float16_add", extension(E::ExtShaderAtomicFloat2)),
    spv!("SPV_KHR_ray_cull_mask", extension(E::KhrRayTracingMaintenance1)),
    spv!("SPV_EXT_physical_storage_buffer", extension(E::ExtBufferDeviceAddress)),
    spv!("SPV_EXT_shader_image_int64", extension(E::ExtShaderImageAtomicInt64)),
    spv!("SPV_KHR_workgroup_memory_explicit_layout", extension(E::KhrWorkgroupMemoryExplicitLayout)),
    spv!("SPV_KHR_shader_clock", extension(E::KhrShaderClock)),
    spv!("SPV_EXT_shader_stencil_export", extension(E::ExtShaderStencilExport)),
    spv!("SPV_KHR_post_depth_coverage", extension(E::ExtPostDepthCoverage)),
    spv!("SPV_EXT_fragment_fully_covered", extension(E::ExtConservativeRasterization)),
    spv!("SPV_KHR_shader_ballot", extension(E::ExtShaderSubgroupBallot)),
    spv!("SPV_KHR_subgroup_vote", extension(E::ExtShaderSubgroupVote)),
    spv!("SPV_KHR_cooperative_matrix", extension(E::KhrCooperativeMatrix)),
    spv!("SPV_KHR_subgroup_rotate", extension(E::KhrShaderSubgroupRotate)),
    spv!("SPV_KHR_subgroup_uniform_control_flow", extension(E::KhrShaderSubgroupUniformControlFlow)),
    spv!("SPV_KHR_maximal_reconvergence", extension(E::KhrShaderMaximalReconvergence)),
    spv!("SPV_GOOGLE_hlsl_functionality1", extension(E::GoogleHlslFunctionality1)),
    spv!("SPV_GOOGLE_user_type", extension(E::GoogleUserType)),
    spv!("SPV_GOOGLE_decorate_string", extension(E::GoogleDecorateString)),
    // Promoted to Vulkan 1.1.
    spv!("SPV_KHR_shader_draw_parameters", V1_1, extension(E::KhrShaderDrawParameters)),
    spv!("SPV_KHR_storage_buffer_storage_class", V1_1, extension(E::KhrStorageBufferStorageClass)),
    spv!("SPV_KHR_16bit_storage", V1_1, extension(E::Khr16bitStorage)),
    spv!("SPV_KHR_variable_pointers", V1_1, extension(E::KhrVariablePointers)),
    spv!("SPV_KHR_multiview", V1_1, extension(E::KhrMultiview)),
    spv!("SPV_KHR_device_group", V1_1, extension(E::KhrDeviceGroup)),
    // Promoted to Vulkan 1.2.
    spv!("SPV_KHR_8bit_storage", V1_2, extension(E::Khr8bitStorage)),
    spv!("SPV_KHR_float_controls", V1_2, extension(E::KhrShaderFloatControls)),
    spv!("SPV_EXT_descriptor_indexing", V1_2, extension(E::ExtDescriptorIndexing)),
    spv!("SPV_KHR_vulkan_memory_model", V1_2, extension(E::KhrVulkanMemoryModel)),
    spv!("SPV_KHR_physical_storage_buffer", V1_2, extension(E::KhrBufferDeviceAddress)),
    spv!("SPV_EXT_shader_viewport_index_layer", V1_2, extension(E::ExtShaderViewportIndexLayer)),
    // Promoted to Vulkan 1.3.
    spv!("SPV_EXT_demote_to_helper_invocation", V1_3, extension(E::ExtShaderDemoteToHelperInvocation)),
    spv!("SPV_KHR_non_semantic_info", V1_3, extension(E::KhrShaderNonSemanticInfo)),
    spv!("SPV_KHR_terminate_invocation", V1_3, extension(E::KhrShaderTerminateInvocation)),
    spv!("SPV_KHR_integer_dot_product", V1_3, extension(E::KhrShaderIntegerDotProduct)),
];
