//! Rebuilding pipelines after their shaders changed (hot reload): checked here, built on a worker, swapped in.

use std::sync::Arc;

use ash::vk;
use smolv_format::reflect::StageInterface;

use super::PipelineManager;
use super::program::{GraphicsProgram, Stage, check_stage};
use super::rebuild_job::{ComputeRebuild, GraphicsRebuild};
use super::slot::PipelineSlot;
use super::worker::Job;
use crate::reflect::Reflection;
use crate::vulkan::compute::{ComputeJob, ComputeSlot};
use crate::vulkan::library::StageKey;
use crate::vulkan::{VulkanError, lock};

impl PipelineManager {
    /// Builds `slot`'s pipeline again from `program` with its state on a worker, and swaps it in when ready:
    /// [`PipelineSlot::generation`] then reaches the number this returns (a newer rebuild wins). With libraries,
    /// only the changed parts are built again; a program that needs no more of the running layout is built into it.
    /// The replaced pipelines live until [`retire_replaced`](Self::retire_replaced).
    ///
    /// # Errors
    /// - [`VulkanError::RebuildIncompatible`] (the slot keeps its pipeline): the new shaders need what the running
    ///   layout lacks, other vertex inputs, or stages no longer agree on what one hands the next.
    /// - Otherwise as [`get_program_pipeline`](Self::get_program_pipeline), except failing Vulkan calls on the
    ///   worker, which [`PipelineSlot::rebuild_failure`] reports.
    ///
    /// # Safety
    /// As [`get_program_pipeline`](Self::get_program_pipeline) for `program`; `slot` comes from this manager.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # use smolv_runtime::reflect::Reflection;
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager, slot: &std::sync::Arc<smolv_runtime::vulkan::PipelineSlot>, vertex_spirv: &[u32], new_fragment_spirv: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::{GraphicsProgram, Stage};
    /// let (v, f) = (Reflection::from_spirv(vertex_spirv)?, Reflection::from_spirv(new_fragment_spirv)?);
    /// let program = GraphicsProgram::new(
    ///     Stage { spirv: vertex_spirv, reflection: &v, specialization: &[] },
    ///     Stage { spirv: new_fragment_spirv, reflection: &f, specialization: &[] },
    /// );
    /// // SAFETY: valid SPIR-V described by its reflection; `slot` is this manager's.
    /// match unsafe { manager.rebuild(slot, &program) } {
    ///     Ok(target) => println!("rebuild {target} is on its way; draw with slot.current() meanwhile"),
    ///     Err(why) => eprintln!("kept the old pipeline: {why}"),
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn rebuild(&self, slot: &Arc<PipelineSlot>, program: &GraphicsProgram<'_>) -> Result<u64, VulkanError> {
        let (old_key, graphics) = {
            let state = lock(&slot.state);
            (state.key.clone(), state.graphics.clone())
        };
        self.check_graphics(program, &graphics)?;
        let old_stages = old_key.stages();
        self.check_interfaces(program, &old_stages)?;
        let fitted_reflections = self.fitted(program, &old_stages);
        let fitted = with_reflections(program, &fitted_reflections);
        let layout = self.graphics_program_layout(&fitted)?;
        let key = self.pipeline_key(&fitted, &graphics, &layout)?;
        if layout.pipeline_layout != slot.layout() {
            let what = "its descriptor bindings or push constants";
            return Err(self.incompatible_stages(&program.stages(), &old_stages, what));
        }
        if key.vertex_input != old_key.vertex_input {
            return Err(self.incompatible_stages(&program.stages(), &old_stages[..1], "its vertex inputs"));
        }
        let stages = fitted
            .stages()
            .into_iter()
            .zip(key.codes())
            .map(|((flags, stage), code_id)| self.libraries.owned_code(flags, code_id, stage))
            .collect::<Result<_, _>>()?;
        let libraries = self.uses_libraries().then(|| key.libraries().map(|library| self.libraries.get(&library)));
        let request = lock(&slot.state).rebuilds.request();
        let job = GraphicsRebuild {
            slot: Arc::clone(slot),
            request,
            key,
            stages,
            libraries,
            shared: Arc::clone(&self.libraries.libraries),
            slots: Arc::clone(&self.slots),
            retired: Arc::clone(&self.retired),
        };
        self.workers.submit(Job::Rebuild(Box::new(job)));
        Ok(request)
    }

