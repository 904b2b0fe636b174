//! The typed interface in the manifest, from real shaders the build
//! compiled: every layout case of issue 29 item 1, with the offsets,
//! strides and sizes the layout rules give, in GLSL (std140, std430,
//! scalar), HLSL, WGSL and Slang, with and without stripping debug info.

use std::path::Path;

use smolv_build::{Config, Language, SpirvVersion};
use smolv_format::Manifest;
use smolv_format::reflect::{
    ArrayLength, Block, BlockKind, Capability, Interface, Member, ScalarKind, ScalarType, Type, TypeDef, WorkgroupSize,
};

const F32: ScalarType = ScalarType { kind: ScalarKind::Float, width: 32 };

const GLSL_LAYOUTS: &str = "\
#version 460
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x_id = 0, local_size_y = 2) in;
layout(constant_id = 1) const uint N = 4;

struct Inner { vec3 v; float s; };
struct Outer { Inner inner; mat2 m; Inner items[2]; };

layout(std140, set = 0, binding = 0) uniform Std140 {
    vec3 a;
    float b;
    mat3 m3;
    layout(row_major) mat4x3 m43_row;
    mat4x3 m43;
    layout(row_major) mat2 m2_row;
    mat2 m2;
    float fs[3];
    vec2 v2s[2];
    vec3 v3s[2];
    bool flag;
    Outer outer;
} u;

layout(std430, set = 0, binding = 1) buffer Std430 {
    vec3 a;
    float b;
    mat3 m3;
    mat2 m2;
    layout(row_major) mat2 m2_row;
    float fs[3];
    vec2 v2s[2];
    vec3 v3s[2];
    Inner inners[2];
    float spec_sized[N];
    float tail[];
} s;

layout(scalar, set = 0, binding = 2) buffer Scalar {
    vec3 a;
    float b;
    vec3 c;
    mat3 m3;
    float16_t h;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    double d;
    int64_t i64;
    uint64_t u64;
    f16vec3 hv;
    vec3 v3s[2];
} sc;

layout(push_constant) uniform Push { vec3 dir; float t; mat4 mvp; } pc;

void main() {
    s.tail[gl_GlobalInvocationID.x] = u.b + u.fs[1] + u.outer.items[1].s + float(u.flag) + s.b + sc.b
        + float(sc.h) + float(sc.d) + float(sc.i64) + pc.t + s.spec_sized[1] + float(sc.i8) + float(sc.u8)
        + float(sc.i16) + float(sc.u64) + float(sc.hv.x);
}
";

/// A build of `files` (path below `shaders/`, text), and its manifest.
fn build(files: &[(&str, &str)], configure: impl Fn(&mut Config, &Path)) -> Manifest {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join("shaders").join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut config = Config::new();
    config
        .shader_dir(dir.path().join("shaders"))
        .out_dir(dir.path().join("out"))
        .cache_dir(dir.path().join("cache"))
        .cargo_directives(false);
    configure(&mut config, dir.path());
    config.try_compile().unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_slice(&std::fs::read(dir.path().join("out/smolv/manifest.json")).unwrap()).unwrap()
}

fn interface<'a>(manifest: &'a Manifest, module: &str) -> &'a Interface {
    let module = manifest.modules.iter().find(|m| m.name == module).unwrap_or_else(|| panic!("no module {module}"));
    module.interface.as_ref().unwrap_or_else(|| panic!("{} has no interface", module.name))
}

fn block(interface: &Interface, kind: BlockKind, binding: Option<u32>) -> (&Block, &TypeDef) {
    let block = interface.blocks.iter().find(|b| b.kind == kind && b.binding == binding);
    let block = block.unwrap_or_else(|| panic!("no {kind:?} block at {binding:?}: {:?}", interface.blocks));
    (block, interface.type_of(block).unwrap())
}

fn member<'a>(def: &'a TypeDef, name: &str) -> &'a Member {
    def.members.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no member {name} in {}", def.name))
}

/// `(offset, size)` of a member.
fn placed(def: &TypeDef, name: &str) -> (u32, u32) {
    let member = member(def, name);
    (member.offset, member.size)
}

/// `(stride, row_major, columns, rows)` of a matrix member.
fn matrix(def: &TypeDef, name: &str) -> (u32, bool, u32, u32) {
    match &member(def, name).ty {
        Type::Matrix { stride, row_major, columns, rows, .. } => (*stride, *row_major, *columns, *rows),
        other => panic!("{name} is not a matrix: {other:?}"),
    }
}

