//! The fixed-function state of a graphics pipeline.

use ash::vk;

use super::VulkanError;
use super::capabilities::Feature;
use super::device_features::DeviceFeatures;

/// Where the vertex shader's inputs come from.
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::VertexInput;
/// // One interleaved buffer, attributes in location order, formats from
/// // the vertex shader's reflection:
/// let reflected = VertexInput::FromReflection;
/// // Or as the game lays its buffers out:
/// let explicit = VertexInput::Explicit {
///     bindings: vec![vk::VertexInputBindingDescription { binding: 0, stride: 8, input_rate: vk::VertexInputRate::VERTEX }],
///     attributes: vec![vk::VertexInputAttributeDescription { location: 0, binding: 0, format: vk::Format::R32G32_SFLOAT, offset: 0 }],
/// };
/// ```
#[derive(Clone, Debug, Default)]
pub enum VertexInput {
    /// One per-vertex buffer at binding 0, inputs packed in location order.
    #[default]
    FromReflection,
    /// The buffers and attributes as given.
    Explicit {
        /// Vertex buffer bindings.
        bindings: Vec<vk::VertexInputBindingDescription>,
        /// Vertex attributes.
        attributes: Vec<vk::VertexInputAttributeDescription>,
    },
}

/// Depth bias, as `vkCmdSetDepthBias` takes it.
///
/// ```
/// use smolv_runtime::vulkan::DepthBias;
/// // Shadow-map acne: push the depth away a little, more on slopes.
/// let bias = DepthBias { constant_factor: 1.25, clamp: 0.0, slope_factor: 1.75 };
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DepthBias {
    /// Constant depth added to each fragment.
    pub constant_factor: f32,
    /// Largest (or smallest) bias; anything but 0 needs the `depthBiasClamp` feature.
    pub clamp: f32,
    /// Factor applied to the fragment's slope.
    pub slope_factor: f32,
}

/// The depth test, when there is one.
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::DepthTest;
/// // Read-only depth for transparent geometry:
/// let test = DepthTest { write: false, ..DepthTest::default() };
/// assert_eq!(test.compare_op, vk::CompareOp::LESS_OR_EQUAL);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthTest {
    /// Write the depth of passing fragments.
    pub write: bool,
    /// How a fragment's depth compares to the stored one to pass.
    pub compare_op: vk::CompareOp,
}

impl Default for DepthTest {
    fn default() -> Self {
        Self { write: true, compare_op: vk::CompareOp::LESS_OR_EQUAL }
    }
}

/// The stencil test for one face (`VkStencilOpState`).
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::StencilFace;
/// // Mark every covered pixel with 1.
/// let mark = StencilFace { pass_op: vk::StencilOp::REPLACE, reference: 1, ..StencilFace::default() };
/// assert_eq!(mark.compare_op, vk::CompareOp::ALWAYS);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StencilFace {
    /// When the stencil test fails.
    pub fail_op: vk::StencilOp,
    /// When both the stencil and the depth test pass.
    pub pass_op: vk::StencilOp,
    /// When the stencil test passes and the depth test fails.
    pub depth_fail_op: vk::StencilOp,
    /// The stencil comparison.
    pub compare_op: vk::CompareOp,
    /// Bits the comparison reads.
    pub compare_mask: u32,
    /// Bits the operations write.
    pub write_mask: u32,
    /// The reference value.
    pub reference: u32,
}

impl Default for StencilFace {
    /// Always passes, keeps the stored value, all bits compared and written.
    fn default() -> Self {
        Self {
            fail_op: vk::StencilOp::KEEP,
            pass_op: vk::StencilOp::KEEP,
            depth_fail_op: vk::StencilOp::KEEP,
            compare_op: vk::CompareOp::ALWAYS,
            compare_mask: !0,
            write_mask: !0,
            reference: 0,
        }
    }
}

