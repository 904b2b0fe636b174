//! A recording's stages and [`GraphicsState`]s described once, field by field: written in that order
//! and read back in it, every value checked against what Vulkan takes.

use ash::vk;

use super::codec::{Reader, Result, Writer};
use super::error::RecordingError;
use super::stage::{MAX_CONSTANTS, MAX_NAME, RecordedStage};
use crate::vulkan::library::value_key;
use crate::vulkan::state::{
    AttachmentBlend, BlendEquation, DepthBias, DepthTest, GraphicsState, Multisample, StencilFace, StencilState,
    VertexInput,
};
use smolv_codec::specialize::Value;

/// Most items a recorded state's list may hold (far above device limits).
const MAX_LIST: usize = 64;

pub(super) trait Put {
    fn put(&self, w: &mut Writer);
}

/// A value as [`Put`] wrote it; `what` names one that Vulkan does not take.
pub(super) trait Get: Sized {
    fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self>;
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
            fn get(r: &mut Reader<'_>, _: &'static str) -> Result<Self> {
                r.$ty()
            }
        }
    )*};
}

plain!(u8, u32, bool);

/// Values as the raw `$int` that `$to` and `$from` convert, refused where `$valid` is false.
macro_rules! raw {
    ($($int:ident $to:ident $from:ident, |$v:ident| $valid:expr => $($ty:ty),*;)*) => {$($(
        impl Put for $ty {
            fn put(&self, w: &mut Writer) {
                w.$int(self.$to());
            }
        }
        impl Get for $ty {
            fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
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
    // One of vertex … fragment, or compute.
    u32 as_raw from_raw, |v| {
        let known = vk::ShaderStageFlags::ALL_GRAPHICS | vk::ShaderStageFlags::COMPUTE;
        v.as_raw().count_ones() == 1 && known.contains(v)
    } => vk::ShaderStageFlags;
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
    fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        if r.bool()? { T::get(r, what).map(Some) } else { Ok(None) }
    }
}

impl<T: Put, const N: usize> Put for [T; N] {
    fn put(&self, w: &mut Writer) {
        self.iter().for_each(|value| value.put(w));
    }
}

impl<T: Get + Copy + Default, const N: usize> Get for [T; N] {
    fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        let mut values = [T::default(); N];
        for value in &mut values {
            *value = T::get(r, what)?;
        }
        Ok(values)
    }
}

impl<T: Put> Put for [T] {
    fn put(&self, w: &mut Writer) {
        w.count(self.len());
        self.iter().for_each(|value| value.put(w));
    }
}

/// A count of at most `max` (`count`, in the error), then that many items.
pub(super) fn list<T: Get>(r: &mut Reader<'_>, max: usize, count: &'static str, what: &'static str) -> Result<Vec<T>> {
    let count = r.count(max, count)?;
    (0..count).map(|_| T::get(r, what)).collect()
}

/// A spec constant's id, then its value as a tag byte and 64 bits ([`value_key`]).
impl Put for (u32, Value) {
    fn put(&self, w: &mut Writer) {
        let (id, tag, bits) = value_key(self);
        w.u32(id);
        w.u8(tag);
        w.u64(bits);
    }
}

impl Get for (u32, Value) {
    fn get(r: &mut Reader<'_>, what: &'static str) -> Result<Self> {
        let id = r.u32()?;
        let offset = r.offset();
        let tag = r.u8()?;
        let bits = r.u64()?;
        let value = match (tag, u32::try_from(bits)) {
            (0, Ok(bit @ 0..=1)) => Value::Bool(bit == 1),
            (1, Ok(low)) => Value::I32(low.cast_signed()),
            (2, Ok(low)) => Value::U32(low),
            (3, Ok(low)) => Value::F32(f32::from_bits(low)),
            (4, _) => Value::Bits(bits),
            _ => return Err(RecordingError::Invalid { offset, what }),
        };
        Ok((id, value))
    }
}

/// Each struct's fields in the order they are written and read, each with what a bad value is (a list's:
/// `[its bound (default MAX_LIST), what its count is, what a bad item is]`, a string's: `{its bound, what its
/// length is}`).
macro_rules! fields {
    ($($ty:ty { $($field:ident $(: $what:tt)?),* $(,)? })*) => {$(
        impl Put for $ty {
            fn put(&self, w: &mut Writer) {
                $(fields!(@put w, self.$field $(, $what)?);)*
            }
        }
        impl Get for $ty {
            fn get(r: &mut Reader<'_>, _: &'static str) -> Result<Self> {
                // A struct expression evaluates its fields in order.
                Ok(Self { $($field: fields!(@get r $($what)?)),* })
            }
        }
    )*};
    (@get $r:ident) => { Get::get($r, "")? };
    (@get $r:ident $what:literal) => { Get::get($r, $what)? };
    (@get $r:ident [$count:literal, $what:literal]) => { list($r, MAX_LIST, $count, $what)? };
    (@get $r:ident [$max:ident, $count:literal, $what:literal]) => { list($r, $max, $count, $what)? };
    (@get $r:ident {$max:ident, $what:literal}) => { $r.str($max, $what)? };
    (@put $w:ident, $value:expr, {$max:ident, $what:literal}) => { $w.str(&$value, $max) };
    (@put $w:ident, $value:expr $(, $what:tt)?) => { $value.put($w) };
}

fields! {
    RecordedStage {
        stage: "an unknown shader stage",
        name: {MAX_NAME, "bytes in a shader name"},
        code_hash,
        interface_hash,
        specialization: [MAX_CONSTANTS, "spec constants", "an unknown spec-constant value"],
    }
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
    fn get(r: &mut Reader<'_>, _: &'static str) -> Result<Self> {
        let offset = r.offset();
        match r.u8()? {
            0 => Ok(Self::FromReflection),
            1 => Ok(Self::Explicit {
                bindings: list(r, MAX_LIST, "vertex bindings", "")?,
                attributes: list(r, MAX_LIST, "vertex attributes", "")?,
            }),
            _ => Err(RecordingError::Invalid { offset, what: "an unknown kind of vertex input" }),
        }
    }
}

pub(super) fn read(r: &mut Reader<'_>) -> Result<GraphicsState> {
    let state = GraphicsState::get(r, "")?;
    let dynamic = &state.dynamic_states;
    if dynamic.iter().enumerate().any(|(i, d)| dynamic[..i].contains(d)) {
        return Err(RecordingError::Invalid { offset: r.offset(), what: "a dynamic state listed twice" });
    }
    Ok(state)
}
