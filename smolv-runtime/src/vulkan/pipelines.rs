//! Graphics pipelines from shaders: per-stage pipeline libraries, a fast
//! link now, the link-time-optimized pipeline from a background worker,
//! and monolithic pipelines where libraries are unavailable.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;

use ash::vk;
use ash::vk::Handle;

use super::layout::{LayoutCache, LayoutOptions, ProgramLayout};
use super::{VulkanError, check, lock};
use crate::reflect::Reflection;
use crate::specialize::{Analysis, Specializer, Value};

/// One shader stage of a program: SPIR-V, its reflection, a stable hash of
/// the code (a container's content hash), and spec-constant values.
#[derive(Clone, Debug)]
pub struct Stage<'a> {
    /// SPIR-V words.
    pub spirv: &'a [u32],
    /// Its reflection (stage, entry point, bindings, push constants).
    pub reflection: &'a Reflection,
    /// Identifies the code in cache keys, for example
    /// `Shader::content_hash().short()`.
    pub code_hash: u64,
    /// Specialization constants, as `(constant id, value)`.
    pub specialization: &'a [(u32, Value)],
}

/// Fixed-function state of a graphics pipeline. Viewport and scissor are
/// dynamic.
#[derive(Clone, Debug)]
pub struct GraphicsState {
    /// Colour attachment formats (dynamic rendering).
    pub color_formats: Vec<vk::Format>,
    /// Depth attachment format, or `UNDEFINED`.
    pub depth_format: vk::Format,
    /// Primitive topology.
    pub topology: vk::PrimitiveTopology,
    /// Vertex buffer bindings.
    pub vertex_bindings: Vec<vk::VertexInputBindingDescription>,
    /// Vertex attributes.
    pub vertex_attributes: Vec<vk::VertexInputAttributeDescription>,
    /// Face culling.
    pub cull_mode: vk::CullModeFlags,
    /// Depth test and write (with `LESS_OR_EQUAL`), when there is a depth attachment.
    pub depth_test: bool,
    /// Premultiplied-alpha blending on every colour attachment.
    pub alpha_blend: bool,
}

impl Default for GraphicsState {
    fn default() -> Self {
        Self {
            color_formats: vec![vk::Format::R8G8B8A8_UNORM],
            depth_format: vk::Format::UNDEFINED,
            topology: vk::PrimitiveTopology::TRIANGLE_LIST,
            vertex_bindings: Vec::new(),
            vertex_attributes: Vec::new(),
            cull_mode: vk::CullModeFlags::NONE,
            depth_test: false,
            alpha_blend: false,
        }
    }
}

impl GraphicsState {
    fn hash_vertex_input(&self, h: &mut impl Hasher) {
        self.topology.as_raw().hash(h);
        for b in &self.vertex_bindings {
            (b.binding, b.stride, b.input_rate.as_raw()).hash(h);
        }
        for a in &self.vertex_attributes {
            (a.location, a.binding, a.format.as_raw(), a.offset).hash(h);
        }
    }

    fn hash_output(&self, h: &mut impl Hasher) {
        self.color_formats.iter().for_each(|f| f.as_raw().hash(h));
        (self.depth_format.as_raw(), self.alpha_blend).hash(h);
    }
}

/// How the manager builds pipelines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineOptions {
    /// Whether the device has VK_EXT_graphics_pipeline_library enabled.
    pub graphics_pipeline_library: bool,
    /// Build monolithic pipelines even with libraries available. The
    /// environment variable `SMOLV_FORCE_MONOLITHIC=1` does the same.
    pub force_monolithic: bool,
    /// Fold spec constants into the SPIR-V with
    /// [`specialize`](crate::specialize) before creating a library, instead
    /// of passing them to the driver.
    pub specialize_ahead: bool,
    /// Background link-time-optimization workers (default 1).
    pub workers: usize,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        Self { graphics_pipeline_library: true, force_monolithic: false, specialize_ahead: false, workers: 1 }
    }
}

/// A pipeline that gets better: a fast-linked (or monolithic) pipeline at
/// once, swapped atomically for the link-time-optimized one when the
/// background link finishes.
#[derive(Debug)]
pub struct PipelineSlot {
    fast: vk::Pipeline,
    optimized: AtomicU64,
    layout: vk::PipelineLayout,
}

