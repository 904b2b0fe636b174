//! `Reflection::from_spirv` on hand-made modules: hostile counts,
//! push-constant ranges, and the locations of interface matrices and
//! arrays (with `StageInterface::from_spirv`).

use smolv_format::reflect::{Reflection, StageInterface};

/// Most locations one interface variable is reflected as.
const MAX_INTERFACE_LOCATIONS: u32 = 1024;

/// A vertex module with one input `float[length]` at location 5, and a
/// push-constant block holding a vector of `vector_count` floats.
fn hostile(length: u32, vector_count: u32) -> Vec<u32> {
    let mut m = vec![0x0723_0203, 0x0001_0000, 0, 20, 0];
    let mut inst = |op: u32, operands: &[u32]| {
        m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
        m.extend_from_slice(operands);
    };
    inst(17, &[1]); // OpCapability Shader
    inst(14, &[0, 1]); // OpMemoryModel
    inst(15, &[0, 1, 0x6E69_616D, 0, 6]); // OpEntryPoint Vertex %1 "main" %6
    inst(71, &[6, 30, 5]); // OpDecorate %6 Location 5
    inst(22, &[2, 32]); // %2 = OpTypeFloat 32
    inst(21, &[3, 32, 0]); // %3 = OpTypeInt 32 0
    inst(43, &[3, 4, length]); // %4 = OpConstant %3 length
    inst(28, &[5, 2, 4]); // %5 = OpTypeArray %2 %4
    inst(32, &[7, 1, 5]); // %7 = OpTypePointer Input %5
    inst(59, &[7, 6, 1]); // %6 = OpVariable %7 Input
    inst(23, &[8, 2, vector_count]); // %8 = OpTypeVector %2 n
    inst(30, &[9, 8]); // %9 = OpTypeStruct %8
    inst(71, &[9, 2]); // OpDecorate %9 Block
    inst(32, &[10, 9, 9]); // %10 = OpTypePointer PushConstant %9
    inst(59, &[10, 11, 9]); // %11 = OpVariable %10 PushConstant
    m
}

#[test]
fn hostile_counts_neither_panic_nor_allocate_without_bound() {
    let reflection = Reflection::from_spirv(&hostile(u32::MAX, 0x4000_0001)).unwrap();
    assert_eq!(reflection.inputs.len(), MAX_INTERFACE_LOCATIONS as usize);
    assert_eq!(reflection.inputs[0].location, 5);
    assert_eq!(reflection.push_constants[0].size, !3, "saturated, and a multiple of 4");
    let reflection = Reflection::from_spirv(&hostile(3, 4)).unwrap();
    assert_eq!(reflection.inputs.iter().map(|v| v.location).collect::<Vec<_>>(), [5, 6, 7]);
    assert_eq!(reflection.push_constants[0].size, 16);
}

#[test]
fn a_push_constant_block_ending_in_a_16_bit_member_is_rounded_to_4_bytes() {
    let mut m = vec![0x0723_0203, 0x0001_0000, 0, 20, 0];
    let mut inst = |op: u32, operands: &[u32]| {
        m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
        m.extend_from_slice(operands);
    };
    inst(15, &[5, 1, 0x6E69_616D, 0]); // OpEntryPoint GLCompute %1 "main"
    inst(72, &[4, 0, 35, 2]); // OpMemberDecorate %4 0 Offset 2
    inst(72, &[4, 1, 35, 4]); // OpMemberDecorate %4 1 Offset 4
    inst(21, &[2, 16, 0]); // %2 = OpTypeInt 16 0
    inst(21, &[3, 32, 0]); // %3 = OpTypeInt 32 0
    inst(30, &[4, 2, 2]); // %4 = OpTypeStruct %2 %2: 16-bit members at 2 and 4
    inst(32, &[5, 9, 4]); // %5 = OpTypePointer PushConstant %4
    inst(59, &[5, 6, 9]); // %6 = OpVariable %5 PushConstant
    let reflection = Reflection::from_spirv(&m).unwrap();
    let range = &reflection.push_constants[0];
    assert_eq!((range.offset, range.size), (0, 8), "bytes 2..6, widened to 0..8");
}

#[test]
fn an_empty_push_constant_block_gives_no_range_and_the_reflection_round_trips() {
    let mut m = vec![0x0723_0203, 0x0001_0000, 0, 20, 0];
    let mut inst = |op: u32, operands: &[u32]| {
        m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
        m.extend_from_slice(operands);
    };
    inst(15, &[5, 1, 0x6E69_616D, 0]); // OpEntryPoint GLCompute %1 "main"
    inst(30, &[4]); // %4 = OpTypeStruct, no members
    inst(32, &[5, 9, 4]); // %5 = OpTypePointer PushConstant %4
    inst(59, &[5, 6, 9]); // %6 = OpVariable %5 PushConstant
    let reflection = Reflection::from_spirv(&m).unwrap();
    assert!(reflection.push_constants.is_empty(), "{:?}", reflection.push_constants);
    assert_eq!(Reflection::from_bytes(&reflection.to_bytes().unwrap()).unwrap(), reflection);
}

