//! One module's SPIR-V → naga's module, validated, minified ([`super::minify`]), written as WGSL.

use naga::back::wgsl::{WriterFlags, write_string};
use naga::front::spv;
use naga::valid::{Capabilities, ValidationFlags, Validator};
use smolv_format::spirv;

use super::{Refused, minify};

/// `spirv` without [`spirv::Instruction::is_debug_source`] ones (naga refuses some); `None` if damaged.
fn without_debug(spirv: &[u32]) -> Option<Vec<u32>> {
    let mut out = spirv.get(..spirv::HEADER_WORDS)?.to_vec();
    for instruction in spirv::instructions(spirv) {
        let instruction = instruction.ok()?;
        if !instruction.is_debug_source() {
            out.extend_from_slice(instruction.words);
        }
    }
    Some(out)
}

/// The minified WGSL of `spirv`, or why not.
pub(crate) fn to_wgsl(spirv: &[u32]) -> Result<String, Refused> {
    let refused = Refused::new;
    let stripped = without_debug(spirv);
    let spirv = stripped.as_deref().unwrap_or(spirv);
    // What wgpu passes for `ShaderSource::SpirV`.
    let options = spv::Options { adjust_coordinate_space: false, strict_capabilities: true, ..Default::default() };
    let mut module = spv::Frontend::new(spirv.iter().copied(), &options)
        .parse()
        .map_err(|e| refused("naga's SPIR-V reader rejects it", e.to_string()))?;
    minify::shorten_names(&mut module);
    let info = Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| refused("naga cannot validate it", e.into_inner().to_string()))?;
    let text = write_string(&module, &info, WriterFlags::empty())
        .map_err(|e| refused("naga cannot express it as WGSL", e.to_string()))?;
    let squeezed = minify::squeeze(&text);
    let depth = nesting(&squeezed);
    if depth > MAX_NESTING {
        return Err(refused(
            "its WGSL would nest expressions too deeply for wgpu's WGSL reader on a game thread",
            format!(
                "{depth} levels of parentheses, over smolv's limit of {MAX_NESTING}; it works as SPIR-V, and \
                 naming the parts of a long expression (each `let` used more than once) brings it down"
            ),
        ));
    }
    // The squeezed text must parse, validate, and keep the entry points.
    let reparsed = read_as_a_game_would(&squeezed)?;
    let entry_points = |m: &naga::Module| m.entry_points.iter().map(|e| (e.name.clone(), e.stage)).collect::<Vec<_>>();
    if entry_points(&reparsed) != entry_points(&module) {
        return Err(refused("the minified WGSL lost an entry point (a smolv bug)", String::new()));
    }
    Ok(squeezed)
}

/// The deepest nesting of brackets shipped WGSL may have (naga's reader recurses ~7 KiB a level).
pub(crate) const MAX_NESTING: usize = 64;

fn nesting(text: &str) -> usize {
    let depths = text.bytes().scan(0usize, |depth, byte| {
        match byte {
            b'(' | b'[' => *depth += 1,
            b')' | b']' => *depth = depth.saturating_sub(1),
            _ => {}
        }
        Some(*depth)
    });
    depths.max().unwrap_or(0)
}

