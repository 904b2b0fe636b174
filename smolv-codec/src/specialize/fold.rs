//! Constant evaluation of scalar operations; only exact results are folded.

use smolv_format::spirv::Op;

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
    match (Op::from_u32(words[0] & 0xFFFF)?, words.get(2), words.get(3)) {
        (Op::TypeBool, _, _) => Some(Scalar::Bool),
        (Op::TypeInt, Some(&width), Some(&signed)) if width == 32 || width == 64 => {
            Some(Scalar::Int { width, signed: signed != 0 })
        }
        (Op::TypeFloat, Some(&width), _) if width == 32 || width == 64 => Some(Scalar::Float { width }),
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
    let op = Op::from_u32(opcode)?;
    match (op, args) {
        (Op::CopyObject, [(_, a)]) => Some(*a),
        (Op::Select, [(Bool, c), (_, a), (_, b)]) => Some(if *c != 0 { *a } else { *b }),
        (Op::LogicalEqual, [(Bool, a), (Bool, b)]) => bool_result(a == b),
        (Op::LogicalNotEqual, [(Bool, a), (Bool, b)]) => bool_result(a != b),
        (Op::LogicalOr, [(Bool, a), (Bool, b)]) => bool_result(*a != 0 || *b != 0),
        (Op::LogicalAnd, [(Bool, a), (Bool, b)]) => bool_result(*a != 0 && *b != 0),
        (Op::LogicalNot, [(Bool, a)]) => bool_result(*a == 0),
        (Op::UConvert, [(Int { .. }, a)]) => {
            let Int { width, .. } = result else { return None };
            Some(a & Scalar::mask(width))
        }
        (Op::SConvert, [(Int { width: from, .. }, a)]) => {
            let Int { width, .. } = result else { return None };
            Some(sign_extend(*a, *from) as u64 & Scalar::mask(width))
        }
        (Op::SNegate, [(Int { width, .. }, a)]) => Some(a.wrapping_neg() & Scalar::mask(*width)),
        (Op::Not, [(Int { width, .. }, a)]) => Some(!a & Scalar::mask(*width)),
        // Flips the sign bit, exactly.
        (Op::FNegate, [(Float { width }, a)]) => Some(a ^ (1u64 << (width - 1))),
        (_, [(Int { width, .. }, a), (Int { .. }, b)]) => int_binary(op, *width, *a, *b, result),
        (_, [(Float { width }, a), (Float { .. }, b)]) => {
            let (x, y) = (float(*a, *width), float(*b, *width));
            // An ordered comparison is false on NaN, an unordered one true.
            let (compared, ordered) = match op {
                Op::FOrdEqual => (x == y, true),
                Op::FUnordEqual => (x == y, false),
                Op::FOrdNotEqual => (x != y, true),
                Op::FUnordNotEqual => (x != y, false),
                Op::FOrdLessThan => (x < y, true),
                Op::FUnordLessThan => (x < y, false),
                Op::FOrdGreaterThan => (x > y, true),
                Op::FUnordGreaterThan => (x > y, false),
                Op::FOrdLessThanEqual => (x <= y, true),
                Op::FUnordLessThanEqual => (x <= y, false),
                Op::FOrdGreaterThanEqual => (x >= y, true),
                Op::FUnordGreaterThanEqual => (x >= y, false),
                _ => return None,
            };
            bool_result(if x.is_nan() || y.is_nan() { !ordered } else { compared })
        }
        _ => None,
    }
}

fn int_binary(op: Op, width: u32, a: u64, b: u64, result: Scalar) -> Option<u64> {
    let mask = Scalar::mask(width);
    let (sa, sb) = (sign_extend(a, width), sign_extend(b, width));
    let value = match op {
        Op::IAdd => a.wrapping_add(b),
        Op::ISub => a.wrapping_sub(b),
        Op::IMul => a.wrapping_mul(b),
        Op::UDiv => a.checked_div(b)?,
        Op::SDiv => sa.checked_div(sb)? as u64,
        Op::UMod => a.checked_rem(b)?,
        Op::SRem => sa.checked_rem(sb)? as u64,
        Op::SMod => {
            let r = sa.checked_rem(sb)?;
            (if r != 0 && (r < 0) != (sb < 0) { r + sb } else { r }) as u64
        }
        Op::ShiftRightLogical if b < u64::from(width) => a >> b,
        Op::ShiftRightArithmetic if b < u64::from(width) => (sa >> b) as u64,
        Op::ShiftLeftLogical if b < u64::from(width) => a << b,
        Op::BitwiseOr => a | b,
        Op::BitwiseXor => a ^ b,
        Op::BitwiseAnd => a & b,
        Op::IEqual => u64::from(a == b),
        Op::INotEqual => u64::from(a != b),
        Op::UGreaterThan => u64::from(a > b),
        Op::SGreaterThan => u64::from(sa > sb),
        Op::UGreaterThanEqual => u64::from(a >= b),
        Op::SGreaterThanEqual => u64::from(sa >= sb),
        Op::ULessThan => u64::from(a < b),
        Op::SLessThan => u64::from(sa < sb),
        Op::ULessThanEqual => u64::from(a <= b),
        Op::SLessThanEqual => u64::from(sa <= sb),
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
        assert_eq!(eval(Op::IAdd as u32, U32, &[(U32, 0xFFFF_FFFF), (U32, 2)]), Some(1));
        assert_eq!(eval(Op::SDiv as u32, I32, &[(I32, (-7i32) as u32 as u64), (I32, 2)]), Some((-3i32) as u32 as u64));
        assert_eq!(
            eval(Op::SMod as u32, I32, &[(I32, (-7i32) as u32 as u64), (I32, 3)]),
            Some(2),
            "SMod takes the divisor's sign"
        );
        assert_eq!(eval(Op::UDiv as u32, U32, &[(U32, 1), (U32, 0)]), None, "division by zero is not folded");
        assert_eq!(
            eval(Op::ShiftLeftLogical as u32, U32, &[(U32, 1), (U32, 32)]),
            None,
            "over-wide shifts are undefined"
        );
    }

    #[test]
    fn comparisons_and_logic_give_bools() {
        assert_eq!(eval(Op::SLessThan as u32, Scalar::Bool, &[(I32, (-1i32) as u32 as u64), (I32, 0)]), Some(1));
        assert_eq!(eval(Op::ULessThan as u32, Scalar::Bool, &[(U32, 0xFFFF_FFFF), (U32, 0)]), Some(0));
        assert_eq!(eval(Op::LogicalAnd as u32, Scalar::Bool, &[(Scalar::Bool, 1), (Scalar::Bool, 0)]), Some(0));
        assert_eq!(eval(Op::Select as u32, U32, &[(Scalar::Bool, 0), (U32, 5), (U32, 9)]), Some(9));
    }

    #[test]
    fn float_comparisons_respect_nan() {
        let nan = u64::from(f32::NAN.to_bits());
        let one = u64::from(1.0f32.to_bits());
        assert_eq!(eval(Op::FOrdEqual as u32, Scalar::Bool, &[(F32, one), (F32, one)]), Some(1));
        assert_eq!(
            eval(Op::FOrdEqual as u32, Scalar::Bool, &[(F32, nan), (F32, one)]),
            Some(0),
            "ordered is false on NaN"
        );
        assert_eq!(
            eval(Op::FUnordEqual as u32, Scalar::Bool, &[(F32, nan), (F32, one)]),
            Some(1),
            "unordered is true on NaN"
        );
        assert_eq!(eval(Op::FNegate as u32, F32, &[(F32, one)]), Some(u64::from((-1.0f32).to_bits())));
    }
}