impl PipelineSlot {
    /// The best pipeline available now.
    pub fn current(&self) -> vk::Pipeline {
        match self.optimized.load(Ordering::Acquire) {
            0 => self.fast,
            raw => vk::Pipeline::from_raw(raw),
        }
    }

    /// Whether the optimized pipeline has arrived (always true for
    /// monolithic pipelines, which are optimized from the start).
    pub fn is_optimized(&self) -> bool {
        self.optimized.load(Ordering::Acquire) != 0
    }

    /// The fast-linked pipeline (or the monolithic one).
    pub fn fast(&self) -> vk::Pipeline {
        self.fast
    }

    /// The pipeline layout to bind descriptor sets with.
    pub fn layout(&self) -> vk::PipelineLayout {
        self.layout
    }
}

struct LinkJob {
    slot: Arc<PipelineSlot>,
    libraries: [vk::Pipeline; 4],
}

/// Builds and caches graphics pipelines the way Mesa's zink and DXVK do
/// with VK_EXT_graphics_pipeline_library: four per-stage libraries, each
/// cached by a hash of its state (shader code by its content hash), a fast
/// link returned at once, and the link-time-optimized pipeline linked on a
/// worker thread and swapped in when ready. Without libraries it builds
/// monolithic pipelines through the same API.
///
/// Dropping the manager waits for links in flight, then destroys every
/// pipeline and library it made; the device must be idle by then.
pub struct PipelineManager {
    device: ash::Device,
    cache: vk::PipelineCache,
    layouts: LayoutCache,
    options: PipelineOptions,
    libraries: Mutex<HashMap<u64, vk::Pipeline>>,
    /// Specializer analyses by `Stage::code_hash`: analyzed once per
    /// shader, specialized once per material.
    analyses: Mutex<HashMap<u64, Arc<Analysis>>>,
    pipelines: Mutex<HashMap<u64, Arc<PipelineSlot>>>,
    sender: Option<mpsc::Sender<LinkJob>>,
    workers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for PipelineManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineManager")
            .field("options", &self.options)
            .field("uses_libraries", &self.uses_libraries())
            .finish()
    }
}

fn hash_of(parts: impl FnOnce(&mut std::collections::hash_map::DefaultHasher)) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    parts(&mut hasher);
    hasher.finish()
}

fn hash_specialization(h: &mut impl Hasher, values: &[(u32, Value)]) {
    for (id, value) in values {
        (id, value.bits()).hash(h);
    }
}

impl PipelineManager {
    /// A manager creating pipelines on `device`, through `cache` (may be
    /// null). The device must outlive the manager.
    pub fn new(device: ash::Device, cache: vk::PipelineCache, options: PipelineOptions) -> Self {
        let mut options = options;
        if std::env::var("SMOLV_FORCE_MONOLITHIC").is_ok_and(|v| v == "1") {
            options.force_monolithic = true;
        }
        let (sender, receiver) = mpsc::channel::<LinkJob>();
        let receiver = Arc::new(Mutex::new(receiver));
        let uses_libraries = options.graphics_pipeline_library && !options.force_monolithic;
        let workers = if uses_libraries {
            (0..options.workers.max(1))
                .map(|_| {
                    let receiver = Arc::clone(&receiver);
                    let device = device.clone();
                    std::thread::spawn(move || {
                        loop {
                            let job = match receiver.lock() {
                                Ok(receiver) => receiver.recv(),
                                Err(_) => return,
                            };
                            let Ok(job) = job else { return };
                            if let Ok(pipeline) = link(&device, cache, &job.libraries, job.slot.layout, true) {
                                job.slot.optimized.store(pipeline.as_raw(), Ordering::Release);
                            }
                        }
                    })
                })
                .collect()
        } else {
            Vec::new()
        };
        let layouts = LayoutCache::new(device.clone());
        Self {
            device,
            cache,
            layouts,
            options,
            libraries: Mutex::default(),
            analyses: Mutex::default(),
            pipelines: Mutex::default(),
            sender: Some(sender),
            workers,
        }
    }

    /// Whether pipelines are built from libraries (false: monolithic).
    pub fn uses_libraries(&self) -> bool {
        self.options.graphics_pipeline_library && !self.options.force_monolithic
    }

