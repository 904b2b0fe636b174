// tests/walkthrough/ash.rs: an ash program's pipeline, rebuilt on every edit
use std::error::Error;
use std::sync::Arc;

use smolv_runtime::Shader;
use smolv_runtime::reflect::Reflection;
use smolv_runtime::vulkan::{GraphicsProgram, GraphicsState, PipelineManager, PipelineSlot, Stage};

/// A shader's latest words (the build's, or the last edit hot reload
/// published), and what they say of their interface.
struct Decoded {
    spirv: Vec<u32>,
    reflection: Reflection,
}

impl Decoded {
    fn of(shader: &Shader) -> Result<Self, Box<dyn Error>> {
        let spirv = shader.decode()?;
        let reflection = Reflection::from_spirv(&spirv)?;
        Ok(Self { spirv, reflection })
    }

    fn stage(&self) -> Stage<'_> {
        Stage { spirv: &self.spirv, reflection: &self.reflection, specialization: &[] }
    }
}

/// A pipeline of two embedded shaders, and the versions it was built from.
pub struct Reloading {
    pub slot: Arc<PipelineSlot>,
    shaders: [&'static Shader; 2],
    built: [u64; 2],
}

impl Reloading {
    /// The first pipeline.
    ///
    /// # Safety
    /// As `PipelineManager::get_pipeline`.
    pub unsafe fn new(
        manager: &PipelineManager,
        shaders: [&'static Shader; 2],
        state: &GraphicsState,
    ) -> Result<Self, Box<dyn Error>> {
        let [vertex, fragment] = [Decoded::of(shaders[0])?, Decoded::of(shaders[1])?];
        // SAFETY: the caller's.
        let slot = unsafe { manager.get_pipeline(&vertex.stage(), &fragment.stage(), state)? };
        Ok(Self { slot, shaders, built: shaders.map(Shader::version) })
    }

    /// Once a frame: when hot reload published either shader, rebuilds
    /// the pipeline in the background. `Some(Ok(generation))`: the slot
    /// draws the new pipeline once `slot.generation()` reaches it.
    /// `Some(Err(why))`: the edit was refused, the old pipeline stays, and
    /// the game plays on.
    ///
    /// # Safety
    /// As `PipelineManager::rebuild`; `self.slot` is `manager`'s.
    pub unsafe fn update(&mut self, manager: &PipelineManager) -> Option<Result<u64, String>> {
        let versions = self.shaders.map(Shader::version);
        if versions == self.built {
            return None;
        }
        self.built = versions;
        // One edit's shaders are published together: decode both now.
        let rebuilt = (|| -> Result<u64, Box<dyn Error>> {
            let [vertex, fragment] = [Decoded::of(self.shaders[0])?, Decoded::of(self.shaders[1])?];
            let program = GraphicsProgram::new(vertex.stage(), fragment.stage());
            // SAFETY: the caller's.
            Ok(unsafe { manager.rebuild(&self.slot, &program)? })
        })();
        let names = self.shaders.map(Shader::name).join(", ");
        Some(rebuilt.map_err(|why| format!("kept the previous {names}: {why}")))
    }
}