fn read_as_a_game_would(text: &str) -> Result<naga::Module, Refused> {
    let module = naga::front::wgsl::parse_str(text)
        .map_err(|e| Refused::new("the minified WGSL does not parse (a smolv bug)", e.emit_to_string(text)))?;
    Validator::new(ValidationFlags::all(), Capabilities::all())
        .validate(&module)
        .map_err(|e| Refused::new("the minified WGSL does not validate (a smolv bug)", e.into_inner().to_string()))?;
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SPIR-V from WGSL, through naga as the WGSL front end compiles it.
    fn spirv_of(wgsl: &str) -> Vec<u32> {
        let module = naga::front::wgsl::parse_str(wgsl).unwrap();
        let info = Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module).unwrap();
        naga::back::spv::write_vec(&module, &info, &Default::default(), None).unwrap()
    }

    #[test]
    fn spirv_becomes_minified_wgsl_with_its_entry_point_and_bindings() {
        let spirv = spirv_of(
            "struct Globals { scale_factor: vec4<f32>, }
             @group(0) @binding(1) var<uniform> globals_block: Globals;
             fn helper_function(value_in: vec4<f32>) -> vec4<f32> { let doubled_value = value_in * 2.0; return doubled_value * globals_block.scale_factor; }
             @fragment fn fs_main(@location(0) colour: vec4<f32>) -> @location(0) vec4<f32> { return helper_function(colour); }",
        );
        let wgsl = to_wgsl(&spirv).unwrap();
        assert!(wgsl.contains("fn fs_main("), "{wgsl}");
        assert!(wgsl.contains("@group(0)@binding(1)"), "{wgsl}");
        for long in ["helper_function", "globals_block", "doubled_value", "value_in", "Globals", "\n", "  "] {
            assert!(!wgsl.contains(long), "{long:?} left in {wgsl}");
        }
        let module = naga::front::wgsl::parse_str(&wgsl).unwrap();
        Validator::new(ValidationFlags::all(), Capabilities::all()).validate(&module).unwrap();
    }

    #[cfg(feature = "glsl")]
    fn glsl(source: &str) -> Vec<u32> {
        let job = crate::compile::job::tests::fragment_job("s.frag");
        let settings = crate::compile::job::tests::settings();
        let compiled = crate::compile::frontend::compile(&job, source.as_bytes(), &settings).unwrap();
        compiled.modules[0].spirv.clone()
    }

    #[cfg(feature = "glsl")]
    #[test]
    fn a_combined_image_sampler_is_refused_and_separate_ones_translate() {
        let combined = glsl(
            "#version 450\nlayout(set = 0, binding = 0) uniform sampler2D tex;\nlayout(location = 0) in vec2 uv;\n\
             layout(location = 0) out vec4 color;\nvoid main() { color = texture(tex, uv); }\n",
        );
        let refused = to_wgsl(&combined).unwrap_err();
        assert!(!refused.reason.contains("Line"), "debug info is dropped before naga reads it: {refused:?}");
        assert!(!refused.to_string().is_empty(), "{refused:?}");
        let separate = glsl(
            "#version 450\nlayout(set = 0, binding = 0) uniform texture2D tex;\n\
             layout(set = 0, binding = 1) uniform sampler samp;\nlayout(location = 0) in vec2 uv;\n\
             layout(location = 0) out vec4 color;\nvoid main() { color = texture(sampler2D(tex, samp), uv); }\n",
        );
        let wgsl = to_wgsl(&separate).unwrap();
        assert!(wgsl.contains("textureSample("), "{wgsl}");
        assert!(wgsl.contains("fn main("), "{wgsl}");
    }

    #[test]
    fn nesting_counts_parentheses_and_brackets() {
        assert_eq!(nesting("fn f(){return ((a+b)[i]+c);}"), 2);
        assert_eq!(nesting("((a[(b)]))"), 4, "brackets count as parentheses do");
        assert_eq!(nesting("a)b(c"), 1, "an unbalanced closer counts from zero");
        assert_eq!(nesting(""), 0);
    }

    #[test]
    fn wgsl_nested_past_the_limit_is_refused_and_below_it_ships() {
        // `x + 1.0` applied `adds` times, each sum used once: naga nests
        // them all in one expression.
        let chain = |adds: usize| {
            let sum = (0..adds).fold("x".to_owned(), |sum, _| format!("({sum} + 1.0)"));
            spirv_of(&format!(
                "@fragment fn fs(@location(0) x: f32) -> @location(0) vec4<f32> {{ return vec4<f32>({sum}); }}"
            ))
        };
        let shallow = to_wgsl(&chain(MAX_NESTING / 2)).unwrap();
        assert!(nesting(&shallow) <= MAX_NESTING, "{shallow}");
        let refused = to_wgsl(&chain(MAX_NESTING + 8)).unwrap_err();
        assert!(refused.step.contains("too deeply"), "{refused:?}");
        assert!(refused.reason.contains("over smolv's limit of 64"), "{refused:?}");
    }

    #[test]
    fn what_naga_rejects_is_an_error_with_naga_s_reason() {
        let refused = to_wgsl(&[0x0723_0203, 0x0001_0000, 0, 1]).unwrap_err();
        assert_eq!(refused.step, "naga's SPIR-V reader rejects it");
        assert!(!refused.reason.is_empty());
    }
}