    /// The layouts of a vertex + fragment program, as the manager builds them.
    pub fn program_layout(&self, vertex: &Stage<'_>, fragment: &Stage<'_>) -> Result<ProgramLayout, VulkanError> {
        let options = LayoutOptions { independent_sets: self.uses_libraries(), ..LayoutOptions::default() };
        self.layouts.program(&[vertex.reflection, fragment.reflection], &options)
    }

    /// The pipeline for `vertex` + `fragment` with `state`. The first call
    /// for a combination builds what is missing and returns a fast-linked
    /// pipeline (queuing the optimized link in the background), or a
    /// monolithic one; later calls return the same slot.
    pub fn get_pipeline(
        &self,
        vertex: &Stage<'_>,
        fragment: &Stage<'_>,
        state: &GraphicsState,
    ) -> Result<Arc<PipelineSlot>, VulkanError> {
        let key = hash_of(|h| {
            (vertex.code_hash, fragment.code_hash).hash(h);
            hash_specialization(h, vertex.specialization);
            hash_specialization(h, fragment.specialization);
            state.hash_vertex_input(h);
            state.hash_output(h);
            (state.cull_mode.as_raw(), state.depth_test).hash(h);
        });
        if let Some(slot) = lock(&self.pipelines).get(&key) {
            return Ok(Arc::clone(slot));
        }
        let layout = self.program_layout(vertex, fragment)?;
        let slot = if self.uses_libraries() {
            let libraries = self.libraries_for(vertex, fragment, state, &layout)?;
            let fast = link(&self.device, self.cache, &libraries, layout.pipeline_layout, false)?;
            let slot = Arc::new(PipelineSlot { fast, optimized: AtomicU64::new(0), layout: layout.pipeline_layout });
            if let Some(sender) = &self.sender {
                let _ = sender.send(LinkJob { slot: Arc::clone(&slot), libraries });
            }
            slot
        } else {
            let pipeline = self.monolithic(vertex, fragment, state, layout.pipeline_layout)?;
            Arc::new(PipelineSlot {
                fast: pipeline,
                optimized: AtomicU64::new(pipeline.as_raw()),
                layout: layout.pipeline_layout,
            })
        };
        let mut pipelines = lock(&self.pipelines);
        Ok(Arc::clone(pipelines.entry(key).or_insert(slot)))
    }

    /// Creates (or finds) the fragment-shader library of `fragment` alone:
    /// what a game does when a material's shader loads, ahead of any draw.
    pub fn preload_fragment(
        &self,
        vertex: &Stage<'_>,
        fragment: &Stage<'_>,
        state: &GraphicsState,
    ) -> Result<vk::Pipeline, VulkanError> {
        let layout = self.program_layout(vertex, fragment)?;
        self.fragment_library(fragment, state, stage_layout(&layout, vk::ShaderStageFlags::FRAGMENT))
    }

    fn cached(
        &self,
        key: u64,
        create: impl FnOnce() -> Result<vk::Pipeline, VulkanError>,
    ) -> Result<vk::Pipeline, VulkanError> {
        if let Some(&library) = lock(&self.libraries).get(&key) {
            return Ok(library);
        }
        let library = create()?;
        let mut libraries = lock(&self.libraries);
        match libraries.get(&key) {
            // Another thread made it meanwhile: keep theirs.
            Some(&existing) => {
                // SAFETY: `library` was just created and never handed out.
                unsafe { self.device.destroy_pipeline(library, None) };
                Ok(existing)
            }
            None => {
                libraries.insert(key, library);
                Ok(library)
            }
        }
    }

