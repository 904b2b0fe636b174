//! Hints added to glslang's messages that do not say what to do: HLSL read as GLSL, and an
//! extension or built-in newer than the target's SPIR-V.

use crate::compile::target_check;
use crate::error::Diagnostic;
use crate::options::{Language, SpirvVersion, TargetEnv};
use crate::settings::Settings;

/// What HLSL shaders nearly always have and GLSL cannot.
const HLSL_MARKERS: [&str; 8] =
    [": SV_", ":SV_", ": register(", "[[vk::", "cbuffer", "[numthreads(", "ConstantBuffer<", "[shader(\""];

const HLSL_HINT: &str = " (the file looks like HLSL but was compiled as GLSL: state its language with \
                         `Config::language(path_or_glob, Language::Hlsl)` in build.rs, or with `-x hlsl` or \
                         `-x hlsl=PATH` on the cargo smolv command line)";

/// glslang's message for an extension the target's SPIR-V cannot express.
const NEWER_SPIRV: &str = "not supported for current targeted SPIR-V version";

/// glslang's messages for a built-in newer than the target's SPIR-V.
const REQUIRES_SPIRV: [&str; 2] = ["requires SPIR-V ", "requires at least SPIR-V "];

/// The extensions glslang refuses with [`NEWER_SPIRV`], and what each needs.
const EXTENSIONS: [(&str, SpirvVersion); 4] = [
    ("GL_EXT_ray_tracing", SpirvVersion::V1_4),
    ("GL_NV_ray_tracing_motion_blur", SpirvVersion::V1_4),
    ("GL_EXT_mesh_shader", SpirvVersion::V1_4),
    ("GL_NV_cooperative_matrix2", SpirvVersion::V1_6),
];

/// `errors` of a shader in `language` with the hints, each once.
pub(super) fn with_hints(
    language: Language,
    source: &str,
    settings: &Settings,
    mut errors: Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    if language == Language::Glsl
        && let Some(first) = errors.first_mut().filter(|first| looks_like_hlsl(source, &first.message))
    {
        first.message.push_str(HLSL_HINT);
    }
    let mut given = Vec::new();
    for error in errors.iter_mut() {
        if let Some(hint) = newer_spirv_hint(&error.message, settings).filter(|hint| !given.contains(hint)) {
            error.message.push_str(&hint);
            given.push(hint);
        }
    }
    errors
}

/// Whether GLSL `source` whose first error is `first_error` is HLSL: no `#version`, and an HLSL marker.
fn looks_like_hlsl(source: &str, first_error: &str) -> bool {
    if !first_error.starts_with("#version:") {
        return false;
    }
    let code = without_comments(source.strip_prefix('\u{feff}').unwrap_or(source));
    let has_version = code
        .lines()
        .any(|line| line.trim_start().strip_prefix('#').is_some_and(|rest| rest.trim_start().starts_with("version")));
    !has_version && HLSL_MARKERS.iter().any(|marker| contains_marker(&code, marker))
}

/// `source` with its `//` and `/* */` comments replaced by spaces.
fn without_comments(source: &str) -> String {
    let mut code = String::with_capacity(source.len());
    let mut rest = source;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
            code.push(' ');
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
            code.push(' ');
        } else {
            let next = rest.chars().next().unwrap_or(' ');
            code.push(next);
            rest = &rest[next.len_utf8()..];
        }
    }
    code
}

/// Whether `code` has `marker`, as a whole word.
fn contains_marker(code: &str, marker: &str) -> bool {
    let letter = |c: char| c.is_ascii_alphabetic();
    let in_word = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(marker).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + marker.len()..].chars().next();
        let joined_before = marker.starts_with(letter) && before.is_some_and(in_word);
        let joined_after = marker.ends_with(letter) && after.is_some_and(in_word);
        !joined_before && !joined_after
    })
}

