//! A [`GraphicsState`] written field by field, and read back with every
//! enum checked against the values ash knows, so that a hostile recording
//! cannot hand the driver a value outside Vulkan's.

use ash::vk;

use super::codec::{Reader, Writer};
use super::error::RecordingError;
use crate::vulkan::state::{
    AttachmentBlend, BlendEquation, DepthBias, DepthTest, GraphicsState, Multisample, StencilFace, StencilState,
    VertexInput,
};

/// Most colour attachments, vertex bindings, attributes or dynamic states
/// a recorded state may list (far above any device's limits).
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
    option(w, state.depth_bias.as_ref(), |w, b| {
        w.f32(b.constant_factor);
        w.f32(b.clamp);
        w.f32(b.slope_factor);
    });
    w.u32(state.patch_control_points);
    option(w, state.depth_test.as_ref(), |w, d| {
        w.bool(d.write);
        w.i32(d.compare_op.as_raw());
    });
    option(w, state.depth_bounds.as_ref(), |w, [min, max]| {
        w.f32(*min);
        w.f32(*max);
    });
    option(w, state.stencil.as_ref(), |w, s| {
        for face in [&s.front, &s.back] {
            w.i32(face.fail_op.as_raw());
            w.i32(face.pass_op.as_raw());
            w.i32(face.depth_fail_op.as_raw());
            w.i32(face.compare_op.as_raw());
            w.u32(face.compare_mask);
            w.u32(face.write_mask);
            w.u32(face.reference);
        }
    });
    let m = &state.multisample;
    w.u32(m.samples.as_raw());
    option(w, m.sample_shading.as_ref(), |w, s| w.f32(*s));
    w.u32(m.sample_mask);
    w.bool(m.alpha_to_coverage);
    w.bool(m.alpha_to_one);
    w.count(state.color_formats.len());
    state.color_formats.iter().for_each(|f| w.i32(f.as_raw()));
    w.i32(state.depth_format.as_raw());
    w.i32(state.stencil_format.as_raw());
    w.count(state.blend.len());
    for blend in &state.blend {
        option(w, blend.equation.as_ref(), |w, e| {
            for factor in [e.src_color, e.dst_color] {
                w.i32(factor.as_raw());
            }
            w.i32(e.color_op.as_raw());
            for factor in [e.src_alpha, e.dst_alpha] {
                w.i32(factor.as_raw());
            }
            w.i32(e.alpha_op.as_raw());
        });
        w.u32(blend.write_mask.as_raw());
    }
    state.blend_constants.iter().for_each(|&c| w.f32(c));
    option(w, state.logic_op.as_ref(), |w, op| w.i32(op.as_raw()));
    w.count(state.dynamic_states.len());
    state.dynamic_states.iter().for_each(|d| w.i32(d.as_raw()));
}

fn option<T>(w: &mut Writer, value: Option<&T>, write: impl FnOnce(&mut Writer, &T)) {
    match value {
        None => w.u8(0),
        Some(value) => {
            w.u8(1);
            write(w, value);
        }
    }
}

