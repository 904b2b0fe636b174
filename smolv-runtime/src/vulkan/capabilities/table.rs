//! The "SPIR-V Environment" appendix's tables as data (checked by `registry_tests.rs`).

use ash::vk;

use super::names::Extension::{self, *};
use super::names::Feature::{self, *};
use Need::{Extension as E, Feature as F, Property as P, Subgroup as S};
use vk::SubgroupFeatureFlags as Ops;

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
    Feature(Feature),
    /// A device extension, enabled.
    Extension(Extension),
    /// At least this Vulkan version (`vk::make_api_version`; major and minor count).
    Version(u32),
    /// These subgroup operations, in the shader's stage.
    Subgroup(vk::SubgroupFeatureFlags),
    /// A true `VkPhysicalDeviceVulkan12Properties` property (checked by the driver, not here).
    Property(&'static str),
}

/// What a device needs for one declared capability or SPIR-V extension.
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

/// A row: what `declared` needs, any one of the alternatives.
macro_rules! row {
    ($declared:expr; $($need:expr),*) => {
        Requirement { declared: $declared, any_of: const { &[$($need),*] } }
    };
}

/// A match on `capability` over rows `number Name: alternatives;`.
macro_rules! capabilities {
    ($capability:ident; $($number:literal $name:ident $(: $($need:expr),+)?;)*) => {
        Some(match $capability {
            $($number => row!(concat!("OpCapability ", stringify!($name)); $($($need),+)?),)*
            _ => return None,
        })
    };
}

