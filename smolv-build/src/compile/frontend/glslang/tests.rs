use super::*;

/// Options for a Vulkan 1.0 `stage` shader of `source` language.
fn options(source: Source, stage: ShaderStage, entry_point: &str) -> Options<'_> {
    Options {
        source,
        stage,
        entry_point,
        target_env: TargetEnv::Vulkan1_0,
        spirv_version: SpirvVersion::V1_0,
        defines: Vec::new(),
        auto_map_locations: false,
        auto_bind_uniforms: false,
        binding_bases: Vec::new(),
        hlsl_offsets: false,
        hlsl_16bit_types: false,
        hlsl_io_mapping: false,
        register_bindings: Vec::new(),
        debug_file: None,
    }
}

fn no_includes(requested: &str, _: IncludeType, _: &str) -> Result<Included, String> {
    Err(format!("no include {requested}"))
}

/// The instructions of a module: (opcode, operands).
fn instructions(spirv: &[u32]) -> Vec<(u32, &[u32])> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < spirv.len() {
        let count = (spirv[at] >> 16) as usize;
        assert!(count > 0 && at + count <= spirv.len(), "a well-formed module");
        out.push((spirv[at] & 0xffff, &spirv[at + 1..at + count]));
        at += count;
    }
    out
}

/// The values of one decoration in a module, sorted.
fn decorated(spirv: &[u32], decoration: u32) -> Vec<u32> {
    const OP_DECORATE: u32 = 71;
    let mut values: Vec<u32> = instructions(spirv)
        .into_iter()
        .filter(|(op, operands)| *op == OP_DECORATE && operands.get(1) == Some(&decoration))
        .map(|(_, operands)| operands[2])
        .collect();
    values.sort_unstable();
    values
}

/// The `Binding` decorations of a module, sorted.
fn bindings(spirv: &[u32]) -> Vec<u32> {
    decorated(spirv, 33)
}

const FRAGMENT: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(TINT); }\n";

#[test]
fn a_shader_compiles_with_its_defines() {
    let mut glsl = options(Source::Glsl, ShaderStage::Fragment, "main");
    glsl.defines = vec![("TINT", "0.5")];
    let output = compile(FRAGMENT, &glsl, &mut no_includes).unwrap();
    assert_eq!(output.spirv[0], 0x0723_0203);
    assert_eq!(output.spirv[1], 0x0001_0000, "SPIR-V 1.0 for Vulkan 1.0");
    // Without the define, TINT is unknown: glslang's log, as the error.
    glsl.defines.clear();
    let Err(Error::Log(log)) = compile(FRAGMENT, &glsl, &mut no_includes) else { panic!("TINT is undefined") };
    assert!(log.contains("ERROR: 0:3: 'TINT' : undeclared identifier"), "{log}");
}

#[test]
fn includes_come_from_the_callback_and_its_message_is_the_error() {
    let source = "#version 450\n#include \"tint.h\"\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(TINT); }\n";
    let glsl = options(Source::Glsl, ShaderStage::Fragment, "main");
    let mut asked = Vec::new();
    let mut found = |requested: &str, kind: IncludeType, requesting: &str| {
        asked.push((requested.to_owned(), kind, requesting.to_owned()));
        Ok(Included { name: "inc/tint.h".to_owned(), content: "#define TINT 0.25\n".to_owned() })
    };
    compile(source, &glsl, &mut found).unwrap();
    // The main file asks with an empty name; GL_GOOGLE_include_directive
    // is on without the shader enabling it, as with shaderc.
    assert_eq!(asked, [("tint.h".to_owned(), IncludeType::Relative, String::new())]);

    let mut kinds = Vec::new();
    let mut missing = |requested: &str, kind: IncludeType, _: &str| {
        kinds.push(kind);
        Err(format!("cannot find include {requested:?} (searched here and there)"))
    };
    let Err(Error::Log(log)) = compile(source, &glsl, &mut missing) else { panic!("the include is missing") };
    assert_eq!(kinds, [IncludeType::Relative, IncludeType::Standard], "a `\"...\"` include is asked for twice");
    assert!(log.contains("ERROR: 0:2: '#include' : cannot find include \"tint.h\" (searched here and there)"), "{log}");
}

#[test]
fn errors_in_an_include_name_it_and_the_main_file_is_string_0_after_it() {
    let source =
        "#version 450\n#include \"bad.h\"\nlayout(location = 0) out vec4 color;\nvoid main() { color = nope; }\n";
    let glsl = options(Source::Glsl, ShaderStage::Fragment, "main");
    let mut bad = |_: &str, _: IncludeType, _: &str| {
        Ok(Included { name: "shaders/bad.h".to_owned(), content: "\nfloat f() { return missing; }\n".to_owned() })
    };
    let Err(Error::Log(log)) = compile(source, &glsl, &mut bad) else { panic!("both fail") };
    assert!(log.contains("ERROR: shaders/bad.h:2: 'missing' : undeclared identifier"), "{log}");
    assert!(log.contains("ERROR: 0:4: 'nope' : undeclared identifier"), "{log}");
}

#[test]
fn a_panicking_include_callback_fails_the_include_not_the_process() {
    let source =
        "#version 450\n#include <x.h>\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n";
    let glsl = options(Source::Glsl, ShaderStage::Fragment, "main");
    let mut panics = |_: &str, _: IncludeType, _: &str| -> Result<Included, String> { panic!("a bug") };
    let Err(Error::Log(log)) = compile(source, &glsl, &mut panics) else { panic!("the include failed") };
    assert!(log.contains("a panic in smolv-build"), "{log}");
}

