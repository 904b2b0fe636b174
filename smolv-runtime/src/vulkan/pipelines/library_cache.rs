//! A manager's libraries, each kept under everything it is made from, so that materials share parts.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ash::vk;
use ash::vk::Handle;

use super::program::{GraphicsProgram, Stage};
use super::stage_code::StageCoder;
use crate::reflect::Reflection;
use crate::vulkan::library::{self, FragmentKey, OutputKey, Parts, PreRasterKey, StageKey, ValueKey, VertexInputKey};
use crate::vulkan::modules::{OwnedStageCode, ShaderModules, StageCode};
use crate::vulkan::specialization::SpecializationData;
use crate::vulkan::{VulkanError, lock};

/// How many libraries of each part a manager holds
/// ([`PipelineManager::library_counts`](super::PipelineManager::library_counts)).
///
/// ```
/// use smolv_runtime::vulkan::LibraryCounts;
/// let counts = LibraryCounts { vertex_input: 1, pre_rasterization: 2, fragment_shader: 50, fragment_output: 1 };
/// println!("{} fragment-shader libraries", counts.fragment_shader);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LibraryCounts {
    /// Vertex-input interface libraries.
    pub vertex_input: usize,
    /// Pre-rasterization shader libraries.
    pub pre_rasterization: usize,
    /// Fragment shader libraries.
    pub fragment_shader: usize,
    /// Fragment output interface libraries.
    pub fragment_output: usize,
}

impl LibraryCounts {
    /// All four together.
    ///
    /// ```
    /// use smolv_runtime::vulkan::LibraryCounts;
    /// let counts = LibraryCounts { vertex_input: 1, pre_rasterization: 2, fragment_shader: 3, fragment_output: 1 };
    /// assert_eq!(counts.total(), 7);
    /// ```
    pub fn total(&self) -> usize {
        self.vertex_input + self.pre_rasterization + self.fragment_shader + self.fragment_output
    }
}

/// Everything a pipeline is made from, by part.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct PipelineKey {
    pub(super) vertex_input: VertexInputKey,
    pub(super) pre_raster: PreRasterKey,
    pub(super) fragment: FragmentKey,
    pub(super) output: OutputKey,
}

impl PipelineKey {
    /// All four parts, for a monolithic pipeline.
    pub(super) fn parts(&self) -> Parts<'_> {
        Parts {
            vertex_input: Some(&self.vertex_input),
            pre_raster: Some(&self.pre_raster),
            fragment: Some(&self.fragment),
            output: Some(&self.output),
        }
    }

    /// Every stage's interned code id, in pipeline order.
    pub(super) fn codes(&self) -> Vec<usize> {
        self.stages().iter().map(|k| k.code).collect()
    }

    pub(super) fn stages(&self) -> Vec<&StageKey> {
        let mut stages: Vec<&StageKey> = self.pre_raster.stages.iter().map(|(_, k)| k).collect();
        stages.push(&self.fragment.stage);
        stages
    }

    pub(super) fn libraries(&self) -> [LibraryKey; 4] {
        [
            LibraryKey::VertexInput(self.vertex_input.clone()),
            LibraryKey::PreRaster(self.pre_raster.clone()),
            LibraryKey::Fragment(self.fragment.clone()),
            LibraryKey::Output(self.output.clone()),
        ]
    }
}

/// A library by the part it is and everything it is made from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum LibraryKey {
    VertexInput(VertexInputKey),
    PreRaster(PreRasterKey),
    Fragment(FragmentKey),
    Output(OutputKey),
}

impl LibraryKey {
    /// The library's part, and its layout (null for the parts without shaders).
    pub(super) fn parts(&self) -> (Parts<'_>, vk::PipelineLayout) {
        let none = Parts::default();
        match self {
            Self::VertexInput(k) => (Parts { vertex_input: Some(k), ..none }, vk::PipelineLayout::null()),
            Self::PreRaster(k) => (Parts { pre_raster: Some(k), ..none }, vk::PipelineLayout::from_raw(k.layout)),
            Self::Fragment(k) => (Parts { fragment: Some(k), ..none }, vk::PipelineLayout::from_raw(k.layout)),
            Self::Output(k) => (Parts { output: Some(k), ..none }, vk::PipelineLayout::null()),
        }
    }
}