impl StencilFace {
    pub(crate) fn to_vk(self) -> vk::StencilOpState {
        let Self { fail_op, pass_op, depth_fail_op, compare_op, compare_mask, write_mask, reference } = self;
        vk::StencilOpState { fail_op, pass_op, depth_fail_op, compare_op, compare_mask, write_mask, reference }
    }
}

/// The stencil test for front and back faces.
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::{StencilFace, StencilState};
/// // Draw only where the stencil holds 1.
/// let inside = StencilFace { compare_op: vk::CompareOp::EQUAL, reference: 1, ..StencilFace::default() };
/// let state = StencilState::both(inside);
/// assert_eq!(state.front, state.back);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StencilState {
    /// Front faces.
    pub front: StencilFace,
    /// Back faces.
    pub back: StencilFace,
}

impl StencilState {
    /// The same test on both faces.
    ///
    /// ```
    /// use smolv_runtime::vulkan::{StencilFace, StencilState};
    /// let state = StencilState::both(StencilFace::default());
    /// ```
    pub fn both(face: StencilFace) -> Self {
        Self { front: face, back: face }
    }
}

/// Multisampling.
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::Multisample;
/// // 4× MSAA, the shader run for every sample, coverage from alpha (foliage).
/// let msaa = Multisample {
///     samples: vk::SampleCountFlags::TYPE_4,
///     sample_shading: Some(1.0),
///     alpha_to_coverage: true,
///     ..Multisample::default()
/// };
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multisample {
    /// Samples per pixel of the attachments.
    pub samples: vk::SampleCountFlags,
    /// Per-sample shading's `minSampleShading`; needs `sampleRateShading`.
    pub sample_shading: Option<f32>,
    /// Samples that may be written (bit `i`: sample `i`; samples past 32 all are).
    pub sample_mask: u32,
    /// Derive coverage from the first colour output's alpha.
    pub alpha_to_coverage: bool,
    /// Replace that alpha with one; needs the `alphaToOne` feature.
    pub alpha_to_one: bool,
}

impl Default for Multisample {
    /// One sample per pixel.
    fn default() -> Self {
        Self {
            samples: vk::SampleCountFlags::TYPE_1,
            sample_shading: None,
            sample_mask: !0,
            alpha_to_coverage: false,
            alpha_to_one: false,
        }
    }
}

/// A blend equation (`VkPipelineColorBlendAttachmentState` with blending on).
///
/// ```
/// use smolv_runtime::vulkan::BlendEquation;
/// let glow = BlendEquation::ADDITIVE;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlendEquation {
    /// Factor of the source colour.
    pub src_color: vk::BlendFactor,
    /// Factor of the destination colour.
    pub dst_color: vk::BlendFactor,
    /// How the colours combine.
    pub color_op: vk::BlendOp,
    /// Factor of the source alpha.
    pub src_alpha: vk::BlendFactor,
    /// Factor of the destination alpha.
    pub dst_alpha: vk::BlendFactor,
    /// How the alphas combine.
    pub alpha_op: vk::BlendOp,
}

impl BlendEquation {
    /// `src + dst × (1 − src.a)`: premultiplied alpha.
    pub const PREMULTIPLIED_ALPHA: Self = Self::added(vk::BlendFactor::ONE, vk::BlendFactor::ONE_MINUS_SRC_ALPHA);
    /// `src × src.a + dst × (1 − src.a)`: straight alpha.
    pub const ALPHA: Self = Self::added(vk::BlendFactor::SRC_ALPHA, vk::BlendFactor::ONE_MINUS_SRC_ALPHA);
    /// `src + dst`.
    pub const ADDITIVE: Self = Self::added(vk::BlendFactor::ONE, vk::BlendFactor::ONE);

    /// `src × src_color + dst × dst` for colour, `src.a + dst.a × dst` for alpha.
    const fn added(src_color: vk::BlendFactor, dst: vk::BlendFactor) -> Self {
        let (add, one) = (vk::BlendOp::ADD, vk::BlendFactor::ONE);
        Self { src_color, dst_color: dst, color_op: add, src_alpha: one, dst_alpha: dst, alpha_op: add }
    }
}

