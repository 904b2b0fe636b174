//! Which [`Value`](super::Value) a specialization constant takes (also the Vulkan layer's rule).

use super::Value;
use super::fold::Scalar;

/// The bits `value` gives a constant of type `ty`, or `None` where it does not fit (nothing is truncated):
/// - a bool takes `Bool`, or `I32`, `U32` and `Bits` of 0 or 1;
/// - an integer takes `I32` that fits its width as signed or unsigned (sign-extended: -1 is all ones),
///   and `U32`, `Bool` and `Bits` that fit its width;
/// - a float takes `F32` (widened exactly for a 64-bit float) and `Bits` that fit its width;
/// - a type of width 0 takes nothing.
pub fn fit(ty: Scalar, value: Value) -> Option<u64> {
    let fits = |bits: u64, width: u32| width >= 64 || bits >> width == 0;
    match (ty, value) {
        (Scalar::Int { width: 0, .. } | Scalar::Float { width: 0 }, _) => None,
        (Scalar::Bool, Value::Bool(b)) => Some(u64::from(b)),
        (Scalar::Bool, Value::I32(_) | Value::U32(_) | Value::Bits(_)) => (value.bits() <= 1).then(|| value.bits()),
        (Scalar::Int { width, .. }, Value::I32(v)) => {
            let v = i64::from(v);
            let in_range = width >= 64 || (v >= -(1 << (width - 1)) && v < (1 << width));
            let mask = if width >= 64 { u64::MAX } else { (1 << width) - 1 };
            in_range.then(|| v.cast_unsigned() & mask)
        }
        (Scalar::Int { width, .. }, Value::U32(_) | Value::Bool(_) | Value::Bits(_))
        | (Scalar::Float { width }, Value::Bits(_)) => fits(value.bits(), width).then(|| value.bits()),
        (Scalar::Float { width: 32 }, Value::F32(f)) => Some(u64::from(f.to_bits())),
        (Scalar::Float { width: 64 }, Value::F32(f)) => Some(f64::from(f).to_bits()),
        _ => None,
    }
}

/// `ty` in words, for an error: "a bool", "a 32-bit signed integer", ….
pub fn describe(ty: Scalar) -> &'static str {
    match ty {
        Scalar::Bool => "a bool",
        Scalar::Int { width: 8, signed: true } => "an 8-bit signed integer",
        Scalar::Int { width: 8, signed: false } => "an 8-bit unsigned integer",
        Scalar::Int { width: 16, signed: true } => "a 16-bit signed integer",
        Scalar::Int { width: 16, signed: false } => "a 16-bit unsigned integer",
        Scalar::Int { width: 32, signed: true } => "a 32-bit signed integer",
        Scalar::Int { width: 32, signed: false } => "a 32-bit unsigned integer",
        Scalar::Int { width: 64, signed: true } => "a 64-bit signed integer",
        Scalar::Int { width: 64, signed: false } => "a 64-bit unsigned integer",
        Scalar::Int { .. } => "an integer of an unusual width",
        Scalar::Float { width: 16 } => "a 16-bit float",
        Scalar::Float { width: 32 } => "a 32-bit float",
        Scalar::Float { width: 64 } => "a 64-bit float",
        Scalar::Float { .. } => "a float of an unusual width",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INT: Scalar = Scalar::Int { width: 32, signed: true };
    const UINT: Scalar = Scalar::Int { width: 32, signed: false };
    const FLOAT: Scalar = Scalar::Float { width: 32 };

    #[test]
    fn a_float_value_for_an_integer_is_refused_not_reinterpreted() {
        assert_eq!(fit(INT, Value::F32(1.0)), None);
        assert_eq!(fit(UINT, Value::F32(1.0)), None);
        assert_eq!(fit(FLOAT, Value::I32(1)), None);
        assert_eq!(fit(FLOAT, Value::U32(1)), None);
        assert_eq!(fit(Scalar::Bool, Value::F32(0.0)), None);
    }

    #[test]
    fn values_of_the_constants_type_are_written_at_its_width() {
        assert_eq!(fit(INT, Value::I32(-1)), Some(0xFFFF_FFFF));
        assert_eq!(fit(Scalar::Int { width: 64, signed: true }, Value::I32(-1)), Some(u64::MAX));
        assert_eq!(fit(Scalar::Float { width: 64 }, Value::F32(0.25)), Some(0.25f64.to_bits()));
        assert_eq!(fit(FLOAT, Value::F32(0.5)), Some(u64::from(0.5f32.to_bits())));
        assert_eq!(fit(Scalar::Bool, Value::Bool(true)), Some(1));
        assert_eq!(fit(Scalar::Bool, Value::U32(2)), None);
        assert_eq!(fit(Scalar::Int { width: 16, signed: false }, Value::U32(0x1_0000)), None);
        assert_eq!(fit(Scalar::Int { width: 0, signed: false }, Value::U32(0)), None);
        assert_eq!(describe(INT), "a 32-bit signed integer");
    }
}
