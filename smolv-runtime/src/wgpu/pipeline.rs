//! Render pipelines, as a generated `render_pipeline` (`include_types!`) makes them.

use super::layout::ProgramLayout;

/// A render pipeline's state besides its shaders and layout (`Default`: a triangle list, one sample).
///
/// ```
/// let targets = [Some(wgpu::TextureFormat::Rgba8Unorm.into())];
/// let state = smolv_runtime::wgpu::RenderState {
///     targets: &targets,
///     primitive: wgpu::PrimitiveState { topology: wgpu::PrimitiveTopology::TriangleStrip, ..Default::default() },
///     ..Default::default()
/// };
/// assert!(state.depth_stencil.is_none());
/// ```
#[derive(Clone, Debug, Default)]
pub struct RenderState<'a> {
    /// The pipeline's label.
    pub label: Option<&'a str>,
    /// The vertex buffers, as `VertexBuffers::layouts` makes them.
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    /// The colour targets.
    pub targets: &'a [Option<wgpu::ColorTargetState>],
    /// The vertex shader's overrides (`Overrides::constants`).
    pub vertex_constants: &'a [(&'a str, f64)],
    /// The fragment shader's overrides.
    pub fragment_constants: &'a [(&'a str, f64)],
    /// Topology, culling and the rest of primitive assembly.
    pub primitive: wgpu::PrimitiveState,
    /// Depth and stencil, if the pass has such an attachment.
    pub depth_stencil: Option<wgpu::DepthStencilState>,
    /// Multisampling.
    pub multisample: wgpu::MultisampleState,
}

/// Creates a render pipeline from `layout`, `vertex` and `fragment` (module, entry point) and `state`.
pub fn create_render_pipeline(
    device: &wgpu::Device,
    layout: &ProgramLayout,
    vertex: (&wgpu::ShaderModule, &str),
    fragment: (&wgpu::ShaderModule, &str),
    state: &RenderState<'_>,
) -> wgpu::RenderPipeline {
    let options = |constants| wgpu::PipelineCompilationOptions { constants, ..Default::default() };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: state.label,
        layout: Some(&layout.pipeline_layout),
        vertex: wgpu::VertexState {
            module: vertex.0,
            entry_point: Some(vertex.1),
            compilation_options: options(state.vertex_constants),
            buffers: state.buffers,
        },
        primitive: state.primitive,
        depth_stencil: state.depth_stencil.clone(),
        multisample: state.multisample,
        fragment: Some(wgpu::FragmentState {
            module: fragment.0,
            entry_point: Some(fragment.1),
            compilation_options: options(state.fragment_constants),
            targets: state.targets,
        }),
        multiview_mask: None,
        cache: None,
    })
}
