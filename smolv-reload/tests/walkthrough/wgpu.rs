// tests/walkthrough/wgpu.rs: a wgpu program's pipeline, made again on every edit
use std::error::Error;

use smolv_runtime::Shader;
use smolv_runtime::wgpu::ShaderModules;

/// A render pipeline of two embedded shaders, and their modules.
pub struct Reloading {
    pub pipeline: wgpu::RenderPipeline,
    modules: ShaderModules<'static>,
    shaders: [&'static Shader; 2],
    format: wgpu::TextureFormat,
}

impl Reloading {
    /// The first pipeline, drawing into `format`.
    pub fn new(
        device: &wgpu::Device,
        shaders: [&'static Shader; 2],
        format: wgpu::TextureFormat,
    ) -> Result<Self, Box<dyn Error>> {
        let mut modules = ShaderModules::new();
        let pipeline = make(device, &mut modules, shaders, format)?;
        Ok(Self { pipeline, modules, shaders, format })
    }

    /// Once a frame (cheap when nothing was published): makes a module of
    /// each shader hot reload published since, and the pipeline again.
    /// `Ok(true)`: a new pipeline. `Err(why)`: wgpu refused an edit, the
    /// old module and pipeline stay, and the game plays on.
    pub fn update(&mut self, device: &wgpu::Device) -> Result<bool, String> {
        let refreshed = self.modules.refresh(device);
        if let Some((shader, why)) = refreshed.failed.first() {
            return Err(format!("kept the previous {shader}: {why}"));
        }
        if !self.shaders.iter().any(|shader| refreshed.changed.iter().any(|name| name == shader.name())) {
            return Ok(false);
        }
        self.pipeline = make(device, &mut self.modules, self.shaders, self.format).map_err(|why| why.to_string())?;
        Ok(true)
    }
}

/// A pipeline of the shaders' current modules, its layout from them.
fn make(
    device: &wgpu::Device,
    modules: &mut ShaderModules<'static>,
    [vertex, fragment]: [&'static Shader; 2],
    format: wgpu::TextureFormat,
) -> Result<wgpu::RenderPipeline, Box<dyn Error>> {
    // Modules are handles: clone one to hold two at once.
    let vertex_module = modules.get(device, vertex)?.clone();
    let fragment_module = modules.get(device, fragment)?;
    Ok(device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(fragment.name()),
        layout: None,
        vertex: wgpu::VertexState {
            module: &vertex_module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        fragment: Some(wgpu::FragmentState {
            module: fragment_module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        multiview_mask: None,
        cache: None,
    }))
}
