//! A [`GraphicsState`] written field by field, and read back with every
//! enum checked against the values ash knows.

use ash::vk;

use super::codec::{Reader, Writer};
use super::error::RecordingError;
use crate::vulkan::state::{
    AttachmentBlend, BlendEquation, DepthBias, DepthTest, GraphicsState, Multisample, StencilFace, StencilState,
    VertexInput,
};

/// Most items a recorded state's list may hold (far above device limits).
const MAX_LIST: usize = 64;

pub(super) fn write(w: &mut Writer, state: &GraphicsState) {
    match &state.vertex_input {
        VertexInput::FromReflection => w.u8(0),
        VertexInput::Explicit { bindings, attributes } => {
            w.u8(1);
            w.count(bindings.len());
            for b in bindings {
                w.u32(b.binding);
                w.u32(b.stride);
                w.i32(b.input_rate.as_raw());
            }
            w.count(attributes.len());
            for a in attributes {
                w.u32(a.location);
                w.u32(a.binding);
                w.i32(a.format.as_raw());
                w.u32(a.offset);
            }
        }
    }
    w.i32(state.topology.as_raw());
    w.bool(state.primitive_restart);
    w.i32(state.polygon_mode.as_raw());
    w.u32(state.cull_mode.as_raw());
    w.i32(state.front_face.as_raw());
    w.f32(state.line_width);
    w.bool(state.depth_clamp);
    w.bool(state.rasterizer_discard);
    w.option(state.depth_bias.as_ref(), |w, b| {
        w.f32(b.constant_factor);
        w.f32(b.clamp);
        w.f32(b.slope_factor);
    });
    w.u32(state.patch_control_points);
    w.option(state.depth_test.as_ref(), |w, d| {
        w.bool(d.write);
        w.i32(d.compare_op.as_raw());
    });
    w.option(state.depth_bounds.as_ref(), |w, [min, max]| {
        w.f32(*min);
        w.f32(*max);
    });
    w.option(state.stencil.as_ref(), |w, s| {
        for f in [&s.front, &s.back] {
            [f.fail_op, f.pass_op, f.depth_fail_op].iter().for_each(|op| w.i32(op.as_raw()));
            w.i32(f.compare_op.as_raw());
            [f.compare_mask, f.write_mask, f.reference].iter().for_each(|&bits| w.u32(bits));
        }
    });
    let m = &state.multisample;
    w.u32(m.samples.as_raw());
    w.option(m.sample_shading.as_ref(), |w, s| w.f32(*s));
    w.u32(m.sample_mask);
    w.bool(m.alpha_to_coverage);
    w.bool(m.alpha_to_one);
    w.count(state.color_formats.len());
    state.color_formats.iter().for_each(|f| w.i32(f.as_raw()));
    w.i32(state.depth_format.as_raw());
    w.i32(state.stencil_format.as_raw());
    w.count(state.blend.len());
    for blend in &state.blend {
        w.option(blend.equation.as_ref(), |w, e| {
            let raw = [e.src_color.as_raw(), e.dst_color.as_raw(), e.color_op.as_raw()];
            let alpha = [e.src_alpha.as_raw(), e.dst_alpha.as_raw(), e.alpha_op.as_raw()];
            raw.into_iter().chain(alpha).for_each(|value| w.i32(value));
        });
        w.u32(blend.write_mask.as_raw());
    }
    state.blend_constants.iter().for_each(|&c| w.f32(c));
    w.option(state.logic_op.as_ref(), |w, op| w.i32(op.as_raw()));
    w.count(state.dynamic_states.len());
    state.dynamic_states.iter().for_each(|d| w.i32(d.as_raw()));
}

/// A raw enum value ash names: ash's `Debug` spells a value it knows by
/// its Vulkan name and any other as a number.
fn known<T: std::fmt::Debug>(r: &Reader<'_>, value: T, what: &'static str) -> Result<T, RecordingError> {
    let name = format!("{value:?}");
    if name.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return Err(RecordingError::Invalid { offset: r.offset(), what });
    }
    Ok(value)
}

macro_rules! read_enum {
    ($r:expr, $ty:ty, $what:literal) => {{
        let raw = $r.i32()?;
        known($r, <$ty>::from_raw(raw), $what)?
    }};
}

/// Flags with no bit outside `all`.
fn flags(r: &mut Reader<'_>, all: u32, what: &'static str) -> Result<u32, RecordingError> {
    let offset = r.offset();
    let raw = r.u32()?;
    if raw & !all != 0 {
        return Err(RecordingError::Invalid { offset, what });
    }
    Ok(raw)
}

