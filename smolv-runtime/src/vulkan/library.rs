//! The four parts of a graphics pipeline as map keys, and pipelines built from the keys alone.

use ash::vk;

use super::state::{
    AttachmentBlend, DepthTest, GraphicsState, Multisample, Part, StencilState, VertexInput, dynamic_state_part,
};
use super::{VulkanError, check};
use crate::reflect::Reflection;
use smolv_codec::specialize::Value;

/// A spec-constant value as a key: id, variant and bits.
pub(crate) type ValueKey = (u32, u8, u64);

pub(crate) fn value_key(&(id, value): &(u32, Value)) -> ValueKey {
    let variant = match value {
        Value::Bool(_) => 0,
        Value::I32(_) => 1,
        Value::U32(_) => 2,
        Value::F32(_) => 3,
        Value::Bits(_) => 4,
    };
    (id, variant, value.bits())
}

/// A stage as a map key: interned module and reflection, sorted values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StageKey {
    pub(crate) code: usize,
    pub(crate) reflection: usize,
    pub(crate) values: Vec<ValueKey>,
}

fn dynamic_of(state: &GraphicsState, part: Part) -> Vec<vk::DynamicState> {
    let mut states: Vec<_> =
        state.dynamic_states.iter().copied().filter(|&s| dynamic_state_part(s) == Some(part)).collect();
    if part == Part::PreRasterization {
        states.extend([vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR]);
    }
    states.sort_unstable();
    states.dedup();
    states
}

/// The vertex-input interface: buffers, attributes, topology.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct VertexInputKey {
    topology: vk::PrimitiveTopology,
    primitive_restart: bool,
    bindings: Vec<(u32, u32, vk::VertexInputRate)>,
    attributes: Vec<(u32, u32, vk::Format, u32)>,
    dynamic: Vec<vk::DynamicState>,
}

impl VertexInputKey {
    /// The key of `state` (inputs from `vertex`'s reflection where it says so).
    pub(crate) fn of(state: &GraphicsState, vertex: &Reflection) -> Result<Self, VulkanError> {
        let (bindings, attributes) = match &state.vertex_input {
            VertexInput::Explicit { bindings, attributes } => (
                bindings.iter().map(|b| (b.binding, b.stride, b.input_rate)).collect(),
                attributes.iter().map(|a| (a.location, a.binding, a.format, a.offset)).collect(),
            ),
            VertexInput::FromReflection => from_reflection(vertex)?,
        };
        Ok(Self {
            topology: state.topology,
            primitive_restart: state.primitive_restart,
            bindings,
            attributes,
            dynamic: dynamic_of(state, Part::VertexInput),
        })
    }
}

type Bindings = (Vec<(u32, u32, vk::VertexInputRate)>, Vec<(u32, u32, vk::Format, u32)>);

/// One interleaved buffer holding every input of `vertex`, by location.
fn from_reflection(vertex: &Reflection) -> Result<Bindings, VulkanError> {
    let mut inputs: Vec<_> = vertex.inputs.iter().collect();
    inputs.sort_by_key(|input| input.location);
    let mut attributes = Vec::with_capacity(inputs.len());
    let mut offset = 0u32;
    for input in inputs {
        let unfit = || VulkanError::VertexInputFormat { location: input.location, format: input.format };
        let format = i32::try_from(input.format).map_or(vk::Format::UNDEFINED, vk::Format::from_raw);
        let size = format_size(format).ok_or_else(unfit)?;
        attributes.push((input.location, 0, format, offset));
        offset = offset.checked_add(size).ok_or_else(unfit)?;
    }
    let bindings = if attributes.is_empty() { Vec::new() } else { vec![(0, offset, vk::VertexInputRate::VERTEX)] };
    Ok((bindings, attributes))
}

/// Bytes per element of the formats reflection gives vertex inputs.
fn format_size(format: vk::Format) -> Option<u32> {
    use vk::Format as F;
    Some(match format {
        F::R32_SFLOAT | F::R32_SINT | F::R32_UINT => 4,
        F::R32G32_SFLOAT | F::R32G32_SINT | F::R32G32_UINT | F::R64_SFLOAT | F::R64_SINT | F::R64_UINT => 8,
        F::R32G32B32_SFLOAT | F::R32G32B32_SINT | F::R32G32B32_UINT => 12,
        F::R32G32B32A32_SFLOAT | F::R32G32B32A32_SINT | F::R32G32B32A32_UINT => 16,
        F::R64G64_SFLOAT | F::R64G64_SINT | F::R64G64_UINT => 16,
        F::R64G64B64_SFLOAT | F::R64G64B64_SINT | F::R64G64B64_UINT => 24,
        F::R64G64B64A64_SFLOAT | F::R64G64B64A64_SINT | F::R64G64B64A64_UINT => 32,
        _ => return None,
    })
}

