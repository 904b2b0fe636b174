//! `StageInterface`: what one stage writes and the next reads.

use smolv_format::reflect::{ShaderStage, StageInterface};

/// A module of `model` (0 vertex, 4 fragment) with one variable of
/// storage class `storage` (1 input, 3 output) at `location`: a vector
/// of `count` floats named `v`, and a built-in beside it.
fn module(model: u32, storage: u32, location: u32, count: u32) -> Vec<u32> {
    let mut m = vec![0x0723_0203, 0x0001_0000, 0, 20, 0];
    let mut inst = |op: u32, operands: &[u32]| {
        m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
        m.extend_from_slice(operands);
    };
    inst(17, &[1]); // OpCapability Shader
    inst(14, &[0, 1]); // OpMemoryModel
    inst(15, &[model, 1, 0x6E69_616D, 0, 6, 9]); // OpEntryPoint %1 "main" %6 %9
    inst(5, &[6, u32::from_le_bytes(*b"v\0\0\0")]); // OpName %6 "v"
    inst(71, &[6, 30, location]); // OpDecorate %6 Location
    inst(71, &[9, 11, 0]); // OpDecorate %9 BuiltIn Position
    inst(22, &[2, 32]); // %2 = OpTypeFloat 32
    inst(23, &[3, 2, count]); // %3 = OpTypeVector %2 count
    inst(32, &[4, storage, 3]); // %4 = OpTypePointer storage %3
    inst(59, &[4, 6, storage]); // %6 = OpVariable %4 storage
    inst(59, &[4, 9, storage]); // %9 = OpVariable %4 storage (built-in)
    inst(59, &[4, 10, storage]); // %10: not in the entry point's interface
    inst(71, &[10, 30, 7]); // OpDecorate %10 Location 7
    m
}

/// The interface of a module of `model` (0 vertex, 4 fragment) with
/// one variable per `(storage, location, component, type)` (storage 1
/// input, 3 output; type as GLSL: `vec3`, `ivec2`, `uint`, `dvec4`),
/// and, with `block`, an output block whose members carry locations 0
/// and 1 (the variable none).
fn stage(model: u32, vars: &[(u32, u32, u32, &str)], block: bool) -> StageInterface {
    let mut m = vec![0x0723_0203, 0x0001_0000, 0, 1000, 0];
    let inst = |m: &mut Vec<u32>, op: u32, operands: &[u32]| {
        m.push(((u32::try_from(operands.len()).unwrap() + 1) << 16) | op);
        m.extend_from_slice(operands);
    };
    let mut body = Vec::new();
    let mut ids = Vec::new();
    let mut next = 10;
    for &(storage, location, component, ty) in vars {
        let (scalar, vector, pointer, variable) = (next, next + 1, next + 2, next + 3);
        next += 4;
        let (prefix, count) = ty.split_at(ty.find("vec").map_or(0, |i| i));
        let count = count.strip_prefix("vec").map_or(1, |n| n.parse().unwrap());
        match (prefix, ty) {
            ("i", _) | (_, "int") => inst(&mut body, 21, &[scalar, 32, 1]),
            ("u", _) | (_, "uint") => inst(&mut body, 21, &[scalar, 32, 0]),
            ("d", _) | (_, "double") => inst(&mut body, 22, &[scalar, 64]),
            _ => inst(&mut body, 22, &[scalar, 32]),
        }
        inst(&mut body, 23, &[vector, scalar, count]);
        inst(&mut body, 32, &[pointer, storage, if count == 1 { scalar } else { vector }]);
        inst(&mut body, 59, &[pointer, variable, storage]);
        inst(&mut body, 71, &[variable, 30, location]);
        if component != 0 {
            inst(&mut body, 71, &[variable, 31, component]);
        }
        ids.push(variable);
    }
    if block {
        let (float, vector, strukt, pointer, variable) = (next, next + 1, next + 2, next + 3, next + 4);
        inst(&mut body, 22, &[float, 32]);
        inst(&mut body, 23, &[vector, float, 4]);
        inst(&mut body, 30, &[strukt, vector, vector]);
        inst(&mut body, 71, &[strukt, 2]); // Block
        inst(&mut body, 72, &[strukt, 0, 30, 0]); // member 0: Location 0
        inst(&mut body, 72, &[strukt, 1, 30, 1]); // member 1: Location 1
        inst(&mut body, 32, &[pointer, 3, strukt]);
        inst(&mut body, 59, &[pointer, variable, 3]);
        ids.push(variable);
    }
    inst(&mut m, 17, &[1]); // OpCapability Shader
    inst(&mut m, 14, &[0, 1]); // OpMemoryModel
    let mut entry = vec![model, 1, 0x6E69_616D, 0];
    entry.extend(ids);
    inst(&mut m, 15, &entry);
    m.extend(body);
    StageInterface::from_spirv(&m).unwrap()
}