/// A library or monolithic pipeline, and the specialization data its stages were created with.
pub(super) struct Built {
    pub(super) pipeline: vk::Pipeline,
    /// Held as long as the library ([`ShaderModules::into_specialization`]).
    _specialization: Vec<SpecializationData>,
}

/// The libraries by key, shared with the workers.
pub(super) type Libraries = Arc<Mutex<HashMap<LibraryKey, Built>>>;

/// Modules and reflections seen so far, each stored once and numbered.
#[derive(Default)]
struct Interned {
    code: HashMap<Box<[u32]>, usize>,
    reflections: HashMap<Reflection, usize>,
    /// By number, to say what a rebuild changed.
    reflection_list: Vec<Reflection>,
}

/// The libraries of one manager, kept until [`destroy`](Self::destroy).
pub(super) struct LibraryCache {
    device: ash::Device,
    cache: vk::PipelineCache,
    interned: Mutex<Interned>,
    pub(super) libraries: Libraries,
    pub(super) coder: StageCoder,
}

impl LibraryCache {
    /// # Safety
    /// `cache` is null or `device`'s, both outlive this cache, and [`destroy`](Self::destroy) is called once the
    /// device is done with the libraries.
    pub(super) unsafe fn new(device: ash::Device, cache: vk::PipelineCache, specialize_ahead: bool) -> Self {
        Self {
            device,
            cache,
            interned: Mutex::default(),
            libraries: Arc::default(),
            coder: StageCoder::new(specialize_ahead),
        }
    }

    pub(super) fn get(&self, key: &LibraryKey) -> Option<vk::Pipeline> {
        lock(&self.libraries).get(key).map(|built| built.pipeline)
    }

    pub(super) fn counts(&self) -> LibraryCounts {
        let mut counts = LibraryCounts::default();
        for key in lock(&self.libraries).keys() {
            match key {
                LibraryKey::VertexInput(_) => counts.vertex_input += 1,
                LibraryKey::PreRaster(_) => counts.pre_rasterization += 1,
                LibraryKey::Fragment(_) => counts.fragment_shader += 1,
                LibraryKey::Output(_) => counts.fragment_output += 1,
            }
        }
        counts
    }

    /// The key of `stage`: its module and reflection interned, its values checked and sorted.
    pub(super) fn stage_key(&self, stage: &Stage<'_>) -> Result<StageKey, VulkanError> {
        SpecializationData::new(stage.spirv, stage.specialization)?;
        let mut values: Vec<ValueKey> = stage.specialization.iter().map(library::value_key).collect();
        values.sort_unstable();
        let mut interned = lock(&self.interned);
        let next = interned.code.len();
        let code = match interned.code.get(stage.spirv) {
            Some(&id) => id,
            None => *interned.code.entry(stage.spirv.into()).or_insert(next),
        };
        let next = interned.reflections.len();
        let reflection = match interned.reflections.get(stage.reflection) {
            Some(&id) => id,
            None => {
                interned.reflections.insert(stage.reflection.clone(), next);
                interned.reflection_list.push(stage.reflection.clone());
                next
            }
        };
        Ok(StageKey { code, reflection, values })
    }

    pub(super) fn reflection(&self, id: usize) -> Option<Reflection> {
        lock(&self.interned).reflection_list.get(id).cloned()
    }