/// `(length, stride)` of an array member.
fn array(def: &TypeDef, name: &str) -> (ArrayLength, u32) {
    match &member(def, name).ty {
        Type::Array { length, stride, .. } => (*length, *stride),
        other => panic!("{name} is not an array: {other:?}"),
    }
}

fn scalar(def: &TypeDef, name: &str) -> (ScalarKind, u32) {
    match &member(def, name).ty {
        Type::Scalar(scalar) => (scalar.kind, scalar.width),
        Type::Vector { scalar, .. } => (scalar.kind, scalar.width),
        other => panic!("{name} is not a scalar or vector: {other:?}"),
    }
}

fn struct_of<'a>(interface: &'a Interface, def: &TypeDef, name: &str) -> &'a TypeDef {
    let ty = match &member(def, name).ty {
        Type::Struct(index) => *index,
        Type::Array { element, .. } => match **element {
            Type::Struct(index) => index,
            ref other => panic!("{name} is not an array of structs: {other:?}"),
        },
        other => panic!("{name} is not a struct: {other:?}"),
    };
    &interface.types[ty]
}

/// Checks the GLSL module, with names whether or not debug info was stripped.
fn check_glsl(interface: &Interface) {
    // std140: a vec3 then a scalar shares its 16 bytes; matrices and arrays
    // have 16-byte columns and elements; a struct starts on 16.
    let (uniform, std140) = block(interface, BlockKind::Uniform, Some(0));
    assert_eq!((uniform.set, uniform.name.as_str(), std140.name.as_str()), (Some(0), "u", "Std140"));
    assert_eq!((placed(std140, "a"), placed(std140, "b")), ((0, 12), (12, 4)), "vec3 then float");
    assert_eq!(placed(std140, "m3"), (16, 48));
    assert_eq!(matrix(std140, "m3"), (16, false, 3, 3));
    assert_eq!(placed(std140, "m43_row"), (64, 48), "row-major mat4x3: 3 rows of 16 bytes");
    assert_eq!(matrix(std140, "m43_row"), (16, true, 4, 3));
    assert_eq!(placed(std140, "m43"), (112, 64), "column-major mat4x3: 4 columns of 16 bytes");
    assert_eq!(matrix(std140, "m43"), (16, false, 4, 3));
    assert_eq!((placed(std140, "m2_row"), matrix(std140, "m2_row")), ((176, 32), (16, true, 2, 2)));
    assert_eq!((placed(std140, "m2"), matrix(std140, "m2")), ((208, 32), (16, false, 2, 2)));
    assert_eq!((placed(std140, "fs"), array(std140, "fs")), ((240, 48), (ArrayLength::Fixed(3), 16)));
    assert_eq!((placed(std140, "v2s"), array(std140, "v2s")), ((288, 32), (ArrayLength::Fixed(2), 16)));
    assert_eq!((placed(std140, "v3s"), array(std140, "v3s")), ((320, 32), (ArrayLength::Fixed(2), 16)));
    assert_eq!((placed(std140, "flag"), scalar(std140, "flag")), ((352, 4), (ScalarKind::Uint, 32)), "bool is a u32");
    assert_eq!(placed(std140, "outer"), (368, 80), "a struct starts on 16 bytes");
    assert_eq!(std140.size, 448);
    let outer = struct_of(interface, std140, "outer");
    assert_eq!(outer.name, "Outer");
    assert_eq!((placed(outer, "inner"), placed(outer, "m"), placed(outer, "items")), ((0, 16), (16, 32), (48, 32)));
    assert_eq!(array(outer, "items"), (ArrayLength::Fixed(2), 16));
    let inner = struct_of(interface, outer, "items");
    assert_eq!(
        (inner.name.as_str(), placed(inner, "v"), placed(inner, "s"), inner.size),
        ("Inner", (0, 12), (12, 4), 16)
    );
    assert!(std::ptr::eq(inner, struct_of(interface, outer, "inner")), "one definition per struct type");

    // std430: arrays of scalars and vec2 pack tightly, vec3 still takes 16.
    let (storage, std430) = block(interface, BlockKind::Storage, Some(1));
    assert_eq!((placed(std430, "a"), placed(std430, "b")), ((0, 12), (12, 4)));
    assert_eq!((placed(std430, "m3"), matrix(std430, "m3")), ((16, 48), (16, false, 3, 3)));
    assert_eq!((placed(std430, "m2"), matrix(std430, "m2")), ((64, 16), (8, false, 2, 2)));
    assert_eq!((placed(std430, "m2_row"), matrix(std430, "m2_row")), ((80, 16), (8, true, 2, 2)));
    assert_eq!((placed(std430, "fs"), array(std430, "fs")), ((96, 12), (ArrayLength::Fixed(3), 4)));
    assert_eq!((placed(std430, "v2s"), array(std430, "v2s")), ((112, 16), (ArrayLength::Fixed(2), 8)));
    assert_eq!((placed(std430, "v3s"), array(std430, "v3s")), ((128, 32), (ArrayLength::Fixed(2), 16)));
    assert_eq!((placed(std430, "inners"), array(std430, "inners")), ((160, 32), (ArrayLength::Fixed(2), 16)));
    assert_eq!(
        (placed(std430, "spec_sized"), array(std430, "spec_sized")),
        ((192, 16), (ArrayLength::SpecConstant { id: 1, default: 4 }, 4)),
        "an array sized by a spec constant is sized by its default"
    );
    assert_eq!((placed(std430, "tail"), array(std430, "tail")), ((208, 0), (ArrayLength::Runtime, 4)));
    assert!(storage.runtime_sized && std430.is_runtime_sized());
    assert_eq!(std430.size, 208, "the fixed head ends where the runtime-sized array starts");

    // Scalar layout: everything packs to its scalar's alignment.
    let (_, scalar_block) = block(interface, BlockKind::Storage, Some(2));
    let at = |name| placed(scalar_block, name);
    assert_eq!((at("a"), at("b"), at("c")), ((0, 12), (12, 4), (16, 12)));
    assert_eq!((at("m3"), matrix(scalar_block, "m3")), ((28, 36), (12, false, 3, 3)));
    assert_eq!((at("h"), scalar(scalar_block, "h")), ((64, 2), (ScalarKind::Float, 16)));
    assert_eq!((at("i8"), scalar(scalar_block, "i8")), ((66, 1), (ScalarKind::Sint, 8)));
    assert_eq!((at("u8"), scalar(scalar_block, "u8")), ((67, 1), (ScalarKind::Uint, 8)));
    assert_eq!((at("i16"), scalar(scalar_block, "i16")), ((68, 2), (ScalarKind::Sint, 16)));
    assert_eq!((at("d"), scalar(scalar_block, "d")), ((72, 8), (ScalarKind::Float, 64)));
    assert_eq!((at("i64"), scalar(scalar_block, "i64")), ((80, 8), (ScalarKind::Sint, 64)));
    assert_eq!((at("u64"), scalar(scalar_block, "u64")), ((88, 8), (ScalarKind::Uint, 64)));
    assert_eq!((at("hv"), scalar(scalar_block, "hv")), ((96, 6), (ScalarKind::Float, 16)));
    assert_eq!((at("v3s"), array(scalar_block, "v3s")), ((104, 24), (ArrayLength::Fixed(2), 12)));

    // Push constants are std430.
    let (push, push_def) = block(interface, BlockKind::PushConstant, None);
    assert_eq!((push.set, push.name.as_str(), push_def.name.as_str()), (None, "pc", "Push"));
    assert_eq!((placed(push_def, "dir"), placed(push_def, "t"), placed(push_def, "mvp")), ((0, 12), (12, 4), (16, 64)));
    assert_eq!(
        member(push_def, "mvp").ty,
        Type::Matrix { scalar: F32, columns: 4, rows: 4, stride: 16, row_major: false }
    );

    assert_eq!(interface.workgroup_size, Some(WorkgroupSize { size: [1, 2, 1], spec_ids: [Some(0), None, None] }));
    let spec: Vec<(u32, &str, u64)> =
        interface.spec_constants.iter().map(|s| (s.id, s.name.as_str(), s.default)).collect();
    assert!(spec.contains(&(1, "N", 4)), "{spec:?}");
    // What the module declares after spirv-opt: the 16-bit float
    // arithmetic folds away, its storage stays.
    for capability in
        ["Shader", "Float64", "Int64", "Int16", "Int8", "StorageBuffer16BitAccess", "StorageBuffer8BitAccess"]
    {
        assert!(
            interface.capabilities.contains(&Capability::from_name(capability).unwrap()),
            "{capability} missing from {:?}",
            interface.capability_names().collect::<Vec<_>>()
        );
    }
    // 16-bit storage is core in SPIR-V 1.3; 8-bit storage is not.
    assert!(interface.extensions.iter().any(|e| e == "SPV_KHR_8bit_storage"), "{:?}", interface.extensions);
}

