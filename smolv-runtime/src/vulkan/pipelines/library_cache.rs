//! The graphics pipeline libraries a manager has made, each kept under
//! everything it is made from, so that materials share the parts they
//! have in common. Modules and reflections are interned: keys compare
//! small numbers, and each number stands for one module's full contents.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ash::vk;
use ash::vk::Handle;

use super::program::{GraphicsProgram, Stage};
use super::stage_code::{SpecializationCounts, StageCodeAndValues, StageCoder};
use crate::reflect::Reflection;
use crate::vulkan::library::{self, FragmentKey, OutputKey, Parts, PreRasterKey, StageKey, ValueKey, VertexInputKey};
use crate::vulkan::modules::{ShaderModules, StageCode};
use crate::vulkan::specialization::{SpecializationData, check_values};
use crate::vulkan::{VulkanError, lock};

/// How many libraries of each of the four parts a manager holds: what
/// materials share shows as parts that grow slower than pipelines (see
/// [`PipelineManager::library_counts`](super::PipelineManager::library_counts)).
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

/// Everything a pipeline is made from: its four parts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct PipelineKey {
    pub(super) vertex_input: VertexInputKey,
    pub(super) pre_raster: PreRasterKey,
    pub(super) fragment: FragmentKey,
    pub(super) output: OutputKey,
}