/// The pre-rasterization shaders and rasterization state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PreRasterKey {
    /// Vertex, then tessellation control and evaluation, then geometry.
    pub(crate) stages: Vec<(vk::ShaderStageFlags, StageKey)>,
    /// The library's independent-sets layout, by handle (one per layout).
    pub(crate) layout: u64,
    polygon_mode: vk::PolygonMode,
    cull_mode: vk::CullModeFlags,
    front_face: vk::FrontFace,
    line_width: u32,
    depth_clamp: bool,
    rasterizer_discard: bool,
    depth_bias: Option<[u32; 3]>,
    patch_control_points: u32,
    dynamic: Vec<vk::DynamicState>,
}

impl PreRasterKey {
    pub(crate) fn of(state: &GraphicsState, stages: Vec<(vk::ShaderStageFlags, StageKey)>, layout: u64) -> Self {
        let tessellation = stages.iter().any(|(s, _)| s.contains(vk::ShaderStageFlags::TESSELLATION_CONTROL));
        Self {
            stages,
            layout,
            polygon_mode: state.polygon_mode,
            cull_mode: state.cull_mode,
            front_face: state.front_face,
            line_width: state.line_width.to_bits(),
            depth_clamp: state.depth_clamp,
            rasterizer_discard: state.rasterizer_discard,
            depth_bias: state.depth_bias.map(|b| [b.constant_factor, b.clamp, b.slope_factor].map(f32::to_bits)),
            patch_control_points: if tessellation { state.patch_control_points } else { 0 },
            dynamic: dynamic_of(state, Part::PreRasterization),
        }
    }
}

/// Multisampling as a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct MultisampleKey {
    samples: vk::SampleCountFlags,
    min_sample_shading: Option<u32>,
    sample_mask: u32,
    alpha_to_coverage: bool,
    alpha_to_one: bool,
}

impl MultisampleKey {
    fn of(state: &GraphicsState) -> Self {
        let Multisample { samples, sample_shading, sample_mask, alpha_to_coverage, alpha_to_one } = state.multisample;
        let min_sample_shading = sample_shading.map(f32::to_bits);
        Self { samples, min_sample_shading, sample_mask, alpha_to_coverage, alpha_to_one }
    }
}

/// The fragment shader and the depth and stencil tests.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FragmentKey {
    pub(crate) stage: StageKey,
    pub(crate) layout: u64,
    depth_test: Option<DepthTest>,
    depth_bounds: Option<[u32; 2]>,
    stencil: Option<StencilState>,
    /// Only with sample shading, the one case the library reads it.
    multisample: Option<MultisampleKey>,
    dynamic: Vec<vk::DynamicState>,
}

impl FragmentKey {
    pub(crate) fn of(state: &GraphicsState, stage: StageKey, layout: u64) -> Self {
        let has_depth = state.depth_format != vk::Format::UNDEFINED;
        let has_stencil = state.stencil_format != vk::Format::UNDEFINED;
        Self {
            stage,
            layout,
            depth_test: state.depth_test.filter(|_| has_depth),
            depth_bounds: state.depth_bounds.filter(|_| has_depth).map(|b| b.map(f32::to_bits)),
            stencil: state.stencil.filter(|_| has_stencil),
            multisample: state.multisample.sample_shading.is_some().then(|| MultisampleKey::of(state)),
            dynamic: dynamic_of(state, Part::FragmentShader),
        }
    }
}

/// The fragment-output interface: attachments, blending, multisampling.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct OutputKey {
    color_formats: Vec<vk::Format>,
    depth_format: vk::Format,
    stencil_format: vk::Format,
    blends: Vec<AttachmentBlend>,
    blend_constants: [u32; 4],
    logic_op: Option<vk::LogicOp>,
    multisample: MultisampleKey,
    dynamic: Vec<vk::DynamicState>,
}

impl OutputKey {
    pub(crate) fn of(state: &GraphicsState) -> Result<Self, VulkanError> {
        Ok(Self {
            color_formats: state.color_formats.clone(),
            depth_format: state.depth_format,
            stencil_format: state.stencil_format,
            blends: state.attachment_blends()?,
            blend_constants: state.blend_constants.map(f32::to_bits),
            logic_op: state.logic_op,
            multisample: MultisampleKey::of(state),
            dynamic: dynamic_of(state, Part::FragmentOutput),
        })
    }
}

