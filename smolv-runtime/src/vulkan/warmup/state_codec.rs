//! A [`GraphicsState`] described once, field by field: written in that order
//! and read back in it, every value checked against what Vulkan takes.

use ash::vk;

use super::codec::{Reader, Writer};
use super::error::RecordingError;
use crate::vulkan::state::{
    AttachmentBlend, BlendEquation, DepthBias, DepthTest, GraphicsState, Multisample, StencilFace, StencilState,
    VertexInput,
};

/// Most items a recorded state's list may hold (far above device limits).
const MAX_LIST: usize = 64;

trait Put {
    fn put(&self, w: &mut Writer);
}

/// A value as [`Put`] wrote it; `what` names one that Vulkan does not take.
trait Get: Sized {
    fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self, RecordingError>;
}

/// Values written and read as they are, by the codec's method of their name.
macro_rules! plain {
    ($($ty:ident),*) => {$(
        impl Put for $ty {
            fn put(&self, w: &mut Writer) {
                w.$ty(*self);
            }
        }
        impl Get for $ty {
            fn get(r: &mut Reader<'_>, _: &'static str) -> Result<Self, RecordingError> {
                r.$ty()
            }
        }
    )*};
}

plain!(u32, bool);

/// Values as the raw `$int` that `$to` and `$from` convert, refused where `$valid` is false.
macro_rules! raw {
    ($($int:ident $to:ident $from:ident, |$v:ident| $valid:expr => $($ty:ty),*;)*) => {$($(
        impl Put for $ty {
            fn put(&self, w: &mut Writer) {
                w.$int(self.$to());
            }
        }
        impl Get for $ty {
            fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self, RecordingError> {
                let offset = r.offset();
                let $v = Self::$from(r.$int()?);
                if $valid { Ok($v) } else { Err(RecordingError::Invalid { offset, what }) }
            }
        }
    )*)*};
}

raw! {
    // ash's `Debug` spells an enum value it knows by its Vulkan name, any other as a number.
    i32 as_raw from_raw, |v| !format!("{v:?}").starts_with(|c: char| c.is_ascii_digit() || c == '-') =>
        vk::PrimitiveTopology, vk::PolygonMode, vk::FrontFace, vk::VertexInputRate, vk::Format, vk::CompareOp,
        vk::StencilOp, vk::BlendFactor, vk::BlendOp, vk::LogicOp, vk::DynamicState;
    u32 as_raw from_raw, |v| v.as_raw() & !0b11 == 0 => vk::CullModeFlags;
    u32 as_raw from_raw, |v| v.as_raw() & !0xF == 0 => vk::ColorComponentFlags;
    // Vulkan takes exactly one sample count.
    u32 as_raw from_raw, |v| v.as_raw() & !0x7F == 0 && v.as_raw().is_power_of_two() => vk::SampleCountFlags;
    u32 to_bits from_bits, |v| v.is_finite() => f32;
}

impl<T: Put> Put for Option<T> {
    fn put(&self, w: &mut Writer) {
        w.option(self.as_ref(), |w, value| value.put(w));
    }
}

impl<T: Get> Get for Option<T> {
    fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self, RecordingError> {
        r.option(|r| T::get(r, what))
    }
}

impl<T: Put, const N: usize> Put for [T; N] {
    fn put(&self, w: &mut Writer) {
        self.iter().for_each(|value| value.put(w));
    }
}

impl<const N: usize> Get for [f32; N] {
    fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self, RecordingError> {
        let mut values = [0.0; N];
        for value in &mut values {
            *value = f32::get(r, what)?;
        }
        Ok(values)
    }
}

impl<T: Put> Put for Vec<T> {
    fn put(&self, w: &mut Writer) {
        w.count(self.len());
        self.iter().for_each(|value| value.put(w));
    }
}

/// A count of at most [`MAX_LIST`] (`count`, in the error), then that many items.
fn list<T: Get>(r: &mut Reader<'_>, count: &'static str, what: &'static str) -> Result<Vec<T>, RecordingError> {
    let count = r.count(MAX_LIST, count)?;
    (0..count).map(|_| T::get(r, what)).collect()
}

