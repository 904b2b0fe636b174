//! Hints added to glslang's messages where the message alone does not say
//! what to do. Two failures most users of a real tree meet first:
//!
//! - HLSL files named by stage (`triangle.vert`), which are read as GLSL
//!   until their language is stated (`Config::language`, `-x hlsl`):
//!   glslang says `#version: Desktop shaders for Vulkan SPIR-V require
//!   version 140 or higher`;
//! - extensions newer than the target's SPIR-V (ray tracing and mesh
//!   shaders need SPIR-V 1.4): glslang says `'GL_EXT_ray_tracing' : not
//!   supported for current targeted SPIR-V version`, without naming the
//!   target or how to raise it.

use crate::error::Diagnostic;
use crate::settings::Settings;

/// What HLSL shaders nearly always have and GLSL cannot: semantics,
/// register bindings, `[[vk::…]]` attributes, constant buffers, compute
/// thread counts and ray tracing stages.
const HLSL_MARKERS: [&str; 8] =
    [": SV_", ":SV_", ": register(", "[[vk::", "cbuffer ", "[numthreads(", "ConstantBuffer<", "[shader(\""];

/// The sentence added to the first error of a GLSL shader that looks like
/// HLSL.
const HLSL_HINT: &str = " (the file looks like HLSL, which a file named by stage is not read as: state its \
                         language, `Config::language(path_or_glob, Language::Hlsl)` in build.rs or `-x hlsl` with \
                         cargo smolv)";

/// glslang's message for an extension the target's SPIR-V cannot express.
const NEWER_SPIRV: &str = "not supported for current targeted SPIR-V version";

/// Whether GLSL `source` that failed is HLSL: it has no `#version` line
/// and one of the HLSL markers.
fn looks_like_hlsl(source: &str) -> bool {
    !source.lines().any(|line| line.trim_start().starts_with("#version"))
        && HLSL_MARKERS.iter().any(|marker| source.contains(marker))
}

/// What to add to an extension error under `settings`: the target, and how
/// to raise it.
fn newer_spirv_hint(settings: &Settings) -> String {
    let (major, minor) = settings.spirv_version.major_minor();
    format!(
        " (the build targets {} with SPIR-V {major}.{minor}; ray tracing and mesh shaders need SPIR-V 1.4 at least: \
         if the application creates a Vulkan 1.2 instance or newer, say so with \
         `Config::target_env(TargetEnv::Vulkan1_2)` in build.rs or `--target-env vulkan1.2` with cargo smolv)",
        settings.target_env.name()
    )
}

/// `errors` of a shader compiled as GLSL from `source` under `settings`:
/// the first gets the HLSL hint when the source looks like HLSL, and each
/// extension error the target's SPIR-V cannot take gets how to raise it.
pub(super) fn glsl_errors(source: &str, settings: &Settings, mut errors: Vec<Diagnostic>) -> Vec<Diagnostic> {
    if let Some(first) = errors.first_mut().filter(|_| looks_like_hlsl(source)) {
        first.message.push_str(HLSL_HINT);
    }
    for error in errors.iter_mut().filter(|e| e.message.contains(NEWER_SPIRV)) {
        error.message.push_str(&newer_spirv_hint(settings));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{SpirvVersion, TargetEnv};

    #[test]
    fn hlsl_is_told_from_glsl_by_its_semantics_and_bindings() {
        let vertex = "struct VSOutput { float4 Pos : SV_POSITION; };\n[[vk::binding(0, 0)]] cbuffer ubo : register(b0) { float4x4 mvp; };\n";
        let compute =
            "RWStructuredBuffer<uint> data;\n[numthreads(64, 1, 1)]\nvoid main(uint3 id:SV_DispatchThreadID) {}\n";
        assert!(looks_like_hlsl(vertex));
        assert!(looks_like_hlsl(compute));
        assert!(looks_like_hlsl(
            "struct CallData { float3 colour; };\n[shader(\"callable\")]\nvoid main(inout CallData data) {}\n"
        ));
        assert!(!looks_like_hlsl("#version 450\nlayout(location = 0) out vec4 colour;\nvoid main() {}\n"));
        // A broken GLSL file keeps its own message, with or without markers.
        assert!(!looks_like_hlsl("#version 450\n// : SV_Target in a comment\nvoid main() { x }\n"));
        assert!(!looks_like_hlsl("void main() { gl_Position = vec4(0.0); }\n"));
    }

    fn settings(target_env: TargetEnv, spirv_version: SpirvVersion) -> Settings {
        Settings { target_env, spirv_version, ..crate::compile::job::tests::settings() }
    }

    #[test]
    fn only_the_first_error_of_hlsl_gets_the_language_hint() {
        let errors = vec![
            Diagnostic::whole_file(
                "a.vert",
                "#version: Desktop shaders for Vulkan SPIR-V require version 140 or higher",
            ),
            Diagnostic::whole_file("a.vert", "syntax error"),
        ];
        let settings = settings(TargetEnv::Vulkan1_0, SpirvVersion::V1_0);
        let hinted = glsl_errors("float4 main() : SV_Target { return 0; }\n", &settings, errors.clone());
        assert!(hinted[0].message.ends_with(HLSL_HINT), "{}", hinted[0].message);
        assert_eq!(hinted[1], errors[1]);
        assert_eq!(glsl_errors("#version 450\nvoid main() {}\n", &settings, errors.clone()), errors);
    }

    #[test]
    fn an_extension_newer_than_the_target_names_the_target_and_how_to_raise_it() {
        let errors = vec![
            Diagnostic::new(
                "r.rgen",
                3,
                12,
                "'GL_EXT_ray_tracing' : not supported for current targeted SPIR-V version",
            ),
            Diagnostic::new("r.rgen", 9, 1, "'' : compilation terminated"),
        ];
        let source = "#version 460\n#extension GL_EXT_ray_tracing : require\nvoid main() {}\n";
        let hinted = glsl_errors(source, &settings(TargetEnv::Vulkan1_1, SpirvVersion::V1_3), errors.clone());
        assert_eq!(
            hinted[0].message,
            "'GL_EXT_ray_tracing' : not supported for current targeted SPIR-V version (the build targets vulkan1.1 \
             with SPIR-V 1.3; ray tracing and mesh shaders need SPIR-V 1.4 at least: if the application creates a \
             Vulkan 1.2 instance or newer, say so with `Config::target_env(TargetEnv::Vulkan1_2)` in build.rs or \
             `--target-env vulkan1.2` with cargo smolv)"
        );
        assert_eq!(hinted[1], errors[1]);
    }
}