/// What one `vkCreateGraphicsPipelines` call builds: one part or all four.
#[derive(Clone, Copy, Default)]
pub(crate) struct Parts<'k> {
    pub(crate) vertex_input: Option<&'k VertexInputKey>,
    pub(crate) pre_raster: Option<&'k PreRasterKey>,
    pub(crate) fragment: Option<&'k FragmentKey>,
    pub(crate) output: Option<&'k OutputKey>,
}

/// Creates the pipeline `parts` describe: a library when `library`, else monolithic.
///
/// # Safety
/// `stages` are valid for `device`, which owns `layout` and (non-null) `cache`.
pub(crate) unsafe fn create(
    device: &ash::Device,
    cache: vk::PipelineCache,
    parts: Parts<'_>,
    library: bool,
    stages: &[vk::PipelineShaderStageCreateInfo<'_>],
    layout: vk::PipelineLayout,
) -> Result<vk::Pipeline, VulkanError> {
    let (bindings, attributes): (Vec<_>, Vec<_>) = parts.vertex_input.map_or_else(Default::default, |k| {
        use vk::{VertexInputAttributeDescription as A, VertexInputBindingDescription as B};
        let bindings = k.bindings.iter().map(|&(binding, stride, input_rate)| B { binding, stride, input_rate });
        let attributes =
            k.attributes.iter().map(|&(location, binding, format, offset)| A { location, binding, format, offset });
        (bindings.collect(), attributes.collect())
    });
    let vertex_input = parts.vertex_input.map(|_| {
        vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&bindings)
            .vertex_attribute_descriptions(&attributes)
    });
    let assembly = parts.vertex_input.map(|k| {
        vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(k.topology)
            .primitive_restart_enable(k.primitive_restart)
    });
    let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
    let raster = parts.pre_raster.map(|k| {
        let bias = k.depth_bias.map(|b| b.map(f32::from_bits));
        vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(k.polygon_mode)
            .cull_mode(k.cull_mode)
            .front_face(k.front_face)
            .line_width(f32::from_bits(k.line_width))
            .depth_clamp_enable(k.depth_clamp)
            .rasterizer_discard_enable(k.rasterizer_discard)
            .depth_bias_enable(bias.is_some())
            .depth_bias_constant_factor(bias.map_or(0.0, |b| b[0]))
            .depth_bias_clamp(bias.map_or(0.0, |b| b[1]))
            .depth_bias_slope_factor(bias.map_or(0.0, |b| b[2]))
    });
    let points = parts.pre_raster.map_or(0, |k| k.patch_control_points);
    let tessellation =
        (points > 0).then(|| vk::PipelineTessellationStateCreateInfo::default().patch_control_points(points));
    let depth_stencil = parts.fragment.map(|k| {
        let (depth, stencil) = (k.depth_test, k.stencil);
        let bounds = k.depth_bounds.map(|b| b.map(f32::from_bits));
        vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(depth.is_some())
            .depth_write_enable(depth.is_some_and(|d| d.write))
            .depth_compare_op(depth.map_or(vk::CompareOp::ALWAYS, |d| d.compare_op))
            .depth_bounds_test_enable(bounds.is_some())
            .min_depth_bounds(bounds.map_or(0.0, |b| b[0]))
            .max_depth_bounds(bounds.map_or(1.0, |b| b[1]))
            .stencil_test_enable(stencil.is_some())
            .front(stencil.map_or_else(vk::StencilOpState::default, |s| s.front.to_vk()))
            .back(stencil.map_or_else(vk::StencilOpState::default, |s| s.back.to_vk()))
    });
    // The output's multisampling, or the fragment shader's (equal when both are present).
    let multisample_key = parts.output.map(|k| k.multisample).or_else(|| parts.fragment.and_then(|k| k.multisample));
    let sample_mask = [multisample_key.map_or(!0, |k| k.sample_mask), !0];
    let multisample = multisample_key.map(|k| {
        // 64 samples read two words; fewer read one.
        let words = if k.samples == vk::SampleCountFlags::TYPE_64 { 2 } else { 1 };
        vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(k.samples)
            .sample_shading_enable(k.min_sample_shading.is_some())
            .min_sample_shading(k.min_sample_shading.map_or(0.0, f32::from_bits))
            .alpha_to_coverage_enable(k.alpha_to_coverage)
            .alpha_to_one_enable(k.alpha_to_one)
            .sample_mask(&sample_mask[..words])
    });
    let blends: Vec<_> = parts.output.map_or_else(Vec::new, |k| k.blends.iter().map(|b| b.to_vk()).collect());
    let blend = parts.output.map(|k| {
        let state = vk::PipelineColorBlendStateCreateInfo::default()
            .attachments(&blends)
            .blend_constants(k.blend_constants.map(f32::from_bits));
        if let Some(op) = k.logic_op { state.logic_op_enable(true).logic_op(op) } else { state }
    });
    let mut rendering = match parts.output {
        Some(k) => vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&k.color_formats)
            .depth_attachment_format(k.depth_format)
            .stencil_attachment_format(k.stencil_format),
        // Only the view mask: validation 1.3.239 misreports colour formats
        // in libraries without the output interface.
        None => vk::PipelineRenderingCreateInfo::default().view_mask(0),
    };
    // Each part present: its dynamic states and library flag.
    use vk::GraphicsPipelineLibraryFlagsEXT as L;
    let present = [
        (parts.vertex_input.map(|k| &k.dynamic), L::VERTEX_INPUT_INTERFACE),
        (parts.pre_raster.map(|k| &k.dynamic), L::PRE_RASTERIZATION_SHADERS),
        (parts.fragment.map(|k| &k.dynamic), L::FRAGMENT_SHADER),
        (parts.output.map(|k| &k.dynamic), L::FRAGMENT_OUTPUT_INTERFACE),
    ];
    let dynamic_states: Vec<vk::DynamicState> = present.iter().filter_map(|&(d, _)| d).flatten().copied().collect();
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let flags = present.iter().filter(|(d, _)| d.is_some()).fold(L::empty(), |all, &(_, flag)| all | flag);
    let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(flags);
    let mut info = vk::GraphicsPipelineCreateInfo::default().stages(stages).push_next(&mut rendering);
    if library {
        use vk::PipelineCreateFlags as F;
        info = info.flags(F::LIBRARY_KHR | F::RETAIN_LINK_TIME_OPTIMIZATION_INFO_EXT).push_next(&mut kind);
    }
    // Null where the part is absent, as the builders leave it.
    info.p_vertex_input_state = pointer(vertex_input.as_ref());
    info.p_input_assembly_state = pointer(assembly.as_ref());
    info.p_viewport_state = pointer(raster.as_ref().map(|_| &viewport));
    info.p_rasterization_state = pointer(raster.as_ref());
    info.p_tessellation_state = pointer(tessellation.as_ref());
    info.p_depth_stencil_state = pointer(depth_stencil.as_ref());
    info.p_multisample_state = pointer(multisample.as_ref());
    info.p_color_blend_state = pointer(blend.as_ref());
    info.p_dynamic_state = pointer((!dynamic_states.is_empty()).then_some(&dynamic));
    if parts.pre_raster.is_some() || parts.fragment.is_some() {
        info = info.layout(layout);
    }
    // SAFETY: `info` lives across the call; stages and handles are valid (the contract).
    let result = unsafe { device.create_graphics_pipelines(cache, std::slice::from_ref(&info), None) };
    check("vkCreateGraphicsPipelines", result.map(|p| p[0]).map_err(|(_, e)| e))
}

fn pointer<T>(value: Option<&T>) -> *const T {
    value.map_or(std::ptr::null(), std::ptr::from_ref)
}

/// Links four libraries into a pipeline, optimized or fast.
///
/// # Safety
/// `libraries`, `cache` and `layout` are `device`'s; the libraries' layouts fit `layout`.
pub(crate) unsafe fn link(
    device: &ash::Device,
    cache: vk::PipelineCache,
    libraries: &[vk::Pipeline; 4],
    layout: vk::PipelineLayout,
    optimize: bool,
) -> Result<vk::Pipeline, VulkanError> {
    let mut library_info = vk::PipelineLibraryCreateInfoKHR::default().libraries(libraries);
    let flags =
        if optimize { vk::PipelineCreateFlags::LINK_TIME_OPTIMIZATION_EXT } else { vk::PipelineCreateFlags::empty() };
    let info = vk::GraphicsPipelineCreateInfo::default().flags(flags).layout(layout).push_next(&mut library_info);
    // SAFETY: `info` and the library handles live across the call.
    let result = unsafe { device.create_graphics_pipelines(cache, std::slice::from_ref(&info), None) };
    check("vkCreateGraphicsPipelines (link)", result.map(|p| p[0]).map_err(|(_, e)| e))
}