/// Blending and the write mask of one colour attachment.
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::{AttachmentBlend, BlendEquation};
/// // Blend colour, leave the alpha channel as it is.
/// let rgb = vk::ColorComponentFlags::R | vk::ColorComponentFlags::G | vk::ColorComponentFlags::B;
/// let blend = AttachmentBlend { equation: Some(BlendEquation::ALPHA), write_mask: rgb };
/// assert_eq!(AttachmentBlend::OPAQUE.equation, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttachmentBlend {
    /// The blend equation, or `None` to overwrite.
    pub equation: Option<BlendEquation>,
    /// The channels written.
    pub write_mask: vk::ColorComponentFlags,
}

impl AttachmentBlend {
    /// No blending, every channel written.
    pub const OPAQUE: Self = Self { equation: None, write_mask: vk::ColorComponentFlags::RGBA };
    /// Premultiplied-alpha blending, every channel written.
    pub const PREMULTIPLIED_ALPHA: Self =
        Self { equation: Some(BlendEquation::PREMULTIPLIED_ALPHA), write_mask: vk::ColorComponentFlags::RGBA };

    pub(crate) fn to_vk(self) -> vk::PipelineColorBlendAttachmentState {
        let state = vk::PipelineColorBlendAttachmentState::default().color_write_mask(self.write_mask);
        let Some(e) = self.equation else { return state };
        state
            .blend_enable(true)
            .src_color_blend_factor(e.src_color)
            .dst_color_blend_factor(e.dst_color)
            .color_blend_op(e.color_op)
            .src_alpha_blend_factor(e.src_alpha)
            .dst_alpha_blend_factor(e.dst_alpha)
            .alpha_blend_op(e.alpha_op)
    }
}

impl Default for AttachmentBlend {
    fn default() -> Self {
        Self::OPAQUE
    }
}

/// The fixed-function state of a graphics pipeline, by owning library (viewport and scissor: dynamic).
///
/// ```
/// use ash::vk;
/// use smolv_runtime::vulkan::{AttachmentBlend, DepthTest, GraphicsState, Multisample, StencilFace, StencilState};
/// let state = GraphicsState {
///     color_formats: vec![vk::Format::B8G8R8A8_SRGB],
///     depth_format: vk::Format::D24_UNORM_S8_UINT,
///     stencil_format: vk::Format::D24_UNORM_S8_UINT,
///     cull_mode: vk::CullModeFlags::BACK,
///     front_face: vk::FrontFace::CLOCKWISE,
///     depth_test: Some(DepthTest::default()),
///     stencil: Some(StencilState::both(StencilFace { pass_op: vk::StencilOp::REPLACE, ..StencilFace::default() })),
///     multisample: Multisample { samples: vk::SampleCountFlags::TYPE_4, ..Multisample::default() },
///     blend: vec![AttachmentBlend::PREMULTIPLIED_ALPHA],
///     dynamic_states: vec![vk::DynamicState::STENCIL_REFERENCE],
///     ..GraphicsState::default()
/// };
/// assert_eq!(state.topology, vk::PrimitiveTopology::TRIANGLE_LIST);
/// ```
#[derive(Clone, Debug)]
pub struct GraphicsState {
    /// Vertex buffers and attributes (vertex-input library).
    pub vertex_input: VertexInput,
    /// Primitive topology (vertex-input library); `PATCH_LIST` for tessellation.
    pub topology: vk::PrimitiveTopology,
    /// Primitive restart for strips and fans (vertex-input library).
    pub primitive_restart: bool,