    /// The library of `key`, made from `stages` (those of its part) unless the cache has it.
    pub(super) fn library(
        &self,
        key: LibraryKey,
        stages: &[(vk::ShaderStageFlags, &Stage<'_>, usize)],
    ) -> Result<vk::Pipeline, VulkanError> {
        if let Some(library) = self.get(&key) {
            return Ok(library);
        }
        let (parts, layout) = key.parts();
        let library = self.create_with_stages(parts, true, stages, layout)?;
        // SAFETY: `library` was just created on this device and never handed out.
        Ok(unsafe { keep_library(&self.libraries, &self.device, key, library) })
    }

    /// The four libraries of `program` with `key`, made where missing.
    pub(super) fn libraries(
        &self,
        program: &GraphicsProgram<'_>,
        key: &PipelineKey,
    ) -> Result<[vk::Pipeline; 4], VulkanError> {
        let stages = stages_with_codes(program, key);
        let (pre_raster, fragment) = stages.split_at(stages.len() - 1);
        let [vertex_input_key, pre_raster_key, fragment_key, output_key] = key.libraries();
        Ok([
            self.library(vertex_input_key, &[])?,
            self.library(pre_raster_key, pre_raster)?,
            self.library(fragment_key, fragment)?,
            self.library(output_key, &[])?,
        ])
    }

    /// Creates the pipeline (`library`: a library) of `parts` from `stages` (flags, stage, interned code id).
    pub(super) fn create_with_stages(
        &self,
        parts: Parts<'_>,
        library: bool,
        stages: &[(vk::ShaderStageFlags, &Stage<'_>, usize)],
        layout: vk::PipelineLayout,
    ) -> Result<Built, VulkanError> {
        let codes: Vec<_> = stages
            .iter()
            .map(|&(flags, stage, code)| Ok((flags, stage, self.coder.code(code, stage)?)))
            .collect::<Result<_, VulkanError>>()?;
        let stage_codes: Vec<StageCode<'_>> = codes
            .iter()
            .map(|(flags, stage, (code, values))| StageCode {
                stage: *flags,
                code,
                values,
                reflection: stage.reflection,
            })
            .collect();
        // SAFETY: valid SPIR-V (`get_pipeline`'s contract); the layout is this cache's device's.
        unsafe { create_from_code(&self.device, self.cache, parts, library, &stage_codes, layout) }
    }

    /// `stage`'s code as the driver gets it ([`StageCoder::code`]), owned, with its values checked.
    pub(super) fn owned_code(
        &self,
        flags: vk::ShaderStageFlags,
        code_id: usize,
        stage: &Stage<'_>,
    ) -> Result<OwnedStageCode, VulkanError> {
        let (code, values) = self.coder.code(code_id, stage)?;
        SpecializationData::new(&code, values)?;
        Ok(OwnedStageCode {
            stage: flags,
            code: code.into_owned(),
            values: values.to_vec(),
            reflection: stage.reflection.clone(),
        })
    }

    /// # Safety
    /// The device is done with the libraries and every pipeline linked from them; no worker adds any more.
    pub(super) unsafe fn destroy(&self) {
        for (_, library) in lock(&self.libraries).drain() {
            // SAFETY: this function's contract.
            unsafe { self.device.destroy_pipeline(library.pipeline, None) };
        }
    }
}

/// Stores `library` under `key`, or destroys it and returns the one another thread stored meanwhile.
///
/// # Safety
/// `library` is a library of `device` that nothing else holds or uses.
pub(super) unsafe fn keep_library(
    libraries: &Mutex<HashMap<LibraryKey, Built>>,
    device: &ash::Device,
    key: LibraryKey,
    library: Built,
) -> vk::Pipeline {
    let mut map = lock(libraries);
    if let Some(existing) = map.get(&key).map(|built| built.pipeline) {
        drop(map);
        // SAFETY: this function's contract.
        unsafe { device.destroy_pipeline(library.pipeline, None) };
        return existing;
    }
    let pipeline = library.pipeline;
    map.insert(key, library);
    pipeline
}

/// Every stage of `program` with its interned code id from `key`.
pub(super) fn stages_with_codes<'p, 'a>(
    program: &'p GraphicsProgram<'a>,
    key: &PipelineKey,
) -> Vec<(vk::ShaderStageFlags, &'p Stage<'a>, usize)> {
    program.stages().into_iter().zip(key.codes()).map(|((flags, stage), code)| (flags, stage, code)).collect()
}

/// Creates the pipeline (`library`: a library) of `parts` from `stages`, keeping their specialization data.
///
/// # Safety
/// `stages` are the parts' stages, valid SPIR-V for `device`; `layout` and `cache` are `device`'s (or null).
pub(super) unsafe fn create_from_code(
    device: &ash::Device,
    cache: vk::PipelineCache,
    parts: Parts<'_>,
    library: bool,
    stages: &[StageCode<'_>],
    layout: vk::PipelineLayout,
) -> Result<Built, VulkanError> {
    // SAFETY: valid SPIR-V (this function's contract).
    let modules = unsafe { ShaderModules::new(device, stages)? };
    let specializations = modules.specialization_infos();
    let infos = modules.stage_infos(&specializations);
    // SAFETY: this function's contract.
    let pipeline = unsafe { library::create(device, cache, parts, library, &infos, layout) }?;
    drop(infos);
    drop(specializations);
    Ok(Built { pipeline, _specialization: modules.into_specialization() })
}
