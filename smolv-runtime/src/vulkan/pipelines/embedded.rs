//! A stage made from a [`Shader`], reflected from its own words.

use crate::reflect::Reflection;
use crate::shader::Shader;
use crate::shader_error::ShaderError;
use smolv_codec::specialize::Value;

use super::program::Stage;

/// A shader ready for the [`PipelineManager`](super::PipelineManager): its decoded SPIR-V and the [`Reflection`]
/// smolv made of those words, so that unlike a [`Stage`] by hand it needs no promise that the two match.
///
/// ```
/// use smolv_runtime::vulkan::EmbeddedStage;
/// # use smolv_runtime::container::{BundleBuilder, ContainerBuilder};
/// # use smolv_runtime::reflect::{Reflection, ShaderStage};
/// # let spirv = smolv_runtime::doc_example_module();
/// # let container = ContainerBuilder::new(&spirv, &Reflection::new(ShaderStage::Compute, "main")).build()?;
/// # let set = smolv_runtime::ShaderSet::from_vec(BundleBuilder::new().add("blur.comp", container).build()?)?;
/// // Usually `static BLUR: &Shader = smolv_runtime::include_shader!("blur.comp");`
/// let blur = EmbeddedStage::from_shader(set.get("blur.comp")?)?;
/// assert_eq!(blur.reflection().stage, ShaderStage::Compute);
/// assert_eq!(blur.spirv(), spirv);
/// let stage = blur.stage(); // for get_compute, get_pipeline, GraphicsProgram
/// assert!(stage.specialization.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct EmbeddedStage<'a> {
    spirv: &'a [u32],
    reflection: Reflection,
}

impl<'a> EmbeddedStage<'a> {
    /// The stage of `shader`: decoded once ([`Shader::decode_cached`]) and reflected.
    ///
    /// # Errors
    /// - The shader does not decode.
    /// - smolv cannot reflect its words (not a SPIR-V module, or a WGSL-only build for wgpu).
    pub fn from_shader(shader: &'a Shader) -> Result<Self, ShaderError> {
        let spirv = shader.decode_cached()?;
        let reflection = Reflection::from_spirv(spirv)?;
        Ok(Self { spirv, reflection })
    }

    /// The [`Stage`] to hand the manager, with no spec-constant values.
    pub fn stage(&self) -> Stage<'_> {
        self.specialized(&[])
    }

    /// The [`Stage`] to hand the manager, with spec-constant values (see [`Stage::specialization`]).
    pub fn specialized<'s>(&'s self, values: &'s [(u32, Value)]) -> Stage<'s> {
        Stage { spirv: self.spirv, reflection: &self.reflection, specialization: values }
    }

    /// The SPIR-V words.
    pub fn spirv(&self) -> &'a [u32] {
        self.spirv
    }

    /// The reflection smolv made of [`spirv`](Self::spirv).
    pub fn reflection(&self) -> &Reflection {
        &self.reflection
    }
}