/// What to add to an error about something newer than the target's SPIR-V: what it needs, how to raise it.
fn newer_spirv_hint(message: &str, settings: &Settings) -> Option<String> {
    let name = message.split('\'').nth(1).unwrap_or_default();
    let (major, minor) = settings.spirv_version.major_minor();
    let needed = if let Some((_, version)) = REQUIRES_SPIRV.iter().find_map(|prefix| message.split_once(prefix)) {
        let version: String = version.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
        SpirvVersion::parse(version.trim_end_matches('.'))
    } else if message.contains(NEWER_SPIRV) {
        EXTENSIONS.iter().find(|(extension, _)| *extension == name).map(|&(_, needed)| needed)
    } else {
        return None;
    };
    let Some(needed) = needed else {
        let how = if settings.spirv_version < settings.target_env.default_spirv_version() {
            "raise `Config::spirv_version`, or `--spirv-version`"
        } else {
            "raise the target to the Vulkan version the application creates its instance with, \
             `Config::target_env`, or `--target-env`; a `Config::spirv_version` that is set must be unset or \
             raised too"
        };
        return Some(format!(" (the build compiles for SPIR-V {major}.{minor}: {how})"));
    };
    let (needed_major, needed_minor) = needed.major_minor();
    let spirv =
        format!("`SpirvVersion::V{needed_major}_{needed_minor}`, or `--spirv-version {needed_major}.{needed_minor}`");
    let vulkan = TargetEnv::Vulkan1_0.accepting(needed.word());
    let how = if settings.target_env >= vulkan {
        format!("raise `Config::spirv_version` to {spirv}")
    } else {
        let mut how = format!(
            "if the application creates a {} instance or newer, say so: {}; a `Config::spirv_version` that is set \
             must be unset or raised to {spirv}",
            target_check::device_name(vulkan),
            target_check::raise_to(vulkan)
        );
        if needed == SpirvVersion::V1_4 {
            how.push_str(". Or: ");
            how.push_str(target_check::KHR_SPIRV_1_4);
        }
        how
    };
    Some(format!(
        " ({name} needs SPIR-V {needed_major}.{needed_minor} and the build compiles for SPIR-V {major}.{minor}: {how})"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MISSING_VERSION: &str = "#version: Desktop shaders for Vulkan SPIR-V require version 140 or higher";

    #[test]
    fn hlsl_is_told_from_glsl_by_its_semantics_and_bindings() {
        let vertex = "struct VSOutput { float4 Pos : SV_POSITION; };\n[[vk::binding(0, 0)]] cbuffer ubo : register(b0) { float4x4 mvp; };\n";
        let compute =
            "RWStructuredBuffer<uint> data;\n[numthreads(64, 1, 1)]\nvoid main(uint3 id:SV_DispatchThreadID) {}\n";
        let callable =
            "struct CallData { float3 colour; };\n[shader(\"callable\")]\nvoid main(inout CallData data) {}\n";
        // A `#version` in a comment is no `#version` to glslang.
        let commented = "/*\n#version 450 */ cbuffer x : register(b0) { float4 c; };\n";
        for hlsl in [vertex, compute, callable, commented] {
            assert!(looks_like_hlsl(hlsl, MISSING_VERSION), "{hlsl}");
        }
        // GLSL keeps its own message: markers in comments or inside other
        // words, a `#version` line however spaced, or another first error.
        for glsl in [
            "// port of: cbuffer Params : register(b0)\nvoid main() { x }\n",
            "/* float4 p : SV_Position; */ void main() {}\n",
            "uniform frame_cbuffer { vec4 c; };\nvoid main() {}\n",
            "struct cbuffers { vec4 c; };\nvoid main() {}\n",
            "# version 450\nstruct S { float4 p : SV_Position; };\n",
            "\u{feff}#version 450\ncbuffer x;\n",
        ] {
            assert!(!looks_like_hlsl(glsl, MISSING_VERSION), "{glsl}");
        }
        assert!(!looks_like_hlsl(vertex, "'' :  syntax error, unexpected LEFT_BRACKET"));
    }

    fn settings(target_env: TargetEnv, spirv_version: SpirvVersion) -> Settings {
        Settings { target_env, spirv_version, ..crate::compile::job::tests::settings() }
    }

    #[test]
    fn only_the_first_error_of_glsl_that_looks_like_hlsl_gets_the_language_hint() {
        let errors =
            vec![Diagnostic::whole_file("a.vert", MISSING_VERSION), Diagnostic::whole_file("a.vert", "syntax error")];
        let (hlsl, settings) =
            ("float4 main() : SV_Target { return 0; }\n", settings(TargetEnv::Vulkan1_0, SpirvVersion::V1_0));
        let hinted = with_hints(Language::Glsl, hlsl, &settings, errors.clone());
        assert!(hinted[0].message.ends_with(HLSL_HINT), "{}", hinted[0].message);
        assert_eq!(hinted[1], errors[1]);
        // HLSL that fails as HLSL gets no such hint.
        assert_eq!(with_hints(Language::Hlsl, hlsl, &settings, errors.clone()), errors);
    }

    fn hint(extension: &str, target_env: TargetEnv, spirv_version: SpirvVersion) -> String {
        let error = Diagnostic::new("r.rgen", 2, 12, format!("'{extension}' : {NEWER_SPIRV}"));
        let hinted = with_hints(Language::Glsl, "#version 460\n", &settings(target_env, spirv_version), vec![error]);
        hinted[0].message.split_once(NEWER_SPIRV).unwrap().1.to_owned()
    }

    #[test]
    fn an_extension_newer_than_the_target_says_what_it_needs_and_how_to_raise_the_target() {
        assert_eq!(
            hint("GL_EXT_ray_tracing", TargetEnv::Vulkan1_0, SpirvVersion::V1_0),
            " (GL_EXT_ray_tracing needs SPIR-V 1.4 and the build compiles for SPIR-V 1.0: if the application creates \
             a Vulkan 1.2 instance or newer, say so: `Config::target_env(TargetEnv::Vulkan1_2)`, or `--target-env \
             vulkan1.2`; a `Config::spirv_version` that is set must be unset or raised to `SpirvVersion::V1_4`, or \
             `--spirv-version 1.4`. Or: a Vulkan 1.1 device that enables VK_KHR_spirv_1_4 takes SPIR-V 1.4 too: \
             `Config::target_env(TargetEnv::Vulkan1_1).spirv_version(SpirvVersion::V1_4)`, or `--target-env \
             vulkan1.1 --spirv-version 1.4`, with `PipelineOptions::khr_spirv_1_4(true)` for smolv's Vulkan layer)"
        );
        // A SPIR-V version set below the target's (the example game's
        // Vulkan 1.1 with SPIR-V 1.0) is named as what to raise too.
        let game = hint("GL_EXT_ray_tracing", TargetEnv::Vulkan1_1, SpirvVersion::V1_0);
        assert!(game.contains("compiles for SPIR-V 1.0: if the application creates a Vulkan 1.2"), "{game}");
        assert!(game.contains("must be unset or raised to `SpirvVersion::V1_4`"), "{game}");
        // Vulkan 1.3 only, for SPIR-V 1.6.
        let matrix = hint("GL_NV_cooperative_matrix2", TargetEnv::Vulkan1_1, SpirvVersion::V1_3);
        assert!(
            matrix.starts_with(" (GL_NV_cooperative_matrix2 needs SPIR-V 1.6 and the build compiles for SPIR-V 1.3")
        );
        assert!(matrix.contains("`Config::target_env(TargetEnv::Vulkan1_3)`") && !matrix.contains("KHR"), "{matrix}");
        // The environment takes it already: only the SPIR-V version is low.
        assert_eq!(
            hint("GL_EXT_mesh_shader", TargetEnv::Vulkan1_2, SpirvVersion::V1_3),
            " (GL_EXT_mesh_shader needs SPIR-V 1.4 and the build compiles for SPIR-V 1.3: raise \
             `Config::spirv_version` to `SpirvVersion::V1_4`, or `--spirv-version 1.4`)"
        );
        // An extension glslang may add later: the target, or a low SPIR-V
        // version set below the target's.
        assert!(hint("GL_EXT_future", TargetEnv::Vulkan1_0, SpirvVersion::V1_0).contains("raise the target"));
        assert!(
            hint("GL_EXT_future", TargetEnv::Vulkan1_1, SpirvVersion::V1_3).contains("must be unset or raised too")
        );
        // Vulkan 1.0 with SPIR-V 1.4 set compiles for Vulkan 1.2: unsetting
        // the version would lower it.
        let set = hint("GL_EXT_future", TargetEnv::Vulkan1_2, SpirvVersion::V1_4);
        assert!(set.contains("raise `Config::spirv_version`") && !set.contains("unset"), "{set}");
        assert!(
            hint("GL_EXT_future", TargetEnv::Vulkan1_3, SpirvVersion::V1_3).contains("raise `Config::spirv_version`")
        );
    }

    #[test]
    fn a_built_in_that_requires_a_newer_spirv_says_how_to_raise_the_target() {
        let error = Diagnostic::new("q.frag", 9, 5, "'subgroup op' : requires SPIR-V 1.3");
        let settings = settings(TargetEnv::Vulkan1_0, SpirvVersion::V1_0);
        let hinted = with_hints(Language::Glsl, "#version 450\n", &settings, vec![error]);
        assert_eq!(
            hinted[0].message,
            "'subgroup op' : requires SPIR-V 1.3 (subgroup op needs SPIR-V 1.3 and the build compiles for SPIR-V 1.0: \
             if the application creates a Vulkan 1.1 instance or newer, say so: \
             `Config::target_env(TargetEnv::Vulkan1_1)`, or `--target-env vulkan1.1`; a `Config::spirv_version` \
             that is set must be unset or raised to `SpirvVersion::V1_3`, or `--spirv-version 1.3`)"
        );
        // Other errors keep their text.
        let other = Diagnostic::new("q.frag", 9, 5, "'x' : undeclared identifier");
        assert_eq!(with_hints(Language::Glsl, "#version 450\n", &settings, vec![other.clone()]), vec![other]);
    }

    #[test]
    fn a_repeated_error_carries_the_hint_once_and_requires_at_least_counts_too() {
        let settings = settings(TargetEnv::Vulkan1_0, SpirvVersion::V1_0);
        let errors = vec![
            Diagnostic::new("q.comp", 9, 5, "'subgroup op' : requires SPIR-V 1.3"),
            Diagnostic::new("q.comp", 12, 5, "'subgroup op' : requires SPIR-V 1.3"),
            Diagnostic::new("q.comp", 14, 1, "'shared block' : shared block requires at least SPIR-V 1.4"),
        ];
        let hinted = with_hints(Language::Glsl, "#version 450\n", &settings, errors.clone());
        assert!(hinted[0].message.contains("subgroup op needs SPIR-V 1.3"), "{}", hinted[0].message);
        assert_eq!(hinted[1], errors[1], "the hint once");
        assert!(hinted[2].message.contains("shared block needs SPIR-V 1.4"), "{}", hinted[2].message);
    }
}