impl PipelineKey {
    /// The parts of a monolithic pipeline: all four.
    pub(super) fn parts(&self) -> Parts<'_> {
        Parts {
            vertex_input: Some(&self.vertex_input),
            pre_raster: Some(&self.pre_raster),
            fragment: Some(&self.fragment),
            output: Some(&self.output),
        }
    }

    /// The interned code ids of every stage, in pipeline order.
    pub(super) fn codes(&self) -> Vec<usize> {
        let mut codes: Vec<usize> = self.pre_raster.stages.iter().map(|(_, k)| k.code).collect();
        codes.push(self.fragment.stage.code);
        codes
    }

    /// The stage keys, in pipeline order.
    pub(super) fn stages(&self) -> Vec<&StageKey> {
        let mut stages: Vec<&StageKey> = self.pre_raster.stages.iter().map(|(_, k)| k).collect();
        stages.push(&self.fragment.stage);
        stages
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

/// A pipeline (a library, or a monolithic pipeline) and the
/// specialization data its stages were created with.
pub(super) struct Built {
    pub(super) pipeline: vk::Pipeline,
    /// Never read, only held as long as the library: the Khronos
    /// validation layer (1.3.239) keeps only a pointer to it and reads it
    /// again at every link from the library (see
    /// [`ShaderModules::into_specialization`]). Dropping it once the
    /// library exists gives `VUID-…-pSpecializationInfo-06719` from
    /// reading freed memory.
    _specialization: Vec<SpecializationData>,
}

impl Built {
    /// A pipeline made without shader stages.
    pub(super) fn without_stages(pipeline: vk::Pipeline) -> Self {
        Self { pipeline, _specialization: Vec::new() }
    }
}

/// The libraries by key, each with the specialization data it keeps;
/// shared with the background workers, which add the libraries of rebuilds.
pub(super) type Libraries = Arc<Mutex<HashMap<LibraryKey, Built>>>;

/// Modules and reflections seen so far, each stored once and numbered, so
/// that keys compare small numbers while meaning the full contents. A
/// lookup hashes and compares the whole module.
#[derive(Default)]
struct Interned {
    code: HashMap<Box<[u32]>, usize>,
    reflections: HashMap<Reflection, usize>,
    /// The reflections by number, to say what a rebuild changed.
    reflection_list: Vec<Reflection>,
}

/// The libraries of one manager, created on first use and kept until
/// [`destroy`](Self::destroy); and the code each stage gives the driver.
pub(super) struct LibraryCache {
    device: ash::Device,
    cache: vk::PipelineCache,
    interned: Mutex<Interned>,
    libraries: Libraries,
    /// What each stage gives the driver.
    coder: StageCoder,
}

impl LibraryCache {
    /// An empty cache creating libraries on `device` through `cache`.
    ///
    /// # Safety
    /// `cache` is null or a pipeline cache of `device`, and both outlive
    /// this cache; [`destroy`](Self::destroy) is called once the device
    /// is done with the libraries.
    pub(super) unsafe fn new(device: ash::Device, cache: vk::PipelineCache, specialize_ahead: bool) -> Self {
        Self {
            device,
            cache,
            interned: Mutex::default(),
            libraries: Arc::default(),
            coder: StageCoder::new(specialize_ahead),
        }
    }

    /// The map the workers add rebuilt libraries to.
    pub(super) fn shared(&self) -> Libraries {
        Arc::clone(&self.libraries)
    }

    /// The library of `key`, if it has been made.
    pub(super) fn get(&self, key: &LibraryKey) -> Option<vk::Pipeline> {
        lock(&self.libraries).get(key).map(|built| built.pipeline)
    }

    /// How many libraries of each part the cache holds.
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

    /// Which path the spec-constant values of the stages prepared so far took.
    pub(super) fn specialization_counts(&self) -> SpecializationCounts {
        self.coder.counts()
    }

    /// The key of `stage`: its module and reflection interned, its values
    /// checked and sorted. The check (repeated ids, values that do not fit
    /// their constants' types) is the one every path passes, before
    /// [`code`](Self::code) folds the values ahead or leaves them to the
    /// driver: a value refused on one path is refused on both.
    pub(super) fn stage_key(&self, stage: &Stage<'_>) -> Result<StageKey, VulkanError> {
        check_values(stage.spirv, stage.specialization)?;
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

    /// The interned reflection numbered `id`.
    pub(super) fn reflection(&self, id: usize) -> Option<Reflection> {
        lock(&self.interned).reflection_list.get(id).cloned()
    }

    /// The library of `key`, made with `create` unless the cache has it.
    fn cached(
        &self,
        key: LibraryKey,
        create: impl FnOnce() -> Result<Built, VulkanError>,
    ) -> Result<vk::Pipeline, VulkanError> {
        if let Some(library) = self.get(&key) {
            return Ok(library);
        }
        let library = create()?;
        // SAFETY: `library` was just created on this device and never handed out.
        Ok(unsafe { keep_library(&self.libraries, &self.device, key, library) })
    }

    pub(super) fn vertex_input(&self, key: &VertexInputKey) -> Result<vk::Pipeline, VulkanError> {
        self.cached(LibraryKey::VertexInput(key.clone()), || {
            let parts = Parts { vertex_input: Some(key), ..Parts::default() };
            // SAFETY: no stages; the state is valid (the contract of `get_pipeline`).
            let library =
                unsafe { library::create(&self.device, self.cache, parts, true, &[], vk::PipelineLayout::null()) }?;
            Ok(Built::without_stages(library))
        })
    }

    pub(super) fn pre_raster(
        &self,
        program: &GraphicsProgram<'_>,
        key: &PreRasterKey,
    ) -> Result<vk::Pipeline, VulkanError> {
        self.cached(LibraryKey::PreRaster(key.clone()), || {
            let stages: Vec<_> =
                program.pre_raster().into_iter().zip(&key.stages).map(|((f, s), (_, k))| (f, s, k.code)).collect();
            let parts = Parts { pre_raster: Some(key), ..Parts::default() };
            self.create_with_stages(parts, true, &stages, vk::PipelineLayout::from_raw(key.layout))
        })
    }

    pub(super) fn fragment(&self, fragment: &Stage<'_>, key: &FragmentKey) -> Result<vk::Pipeline, VulkanError> {
        self.cached(LibraryKey::Fragment(key.clone()), || {
            let parts = Parts { fragment: Some(key), ..Parts::default() };
            let stages = [(vk::ShaderStageFlags::FRAGMENT, fragment, key.stage.code)];
            self.create_with_stages(parts, true, &stages, vk::PipelineLayout::from_raw(key.layout))
        })
    }

    pub(super) fn output(&self, key: &OutputKey) -> Result<vk::Pipeline, VulkanError> {
        self.cached(LibraryKey::Output(key.clone()), || {
            let parts = Parts { output: Some(key), ..Parts::default() };
            // SAFETY: no stages; the state is valid (the contract of `get_pipeline`).
            let library =
                unsafe { library::create(&self.device, self.cache, parts, true, &[], vk::PipelineLayout::null()) }?;
            Ok(Built::without_stages(library))
        })
    }

    /// Creates the modules of `stages` (flags, stage, interned code id),
    /// then the pipeline (`library`: a library) of `parts` with them.
    pub(super) fn create_with_stages(
        &self,
        parts: Parts<'_>,
        library: bool,
        stages: &[(vk::ShaderStageFlags, &Stage<'_>, usize)],
        layout: vk::PipelineLayout,
    ) -> Result<Built, VulkanError> {
        let codes: Vec<_> = stages
            .iter()
            .map(|&(flags, stage, code)| Ok((flags, stage, self.code(code, stage)?)))
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
        // SAFETY: valid SPIR-V (the contract of `get_pipeline`).
        let modules = unsafe { ShaderModules::new(&self.device, &stage_codes)? };
        // SAFETY: the stages are those of the parts, valid for the device,
        // and the layout belongs to this cache's device.
        unsafe { create_with_modules(&self.device, self.cache, parts, library, modules, layout) }
    }

    /// The SPIR-V to give the driver and the spec-constant values left for
    /// it (see [`StageCoder::code`]); counted in
    /// [`specialization_counts`](Self::specialization_counts).
    ///
    /// # Errors
    /// Values that fold an array length below 1.
    pub(super) fn code<'s>(&self, code_id: usize, stage: &Stage<'s>) -> Result<StageCodeAndValues<'s>, VulkanError> {
        self.coder.code(code_id, stage)
    }

    /// Destroys every library.
    ///
    /// # Safety
    /// The device is done with the libraries and with every pipeline
    /// linked from them, and no worker adds libraries any more.
    pub(super) unsafe fn destroy(&self) {
        for (_, library) in lock(&self.libraries).drain() {
            // SAFETY: this function's contract.
            unsafe { self.device.destroy_pipeline(library.pipeline, None) };
            // Its specialization data goes only now, with the library.
            drop(library);
        }
    }
}

/// Stores `library` under `key`, or, when another thread stored one
/// meanwhile, destroys it and returns theirs.
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
    match map.get(&key) {
        Some(existing) => {
            let existing = existing.pipeline;
            drop(map);
            // SAFETY: this function's contract.
            unsafe { device.destroy_pipeline(library.pipeline, None) };
            existing
        }
        None => {
            let pipeline = library.pipeline;
            map.insert(key, library);
            pipeline
        }
    }
}

/// Creates the pipeline (`library`: a library) of `parts` from `modules`,
/// then destroys the modules and keeps their specialization data with it.
///
/// # Safety
/// The modules are the stages of the parts, valid for `device`; `layout`
/// and `cache` are `device`'s (or null).
pub(super) unsafe fn create_with_modules(
    device: &ash::Device,
    cache: vk::PipelineCache,
    parts: Parts<'_>,
    library: bool,
    modules: ShaderModules<'_>,
    layout: vk::PipelineLayout,
) -> Result<Built, VulkanError> {
    let specializations = modules.specialization_infos();
    let infos = modules.stage_infos(&specializations);
    // SAFETY: this function's contract.
    let pipeline = unsafe { library::create(device, cache, parts, library, &infos, layout) }?;
    drop(infos);
    drop(specializations);
    Ok(Built { pipeline, _specialization: modules.into_specialization() })
}