    /// Fill, lines or points (pre-rasterization library); not `FILL` needs `fillModeNonSolid`.
    pub polygon_mode: vk::PolygonMode,
    /// Face culling (pre-rasterization library).
    pub cull_mode: vk::CullModeFlags,
    /// Which winding is the front (pre-rasterization library).
    pub front_face: vk::FrontFace,
    /// Line width (pre-rasterization library); not 1 needs `wideLines`.
    pub line_width: f32,
    /// Clamp depth instead of clipping (pre-rasterization library); needs `depthClamp`.
    pub depth_clamp: bool,
    /// Discard every primitive before rasterization (pre-rasterization library).
    pub rasterizer_discard: bool,
    /// Depth bias (pre-rasterization library).
    pub depth_bias: Option<DepthBias>,
    /// Control points per patch, with tessellation stages (pre-rasterization library).
    pub patch_control_points: u32,

    /// The depth test (fragment-shader library); off without a depth attachment.
    pub depth_test: Option<DepthTest>,
    /// Depth bounds `[min, max]` (fragment-shader library); needs `depthBounds`.
    pub depth_bounds: Option<[f32; 2]>,
    /// The stencil test (fragment-shader library); off without a stencil attachment.
    pub stencil: Option<StencilState>,
    /// Multisampling (fragment-output library; fragment-shader too when per sample).
    pub multisample: Multisample,

    /// Colour attachment formats (fragment-output library).
    pub color_formats: Vec<vk::Format>,
    /// Depth attachment format, or `UNDEFINED` (fragment-output library).
    pub depth_format: vk::Format,
    /// Stencil attachment format, or `UNDEFINED` (fragment-output library).
    pub stencil_format: vk::Format,
    /// Blending per colour attachment (fragment-output library): none, one for all, or one each.
    pub blend: Vec<AttachmentBlend>,
    /// The blend constants (fragment-output library).
    pub blend_constants: [f32; 4],
    /// A logic op instead of blending (fragment-output library); needs `logicOp`.
    pub logic_op: Option<vk::LogicOp>,

    /// State set with `vkCmdSet*` instead (Vulkan 1.3 core dynamic states).
    pub dynamic_states: Vec<vk::DynamicState>,
}

impl Default for GraphicsState {
    /// One RGBA8 attachment, triangle lists, no culling, depth, stencil or blending.
    fn default() -> Self {
        Self {
            vertex_input: VertexInput::default(),
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            primitive_restart: false,
            polygon_mode: vk::PolygonMode::FILL,
            cull_mode: vk::CullModeFlags::NONE,
            front_face: vk::FrontFace::COUNTER_CLOCKWISE,
            line_width: 1.0,
            depth_clamp: false,
            rasterizer_discard: false,
            depth_bias: None,
            patch_control_points: 0,
            depth_test: None,
            depth_bounds: None,
            stencil: None,
            multisample: Multisample::default(),
            color_formats: vec![vk::Format::R8G8B8A8_UNORM],
            depth_format: vk::Format::UNDEFINED,
            stencil_format: vk::Format::UNDEFINED,
            blend: Vec::new(),
            blend_constants: [0.0; 4],
            logic_op: None,
            dynamic_states: Vec::new(),
        }
    }
}

/// The four parts of VK_EXT_graphics_pipeline_library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    VertexInput,
    PreRasterization,
    FragmentShader,
    FragmentOutput,
}

/// The library that owns dynamic state `state`, among Vulkan 1.3 core's.
pub(crate) fn dynamic_state_part(state: vk::DynamicState) -> Option<Part> {
    use vk::DynamicState as D;
    const PARTS: [(Part, &[vk::DynamicState]); 8] = [
        (Part::VertexInput, &[D::PRIMITIVE_TOPOLOGY, D::PRIMITIVE_RESTART_ENABLE, D::VERTEX_INPUT_BINDING_STRIDE]),
        (Part::PreRasterization, &[D::VIEWPORT, D::SCISSOR, D::LINE_WIDTH, D::DEPTH_BIAS, D::CULL_MODE]),
        (Part::PreRasterization, &[D::FRONT_FACE, D::DEPTH_BIAS_ENABLE, D::RASTERIZER_DISCARD_ENABLE]),
        (Part::FragmentShader, &[D::DEPTH_BOUNDS, D::STENCIL_COMPARE_MASK, D::STENCIL_WRITE_MASK]),
        (Part::FragmentShader, &[D::STENCIL_REFERENCE, D::DEPTH_TEST_ENABLE, D::DEPTH_WRITE_ENABLE]),
        (Part::FragmentShader, &[D::DEPTH_COMPARE_OP, D::DEPTH_BOUNDS_TEST_ENABLE]),
        (Part::FragmentShader, &[D::STENCIL_TEST_ENABLE, D::STENCIL_OP]),
        (Part::FragmentOutput, &[D::BLEND_CONSTANTS]),
    ];
    PARTS.iter().find(|(_, states)| states.contains(&state)).map(|&(part, _)| part)
}

