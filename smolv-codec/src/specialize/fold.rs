//! Constant evaluation of scalar operations; only exact results are folded.

use super::analysis::Analysis;

/// The scalar type of a specialization constant; [`fit_value`](super::fit_value) says what it takes.
///
/// ```
/// use smolv_codec::specialize::{Scalar, Value, describe_type, fit_value};
/// let short = Scalar::Int { width: 16, signed: false };
/// assert_eq!(fit_value(short, Value::U32(7)), Some(7));
/// assert_eq!(fit_value(short, Value::U32(70_000)), None, "nothing is truncated");
/// assert_eq!(describe_type(short), "a 16-bit unsigned integer");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `OpTypeBool`.
    Bool,
    /// `OpTypeInt` of `width` bits.
    Int {
        /// Its width in bits.
        width: u32,
        /// Whether it is signed.
        signed: bool,
    },
    /// `OpTypeFloat` of `width` bits.
    Float {
        /// Its width in bits.
        width: u32,
    },
}

impl Scalar {
    fn mask(width: u32) -> u64 {
        if width >= 64 { u64::MAX } else { (1u64 << width) - 1 }
    }

    /// Words of the literal for `bits` of this type.
    pub(crate) fn literal_words(self) -> usize {
        match self {
            Self::Int { width, .. } | Self::Float { width } if width > 32 => 2,
            _ => 1,
        }
    }
}

/// A known value: a scalar's bits, or the instruction of a constant composite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Known {
    Scalar(Scalar, u64),
    Composite(usize),
}

/// The scalar type `id` names, if it is one folding handles.
pub(crate) fn scalar_type(analysis: &Analysis, id: u32) -> Option<Scalar> {
    let words = analysis.words_of(analysis.def_of(id)?);
    match (words[0] & 0xFFFF, words.get(2), words.get(3)) {
        (20, _, _) => Some(Scalar::Bool),
        (21, Some(&width), Some(&signed)) if width == 32 || width == 64 => {
            Some(Scalar::Int { width, signed: signed != 0 })
        }
        (22, Some(&width), _) if width == 32 || width == 64 => Some(Scalar::Float { width }),
        _ => None,
    }
}

fn sign_extend(bits: u64, width: u32) -> i64 {
    if width >= 64 { bits as i64 } else { ((bits << (64 - width)) as i64) >> (64 - width) }
}

fn float(bits: u64, width: u32) -> f64 {
    if width == 32 { f64::from(f32::from_bits((bits & 0xFFFF_FFFF) as u32)) } else { f64::from_bits(bits) }
}

/// Folds `opcode` applied to `args` into a value of type `result`.
pub(crate) fn eval(opcode: u32, result: Scalar, args: &[(Scalar, u64)]) -> Option<u64> {
    use Scalar::{Bool, Float, Int};
    let bool_result = |b: bool| Some(u64::from(b));
    match (opcode, args) {
        // OpCopyObject
        (83, [(_, a)]) => Some(*a),
        // OpSelect
        (169, [(Bool, c), (_, a), (_, b)]) => Some(if *c != 0 { *a } else { *b }),
        // OpLogicalEqual, NotEqual, Or, And, Not
        (164, [(Bool, a), (Bool, b)]) => bool_result(a == b),
        (165, [(Bool, a), (Bool, b)]) => bool_result(a != b),
        (166, [(Bool, a), (Bool, b)]) => bool_result(*a != 0 || *b != 0),
        (167, [(Bool, a), (Bool, b)]) => bool_result(*a != 0 && *b != 0),
        (168, [(Bool, a)]) => bool_result(*a == 0),
        // OpUConvert, OpSConvert
        (113, [(Int { .. }, a)]) => {
            let Int { width, .. } = result else { return None };
            Some(a & Scalar::mask(width))
        }
        (114, [(Int { width: from, .. }, a)]) => {
            let Int { width, .. } = result else { return None };
            Some(sign_extend(*a, *from) as u64 & Scalar::mask(width))
        }
        // OpSNegate, OpNot
        (126, [(Int { width, .. }, a)]) => Some(a.wrapping_neg() & Scalar::mask(*width)),
        (200, [(Int { width, .. }, a)]) => Some(!a & Scalar::mask(*width)),
        // OpFNegate: flips the sign bit, exactly.
        (127, [(Float { width }, a)]) => Some(a ^ (1u64 << (width - 1))),
        (_, [(Int { width, .. }, a), (Int { .. }, b)]) => int_binary(opcode, *width, *a, *b, result),
        (_, [(Float { width }, a), (Float { .. }, b)]) => {
            let (x, y) = (float(*a, *width), float(*b, *width));
            let unordered = x.is_nan() || y.is_nan();
            let compared = match opcode {
                180 | 181 => x == y,
                182 | 183 => x != y,
                184 | 185 => x < y,
                186 | 187 => x > y,
                188 | 189 => x <= y,
                190 | 191 => x >= y,
                _ => return None,
            };
            // Even opcodes are ordered (false on NaN), odd ones unordered (true).
            let ordered = opcode.is_multiple_of(2);
            bool_result(if unordered { !ordered } else { compared })
        }
        _ => None,
    }
}