/// Each struct's fields in the order they are written and read, each with
/// what a bad value is (a list's: `[what its count is, what a bad item is]`).
macro_rules! fields {
    ($($ty:ty { $($field:ident $(: $what:tt)?),* $(,)? })*) => {$(
        impl Put for $ty {
            fn put(&self, w: &mut Writer) {
                $(self.$field.put(w);)*
            }
        }
        impl Get for $ty {
            fn get(r: &mut Reader<'_>, _: &'static str) -> Result<Self, RecordingError> {
                // A struct expression evaluates its fields in order.
                Ok(Self { $($field: fields!(@get r $($what)?)),* })
            }
        }
    )*};
    (@get $r:ident) => { Get::get($r, "")? };
    (@get $r:ident $what:literal) => { Get::get($r, $what)? };
    (@get $r:ident [$count:literal, $what:literal]) => { list($r, $count, $what)? };
}

fields! {
    vk::VertexInputBindingDescription { binding, stride, input_rate: "an unknown vertex input rate" }
    vk::VertexInputAttributeDescription { location, binding, format: "an unknown vertex format", offset }
    DepthBias {
        constant_factor: "a depth bias that is not finite",
        clamp: "a depth bias clamp that is not finite",
        slope_factor: "a depth bias slope that is not finite",
    }
    DepthTest { write, compare_op: "an unknown compare op" }
    StencilFace {
        fail_op: "an unknown stencil op",
        pass_op: "an unknown stencil op",
        depth_fail_op: "an unknown stencil op",
        compare_op: "an unknown compare op",
        compare_mask,
        write_mask,
        reference,
    }
    StencilState { front, back }
    Multisample {
        samples: "a sample count of no bit, several or unknown ones",
        sample_shading: "a sample shading fraction that is not finite",
        sample_mask,
        alpha_to_coverage,
        alpha_to_one,
    }
    BlendEquation {
        src_color: "an unknown blend factor",
        dst_color: "an unknown blend factor",
        color_op: "an unknown blend op",
        src_alpha: "an unknown blend factor",
        dst_alpha: "an unknown blend factor",
        alpha_op: "an unknown blend op",
    }
    AttachmentBlend { equation, write_mask: "unknown colour write bits" }
    GraphicsState {
        vertex_input,
        topology: "an unknown topology",
        primitive_restart,
        polygon_mode: "an unknown polygon mode",
        cull_mode: "unknown cull mode bits",
        front_face: "an unknown front face",
        line_width: "a line width that is not finite",
        depth_clamp,
        rasterizer_discard,
        depth_bias,
        patch_control_points,
        depth_test,
        depth_bounds: "a depth bound that is not finite",
        stencil,
        multisample,
        color_formats: ["colour attachments", "an unknown colour format"],
        depth_format: "an unknown depth format",
        stencil_format: "an unknown stencil format",
        blend: ["blend attachments", ""],
        blend_constants: "a blend constant that is not finite",
        logic_op: "an unknown logic op",
        dynamic_states: ["dynamic states", "an unknown dynamic state"],
    }
}

/// A kind byte (0: from reflection, 1: explicit), then the explicit lists.
impl Put for VertexInput {
    fn put(&self, w: &mut Writer) {
        match self {
            Self::FromReflection => w.u8(0),
            Self::Explicit { bindings, attributes } => {
                w.u8(1);
                bindings.put(w);
                attributes.put(w);
            }
        }
    }
}

impl Get for VertexInput {
    fn get(r: &mut Reader<'_>, _: &'static str) -> Result<Self, RecordingError> {
        let offset = r.offset();
        match r.u8()? {
            0 => Ok(Self::FromReflection),
            1 => Ok(Self::Explicit {
                bindings: list(r, "vertex bindings", "")?,
                attributes: list(r, "vertex attributes", "")?,
            }),
            _ => Err(RecordingError::Invalid { offset, what: "an unknown kind of vertex input" }),
        }
    }
}

pub(super) fn write(w: &mut Writer, state: &GraphicsState) {
    state.put(w);
}

pub(super) fn read(r: &mut Reader<'_>) -> Result<GraphicsState, RecordingError> {
    let state = GraphicsState::get(r, "")?;
    let dynamic = &state.dynamic_states;
    if dynamic.iter().enumerate().any(|(i, d)| dynamic[..i].contains(d)) {
        return Err(RecordingError::Invalid { offset: r.offset(), what: "a dynamic state listed twice" });
    }
    Ok(state)
}