    fn libraries_for(
        &self,
        vertex: &Stage<'_>,
        fragment: &Stage<'_>,
        state: &GraphicsState,
        layout: &ProgramLayout,
    ) -> Result<[vk::Pipeline; 4], VulkanError> {
        let input = self.cached(
            hash_of(|h| ("vertex-input", ()).hash(h)).wrapping_add(hash_of(|h| state.hash_vertex_input(h))),
            || {
                let vertex_input = vertex_input_state(state);
                let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(state.topology);
                let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
                    .flags(vk::GraphicsPipelineLibraryFlagsEXT::VERTEX_INPUT_INTERFACE);
                let info = library_info()
                    .vertex_input_state(&vertex_input)
                    .input_assembly_state(&assembly)
                    .push_next(&mut kind);
                self.create(&info)
            },
        )?;
        let pre_raster_layout = stage_layout(layout, vk::ShaderStageFlags::VERTEX);
        let pre_raster = self.cached(
            hash_of(|h| {
                ("pre-raster", vertex.code_hash, state.cull_mode.as_raw(), pre_raster_layout.as_raw()).hash(h);
                hash_specialization(h, vertex.specialization);
            }),
            || {
                let code = self.code(vertex);
                let mut module = vk::ShaderModuleCreateInfo::default().code(&code);
                let specialization = SpecializationData::new(self.driver_values(vertex));
                let info_spec = specialization.info();
                let entry = entry_name(vertex.reflection);
                let stages =
                    [shader_stage(vk::ShaderStageFlags::VERTEX, &entry, info_spec.as_ref()).push_next(&mut module)];
                let viewport = dynamic_viewport();
                let raster = rasterization_state(state);
                let dynamic = dynamic_viewport_state();
                // Only the view mask: validation 1.3.239 misreports colour formats here.
                let mut rendering = vk::PipelineRenderingCreateInfo::default().view_mask(0);
                let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
                    .flags(vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS);
                let info = library_info()
                    .stages(&stages)
                    .viewport_state(&viewport)
                    .rasterization_state(&raster)
                    .dynamic_state(&dynamic)
                    .layout(pre_raster_layout)
                    .push_next(&mut rendering)
                    .push_next(&mut kind);
                self.create(&info)
            },
        )?;
        let fragment_library =
            self.fragment_library(fragment, state, stage_layout(layout, vk::ShaderStageFlags::FRAGMENT))?;
        let output =
            self.cached(hash_of(|h| ("output", ()).hash(h)).wrapping_add(hash_of(|h| state.hash_output(h))), || {
                let attachments = blend_attachments(state);
                let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
                let multisample = single_sample();
                let mut rendering = rendering_formats(state);
                let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
                    .flags(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_OUTPUT_INTERFACE);
                let info = library_info()
                    .color_blend_state(&blend)
                    .multisample_state(&multisample)
                    .push_next(&mut rendering)
                    .push_next(&mut kind);
                self.create(&info)
            })?;
        Ok([input, pre_raster, fragment_library, output])
    }