#[test]
fn nul_bytes_are_errors_not_panics() {
    let glsl = options(Source::Glsl, ShaderStage::Fragment, "ma\0in");
    let error = compile("#version 450\nvoid main() {}\n", &glsl, &mut no_includes).unwrap_err();
    assert_eq!(error, Error::Other("the entry point name contains a NUL byte, which glslang cannot take".to_owned()));
    let mut glsl = options(Source::Hlsl, ShaderStage::Fragment, "main");
    glsl.register_bindings.push(RegisterBinding { register: "t0\0", set: 0, binding: 0 });
    assert!(matches!(
        compile("float4 main() : SV_Target { return 1; }", &glsl, &mut no_includes),
        Err(Error::Other(_))
    ));
}

const HLSL_RESOURCES: &str = "StructuredBuffer<float4> data : register(t1);\nTexture2D tex : register(t2);\n\
    SamplerState samp : register(s0);\n\
    float4 main(float4 pos : SV_Position) : SV_Target { return data[0] + tex.Sample(samp, pos.xy); }\n";

#[test]
fn hlsl_io_mapping_shifts_by_register_class() {
    let mut hlsl = options(Source::Hlsl, ShaderStage::Fragment, "main");
    hlsl.binding_bases = vec![(ResourceKind::Texture, 20), (ResourceKind::StorageBuffer, 40)];
    // By type: the structured buffer is an SSBO, shifted by 40.
    let by_type = compile(HLSL_RESOURCES, &hlsl, &mut no_includes).unwrap();
    assert_eq!(bindings(&by_type.spirv), [0, 22, 41]);
    // By register class: `t1` is a texture register, shifted by 20.
    hlsl.hlsl_io_mapping = true;
    let by_register = compile(HLSL_RESOURCES, &hlsl, &mut no_includes).unwrap();
    assert_eq!(bindings(&by_register.spirv), [0, 21, 22]);
}

#[test]
fn hlsl_registers_go_to_their_set_and_binding() {
    let mut hlsl = options(Source::Hlsl, ShaderStage::Fragment, "main");
    hlsl.register_bindings = vec![RegisterBinding { register: "t2", set: 3, binding: 7 }];
    let output = compile(HLSL_RESOURCES, &hlsl, &mut no_includes).unwrap();
    assert_eq!(bindings(&output.spirv), [0, 1, 7]);
    assert_eq!(decorated(&output.spirv, 34), [0, 0, 3], "t2's descriptor set");
}

#[test]
fn hlsl_16bit_types_are_real_16_bit_types() {
    const OP_CAPABILITY: u32 = 17;
    const FLOAT16: u32 = 9;
    let source =
        "float4 main(float4 pos : SV_Position) : SV_Target { half h = half(pos.x); return float4(h * h, 0, 0, 1); }";
    let mut hlsl = options(Source::Hlsl, ShaderStage::Fragment, "main");
    let float16 = |spirv: &[u32]| instructions(spirv).iter().any(|(op, o)| *op == OP_CAPABILITY && o == &[FLOAT16]);
    assert!(!float16(&compile(source, &hlsl, &mut no_includes).unwrap().spirv), "half is 32-bit by default");
    hlsl.hlsl_16bit_types = true;
    assert!(float16(&compile(source, &hlsl, &mut no_includes).unwrap().spirv));
}

#[test]
fn debug_info_names_the_file_and_holds_its_text() {
    const OP_STRING: u32 = 7;
    const OP_LINE: u32 = 8;
    let mut glsl = options(Source::Glsl, ShaderStage::Fragment, "main");
    glsl.defines = vec![("TINT", "0.5")];
    let stripped = compile(FRAGMENT, &glsl, &mut no_includes).unwrap().spirv;
    assert!(!instructions(&stripped).iter().any(|(op, _)| *op == OP_STRING || *op == OP_LINE));
    glsl.debug_file = Some("shaders/tint.frag");
    let debug = compile(FRAGMENT, &glsl, &mut no_includes).unwrap().spirv;
    let bytes: Vec<u8> = debug.iter().flat_map(|w| w.to_le_bytes()).collect();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("shaders/tint.frag"), "the file's name");
    assert!(text.contains("color = vec4(TINT);"), "the source as written, before preprocessing");
    assert!(instructions(&debug).iter().any(|(op, _)| *op == OP_LINE));

    // An include's name and text are in the module too.
    let source =
        "#version 450\n#include \"tint.h\"\nlayout(location = 0) out vec4 color;\nvoid main() { color = tint(); }\n";
    let mut include = |_: &str, _: IncludeType, _: &str| {
        Ok(Included {
            name: "inc/tint.h".to_owned(),
            content: "vec4 tint_from_include() { return vec4(1.0); }\n#define tint tint_from_include\n".to_owned(),
        })
    };
    let debug = compile(source, &glsl, &mut include).unwrap().spirv;
    let bytes: Vec<u8> = debug.iter().flat_map(|w| w.to_le_bytes()).collect();
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("inc/tint.h") && text.contains("vec4 tint_from_include() {"), "the include's name and text");
}

#[test]
fn automatic_locations_and_bindings_are_mapped() {
    let source = "#version 450\nin vec2 uv;\nout vec4 color;\nuniform sampler2D tex;\nvoid main() { color = texture(tex, uv); }\n";
    let mut glsl = options(Source::Glsl, ShaderStage::Fragment, "main");
    assert!(matches!(compile(source, &glsl, &mut no_includes), Err(Error::Log(_))), "Vulkan wants locations");
    glsl.auto_map_locations = true;
    glsl.auto_bind_uniforms = true;
    glsl.binding_bases = vec![(ResourceKind::Texture, 5), (ResourceKind::Texture, 9)];
    let output = compile(source, &glsl, &mut no_includes).unwrap();
    assert_eq!(bindings(&output.spirv), [9], "the later base of a kind wins");
}