    /// As [`rebuild`](Self::rebuild), for a compute `slot` from `stage`: [`ComputeSlot::generation`] then reaches
    /// the number this returns.
    ///
    /// # Errors
    /// [`VulkanError::RebuildIncompatible`] when the new shader needs another pipeline layout; otherwise as
    /// [`request_compute`](Self::request_compute).
    ///
    /// # Safety
    /// As [`get_compute`](Self::get_compute) for `stage`; `slot` comes from this manager.
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager, slot: &std::sync::Arc<smolv_runtime::vulkan::ComputeSlot>, stage: &smolv_runtime::vulkan::Stage<'_>) -> Result<(), Box<dyn std::error::Error>> {
    /// // SAFETY: valid SPIR-V described by its reflection; `slot` is this manager's.
    /// let target = unsafe { manager.rebuild_compute(slot, stage)? };
    /// // each frame: bind slot.pipeline(), the new one once slot.generation() >= target
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn rebuild_compute(&self, slot: &Arc<ComputeSlot>, stage: &Stage<'_>) -> Result<u64, VulkanError> {
        check_stage(vk::ShaderStageFlags::COMPUTE, stage, &self.options)?;
        let key = self.libraries.stage_key(stage)?;
        let old_key = lock(&self.compute).key_of(slot);
        let layout = self.compute_layout(stage)?.pipeline_layout;
        if layout != slot.layout() {
            let old: Vec<&StageKey> = old_key.iter().collect();
            let program_stage = [(vk::ShaderStageFlags::COMPUTE, stage)];
            return Err(self.incompatible_stages(&program_stage, &old, "its descriptor bindings or push constants"));
        }
        let job =
            ComputeJob { stage: self.libraries.owned_code(vk::ShaderStageFlags::COMPUTE, key.code, stage)?, layout };
        // Swapping into a slot still being filled would race its creation.
        let _ = slot.wait();
        let request = lock(&slot.rebuilds).request();
        let job = ComputeRebuild {
            slot: Arc::clone(slot),
            request,
            key,
            job,
            compute: Arc::clone(&self.compute),
            retired: Arc::clone(&self.retired),
        };
        self.workers.submit(Job::RebuildCompute(job));
        Ok(request)
    }

    /// Destroys the pipelines that rebuilds have replaced so far, and returns how many.
    ///
    /// # Safety
    /// No command buffer that bound a pipeline of a rebuilt slot before this call is still pending or recording
    /// (e.g. call it after waiting for the fences of every frame in flight).
    ///
    /// ```no_run
    /// # fn example(manager: &smolv_runtime::vulkan::PipelineManager) {
    /// // Each frame, after waiting for the previous frames' fences:
    /// // SAFETY: no earlier command buffer is pending any more.
    /// let destroyed = unsafe { manager.retire_replaced() };
    /// # }
    /// ```
    pub unsafe fn retire_replaced(&self) -> usize {
        let replaced = std::mem::take(&mut *lock(&self.retired));
        for &pipeline in &replaced {
            // SAFETY: nothing holds these any more, and the caller says the GPU is done with them.
            unsafe { self.device.destroy_pipeline(pipeline, None) };
        }
        replaced.len()
    }