fn read_option<T>(
    r: &mut Reader<'_>,
    read: impl FnOnce(&mut Reader<'_>) -> Result<T, RecordingError>,
) -> Result<Option<T>, RecordingError> {
    if r.bool()? { read(r).map(Some) } else { Ok(None) }
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
            let count = r.count(MAX_LIST, "vertex bindings")?;
            let mut bindings = Vec::with_capacity(count);
            for _ in 0..count {
                bindings.push(vk::VertexInputBindingDescription {
                    binding: r.u32()?,
                    stride: r.u32()?,
                    input_rate: read_enum!(r, vk::VertexInputRate, "an unknown vertex input rate"),
                });
            }
            let count = r.count(MAX_LIST, "vertex attributes")?;
            let mut attributes = Vec::with_capacity(count);
            for _ in 0..count {
                attributes.push(vk::VertexInputAttributeDescription {
                    location: r.u32()?,
                    binding: r.u32()?,
                    format: read_enum!(r, vk::Format, "an unknown vertex format"),
                    offset: r.u32()?,
                });
            }
            VertexInput::Explicit { bindings, attributes }
        }
        _ => return Err(RecordingError::Invalid { offset, what: "an unknown kind of vertex input" }),
    };
    let topology = read_enum!(r, vk::PrimitiveTopology, "an unknown topology");
    let primitive_restart = r.bool()?;
    let polygon_mode = read_enum!(r, vk::PolygonMode, "an unknown polygon mode");
    let cull_mode = vk::CullModeFlags::from_raw(flags(r, 0b11, "unknown cull mode bits")?);
    let front_face = read_enum!(r, vk::FrontFace, "an unknown front face");
    let line_width = finite(r, "a line width that is not finite")?;
    let depth_clamp = r.bool()?;
    let rasterizer_discard = r.bool()?;
    let depth_bias = read_option(r, |r| {
        Ok(DepthBias {
            constant_factor: finite(r, "a depth bias that is not finite")?,
            clamp: finite(r, "a depth bias clamp that is not finite")?,
            slope_factor: finite(r, "a depth bias slope that is not finite")?,
        })
    })?;
    let patch_control_points = r.u32()?;
    let depth_test = read_option(r, |r| {
        Ok(DepthTest { write: r.bool()?, compare_op: read_enum!(r, vk::CompareOp, "an unknown compare op") })
    })?;
    let depth_bounds =
        read_option(r, |r| Ok([finite(r, "a depth bound that is not finite")?, finite(r, "a depth bound")?]))?;
    let stencil = read_option(r, |r| {
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
        let front = face()?;
        let back = face()?;
        Ok(StencilState { front, back })
    })?;
    let samples = flags(r, 0x7F, "unknown sample count bits")?;
    if !samples.is_power_of_two() {
        // Vulkan takes exactly one sample count.
        return Err(RecordingError::Invalid { offset: r.offset(), what: "a sample count of no bit or several" });
    }
    let multisample = Multisample {
        samples: vk::SampleCountFlags::from_raw(samples),
        sample_shading: read_option(r, |r| finite(r, "a sample shading fraction that is not finite"))?,
        sample_mask: r.u32()?,
        alpha_to_coverage: r.bool()?,
        alpha_to_one: r.bool()?,
    };
    let count = r.count(MAX_LIST, "colour attachments")?;
    let mut color_formats = Vec::with_capacity(count);
    for _ in 0..count {
        color_formats.push(read_enum!(r, vk::Format, "an unknown colour format"));
    }
    let depth_format = read_enum!(r, vk::Format, "an unknown depth format");
    let stencil_format = read_enum!(r, vk::Format, "an unknown stencil format");
    let count = r.count(MAX_LIST, "blend attachments")?;
    let mut blend = Vec::with_capacity(count);
    for _ in 0..count {
        let equation = read_option(r, |r| {
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
        blend.push(AttachmentBlend { equation, write_mask });
    }
    let mut blend_constants = [0.0; 4];
    for constant in &mut blend_constants {
        *constant = finite(r, "a blend constant that is not finite")?;
    }
    let logic_op = read_option(r, |r| Ok(read_enum!(r, vk::LogicOp, "an unknown logic op")))?;
    let count = r.count(MAX_LIST, "dynamic states")?;
    let mut dynamic_states = Vec::with_capacity(count);
    for _ in 0..count {
        let state = read_enum!(r, vk::DynamicState, "an unknown dynamic state");
        if dynamic_states.contains(&state) {
            return Err(RecordingError::Invalid { offset: r.offset(), what: "a dynamic state listed twice" });
        }
        dynamic_states.push(state);
    }
    Ok(GraphicsState {
        vertex_input,
        topology,
        primitive_restart,
        polygon_mode,
        cull_mode,
        front_face,
        line_width,
        depth_clamp,
        rasterizer_discard,
        depth_bias,
        patch_control_points,
        depth_test,
        depth_bounds,
        stencil,
        multisample,
        color_formats,
        depth_format,
        stencil_format,
        blend,
        blend_constants,
        logic_op,
        dynamic_states,
    })
}