/// A compute module whose push-constant block nests `depth` structs, each
/// holding two of the one before it (or, with `cycle`, a struct holding
/// itself twice): found by the `spirv_reader` fuzz target, which such a
/// module held for minutes while the size was worked out 2^depth times.
fn nested_structs(depth: u32, cycle: bool) -> Vec<u32> {
    let mut m = vec![0x0723_0203, 0x0001_0000, 0, 100, 0];
    let mut inst = |op: u32, operands: &[u32]| {
        m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
        m.extend_from_slice(operands);
    };
    inst(15, &[5, 1, 0x6E69_616D, 0]); // OpEntryPoint GLCompute %1 "main"
    inst(22, &[2, 32]); // %2 = OpTypeFloat 32
    let mut inner = 2;
    let first = 10;
    for ty in first..first + depth {
        let member = if cycle { ty } else { inner };
        inst(30, &[ty, member, member]); // %ty = OpTypeStruct %member %member
        inner = ty;
    }
    inst(32, &[3, 9, inner]); // %3 = OpTypePointer PushConstant %inner
    inst(59, &[3, 4, 9]); // %4 = OpVariable %3 PushConstant
    m
}

#[test]
fn deeply_shared_or_cyclic_structs_are_sized_in_linear_time() {
    let started = std::time::Instant::now();
    let reflection = Reflection::from_spirv(&nested_structs(30, false)).unwrap();
    // Without offsets every member starts at 0: the block is one float.
    assert_eq!(reflection.push_constants[0].size, 4);
    // A struct of itself holds no scalar: a block of size 0, so no range.
    let reflection = Reflection::from_spirv(&nested_structs(1, true)).unwrap();
    assert!(reflection.push_constants.is_empty(), "{:?}", reflection.push_constants);
    // 2^30 steps take minutes; a linear walk, microseconds.
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "took {:?}", started.elapsed());
}

/// What holds a vertex input's vectors.
#[derive(Clone, Copy)]
enum Outer {
    /// A matrix of 3 columns that are the vectors; `None`: a matrix of
    /// itself, found by the `spirv_reader` fuzz target, where the input's
    /// format recursed until the stack overflowed.
    Matrix(Option<u32>),
    /// An array of 3 of them.
    Array,
}

/// A vertex input at location 2 of 3 vectors of `components` `width`-bit
/// floats, held by `outer`. Only what the reader looks at: no
/// capabilities, memory model or function.
fn vectors_input(width: u32, components: u32, outer: Outer) -> Vec<u32> {
    let mut m = vec![0x0723_0203, 0x0001_0000, 0, 20, 0];
    let mut inst = |op: u32, operands: &[u32]| {
        m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
        m.extend_from_slice(operands);
    };
    inst(15, &[0, 1, 0x6E69_616D, 0, 6]); // OpEntryPoint Vertex %1 "main" %6
    inst(71, &[6, 30, 2]); // OpDecorate %6 Location 2
    inst(22, &[2, width]); // %2 = OpTypeFloat width
    inst(23, &[3, 2, components]); // %3 = OpTypeVector %2 components
    match outer {
        Outer::Matrix(column) => inst(24, &[5, column.unwrap_or(5), 3]), // %5 = OpTypeMatrix %column 3
        Outer::Array => {
            inst(21, &[8, 32, 0]); // %8 = OpTypeInt 32 0
            inst(43, &[8, 9, 3]); // %9 = OpConstant %8 3
            inst(28, &[5, 3, 9]); // %5 = OpTypeArray %3 %9
        }
    }
    inst(32, &[7, 1, 5]); // %7 = OpTypePointer Input %5
    inst(59, &[7, 6, 1]); // %6 = OpVariable %7 Input
    m
}

/// Each entry's location and format.
type Slots = Vec<(u32, u32)>;

/// A module's vertex inputs, as the reflection and the stage interface see
/// them.
fn input_locations(spirv: &[u32]) -> (Slots, Slots) {
    let reflection = Reflection::from_spirv(spirv).unwrap();
    let stage = StageInterface::from_spirv(spirv).unwrap();
    (
        reflection.inputs.iter().map(|v| (v.location, v.format)).collect(),
        stage.inputs.iter().map(|v| (v.location, v.format)).collect(),
    )
}

#[test]
fn matrix_and_array_inputs_take_locations_per_element_and_a_matrix_of_itself_ends() {
    let cases = [
        // mat3x4: VK_FORMAT_R32G32B32A32_SFLOAT, one location per column.
        (32, 4, Outer::Matrix(Some(3)), [(2, 109), (3, 109), (4, 109)]),
        // dmat3x4 and dvec4[3]: VK_FORMAT_R64G64B64A64_SFLOAT, two each.
        (64, 4, Outer::Matrix(Some(3)), [(2, 121), (4, 121), (6, 121)]),
        (64, 4, Outer::Array, [(2, 121), (4, 121), (6, 121)]),
        // dvec3[3]: VK_FORMAT_R64G64B64_SFLOAT, two each.
        (64, 3, Outer::Array, [(2, 118), (4, 118), (6, 118)]),
        // dmat3x2: VK_FORMAT_R64G64_SFLOAT, one location per column.
        (64, 2, Outer::Matrix(Some(3)), [(2, 115), (3, 115), (4, 115)]),
        // No format for a column that is no vector, and a matrix of itself ends.
        (32, 4, Outer::Matrix(None), [(2, 0), (3, 0), (4, 0)]),
    ];
    for (width, components, outer, want) in cases {
        let want = want.to_vec();
        assert_eq!(
            input_locations(&vectors_input(width, components, outer)),
            (want.clone(), want),
            "{width}-bit x{components}"
        );
    }
}