    /// Refuses stages that do not agree on what one hands the next, naming the one that changed (the reader if both).
    fn check_interfaces(&self, program: &GraphicsProgram<'_>, old: &[&StageKey]) -> Result<(), VulkanError> {
        let stages = program.stages();
        let interface = |stage: &Stage<'_>| {
            StageInterface::from_spirv(stage.spirv).map_err(|why| VulkanError::RebuildIncompatible {
                stage: stage.reflection.stage.name(),
                reason: format!("its inputs and outputs cannot be read ({why})"),
            })
        };
        let mut before = interface(stages[0].1)?;
        for (index, &(_, stage)) in stages.iter().enumerate().skip(1) {
            let after = interface(stage)?;
            if let Some(mismatch) = after.unmatched_input(&before) {
                let changed = |i: usize| {
                    let code = self.libraries.stage_key(stages[i].1).map(|key| key.code);
                    old.get(i).is_none_or(|old| code.is_ok_and(|code| code != old.code))
                };
                let stage = if changed(index) || !changed(index - 1) { mismatch.reader() } else { mismatch.writer() };
                return Err(VulkanError::RebuildIncompatible { stage: stage.name(), reason: mismatch.to_string() });
            }
            before = after;
        }
        Ok(())
    }

    /// The reflections to build `program` with: a stage that [`fits`] the running one (`old`) takes its bindings
    /// and push constants, so that it is built into the running layout.
    fn fitted(&self, program: &GraphicsProgram<'_>, old: &[&StageKey]) -> Vec<Reflection> {
        let stages = program.stages();
        stages
            .iter()
            .enumerate()
            .map(|(index, &(_, stage))| {
                let new = stage.reflection;
                let before = old.get(index).and_then(|key| self.libraries.reflection(key.reflection));
                match before {
                    Some(before) if stages.len() == old.len() && before.stage == new.stage && fits(new, &before) => {
                        let mut fitted = new.clone();
                        (fitted.bindings, fitted.push_constants) = (before.bindings, before.push_constants);
                        fitted
                    }
                    _ => new.clone(),
                }
            })
            .collect()
    }

    /// The error for a rebuild its pipeline cannot take, naming the first stage whose reflection changed, and how.
    fn incompatible_stages(
        &self,
        stages: &[(vk::ShaderStageFlags, &Stage<'_>)],
        old: &[&StageKey],
        what: &str,
    ) -> VulkanError {
        for (&(_, stage), old) in stages.iter().zip(old) {
            let Some(before) = self.libraries.reflection(old.reflection) else { continue };
            if let Some(change) = reflection_change(&before, stage.reflection) {
                return VulkanError::RebuildIncompatible { stage: stage.reflection.stage.name(), reason: change };
            }
        }
        let stage = stages.last().map_or("", |(_, s)| s.reflection.stage.name());
        VulkanError::RebuildIncompatible { stage, reason: format!("{what} changed") }
    }
}

/// Whether `new` needs no binding `old` lacked, and push constants inside the old ones.
fn fits(new: &Reflection, old: &Reflection) -> bool {
    let bindings = new.bindings.iter().all(|b| {
        old.bindings.iter().any(|o| (o.set, o.binding, o.kind, o.count) == (b.set, b.binding, b.kind, b.count))
    });
    let span = |r: &Reflection| {
        r.push_constants
            .iter()
            .map(|p| (p.offset, p.offset.saturating_add(p.size)))
            .reduce(|(start, end), (s, e)| (start.min(s), end.max(e)))
    };
    let push_constants = span(new)
        .is_none_or(|(start, end)| span(old).is_some_and(|(old_start, old_end)| old_start <= start && end <= old_end));
    bindings && push_constants
}

/// `program` with its stages' reflections taken from `reflections`.
fn with_reflections<'a>(program: &GraphicsProgram<'a>, reflections: &'a [Reflection]) -> GraphicsProgram<'a> {
    let mut next = reflections.iter();
    let mut take = |stage: &Stage<'a>| Stage { reflection: next.next().unwrap_or(stage.reflection), ..*stage };
    let vertex = take(&program.vertex);
    let tessellation = program.tessellation.map(|[control, evaluation]| [take(&control), take(&evaluation)]);
    let geometry = program.geometry.map(|geometry| take(&geometry));
    let fragment = take(&program.fragment);
    GraphicsProgram { vertex, tessellation, geometry, fragment }
}

/// What changed between two reflections that a layout or vertex input depends on, in words.
fn reflection_change(before: &Reflection, after: &Reflection) -> Option<String> {
    let describe = |r: &Reflection| -> Vec<(u32, u32, String, u32)> {
        let mut list: Vec<_> =
            r.bindings.iter().map(|b| (b.set, b.binding, format!("{:?}", b.kind), b.count)).collect();
        list.sort();
        list
    };
    let (old, new) = (describe(before), describe(after));
    if old != new {
        let listed = |verb: &str, of: &[(u32, u32, String, u32)], other: &[(u32, u32, String, u32)]| {
            let list: Vec<String> = of
                .iter()
                .filter(|b| !other.contains(b))
                .map(|(set, binding, kind, count)| format!("set {set} binding {binding} ({kind} x{count})"))
                .collect();
            (!list.is_empty()).then(|| format!("{verb} {}", list.join(", ")))
        };
        let parts: Vec<String> =
            [listed("adds", &new, &old), listed("drops", &old, &new)].into_iter().flatten().collect();
        return Some(format!("its descriptor bindings changed: it {}", parts.join(" and ")));
    }
    if before.push_constants != after.push_constants {
        return Some("its push constants changed".to_owned());
    }
    // Not by name: names are debug info, which a rebuilt module may have and the old one not.
    let inputs = |r: &Reflection| -> Vec<(u32, u32)> { r.inputs.iter().map(|v| (v.location, v.format)).collect() };
    if inputs(before) != inputs(after) {
        return Some("its inputs changed".to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::reflection_change;
    use crate::reflect::{InterfaceVariable, Reflection, ShaderStage};

    fn vertex(inputs: &[(u32, u32, &str)]) -> Reflection {
        let mut reflection = Reflection::new(ShaderStage::Vertex, "main");
        reflection.inputs = inputs
            .iter()
            .map(|&(location, format, name)| InterfaceVariable { location, format, name: name.to_owned() })
            .collect();
        reflection
    }

    #[test]
    fn names_dropped_by_stripping_are_no_change_but_a_format_is() {
        let named = vertex(&[(0, 106, "position"), (1, 103, "uv")]);
        let stripped = vertex(&[(0, 106, ""), (1, 103, "")]);
        assert_eq!(reflection_change(&stripped, &named), None);
        assert_eq!(reflection_change(&named, &stripped), None);
        let other_format = vertex(&[(0, 106, ""), (1, 106, "")]);
        assert_eq!(reflection_change(&stripped, &other_format).as_deref(), Some("its inputs changed"));
    }
}