/// What `OpCapability capability` (its number) needs; `None` if unlisted.
///
/// ```
/// use smolv_runtime::vulkan::capabilities::{Feature, Need, capability};
/// let float64 = capability(10).unwrap();
/// assert_eq!(float64.declared, "OpCapability Float64");
/// assert_eq!(float64.any_of, &[Need::Feature(Feature::ShaderFloat64)]);
/// assert!(capability(1).unwrap().any_of.is_empty()); // Shader: every device
/// ```
pub fn capability(capability: u32) -> Option<Requirement> {
    capabilities! { capability;
        0 Matrix;
        1 Shader;
        2 Geometry: F(GeometryShader);
        3 Tessellation: F(TessellationShader);
        9 Float16: F(ShaderFloat16), E(AmdGpuShaderHalfFloat);
        10 Float64: F(ShaderFloat64);
        11 Int64: F(ShaderInt64);
        12 Int64Atomics: F(ShaderBufferInt64Atomics), F(ShaderSharedInt64Atomics), F(ShaderImageInt64Atomics);
        22 Int16: F(ShaderInt16);
        23 TessellationPointSize: F(ShaderTessellationAndGeometryPointSize);
        24 GeometryPointSize: F(ShaderTessellationAndGeometryPointSize);
        25 ImageGatherExtended: F(ShaderImageGatherExtended);
        27 StorageImageMultisample: F(ShaderStorageImageMultisample);
        28 UniformBufferArrayDynamicIndexing: F(ShaderUniformBufferArrayDynamicIndexing);
        29 SampledImageArrayDynamicIndexing: F(ShaderSampledImageArrayDynamicIndexing);
        30 StorageBufferArrayDynamicIndexing: F(ShaderStorageBufferArrayDynamicIndexing);
        31 StorageImageArrayDynamicIndexing: F(ShaderStorageImageArrayDynamicIndexing);
        32 ClipDistance: F(ShaderClipDistance);
        33 CullDistance: F(ShaderCullDistance);
        34 ImageCubeArray: F(ImageCubeArray);
        35 SampleRateShading: F(SampleRateShading);
        39 Int8: F(ShaderInt8);
        40 InputAttachment;
        41 SparseResidency: F(ShaderResourceResidency);
        42 MinLod: F(ShaderResourceMinLod);
        43 Sampled1D;
        44 Image1D;
        45 SampledCubeArray: F(ImageCubeArray);
        46 SampledBuffer;
        47 ImageBuffer;
        48 ImageMSArray: F(ShaderStorageImageMultisample);
        49 StorageImageExtendedFormats;
        50 ImageQuery;
        51 DerivativeControl;
        52 InterpolationFunction: F(SampleRateShading);
        53 TransformFeedback: F(TransformFeedback);
        54 GeometryStreams: F(GeometryStreams);
        55 StorageImageReadWithoutFormat: F(ShaderStorageImageReadWithoutFormat), V1_3, E(KhrFormatFeatureFlags2);
        56 StorageImageWriteWithoutFormat: F(ShaderStorageImageWriteWithoutFormat), V1_3, E(KhrFormatFeatureFlags2);
        57 MultiViewport: F(MultiViewport);
        61 GroupNonUniform: S(Ops::BASIC);
        62 GroupNonUniformVote: S(Ops::VOTE);
        63 GroupNonUniformArithmetic: S(Ops::ARITHMETIC);
        64 GroupNonUniformBallot: S(Ops::BALLOT);
        65 GroupNonUniformShuffle: S(Ops::SHUFFLE);
        66 GroupNonUniformShuffleRelative: S(Ops::SHUFFLE_RELATIVE);
        67 GroupNonUniformClustered: S(Ops::CLUSTERED);
        68 GroupNonUniformQuad: S(Ops::QUAD);
        69 ShaderLayer: F(ShaderOutputLayer);
        70 ShaderViewportIndex: F(ShaderOutputViewportIndex);
        4422 FragmentShadingRateKHR:
            F(PipelineFragmentShadingRate), F(PrimitiveFragmentShadingRate), F(AttachmentFragmentShadingRate);
        4423 SubgroupBallotKHR: E(ExtShaderSubgroupBallot);
        4427 DrawParameters: F(ShaderDrawParameters), E(KhrShaderDrawParameters);
        4428 WorkgroupMemoryExplicitLayoutKHR: F(WorkgroupMemoryExplicitLayout);
        4429 WorkgroupMemoryExplicitLayout8BitAccessKHR: F(WorkgroupMemoryExplicitLayout8BitAccess);
        4430 WorkgroupMemoryExplicitLayout16BitAccessKHR: F(WorkgroupMemoryExplicitLayout16BitAccess);
        4431 SubgroupVoteKHR: E(ExtShaderSubgroupVote);
        4433 StorageBuffer16BitAccess: F(StorageBuffer16BitAccess);
        4434 UniformAndStorageBuffer16BitAccess: F(UniformAndStorageBuffer16BitAccess);
        4435 StoragePushConstant16: F(StoragePushConstant16);
        4436 StorageInputOutput16: F(StorageInputOutput16);
        4437 DeviceGroup: V1_1, E(KhrDeviceGroup);
        4439 MultiView: F(Multiview);
        4441 VariablePointersStorageBuffer: F(VariablePointersStorageBuffer);
        4442 VariablePointers: F(VariablePointers);
        4447 SampleMaskPostDepthCoverage: E(ExtPostDepthCoverage);
        4448 StorageBuffer8BitAccess: F(StorageBuffer8BitAccess);
        4449 UniformAndStorageBuffer8BitAccess: F(UniformAndStorageBuffer8BitAccess);
        4450 StoragePushConstant8: F(StoragePushConstant8);
        4464 DenormPreserve:
            P("shaderDenormPreserveFloat16"), P("shaderDenormPreserveFloat32"), P("shaderDenormPreserveFloat64");
        4465 DenormFlushToZero:
            P("shaderDenormFlushToZeroFloat16"),
            P("shaderDenormFlushToZeroFloat32"),
            P("shaderDenormFlushToZeroFloat64");
        4466 SignedZeroInfNanPreserve:
            P("shaderSignedZeroInfNanPreserveFloat16"),
            P("shaderSignedZeroInfNanPreserveFloat32"),
            P("shaderSignedZeroInfNanPreserveFloat64");
        4467 RoundingModeRTE:
            P("shaderRoundingModeRTEFloat16"), P("shaderRoundingModeRTEFloat32"), P("shaderRoundingModeRTEFloat64");
        4468 RoundingModeRTZ:
            P("shaderRoundingModeRTZFloat16"), P("shaderRoundingModeRTZFloat32"), P("shaderRoundingModeRTZFloat64");
        4472 RayQueryKHR: F(RayQuery);
        4478 RayTraversalPrimitiveCullingKHR: F(RayTraversalPrimitiveCulling), F(RayQuery);
        4479 RayTracingKHR: F(RayTracingPipeline);
        5013 StencilExportEXT: E(ExtShaderStencilExport);
        5016 Int64ImageEXT: F(ShaderImageInt64Atomics);
        5055 ShaderClockKHR: E(KhrShaderClock);
        // Also …NV (same number). Vulkan 1.2 splits it in two: both features (the last named) take it.
        5254 ShaderViewportIndexLayerEXT:
            E(ExtShaderViewportIndexLayer), E(NvViewportArray2), F(ShaderOutputViewportIndex);
        5265 FragmentFullyCoveredEXT: E(ExtConservativeRasterization);
        5283 MeshShadingEXT: E(ExtMeshShader);
        5284 FragmentBarycentricKHR: F(FragmentShaderBarycentric);
        // Also ShadingRateNV, the same number.
        5291 FragmentDensityEXT: F(FragmentDensityMap), F(ShadingRateImage);
        5301 ShaderNonUniform: V1_2, E(ExtDescriptorIndexing);
        5302 RuntimeDescriptorArray: F(RuntimeDescriptorArray);
        5303 InputAttachmentArrayDynamicIndexing: F(ShaderInputAttachmentArrayDynamicIndexing);
        5304 UniformTexelBufferArrayDynamicIndexing: F(ShaderUniformTexelBufferArrayDynamicIndexing);
        5305 StorageTexelBufferArrayDynamicIndexing: F(ShaderStorageTexelBufferArrayDynamicIndexing);
        5306 UniformBufferArrayNonUniformIndexing: F(ShaderUniformBufferArrayNonUniformIndexing);
        5307 SampledImageArrayNonUniformIndexing: F(ShaderSampledImageArrayNonUniformIndexing);
        5308 StorageBufferArrayNonUniformIndexing: F(ShaderStorageBufferArrayNonUniformIndexing);
        5309 StorageImageArrayNonUniformIndexing: F(ShaderStorageImageArrayNonUniformIndexing);
        5310 InputAttachmentArrayNonUniformIndexing: F(ShaderInputAttachmentArrayNonUniformIndexing);
        5311 UniformTexelBufferArrayNonUniformIndexing: F(ShaderUniformTexelBufferArrayNonUniformIndexing);
        5312 StorageTexelBufferArrayNonUniformIndexing: F(ShaderStorageTexelBufferArrayNonUniformIndexing);
        5336 RayTracingPositionFetchKHR: F(RayTracingPositionFetch);
        5345 VulkanMemoryModel: F(VulkanMemoryModel);
        5346 VulkanMemoryModelDeviceScope: F(VulkanMemoryModelDeviceScope);
        5347 PhysicalStorageBufferAddresses: F(BufferDeviceAddress), F(BufferDeviceAddressExt);
        5363 FragmentShaderSampleInterlockEXT: F(FragmentShaderSampleInterlock);
        5372 FragmentShaderShadingRateInterlockEXT: F(FragmentShaderShadingRateInterlock), F(ShadingRateImage);
        5378 FragmentShaderPixelInterlockEXT: F(FragmentShaderPixelInterlock);
        5379 DemoteToHelperInvocation: F(ShaderDemoteToHelperInvocation);
        5381 RayTracingOpacityMicromapEXT: E(ExtOpacityMicromap);
        5391 RayQueryPositionFetchKHR: F(RayTracingPositionFetch);
        6016 DotProductInputAll: F(ShaderIntegerDotProduct);
        6017 DotProductInput4x8Bit: F(ShaderIntegerDotProduct);
        6018 DotProductInput4x8BitPacked: F(ShaderIntegerDotProduct);
        5612 AtomicFloat32MinMaxEXT:
            F(ShaderBufferFloat32AtomicMinMax), F(ShaderSharedFloat32AtomicMinMax), F(ShaderImageFloat32AtomicMinMax);
        5613 AtomicFloat64MinMaxEXT: F(ShaderBufferFloat64AtomicMinMax), F(ShaderSharedFloat64AtomicMinMax);
        5616 AtomicFloat16MinMaxEXT: F(ShaderBufferFloat16AtomicMinMax), F(ShaderSharedFloat16AtomicMinMax);
        6019 DotProduct: F(ShaderIntegerDotProduct);
        6020 RayCullMaskKHR: F(RayTracingMaintenance1);
        6022 CooperativeMatrixKHR: F(CooperativeMatrix);
        6026 GroupNonUniformRotateKHR: F(ShaderSubgroupRotate);
        6033 AtomicFloat32AddEXT:
            F(ShaderBufferFloat32AtomicAdd), F(ShaderSharedFloat32AtomicAdd), F(ShaderImageFloat32AtomicAdd);
        6034 AtomicFloat64AddEXT: F(ShaderBufferFloat64AtomicAdd), F(ShaderSharedFloat64AtomicAdd);
        6095 AtomicFloat16AddEXT: F(ShaderBufferFloat16AtomicAdd), F(ShaderSharedFloat16AtomicAdd);
    }
}