#[test]
fn inputs_match_outputs_per_component_as_vulkan_does() {
    let vertex = |vars: &[(u32, u32, u32, &str)]| stage(0, vars, false);
    let fragment = |vars: &[(u32, u32, u32, &str)]| stage(4, vars, false);
    // A wider output than the input that reads it.
    assert_eq!(fragment(&[(1, 0, 0, "vec3")]).unmatched_input(&vertex(&[(3, 0, 0, "vec4")])), None);
    // An input at component 2 inside a wider output.
    assert_eq!(fragment(&[(1, 0, 2, "vec2")]).unmatched_input(&vertex(&[(3, 0, 0, "vec4")])), None);
    assert_eq!(fragment(&[(1, 0, 3, "float")]).unmatched_input(&vertex(&[(3, 0, 0, "vec4")])), None);
    // Two outputs read as one input.
    let two_halves = vertex(&[(3, 0, 0, "vec2"), (3, 0, 2, "vec2")]);
    assert_eq!(fragment(&[(1, 0, 0, "vec4")]).unmatched_input(&two_halves), None);
    // A 64-bit vec4 takes two locations; its second half is readable.
    let dvec4 = vertex(&[(3, 0, 0, "dvec4")]);
    assert_eq!(fragment(&[(1, 1, 0, "dvec2")]).unmatched_input(&dvec4), None);
    assert_eq!(fragment(&[(1, 2, 0, "double")]).unmatched_input(&dvec4).unwrap().input().location, 2);

    // Refused: a component nothing writes, another kind, another width.
    let half = vertex(&[(3, 0, 0, "vec2")]);
    let missing = fragment(&[(1, 0, 2, "vec2")]).unmatched_input(&half).unwrap();
    assert_eq!(
        missing.to_string(),
        "the fragment shader reads location 0, component 2 (vec2), which the vertex shader does not write"
    );
    assert_eq!(
        fragment(&[(1, 0, 0, "vec4")]).unmatched_input(&half).unwrap().to_string(),
        "location 0 is vec2 in the vertex shader but vec4 in the fragment shader"
    );
    assert_eq!(
        fragment(&[(1, 0, 0, "ivec2")]).unmatched_input(&vertex(&[(3, 0, 0, "vec4")])).unwrap().to_string(),
        "location 0 is vec4 in the vertex shader but ivec2 in the fragment shader"
    );
    assert_eq!(
        fragment(&[(1, 0, 0, "uint")]).unmatched_input(&vertex(&[(3, 0, 0, "ivec2")])).unwrap().to_string(),
        "location 0 is ivec2 in the vertex shader but uint in the fragment shader"
    );
    assert!(fragment(&[(1, 0, 0, "double")]).unmatched_input(&vertex(&[(3, 0, 0, "vec2")])).is_some());
}

#[test]
fn an_output_block_with_member_locations_makes_no_input_unwritten() {
    let block = stage(0, &[], true);
    assert!(block.unplaced_outputs && block.outputs.is_empty());
    let reads = stage(4, &[(1, 0, 0, "vec4"), (1, 1, 0, "vec4")], false);
    assert_eq!(reads.unmatched_input(&block), None);
    // A placed output still refuses another type.
    let mixed = stage(0, &[(3, 2, 0, "ivec4")], true);
    assert!(stage(4, &[(1, 2, 0, "vec4")], false).unmatched_input(&mixed).is_some());
    // Without the block, the same inputs are not written.
    assert!(reads.unmatched_input(&stage(0, &[], false)).is_some());
    // gl_PerVertex-style built-in blocks are no unplaced outputs.
    assert!(!StageInterface::from_spirv(&module(0, 3, 0, 4)).unwrap().unplaced_outputs);
}

#[test]
fn a_module_s_varyings_are_read_by_location_without_built_ins() {
    let vertex = StageInterface::from_spirv(&module(0, 3, 2, 4)).unwrap();
    assert_eq!(vertex.stage, ShaderStage::Vertex);
    assert!(vertex.inputs.is_empty());
    let out = &vertex.outputs;
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].location, out[0].component, out[0].format, out[0].name.as_str()), (2, 0, 109, "v"));
}

#[test]
fn an_input_the_stage_before_does_not_write_or_retypes_is_named_with_both_stages() {
    let fragment = StageInterface::from_spirv(&module(4, 1, 0, 4)).unwrap();
    let writes_0 = StageInterface::from_spirv(&module(0, 3, 0, 4)).unwrap();
    assert_eq!(fragment.unmatched_input(&writes_0), None);

    let writes_1 = StageInterface::from_spirv(&module(0, 3, 1, 4)).unwrap();
    let missing = fragment.unmatched_input(&writes_1).unwrap();
    assert_eq!(
        (missing.writer(), missing.reader(), missing.input().location),
        (ShaderStage::Vertex, ShaderStage::Fragment, 0)
    );
    assert_eq!(
        missing.to_string(),
        "the fragment shader reads location 0 (`v`, vec4), which the vertex shader does not write"
    );

    let writes_vec3 = StageInterface::from_spirv(&module(0, 3, 0, 3)).unwrap();
    assert_eq!(
        fragment.unmatched_input(&writes_vec3).unwrap().to_string(),
        "location 0 is `v`, vec3 in the vertex shader but `v`, vec4 in the fragment shader"
    );
    // Unread outputs are fine.
    assert_eq!(StageInterface::new(ShaderStage::Fragment).unmatched_input(&writes_1), None);
}