fn int_binary(opcode: u32, width: u32, a: u64, b: u64, result: Scalar) -> Option<u64> {
    let mask = Scalar::mask(width);
    let (sa, sb) = (sign_extend(a, width), sign_extend(b, width));
    let value = match opcode {
        128 => a.wrapping_add(b),
        130 => a.wrapping_sub(b),
        132 => a.wrapping_mul(b),
        134 => a.checked_div(b)?,
        135 => sa.checked_div(sb)? as u64,
        137 => a.checked_rem(b)?,
        138 => sa.checked_rem(sb)? as u64,
        139 => {
            let r = sa.checked_rem(sb)?;
            (if r != 0 && (r < 0) != (sb < 0) { r + sb } else { r }) as u64
        }
        194 if b < u64::from(width) => a >> b,
        195 if b < u64::from(width) => (sa >> b) as u64,
        196 if b < u64::from(width) => a << b,
        197 => a | b,
        198 => a ^ b,
        199 => a & b,
        170 => u64::from(a == b),
        171 => u64::from(a != b),
        172 => u64::from(a > b),
        173 => u64::from(sa > sb),
        174 => u64::from(a >= b),
        175 => u64::from(sa >= sb),
        176 => u64::from(a < b),
        177 => u64::from(sa < sb),
        178 => u64::from(a <= b),
        179 => u64::from(sa <= sb),
        _ => return None,
    };
    Some(if result == Scalar::Bool { value } else { value & mask })
}

#[cfg(test)]
mod tests {
    use super::*;

    const I32: Scalar = Scalar::Int { width: 32, signed: true };
    const U32: Scalar = Scalar::Int { width: 32, signed: false };
    const F32: Scalar = Scalar::Float { width: 32 };

    #[test]
    fn integer_arithmetic_wraps_at_its_width() {
        assert_eq!(eval(128, U32, &[(U32, 0xFFFF_FFFF), (U32, 2)]), Some(1));
        assert_eq!(eval(135, I32, &[(I32, (-7i32) as u32 as u64), (I32, 2)]), Some((-3i32) as u32 as u64));
        assert_eq!(eval(139, I32, &[(I32, (-7i32) as u32 as u64), (I32, 3)]), Some(2), "SMod takes the divisor's sign");
        assert_eq!(eval(134, U32, &[(U32, 1), (U32, 0)]), None, "division by zero is not folded");
        assert_eq!(eval(196, U32, &[(U32, 1), (U32, 32)]), None, "over-wide shifts are undefined");
    }

    #[test]
    fn comparisons_and_logic_give_bools() {
        assert_eq!(eval(177, Scalar::Bool, &[(I32, (-1i32) as u32 as u64), (I32, 0)]), Some(1));
        assert_eq!(eval(176, Scalar::Bool, &[(U32, 0xFFFF_FFFF), (U32, 0)]), Some(0));
        assert_eq!(eval(167, Scalar::Bool, &[(Scalar::Bool, 1), (Scalar::Bool, 0)]), Some(0));
        assert_eq!(eval(169, U32, &[(Scalar::Bool, 0), (U32, 5), (U32, 9)]), Some(9));
    }

    #[test]
    fn float_comparisons_respect_nan() {
        let nan = u64::from(f32::NAN.to_bits());
        let one = u64::from(1.0f32.to_bits());
        assert_eq!(eval(180, Scalar::Bool, &[(F32, one), (F32, one)]), Some(1));
        assert_eq!(eval(180, Scalar::Bool, &[(F32, nan), (F32, one)]), Some(0), "ordered is false on NaN");
        assert_eq!(eval(181, Scalar::Bool, &[(F32, nan), (F32, one)]), Some(1), "unordered is true on NaN");
        assert_eq!(eval(127, F32, &[(F32, one)]), Some(u64::from((-1.0f32).to_bits())));
    }
}