impl GraphicsState {
    /// The blend state of each colour attachment.
    pub(crate) fn attachment_blends(&self) -> Result<Vec<AttachmentBlend>, VulkanError> {
        let count = self.color_formats.len();
        match self.blend.as_slice() {
            [] => Ok(vec![AttachmentBlend::OPAQUE; count]),
            [one] => Ok(vec![*one; count]),
            many if many.len() == count => Ok(many.to_vec()),
            many => Err(VulkanError::BlendCount { blends: many.len(), attachments: count }),
        }
    }

    /// Refuses state needing a feature `features` lacks, or unsupported dynamic state.
    pub(crate) fn check(&self, features: &DeviceFeatures, extra_stages: ExtraStages) -> Result<(), VulkanError> {
        // The first of `needs` (when it applies, its feature, what needs it) that is missing.
        let need = |needs: &[(bool, Feature, &'static str)]| {
            let Some(&(_, feature, state)) = needs.iter().find(|n| n.0 && !features.has(n.1)) else { return Ok(()) };
            let (feature, structure) = (feature.name(), feature.structure());
            Err(VulkanError::FeatureNotEnabled { feature, structure, state, shader: None })
        };
        if let Some(&unknown) = self.dynamic_states.iter().find(|&&s| dynamic_state_part(s).is_none()) {
            return Err(VulkanError::DynamicStateUnsupported(unknown));
        }
        let dynamic = |s| self.dynamic_states.contains(&s);
        need(&[
            (extra_stages.geometry, Feature::GeometryShader, "a geometry stage"),
            (extra_stages.tessellation, Feature::TessellationShader, "tessellation stages"),
        ])?;
        let patches = self.topology == vk::PrimitiveTopology::PATCH_LIST && self.patch_control_points > 0;
        if extra_stages.tessellation && !patches {
            return Err(VulkanError::PatchTopology);
        }
        let clamp = self.depth_bias.is_some_and(|b| b.clamp != 0.0) && !dynamic(vk::DynamicState::DEPTH_BIAS);
        let wide_lines = self.line_width != 1.0 && !dynamic(vk::DynamicState::LINE_WIDTH);
        need(&[
            (self.depth_bounds.is_some(), Feature::DepthBounds, "GraphicsState::depth_bounds"),
            (self.multisample.sample_shading.is_some(), Feature::SampleRateShading, "Multisample::sample_shading"),
            (self.multisample.alpha_to_one, Feature::AlphaToOne, "Multisample::alpha_to_one"),
            (self.polygon_mode != vk::PolygonMode::FILL, Feature::FillModeNonSolid, "GraphicsState::polygon_mode"),
            (clamp, Feature::DepthBiasClamp, "DepthBias::clamp"),
            (self.depth_clamp, Feature::DepthClamp, "GraphicsState::depth_clamp"),
            (wide_lines, Feature::WideLines, "GraphicsState::line_width"),
            (self.logic_op.is_some(), Feature::LogicOp, "GraphicsState::logic_op"),
        ])?;
        let blends = self.attachment_blends()?;
        let independent = blends.windows(2).any(|pair| pair[0] != pair[1]);
        need(&[(independent, Feature::IndependentBlend, "attachments that blend differently")])
    }
}

/// Which optional pre-rasterization stages a program has.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ExtraStages {
    pub(crate) geometry: bool,
    pub(crate) tessellation: bool,
}