#[test]
fn glsl_layouts_read_from_the_spirv_match_std140_std430_and_scalar_rules() {
    for strip_debug in [false, true] {
        let manifest = build(&[("layouts.comp", GLSL_LAYOUTS)], |config, _| {
            config.strip_debug(strip_debug).spirv_version(SpirvVersion::V1_3);
        });
        check_glsl(interface(&manifest, "layouts.comp"));
    }
}

const HLSL_LAYOUTS: &str = "\
struct Inner { float3 v; float s; };
cbuffer Params : register(b0) {
    float3 a;
    float b;
    float4x4 m;
    row_major float3x3 r;
    float fs[3];
    float after;
    Inner inner;
};
RWStructuredBuffer<Inner> items : register(u0);
[numthreads(8, 4, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    items[id.x].s = b + fs[2] + after + inner.s + m[0][1] + r[1][2];
    items[id.x].v = a;
}
";

#[test]
fn hlsl_cbuffer_and_structured_buffer_layouts_are_the_modules_offsets() {
    let manifest = build(&[("layouts.comp", HLSL_LAYOUTS)], |config, dir| {
        config
            .language(dir.join("shaders").to_string_lossy(), Language::Hlsl)
            .hlsl_entry_point("main")
            .hlsl_offsets(true)
            .spirv_version(SpirvVersion::V1_3);
    });
    let interface = interface(&manifest, "layouts.comp");
    let (uniform, params) = block(interface, BlockKind::Uniform, Some(0));
    assert_eq!(uniform.set, Some(0));
    assert!(params.name.contains("Params"), "{}", params.name);
    assert_eq!((placed(params, "a"), placed(params, "b")), ((0, 12), (12, 4)));
    // glslang reads HLSL's `floatRxC` as a SPIR-V matrix of R columns and
    // flips the order to match: HLSL's default column_major is RowMajor.
    assert_eq!((placed(params, "m"), matrix(params, "m")), ((16, 64), (16, true, 4, 4)));
    assert_eq!((placed(params, "r"), matrix(params, "r")), ((80, 48), (16, false, 3, 3)));
    assert_eq!((placed(params, "fs"), array(params, "fs")), ((128, 48), (ArrayLength::Fixed(3), 16)));
    // The reader reports the module's offsets. `fs` takes three registers
    // (128, 144, 160), its last element only that register's first 4
    // bytes; `after` packs into the rest of it at 164, as DXC places it.
    // glslang 12 (shaderc's) started it after the array, at 176.
    assert_eq!(placed(params, "after"), (164, 4));
    assert_eq!(placed(params, "inner"), (176, 16), "a struct starts a register");
    assert_eq!(params.size, 192);
    let (storage, items) = block(interface, BlockKind::Storage, Some(0));
    assert!(storage.runtime_sized);
    let Type::Array { element, length: ArrayLength::Runtime, stride: 16 } = &items.members[0].ty else {
        panic!("a RWStructuredBuffer is a runtime array of 16-byte elements: {:?}", items.members[0].ty);
    };
    let Type::Struct(inner) = **element else { panic!("of structs: {element:?}") };
    let inner = &interface.types[inner];
    assert_eq!((placed(inner, "v"), placed(inner, "s")), ((0, 12), (12, 4)));
    assert_eq!(interface.workgroup_size, Some(WorkgroupSize { size: [8, 4, 1], spec_ids: [None; 3] }));
}

const WGSL_LAYOUTS: &str = "\
struct Inner { v: vec3<f32>, s: f32 }
struct Params {
    a: vec3<f32>,
    b: f32,
    m3: mat3x3<f32>,
    m2: mat2x2<f32>,
    v4s: array<vec4<f32>, 2>,
    inner: Inner,
}
struct Particles { count: u32, items: array<Inner> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> particles: Particles;
@compute @workgroup_size(64, 2)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    particles.items[id.x].s = params.b + params.m3[0].x + params.m2[1].y + params.v4s[1].w + params.inner.s
        + f32(particles.count);
    particles.items[id.x].v = params.a;
}
";

fn check_wgsl(interface: &Interface) {
    // naga wraps a uniform's struct in an unnamed block struct, and writes
    // a `std140_` copy of it in which a `mat2x2`'s columns are members of
    // their own (std140 would pad them to 16 bytes; WGSL packs them to 8).
    let (_, wrapper) = block(interface, BlockKind::Uniform, Some(0));
    assert_eq!((wrapper.members.len(), wrapper.members[0].offset), (1, 0));
    let params = struct_of(interface, wrapper, "");
    assert_eq!(params.name, "std140_Params");
    assert_eq!((placed(params, "a"), placed(params, "b")), ((0, 12), (12, 4)), "vec3 then f32");
    assert_eq!((placed(params, "m3"), matrix(params, "m3")), ((16, 48), (16, false, 3, 3)));
    assert_eq!((placed(params, "m2_col0"), placed(params, "m2_col1")), ((64, 8), (72, 8)));
    assert_eq!((placed(params, "v4s"), array(params, "v4s")), ((80, 32), (ArrayLength::Fixed(2), 16)));
    assert_eq!(placed(params, "inner"), (112, 16));
    assert_eq!(params.size, 128);
    assert_eq!(struct_of(interface, params, "inner").name, "Inner");
    let (storage, particles) = block(interface, BlockKind::Storage, Some(1));
    assert!(storage.runtime_sized);
    assert_eq!(particles.name, "Particles");
    assert_eq!((placed(particles, "count"), placed(particles, "items")), ((0, 4), (16, 0)));
    assert_eq!(array(particles, "items"), (ArrayLength::Runtime, 16));
    assert_eq!(struct_of(interface, particles, "items").name, "Inner");
    assert_eq!(interface.workgroup_size, Some(WorkgroupSize { size: [64, 2, 1], spec_ids: [None; 3] }));
}

#[test]
fn wgsl_layouts_have_their_names_even_when_debug_info_is_stripped() {
    for strip_debug in [false, true] {
        let manifest = build(&[("layouts.wgsl", WGSL_LAYOUTS)], |config, _| {
            config.strip_debug(strip_debug);
        });
        let interface = interface(&manifest, "layouts.wgsl#main");
        check_wgsl(interface);
    }
}

const SLANG_LAYOUTS: &str = "\
struct Inner { float3 v; float s; };
struct Params { float3 a; float b; float4x4 m; float fs[3]; Inner inner; };
ConstantBuffer<Params> params;
RWStructuredBuffer<Inner> items;

[shader(\"compute\")]
[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    items[id.x].s = params.b + params.fs[2] + params.inner.s + params.m[0][1];
    items[id.x].v = params.a;
}
";

#[test]
#[allow(clippy::disallowed_methods, reason = "looks for slangc as smolv-build does")]
fn slang_layouts_are_read_with_slangs_mangled_names() {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join("slangc").is_file()));
    assert!(
        std::env::var_os("SMOLV_SLANGC").is_some() || on_path,
        "the Slang tests need slangc: `source scripts/setup.sh` fetches it and sets SMOLV_SLANGC"
    );
    for strip_debug in [false, true] {
        let manifest = build(&[("layouts.slang", SLANG_LAYOUTS)], |config, _| {
            config.strip_debug(strip_debug);
        });
        let interface = interface(&manifest, "layouts.slang#main");
        let (uniform, params) = block(interface, BlockKind::Uniform, Some(0));
        assert_eq!(uniform.set, Some(0));
        assert_eq!(params.name, "Params_std140", "Slang names each layout's copy of a struct");
        assert_eq!((placed(params, "a"), placed(params, "b")), ((0, 12), (12, 4)), "float3 then float");
        assert_eq!(placed(params, "m"), (16, 64));
        assert_eq!(matrix(params, "m"), (16, true, 4, 4), "HLSL's column_major is SPIR-V's RowMajor");
        // Slang wraps a std140 array in a struct of its own.
        assert_eq!(placed(params, "fs"), (80, 48));
        let fs = struct_of(interface, params, "fs");
        assert_eq!(fs.name, "_Array_std140_float3");
        assert_eq!((placed(fs, "data"), array(fs, "data")), ((0, 48), (ArrayLength::Fixed(3), 16)));
        assert_eq!(placed(params, "inner"), (128, 16));
        assert_eq!(struct_of(interface, params, "inner").name, "Inner_std140");
        let (storage, items) = block(interface, BlockKind::Storage, Some(1));
        assert!(storage.runtime_sized);
        let element = struct_of(interface, items, &items.members[0].name);
        assert_eq!((element.name.as_str(), placed(element, "s")), ("Inner_std430", (12, 4)));
        assert_eq!(array(items, &items.members[0].name).1, 16);
        assert_eq!(interface.workgroup_size, Some(WorkgroupSize { size: [16, 1, 1], spec_ids: [None; 3] }));
    }
}