    fn fragment_library(
        &self,
        fragment: &Stage<'_>,
        state: &GraphicsState,
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline, VulkanError> {
        let key = hash_of(|h| {
            ("fragment", fragment.code_hash, state.depth_format.as_raw(), state.depth_test, layout.as_raw()).hash(h);
            hash_specialization(h, fragment.specialization);
        });
        self.cached(key, || {
            let code = self.code(fragment);
            let mut module = vk::ShaderModuleCreateInfo::default().code(&code);
            let specialization = SpecializationData::new(self.driver_values(fragment));
            let info_spec = specialization.info();
            let entry = entry_name(fragment.reflection);
            let stages =
                [shader_stage(vk::ShaderStageFlags::FRAGMENT, &entry, info_spec.as_ref()).push_next(&mut module)];
            let depth = depth_state(state);
            let multisample = single_sample();
            let mut rendering = rendering_formats(state);
            let mut kind = vk::GraphicsPipelineLibraryCreateInfoEXT::default()
                .flags(vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_SHADER);
            let info = library_info()
                .stages(&stages)
                .depth_stencil_state(&depth)
                .multisample_state(&multisample)
                .layout(layout)
                .push_next(&mut rendering)
                .push_next(&mut kind);
            self.create(&info)
        })
    }

    /// The SPIR-V to give the driver: specialized ahead when so configured.
    fn code(&self, stage: &Stage<'_>) -> Vec<u32> {
        if self.options.specialize_ahead && !stage.specialization.is_empty() {
            if let Some(specialized) = self.analysis(stage).and_then(|a| a.specialize(stage.specialization).ok()) {
                return specialized;
            }
        }
        stage.spirv.to_vec()
    }

    /// The stage's specializer analysis, made on first use; `None` when the
    /// module cannot be analyzed (it then goes to the driver as it is).
    fn analysis(&self, stage: &Stage<'_>) -> Option<Arc<Analysis>> {
        let cached = lock(&self.analyses).get(&stage.code_hash).cloned();
        cached.or_else(|| {
            let analysis = Arc::new(Specializer::analyze(stage.spirv).ok()?);
            lock(&self.analyses).insert(stage.code_hash, Arc::clone(&analysis));
            Some(analysis)
        })
    }

    /// The spec-constant values left for the driver.
    fn driver_values<'s>(&self, stage: &Stage<'s>) -> &'s [(u32, Value)] {
        if self.options.specialize_ahead { &[] } else { stage.specialization }
    }

    fn create(&self, info: &vk::GraphicsPipelineCreateInfo<'_>) -> Result<vk::Pipeline, VulkanError> {
        // SAFETY: `info` and everything it points to live across the call.
        let result = unsafe { self.device.create_graphics_pipelines(self.cache, std::slice::from_ref(info), None) };
        check("vkCreateGraphicsPipelines", result.map(|p| p[0]).map_err(|(_, e)| e))
    }

    fn monolithic(
        &self,
        vertex: &Stage<'_>,
        fragment: &Stage<'_>,
        state: &GraphicsState,
        layout: vk::PipelineLayout,
    ) -> Result<vk::Pipeline, VulkanError> {
        let (vertex_code, fragment_code) = (self.code(vertex), self.code(fragment));
        let mut modules = Vec::new();
        for code in [&vertex_code, &fragment_code] {
            // SAFETY: the create info points at `code`, alive across the call.
            let module =
                unsafe { self.device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None) };
            modules.push(check("vkCreateShaderModule", module)?);
        }
        let (vertex_spec, fragment_spec) = (
            SpecializationData::new(self.driver_values(vertex)),
            SpecializationData::new(self.driver_values(fragment)),
        );
        let (vertex_info, fragment_info) = (vertex_spec.info(), fragment_spec.info());
        let (vertex_entry, fragment_entry) = (entry_name(vertex.reflection), entry_name(fragment.reflection));
        let stages = [
            shader_stage(vk::ShaderStageFlags::VERTEX, &vertex_entry, vertex_info.as_ref()).module(modules[0]),
            shader_stage(vk::ShaderStageFlags::FRAGMENT, &fragment_entry, fragment_info.as_ref()).module(modules[1]),
        ];
        let vertex_input = vertex_input_state(state);
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default().topology(state.topology);
        let viewport = dynamic_viewport();
        let raster = rasterization_state(state);
        let multisample = single_sample();
        let depth = depth_state(state);
        let attachments = blend_attachments(state);
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
        let dynamic = dynamic_viewport_state();
        let mut rendering = rendering_formats(state);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout)
            .push_next(&mut rendering);
        let pipeline = self.create(&info);
        for module in modules {
            // SAFETY: modules may be destroyed once the pipeline is created.
            unsafe { self.device.destroy_shader_module(module, None) };
        }
        pipeline
    }
}

/// The per-stage layout of `layout` for `stage` (the program layout if none).
fn stage_layout(layout: &ProgramLayout, stage: vk::ShaderStageFlags) -> vk::PipelineLayout {
    layout.stage_layouts.iter().find(|(s, _)| *s == stage).map_or(layout.pipeline_layout, |(_, l)| *l)
}

fn library_info<'a>() -> vk::GraphicsPipelineCreateInfo<'a> {
    vk::GraphicsPipelineCreateInfo::default()
        .flags(vk::PipelineCreateFlags::LIBRARY_KHR | vk::PipelineCreateFlags::RETAIN_LINK_TIME_OPTIMIZATION_INFO_EXT)
}

/// Vertex buffers and attributes, from the state.
fn vertex_input_state(state: &GraphicsState) -> vk::PipelineVertexInputStateCreateInfo<'_> {
    vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&state.vertex_bindings)
        .vertex_attribute_descriptions(&state.vertex_attributes)
}

/// Filled, counter-clockwise front faces, culling from the state.
fn rasterization_state(state: &GraphicsState) -> vk::PipelineRasterizationStateCreateInfo<'static> {
    vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(state.cull_mode)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0)
}