/// A count of at most [`MAX_LIST`] (`what`, in the error), then that many
/// items as `read` reads them.
fn list<T>(
    r: &mut Reader<'_>,
    what: &'static str,
    mut read: impl FnMut(&mut Reader<'_>) -> Result<T, RecordingError>,
) -> Result<Vec<T>, RecordingError> {
    let count = r.count(MAX_LIST, what)?;
    (0..count).map(|_| read(r)).collect()
}

fn finite(r: &mut Reader<'_>, what: &'static str) -> Result<f32, RecordingError> {
    let offset = r.offset();
    let value = r.f32()?;
    if !value.is_finite() {
        return Err(RecordingError::Invalid { offset, what });
    }
    Ok(value)
}

pub(super) fn read(r: &mut Reader<'_>) -> Result<GraphicsState, RecordingError> {
    let offset = r.offset();
    let vertex_input = match r.u8()? {
        0 => VertexInput::FromReflection,
        1 => {
            let bindings = list(r, "vertex bindings", |r| {
                Ok(vk::VertexInputBindingDescription {
                    binding: r.u32()?,
                    stride: r.u32()?,
                    input_rate: read_enum!(r, vk::VertexInputRate, "an unknown vertex input rate"),
                })
            })?;
            let attributes = list(r, "vertex attributes", |r| {
                Ok(vk::VertexInputAttributeDescription {
                    location: r.u32()?,
                    binding: r.u32()?,
                    format: read_enum!(r, vk::Format, "an unknown vertex format"),
                    offset: r.u32()?,
                })
            })?;
            VertexInput::Explicit { bindings, attributes }
        }
        _ => return Err(RecordingError::Invalid { offset, what: "an unknown kind of vertex input" }),
    };
    // Read in the order written: a struct expression evaluates its fields in order.
    const BLEND: &str = "a blend constant that is not finite";
    let mut state = GraphicsState {
        vertex_input,
        topology: read_enum!(r, vk::PrimitiveTopology, "an unknown topology"),
        primitive_restart: r.bool()?,
        polygon_mode: read_enum!(r, vk::PolygonMode, "an unknown polygon mode"),
        cull_mode: vk::CullModeFlags::from_raw(flags(r, 0b11, "unknown cull mode bits")?),
        front_face: read_enum!(r, vk::FrontFace, "an unknown front face"),
        line_width: finite(r, "a line width that is not finite")?,
        depth_clamp: r.bool()?,
        rasterizer_discard: r.bool()?,
        depth_bias: r.option(|r| {
            Ok(DepthBias {
                constant_factor: finite(r, "a depth bias that is not finite")?,
                clamp: finite(r, "a depth bias clamp that is not finite")?,
                slope_factor: finite(r, "a depth bias slope that is not finite")?,
            })
        })?,
        patch_control_points: r.u32()?,
        depth_test: r.option(|r| {
            Ok(DepthTest { write: r.bool()?, compare_op: read_enum!(r, vk::CompareOp, "an unknown compare op") })
        })?,
        depth_bounds: r
            .option(|r| Ok([finite(r, "a depth bound that is not finite")?, finite(r, "a depth bound")?]))?,
        stencil: r.option(|r| {
            let mut face = || -> Result<StencilFace, RecordingError> {
                Ok(StencilFace {
                    fail_op: read_enum!(r, vk::StencilOp, "an unknown stencil op"),
                    pass_op: read_enum!(r, vk::StencilOp, "an unknown stencil op"),
                    depth_fail_op: read_enum!(r, vk::StencilOp, "an unknown stencil op"),
                    compare_op: read_enum!(r, vk::CompareOp, "an unknown compare op"),
                    compare_mask: r.u32()?,
                    write_mask: r.u32()?,
                    reference: r.u32()?,
                })
            };
            Ok(StencilState { front: face()?, back: face()? })
        })?,
        multisample: read_multisample(r)?,
        color_formats: list(r, "colour attachments", |r| Ok(read_enum!(r, vk::Format, "an unknown colour format")))?,
        depth_format: read_enum!(r, vk::Format, "an unknown depth format"),
        stencil_format: read_enum!(r, vk::Format, "an unknown stencil format"),
        blend: list(r, "blend attachments", |r| {
            let equation = r.option(|r| {
                Ok(BlendEquation {
                    src_color: read_enum!(r, vk::BlendFactor, "an unknown blend factor"),
                    dst_color: read_enum!(r, vk::BlendFactor, "an unknown blend factor"),
                    color_op: read_enum!(r, vk::BlendOp, "an unknown blend op"),
                    src_alpha: read_enum!(r, vk::BlendFactor, "an unknown blend factor"),
                    dst_alpha: read_enum!(r, vk::BlendFactor, "an unknown blend factor"),
                    alpha_op: read_enum!(r, vk::BlendOp, "an unknown blend op"),
                })
            })?;
            let write_mask = vk::ColorComponentFlags::from_raw(flags(r, 0xF, "unknown colour write bits")?);
            Ok(AttachmentBlend { equation, write_mask })
        })?,
        blend_constants: [finite(r, BLEND)?, finite(r, BLEND)?, finite(r, BLEND)?, finite(r, BLEND)?],
        logic_op: r.option(|r| Ok(read_enum!(r, vk::LogicOp, "an unknown logic op")))?,
        dynamic_states: Vec::new(),
    };
    for _ in 0..r.count(MAX_LIST, "dynamic states")? {
        let dynamic = read_enum!(r, vk::DynamicState, "an unknown dynamic state");
        if state.dynamic_states.contains(&dynamic) {
            return Err(RecordingError::Invalid { offset: r.offset(), what: "a dynamic state listed twice" });
        }
        state.dynamic_states.push(dynamic);
    }
    Ok(state)
}

fn read_multisample(r: &mut Reader<'_>) -> Result<Multisample, RecordingError> {
    let samples = flags(r, 0x7F, "unknown sample count bits")?;
    if !samples.is_power_of_two() {
        // Vulkan takes exactly one sample count.
        return Err(RecordingError::Invalid { offset: r.offset(), what: "a sample count of no bit or several" });
    }
    Ok(Multisample {
        samples: vk::SampleCountFlags::from_raw(samples),
        sample_shading: r.option(|r| finite(r, "a sample shading fraction that is not finite"))?,
        sample_mask: r.u32()?,
        alpha_to_coverage: r.bool()?,
        alpha_to_one: r.bool()?,
    })
}
