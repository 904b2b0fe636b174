//! `Interface::from_spirv` on hostile words: typed errors or a result,
//! never a panic, a hang or an allocation the input does not justify.

use proptest::prelude::*;
use smolv_format::reflect::{Interface, Reflection, ReflectionError};

/// Opcodes the interface reader looks at, so that random modules reach its
/// type conversion rather than stopping at unknown instructions.
const OPCODES: [u32; 32] = [
    3, 5, 6, 7, 8, 10, 15, 16, 17, 20, 21, 22, 23, 24, 28, 29, 30, 32, 41, 43, 44, 48, 50, 51, 52, 56, 59, 71, 72, 317,
    331, 0,
];

fn instruction() -> impl Strategy<Value = Vec<u32>> {
    // Small operands make ids collide (cycles, self-references, a type
    // used as its own member); some are any word at all.
    let operand = prop_oneof![8 => 0u32..24, 1 => any::<u32>()];
    (prop::sample::select(&OPCODES[..]), prop::collection::vec(operand, 0..7), any::<bool>()).prop_map(
        |(opcode, operands, honest_length)| {
            let count = u32::try_from(operands.len()).unwrap() + 1;
            // Now and then a word count that lies about the operands.
            let count = if honest_length { count } else { count.wrapping_mul(0x9E37) };
            let mut words = vec![(count << 16) | opcode];
            words.extend(operands);
            words
        },
    )
}

fn module() -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(instruction(), 0..64).prop_map(|instructions| {
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 64, 0];
        instructions.into_iter().for_each(|i| words.extend(i));
        words
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_modules_never_panic(words in module()) {
        if let Ok(interface) = Interface::from_spirv(&words) {
            // Bounded by the input: at most one struct per instruction.
            prop_assert!(interface.types.len() <= words.len());
            prop_assert!(interface.blocks.len() <= words.len());
            for block in &interface.blocks {
                prop_assert!(interface.type_of(block).is_some(), "a block names a struct that is not there");
            }
        }
        let _ = Reflection::from_spirv(&words);
    }

    #[test]
    fn arbitrary_words_never_panic(mut words in prop::collection::vec(any::<u32>(), 0..256)) {
        if let Some(first) = words.first_mut() {
            *first = 0x0723_0203;
        }
        let _ = Interface::from_spirv(&words);
    }
}

#[test]
fn a_struct_that_holds_itself_is_an_error_not_a_hang() {
    let mut words = vec![0x0723_0203, 0x0001_0300, 0, 16, 0];
    let mut inst = |op: u32, operands: &[u32]| {
        words.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
        words.extend_from_slice(operands);
    };
    inst(30, &[2, 3]); // %2 = OpTypeStruct %3
    inst(28, &[3, 2, 4]); // %3 = OpTypeArray %2 %4
    inst(21, &[5, 32, 0]); // %5 = OpTypeInt 32 0
    inst(43, &[5, 4, 2]); // %4 = OpConstant %5 2
    inst(72, &[2, 0, 35, 0]); // OpMemberDecorate %2 0 Offset 0
    inst(32, &[6, 12, 2]); // %6 = OpTypePointer StorageBuffer %2
    inst(59, &[6, 7, 12]); // %7 = OpVariable %6 StorageBuffer
    // The struct is its own array's element: no layout has it.
    assert_eq!(
        Interface::from_spirv(&words),
        Err(ReflectionError::BadType { id: 2, reason: "is a struct that holds itself" })
    );
}