macro_rules! spv {
    ($name:literal $(, $need:expr)*) => {
        row!(concat!("OpExtension ", $name); $($need),*)
    };
}

/// What `OpExtension name` needs; `None` if unlisted.
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
    spv!("SPV_KHR_ray_query", E(KhrRayQuery)),
    spv!("SPV_KHR_ray_tracing", E(KhrRayTracingPipeline)),
    spv!("SPV_KHR_ray_tracing_position_fetch", E(KhrRayTracingPositionFetch)),
    spv!("SPV_EXT_mesh_shader", E(ExtMeshShader)),
    spv!("SPV_KHR_fragment_shading_rate", E(KhrFragmentShadingRate)),
    spv!("SPV_KHR_fragment_shader_barycentric", E(KhrFragmentShaderBarycentric)),
    spv!("SPV_EXT_fragment_shader_interlock", E(ExtFragmentShaderInterlock)),
    spv!("SPV_EXT_fragment_invocation_density", E(ExtFragmentDensityMap)),
    spv!("SPV_EXT_shader_atomic_float_add", E(ExtShaderAtomicFloat)),
    spv!("SPV_EXT_shader_atomic_float_min_max", E(ExtShaderAtomicFloat2)),
    spv!("SPV_EXT_shader_atomic_float16_add", E(ExtShaderAtomicFloat2)),
    spv!("SPV_KHR_ray_cull_mask", E(KhrRayTracingMaintenance1)),
    spv!("SPV_EXT_physical_storage_buffer", E(ExtBufferDeviceAddress)),
    spv!("SPV_EXT_shader_image_int64", E(ExtShaderImageAtomicInt64)),
    spv!("SPV_KHR_workgroup_memory_explicit_layout", E(KhrWorkgroupMemoryExplicitLayout)),
    spv!("SPV_KHR_shader_clock", E(KhrShaderClock)),
    spv!("SPV_EXT_shader_stencil_export", E(ExtShaderStencilExport)),
    spv!("SPV_KHR_post_depth_coverage", E(ExtPostDepthCoverage)),
    spv!("SPV_EXT_fragment_fully_covered", E(ExtConservativeRasterization)),
    spv!("SPV_KHR_shader_ballot", E(ExtShaderSubgroupBallot)),
    spv!("SPV_KHR_subgroup_vote", E(ExtShaderSubgroupVote)),
    spv!("SPV_KHR_cooperative_matrix", E(KhrCooperativeMatrix)),
    spv!("SPV_KHR_subgroup_rotate", E(KhrShaderSubgroupRotate)),
    spv!("SPV_KHR_subgroup_uniform_control_flow", E(KhrShaderSubgroupUniformControlFlow)),
    spv!("SPV_KHR_maximal_reconvergence", E(KhrShaderMaximalReconvergence)),
    spv!("SPV_GOOGLE_hlsl_functionality1", E(GoogleHlslFunctionality1)),
    spv!("SPV_GOOGLE_user_type", E(GoogleUserType)),
    spv!("SPV_GOOGLE_decorate_string", E(GoogleDecorateString)),
    // Promoted to Vulkan 1.1.
    spv!("SPV_KHR_shader_draw_parameters", V1_1, E(KhrShaderDrawParameters)),
    spv!("SPV_KHR_storage_buffer_storage_class", V1_1, E(KhrStorageBufferStorageClass)),
    spv!("SPV_KHR_16bit_storage", V1_1, E(Khr16bitStorage)),
    spv!("SPV_KHR_variable_pointers", V1_1, E(KhrVariablePointers)),
    spv!("SPV_KHR_multiview", V1_1, E(KhrMultiview)),
    spv!("SPV_KHR_device_group", V1_1, E(KhrDeviceGroup)),
    // Promoted to Vulkan 1.2.
    spv!("SPV_KHR_8bit_storage", V1_2, E(Khr8bitStorage)),
    spv!("SPV_KHR_float_controls", V1_2, E(KhrShaderFloatControls)),
    spv!("SPV_EXT_descriptor_indexing", V1_2, E(ExtDescriptorIndexing)),
    spv!("SPV_KHR_vulkan_memory_model", V1_2, E(KhrVulkanMemoryModel)),
    spv!("SPV_KHR_physical_storage_buffer", V1_2, E(KhrBufferDeviceAddress)),
    spv!("SPV_EXT_shader_viewport_index_layer", V1_2, E(ExtShaderViewportIndexLayer)),
    // Promoted to Vulkan 1.3.
    spv!("SPV_EXT_demote_to_helper_invocation", V1_3, E(ExtShaderDemoteToHelperInvocation)),
    spv!("SPV_KHR_non_semantic_info", V1_3, E(KhrShaderNonSemanticInfo)),
    spv!("SPV_KHR_terminate_invocation", V1_3, E(KhrShaderTerminateInvocation)),
    spv!("SPV_KHR_integer_dot_product", V1_3, E(KhrShaderIntegerDotProduct)),
];
