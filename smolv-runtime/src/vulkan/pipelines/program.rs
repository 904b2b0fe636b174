//! What a caller hands the manager: shader stages, grouped into programs.

use ash::vk;

use crate::reflect::Reflection;
use crate::vulkan::VulkanError;
use crate::vulkan::capabilities::{self, ShaderName};
use crate::vulkan::spirv_version::SpirvSupport;
use crate::vulkan::state::ExtraStages;
use smolv_codec::specialize::Value;

use super::options::PipelineOptions;

/// One shader stage of a program: SPIR-V, its reflection (which must describe it, see
/// [`PipelineManager::get_pipeline`](super::PipelineManager::get_pipeline)), and spec-constant values.
///
/// ```
/// use smolv_runtime::reflect::{Reflection, ShaderStage};
/// use smolv_runtime::specialize::Value;
/// use smolv_runtime::vulkan::Stage;
/// # let fragment_spirv: Vec<u32> = Vec::new();
/// // Usually `Reflection::from_spirv(&fragment_spirv)?`, or the embedded shader's.
/// let reflection = Reflection::new(ShaderStage::Fragment, "main");
/// // Spec constant 0 (say, the number of lights) set to 4 for this pipeline.
/// let fragment = Stage { spirv: &fragment_spirv, reflection: &reflection, specialization: &[(0, Value::U32(4))] };
/// assert_eq!(fragment.reflection.entry_point, "main");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Stage<'a> {
    /// SPIR-V words.
    pub spirv: &'a [u32],
    /// Its reflection (stage, entry point, bindings, push constants).
    pub reflection: &'a Reflection,
    /// Specialization constants, as `(constant id, value)`, each id once, written at their types' sizes (64-bit
    /// ones as [`Value::Bits`], or a narrower value that widens exactly).
    pub specialization: &'a [(u32, Value)],
}

/// The shader stages of one graphics pipeline: vertex and fragment, and tessellation and geometry (with the
/// [`DeviceFeatures`](crate::vulkan::DeviceFeatures)).
///
/// ```
/// use smolv_runtime::reflect::{Reflection, ShaderStage};
/// use smolv_runtime::vulkan::{GraphicsProgram, Stage};
/// # let (vertex_spirv, geometry_spirv, fragment_spirv) = (Vec::new(), Vec::new(), Vec::new());
/// let [vertex, geometry, fragment] =
///     [ShaderStage::Vertex, ShaderStage::Geometry, ShaderStage::Fragment].map(|s| Reflection::new(s, "main"));
/// let stage = |spirv, reflection| Stage { spirv, reflection, specialization: &[] };
/// let program = GraphicsProgram {
///     geometry: Some(stage(&geometry_spirv, &geometry)),
///     ..GraphicsProgram::new(stage(&vertex_spirv, &vertex), stage(&fragment_spirv, &fragment))
/// };
/// assert!(program.tessellation.is_none());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct GraphicsProgram<'a> {
    /// The vertex stage.
    pub vertex: Stage<'a>,
    /// Tessellation control and evaluation stages (with a `PATCH_LIST` topology and
    /// [`GraphicsState::patch_control_points`](crate::vulkan::GraphicsState::patch_control_points)).
    pub tessellation: Option<[Stage<'a>; 2]>,
    /// A geometry stage.
    pub geometry: Option<Stage<'a>>,
    /// The fragment stage.
    pub fragment: Stage<'a>,
}

impl<'a> GraphicsProgram<'a> {
    /// A vertex + fragment program.
    ///
    /// ```
    /// use smolv_runtime::reflect::{Reflection, ShaderStage};
    /// use smolv_runtime::vulkan::{GraphicsProgram, Stage};
    /// # let (vertex_spirv, fragment_spirv) = (Vec::new(), Vec::new());
    /// let (v, f) = (Reflection::new(ShaderStage::Vertex, "main"), Reflection::new(ShaderStage::Fragment, "main"));
    /// let program = GraphicsProgram::new(
    ///     Stage { spirv: &vertex_spirv, reflection: &v, specialization: &[] },
    ///     Stage { spirv: &fragment_spirv, reflection: &f, specialization: &[] },
    /// );
    /// assert!(program.geometry.is_none());
    /// ```
    pub fn new(vertex: Stage<'a>, fragment: Stage<'a>) -> Self {
        Self { vertex, tessellation: None, geometry: None, fragment }
    }

    /// The pre-rasterization stages, in pipeline order.
    pub(super) fn pre_raster(&self) -> Vec<(vk::ShaderStageFlags, &Stage<'a>)> {
        let mut stages = vec![(vk::ShaderStageFlags::VERTEX, &self.vertex)];
        if let Some([control, evaluation]) = &self.tessellation {
            stages.push((vk::ShaderStageFlags::TESSELLATION_CONTROL, control));
            stages.push((vk::ShaderStageFlags::TESSELLATION_EVALUATION, evaluation));
        }
        if let Some(geometry) = &self.geometry {
            stages.push((vk::ShaderStageFlags::GEOMETRY, geometry));
        }
        stages
    }

    pub(super) fn stages(&self) -> Vec<(vk::ShaderStageFlags, &Stage<'a>)> {
        let mut stages = self.pre_raster();
        stages.push((vk::ShaderStageFlags::FRAGMENT, &self.fragment));
        stages
    }

    pub(super) fn extra_stages(&self) -> ExtraStages {
        ExtraStages { geometry: self.geometry.is_some(), tessellation: self.tessellation.is_some() }
    }
}

/// An error unless `stage` is the `expected` stage, of a SPIR-V version and capabilities the device takes.
pub(super) fn check_stage(
    expected: vk::ShaderStageFlags,
    stage: &Stage<'_>,
    options: &PipelineOptions,
) -> Result<(), VulkanError> {
    if stage.reflection.stage.vk_stage_flag() != expected.as_raw() {
        return Err(VulkanError::WrongStage {
            expected: format!("{expected:?}"),
            found: stage.reflection.stage.name(),
        });
    }
    SpirvSupport::new(options.api_version, options.khr_spirv_1_4).check(stage.spirv, stage.reflection)?;
    let name = ShaderName {
        stage: expected,
        stage_name: stage.reflection.stage.name(),
        entry_point: &stage.reflection.entry_point,
    };
    capabilities::check(stage.spirv, &name, &options.features, options.api_version)
}
