//! The [wgpu](https://wgpu.rs) layer (feature `wgpu`): shader modules, layouts ([`BindGroupLayouts`]),
//! overrides, hot reload ([`ShaderModules`]) and a pipeline cache file ([`PipelineCacheFile`]).
//!
//! ```no_run
//! # fn example(device: &wgpu::Device, format: wgpu::TextureFormat) -> Result<(), Box<dyn std::error::Error>> {
//! # let set = smolv_runtime::shader::doc_example_raw_set();
//! # let (vertex, fragment) = (set.get("blur.comp")?, set.get("blur.comp")?);
//! use smolv_runtime::wgpu::{BindGroupLayouts, LayoutOptions, create_shader_module};
//! // smolv_runtime::include_shaders!(static SHADERS);
//! // let (vertex, fragment) = (SHADERS.get("sprite.vert")?, SHADERS.get("sprite.frag.slang")?);
//! let layout = BindGroupLayouts::new(&[vertex, fragment], &LayoutOptions::new())?.create(device, None)?;
//! let (vs, fs) = (create_shader_module(device, vertex)?, create_shader_module(device, fragment)?);
//! let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
//!     label: Some("sprite"),
//!     layout: Some(&layout.pipeline_layout),
//!     vertex: wgpu::VertexState { module: &vs, entry_point: None, compilation_options: Default::default(), buffers: &[] },
//!     fragment: Some(wgpu::FragmentState {
//!         module: &fs,
//!         entry_point: None,
//!         compilation_options: Default::default(),
//!         targets: &[Some(format.into())],
//!     }),
//!     primitive: Default::default(),
//!     depth_stencil: None,
//!     multisample: Default::default(),
//!     multiview_mask: None,
//!     cache: None,
//! });
//! # let _ = pipeline;
//! # Ok(())
//! # }
//! ```
//!
//! `docs/wgpu.md` walks through a whole program (`example-wgpu`).

mod error;
mod format;
mod layout;
mod module;
mod modules;
mod overrides;
mod pipeline;
mod pipeline_cache;
mod resources;
mod scope;
mod vertex;
mod wgsl;

pub use crate::pipeline_cache_file::{CacheLoad, CacheRejected};
pub use error::WgpuError;
pub use format::vertex_format;
pub use layout::{BindGroupLayouts, LayoutOptions, ProgramLayout};
pub use module::{ModuleSource, create_shader_module, create_shader_module_passthrough, shader_source};
pub use modules::{Refreshed, ShaderModules};
pub use overrides::Overrides;
pub use pipeline::{RenderState, create_render_pipeline};
pub use pipeline_cache::PipelineCacheFile;
pub use vertex::VertexBuffers;

/// The wgpu this crate was built with, for the generated code and programs without their own.
pub use ::wgpu;
