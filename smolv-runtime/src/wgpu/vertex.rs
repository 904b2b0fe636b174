//! wgpu vertex buffer layouts from the generated `VERTEX_LAYOUT`s.

use super::error::WgpuError;
use super::format::vertex_format;
use crate::interface::{VertexAttribute, VertexBufferLayout};

/// The vertex buffers of a pipeline, as wgpu takes them.
///
/// ```
/// use smolv_runtime::interface::{VertexAttribute, VertexBufferLayout};
/// use smolv_runtime::wgpu::VertexBuffers;
///
/// // What include_types! generates as sprite_vert::VERTEX_LAYOUT.
/// const SPRITE: VertexBufferLayout<'static> = VertexBufferLayout {
///     stride: 16,
///     per_instance: false,
///     attributes: &[
///         VertexAttribute { location: 0, format: 103, offset: 0 }, // R32G32_SFLOAT
///         VertexAttribute { location: 1, format: 103, offset: 8 },
///     ],
/// };
/// let buffers = VertexBuffers::new(&[SPRITE])?;
/// let layouts = buffers.layouts(); // wgpu::VertexState::buffers
/// let sprite = layouts[0].as_ref().expect("buffer slot 0");
/// assert_eq!(sprite.array_stride, 16);
/// assert_eq!(sprite.attributes[1].format, wgpu::VertexFormat::Float32x2);
/// # Ok::<(), smolv_runtime::wgpu::WgpuError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct VertexBuffers {
    buffers: Vec<(u64, wgpu::VertexStepMode, Vec<wgpu::VertexAttribute>)>,
}

impl VertexBuffers {
    /// One wgpu buffer per layout, in order ([`WgpuError::VertexFormat`] for a format wgpu lacks).
    ///
    /// ```
    /// let none = smolv_runtime::wgpu::VertexBuffers::new(&[])?;
    /// assert!(none.layouts().is_empty());
    /// # Ok::<(), smolv_runtime::wgpu::WgpuError>(())
    /// ```
    pub fn new(buffers: &[VertexBufferLayout<'_>]) -> Result<Self, WgpuError> {
        let attribute = |a: &VertexAttribute| -> Result<_, WgpuError> {
            let format =
                vertex_format(a.format).ok_or(WgpuError::VertexFormat { location: a.location, format: a.format });
            Ok(wgpu::VertexAttribute { format: format?, offset: u64::from(a.offset), shader_location: a.location })
        };
        let mut layouts = Vec::with_capacity(buffers.len());
        for buffer in buffers {
            let step = if buffer.per_instance { wgpu::VertexStepMode::Instance } else { wgpu::VertexStepMode::Vertex };
            let attributes = buffer.attributes.iter().map(attribute).collect::<Result<_, WgpuError>>()?;
            layouts.push((u64::from(buffer.stride), step, attributes));
        }
        Ok(Self { buffers: layouts })
    }

    /// The layouts, for `wgpu::VertexState::buffers` (every slot used).
    ///
    /// ```
    /// let buffers = smolv_runtime::wgpu::VertexBuffers::new(&[])?;
    /// let state_buffers: Vec<Option<wgpu::VertexBufferLayout<'_>>> = buffers.layouts();
    /// # let _ = state_buffers;
    /// # Ok::<(), smolv_runtime::wgpu::WgpuError>(())
    /// ```
    pub fn layouts(&self) -> Vec<Option<wgpu::VertexBufferLayout<'_>>> {
        self.buffers
            .iter()
            .map(|(stride, step_mode, attributes)| {
                Some(wgpu::VertexBufferLayout { array_stride: *stride, step_mode: *step_mode, attributes })
            })
            .collect()
    }
}