/// Viewport and scissor are dynamic state, so pipelines survive resizes.
const DYNAMIC_STATES: [vk::DynamicState; 2] = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];

/// One viewport and scissor, set at draw time (see [`dynamic_viewport_state`]).
fn dynamic_viewport() -> vk::PipelineViewportStateCreateInfo<'static> {
    vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1)
}

/// [`DYNAMIC_STATES`] as a create info.
fn dynamic_viewport_state() -> vk::PipelineDynamicStateCreateInfo<'static> {
    vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&DYNAMIC_STATES)
}

/// One sample per pixel: the pipelines render to single-sampled targets.
fn single_sample() -> vk::PipelineMultisampleStateCreateInfo<'static> {
    vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1)
}

/// The attachment formats of dynamic rendering, from the state.
fn rendering_formats(state: &GraphicsState) -> vk::PipelineRenderingCreateInfo<'_> {
    vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&state.color_formats)
        .depth_attachment_format(state.depth_format)
}

fn depth_state(state: &GraphicsState) -> vk::PipelineDepthStencilStateCreateInfo<'static> {
    let depth = state.depth_test && state.depth_format != vk::Format::UNDEFINED;
    vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(depth)
        .depth_write_enable(depth)
        .depth_compare_op(vk::CompareOp::LESS_OR_EQUAL)
}

fn blend_attachments(state: &GraphicsState) -> Vec<vk::PipelineColorBlendAttachmentState> {
    let attachment = vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)
        .blend_enable(state.alpha_blend)
        .src_color_blend_factor(vk::BlendFactor::ONE)
        .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(vk::BlendFactor::ONE)
        .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .alpha_blend_op(vk::BlendOp::ADD);
    vec![attachment; state.color_formats.len()]
}

/// A shader stage naming `entry`, with `specialization` when there is one.
fn shader_stage<'a>(
    stage: vk::ShaderStageFlags,
    entry: &'a std::ffi::CStr,
    specialization: Option<&'a vk::SpecializationInfo<'a>>,
) -> vk::PipelineShaderStageCreateInfo<'a> {
    let info = vk::PipelineShaderStageCreateInfo::default().stage(stage).name(entry);
    match specialization {
        Some(specialization) => info.specialization_info(specialization),
        None => info,
    }
}

fn entry_name(reflection: &Reflection) -> std::ffi::CString {
    std::ffi::CString::new(reflection.entry_point.as_str()).unwrap_or_else(|_| c"main".to_owned())
}

/// Links four libraries into a pipeline, optimized or fast.
fn link(
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

/// Specialization data for the driver, kept alive while pipelines are made.
struct SpecializationData {
    entries: Vec<vk::SpecializationMapEntry>,
    data: Vec<u8>,
}

impl SpecializationData {
    fn new(values: &[(u32, Value)]) -> Self {
        let mut entries = Vec::with_capacity(values.len());
        let mut data = Vec::with_capacity(values.len() * 4);
        for &(id, value) in values {
            entries.push(vk::SpecializationMapEntry { constant_id: id, offset: data.len() as u32, size: 4 });
            data.extend_from_slice(&(value.bits() as u32).to_le_bytes());
        }
        Self { entries, data }
    }

    fn info(&self) -> Option<vk::SpecializationInfo<'_>> {
        (!self.entries.is_empty())
            .then(|| vk::SpecializationInfo::default().map_entries(&self.entries).data(&self.data))
    }
}

impl Drop for PipelineManager {
    fn drop(&mut self) {
        // Stop the workers: links in flight finish, the rest are dropped.
        self.sender = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
        // SAFETY: the workers are gone and the caller keeps the device idle
        // with respect to these pipelines, as documented on the type.
        unsafe {
            for (_, slot) in self.pipelines.get_mut().unwrap_or_else(|e| e.into_inner()).drain() {
                let optimized = slot.optimized.load(Ordering::Acquire);
                if optimized != 0 && optimized != slot.fast.as_raw() {
                    self.device.destroy_pipeline(vk::Pipeline::from_raw(optimized), None);
                }
                self.device.destroy_pipeline(slot.fast, None);
            }
            for (_, library) in self.libraries.get_mut().unwrap_or_else(|e| e.into_inner()).drain() {
                self.device.destroy_pipeline(library, None);
            }
        }
    }
}
