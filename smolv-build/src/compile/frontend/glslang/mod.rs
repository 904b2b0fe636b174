//! glslang's C API (`glslang-sys`) behind one safe function, [`compile`]: GLSL or HLSL to SPIR-V, as
//! shaderc drives glslang (but for HLSL's legalization, which the optimizer runs).

#![allow(unsafe_code, reason = "glslang's C API (glslang-sys)")]

mod hlsl_io;
mod includer;
mod resources;

use std::ffi::{CStr, CString, c_char};
use std::sync::OnceLock;

use glslang_sys as sys;
use smolv_format::reflect::ShaderStage;

use crate::options::{ResourceKind, SpirvVersion, TargetEnv};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    Glsl,
    Hlsl,
}

/// How a file was included: `#include "..."` or `#include <...>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IncludeType {
    Relative,
    Standard,
}

/// An include found: the name glslang records for it, and its text.
#[derive(Debug)]
pub(crate) struct Included {
    pub(crate) name: String,
    pub(crate) content: String,
}

/// What [`compile`] calls for each `#include` (requesting file empty for the main one).
pub(crate) type Resolve<'a> = dyn FnMut(&str, IncludeType, &str) -> Result<Included, String> + 'a;

/// An HLSL register placed at a set and binding.
#[derive(Clone, Debug)]
pub(crate) struct RegisterBinding<'a> {
    pub(crate) register: &'a str,
    pub(crate) set: u32,
    pub(crate) binding: u32,
}

/// Everything [`compile`] is told, for one shader of one stage.
#[derive(Clone, Debug)]
pub(crate) struct Options<'a> {
    pub(crate) source: Source,
    pub(crate) stage: ShaderStage,
    pub(crate) entry_point: &'a str,
    pub(crate) target_env: TargetEnv,
    pub(crate) spirv_version: SpirvVersion,
    /// `(name, value)`, as `#define name value`.
    pub(crate) defines: Vec<(&'a str, &'a str)>,
    pub(crate) auto_map_locations: bool,
    pub(crate) auto_bind_uniforms: bool,
    pub(crate) binding_bases: Vec<(ResourceKind, u32)>,
    /// HLSL's block layout rules for GLSL too.
    pub(crate) hlsl_offsets: bool,
    pub(crate) hlsl_16bit_types: bool,
    pub(crate) hlsl_io_mapping: bool,
    pub(crate) register_bindings: Vec<RegisterBinding<'a>>,
    /// Debug info, with this as the main file's name; `None` strips it.
    pub(crate) debug_file: Option<&'a str>,
}

#[derive(Debug)]
pub(crate) struct Output {
    pub(crate) spirv: Vec<u32>,
    /// glslang's log, for its warnings.
    pub(crate) log: String,
}

/// Why [`compile`] gave no module.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Error {
    /// glslang refused the shader: its log.
    Log(String),
    /// The input cannot be handed to glslang, or it failed without a log.
    Other(String),
}

/// Initializes glslang once per process (never finalized).
fn initialize() -> Result<(), Error> {
    static INITIALIZED: OnceLock<bool> = OnceLock::new();
    // SAFETY: no argument, any thread; OnceLock runs it once.
    let ok = *INITIALIZED.get_or_init(|| unsafe { sys::glslang_initialize_process() } != 0);
    if ok { Ok(()) } else { Err(Error::Other("glslang failed to initialize".to_owned())) }
}

/// `text` for C; `what` names it in the error for a NUL byte.
fn c_string(text: &str, what: &str) -> Result<CString, Error> {
    CString::new(text).map_err(|_| Error::Other(format!("{what} contains a NUL byte, which glslang cannot take")))
}

struct Shader(*mut sys::glslang_shader_t);

impl Drop for Shader {
    fn drop(&mut self) {
        // SAFETY: not null, deleted once, after the program (dropped first).
        unsafe { sys::glslang_shader_delete(self.0) }
    }
}

struct Program(*mut sys::glslang_program_t);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: from glslang_program_create, not null, deleted once.
        unsafe { sys::glslang_program_delete(self.0) }
    }
}

/// A log glslang returned, as text (invalid UTF-8 replaced).
///
/// # Safety
/// `log` is null or a NUL-terminated string that lives through this call.
unsafe fn log_text(log: *const c_char) -> String {
    if log.is_null() {
        return String::new();
    }
    // SAFETY: the caller's promise.
    unsafe { CStr::from_ptr(log) }.to_string_lossy().into_owned()
}

fn stage(stage: ShaderStage) -> Result<sys::glslang_stage_t, Error> {
    use sys::glslang_stage_t as S;
    Ok(match stage {
        ShaderStage::Vertex => S::Vertex,
        ShaderStage::TessellationControl => S::TesselationControl,
        ShaderStage::TessellationEvaluation => S::TesselationEvaluation,
        ShaderStage::Geometry => S::Geometry,
        ShaderStage::Fragment => S::Fragment,
        ShaderStage::Compute => S::Compute,
        ShaderStage::RayGeneration => S::RayGeneration,
        ShaderStage::Intersection => S::Intersect,
        ShaderStage::AnyHit => S::AnyHit,
        ShaderStage::ClosestHit => S::ClosestHit,
        ShaderStage::Miss => S::Miss,
        ShaderStage::Callable => S::Callable,
        ShaderStage::Task => S::Task,
        ShaderStage::Mesh => S::Mesh,
        #[allow(unreachable_patterns)]
        other => return Err(Error::Other(format!("glslang has no {} stage", other.name()))),
    })
}

fn client_version(env: TargetEnv) -> sys::glslang_target_client_version_t {
    use sys::glslang_target_client_version_t as V;
    match env {
        TargetEnv::Vulkan1_0 => V::Vulkan1_0,
        TargetEnv::Vulkan1_1 => V::Vulkan1_1,
        TargetEnv::Vulkan1_2 => V::Vulkan1_2,
        TargetEnv::Vulkan1_3 => V::Vulkan1_3,
    }
}

fn spirv_version(version: SpirvVersion) -> sys::glslang_target_language_version_t {
    use sys::glslang_target_language_version_t as V;
    match version {
        SpirvVersion::V1_0 => V::SPIRV1_0,
        SpirvVersion::V1_1 => V::SPIRV1_1,
        SpirvVersion::V1_2 => V::SPIRV1_2,
        SpirvVersion::V1_3 => V::SPIRV1_3,
        SpirvVersion::V1_4 => V::SPIRV1_4,
        SpirvVersion::V1_5 => V::SPIRV1_5,
        SpirvVersion::V1_6 => V::SPIRV1_6,
    }
}

fn resource_type(kind: ResourceKind) -> sys::glslang_resource_type_t {
    use sys::glslang_resource_type_t as R;
    match kind {
        ResourceKind::Image => R::Image,
        ResourceKind::Sampler => R::Sampler,
        ResourceKind::Texture => R::Texture,
        ResourceKind::UniformBuffer => R::UBO,
        ResourceKind::StorageBuffer => R::SSBO,
        ResourceKind::UnorderedAccessView => R::UAV,
    }
}

/// glslang's message flags, as shaderc sets them (`GetMessageRules`).
fn messages(options: &Options<'_>) -> sys::glslang_messages_t {
    use sys::glslang_messages_t as M;
    let switches = [
        (options.source == Source::Hlsl, M::READ_HLSL.0),
        (options.hlsl_offsets, M::HLSL_OFFSETS.0),
        (options.hlsl_16bit_types, M::HLSL_ENABLE_16BIT_TYPES.0),
    ];
    let rules = M::CASCADING_ERRORS.0 | M::SPV_RULES.0 | M::VULKAN_RULES.0;
    M(switches.into_iter().filter(|&(on, _)| on).fold(rules, |bits, (_, bit)| bits | bit))
}

/// The preamble: the defines, then `GL_GOOGLE_include_directive` enabled, as shaderc writes it.
fn preamble(defines: &[(&str, &str)]) -> String {
    let defines = defines.iter().map(|(name, value)| format!("#define {name} {value}\n"));
    defines.chain([INCLUDE_EXTENSION.to_owned()]).collect()
}

const INCLUDE_EXTENSION: &str = "#extension GL_GOOGLE_include_directive : enable\n";

/// Compiles `source` with `options`; `resolve` finds each include.
pub(crate) fn compile(source: &str, options: &Options<'_>, resolve: &mut Resolve<'_>) -> Result<Output, Error> {
    initialize()?;
    let stage = stage(options.stage)?;
    if options.hlsl_io_mapping && options.source == Source::Hlsl && !hlsl_io::AVAILABLE {
        return Err(Error::Other(
            "HLSL I/O mapping (Config::hlsl_io_mapping, -fhlsl-iomap) is not available on this target (32-bit \
             Windows): turn it off and place resources with Config::hlsl_register_binding"
                .to_owned(),
        ));
    }
    let code = c_string(source, "the shader")?;
    let entry_point = c_string(options.entry_point, "the entry point name")?;
    let preamble = c_string(&preamble(&options.defines), "a define")?;
    let registers: Vec<CString> = options
        .register_bindings
        .iter()
        .flat_map(|b| [b.register.to_owned(), b.set.to_string(), b.binding.to_string()])
        .map(|text| c_string(&text, "an HLSL register binding"))
        .collect::<Result<_, _>>()?;
    let debug_file = options.debug_file.map(|name| c_string(name, "the shader's file name")).transpose()?;
    let register_pointers: Vec<*const c_char> = registers.iter().map(|s| s.as_ptr()).collect();
    let register_count = u32::try_from(register_pointers.len())
        .map_err(|_| Error::Other("too many HLSL register bindings".to_owned()))?;

    let mut context = includer::Context { resolve };
    let input = sys::glslang_input_t {
        language: match options.source {
            Source::Glsl => sys::glslang_source_t::GLSL,
            Source::Hlsl => sys::glslang_source_t::HLSL,
        },
        stage,
        client: sys::glslang_client_t::Vulkan,
        client_version: client_version(options.target_env),
        target_language: sys::glslang_target_language_t::SPIRV,
        target_language_version: spirv_version(options.spirv_version),
        code: code.as_ptr(),
        // shaderc's defaults: GLSL 1.10 without a `#version`, no profile.
        default_version: 110,
        default_profile: sys::glslang_profile_t::None,
        force_default_version_and_profile: 0,
        forward_compatible: 0,
        messages: messages(options),
        resource: &resources::SHADERC_RESOURCES,
        callbacks: includer::callbacks(),
        callbacks_ctx: (&raw mut context).cast(),
    };

    // SAFETY: `input` is initialized and its pointers outlive the shader.
    let shader = Shader(unsafe { sys::glslang_shader_create(&input) });
    if shader.0.is_null() {
        return Err(Error::Other("glslang could not create a shader".to_owned()));
    }
    // SAFETY (this block): `shader.0` is live; the strings outlive the calls.
    unsafe {
        sys::glslang_shader_set_preamble(shader.0, preamble.as_ptr());
        sys::glslang_shader_set_entry_point(shader.0, entry_point.as_ptr());
        for (kind, base) in &options.binding_bases {
            sys::glslang_shader_shift_binding(shader.0, resource_type(*kind), *base);
            // Combined image samplers by the texture base, as glslang 12 did.
            if *kind == ResourceKind::Texture {
                sys::glslang_shader_shift_binding(shader.0, sys::glslang_resource_type_t::CombinedSampler, *base);
            }
        }
        let mut flags = sys::glslang_shader_options_t::DEFAULT;
        if options.auto_bind_uniforms {
            flags |= sys::glslang_shader_options_t::AUTO_MAP_BINDINGS;
        }
        if options.auto_map_locations {
            flags |= sys::glslang_shader_options_t::AUTO_MAP_LOCATIONS;
        }
        sys::glslang_shader_set_options(shader.0, flags.0);
        if options.source == Source::Hlsl {
            if !register_pointers.is_empty() {
                sys::glslang_shader_set_resource_set_binding(shader.0, register_pointers.as_ptr(), register_count);
            }
            hlsl_io::set_hlsl_io_mapping(shader.0, options.hlsl_io_mapping);
        }
    }

    // SAFETY: live, and `input.callbacks_ctx` (`context`) outlives the call.
    let preprocessed = unsafe { sys::glslang_shader_preprocess(shader.0, &input) } != 0;
    if !preprocessed {
        return Err(shader_log(&shader));
    }
    // SAFETY: `shader.0` is live; the text is copied.
    let text = unsafe { log_text(sys::glslang_shader_get_preprocessed_code(shader.0)) };
    // Without the preamble's `#extension`, which parse refuses before `#version`.
    let text = text.trim_start_matches('\n').strip_prefix(INCLUDE_EXTENSION).unwrap_or(&text);
    let text = c_string(text, "the preprocessed shader")?;
    let parse_preamble = c_string(INCLUDE_EXTENSION, "the preamble")?;
    // SAFETY: `shader.0` is live; both texts outlive the parse.
    unsafe {
        sys::glslang_shader_set_preprocessed_code(shader.0, text.as_ptr());
        sys::glslang_shader_set_preamble(shader.0, parse_preamble.as_ptr());
    }
    // SAFETY: as for preprocess.
    let parsed = unsafe { sys::glslang_shader_parse(shader.0, &input) } != 0;
    if !parsed {
        return Err(shader_log(&shader));
    }
    // SAFETY: `shader.0` is live; the log is copied before the next call.
    let mut log = unsafe { log_text(sys::glslang_shader_get_info_log(shader.0)) };

    // SAFETY: creates a program, checked for null below.
    let program = Program(unsafe { sys::glslang_program_create() });
    if program.0.is_null() {
        return Err(Error::Other("glslang could not create a program".to_owned()));
    }
    // SAFETY (this block): `program.0` and `shader.0` are live.
    unsafe {
        sys::glslang_program_add_shader(program.0, shader.0);
        if sys::glslang_program_link(program.0, 0) == 0 || sys::glslang_program_map_io(program.0) == 0 {
            return Err(Error::Log(log_text(sys::glslang_program_get_info_log(program.0))));
        }
        log.push_str(&log_text(sys::glslang_program_get_info_log(program.0)));
        if let Some(file) = &debug_file {
            // As shaderc's debug info: the file name and its text as written.
            sys::glslang_program_set_source_file(program.0, stage, file.as_ptr());
            sys::glslang_program_add_source_text(program.0, stage, code.as_ptr(), source.len());
        }
    }
    // SAFETY: all zeros is a valid glslang_spv_options_t: its bools false, its strings null ("not given").
    let mut spv_options: sys::glslang_spv_options_t = unsafe { std::mem::zeroed() };
    spv_options.generate_debug_info = debug_file.is_some();
    spv_options.disable_optimizer = true;
    // SAFETY: `program.0` is linked.
    let spirv = unsafe {
        sys::glslang_program_SPIRV_generate_with_options(program.0, stage, &mut spv_options);
        let len = sys::glslang_program_SPIRV_get_size(program.0);
        let words = sys::glslang_program_SPIRV_get_ptr(program.0);
        if words.is_null() || len == 0 {
            Vec::new()
        } else {
            // SAFETY: `len` words at `words`, alive with the program.
            std::slice::from_raw_parts(words, len).to_vec()
        }
    };
    // SAFETY: `program.0` is live; the messages are copied.
    let messages = unsafe { log_text(sys::glslang_program_SPIRV_get_messages(program.0)) };
    if spirv.is_empty() {
        return Err(Error::Other(format!("glslang generated no SPIR-V: {}", messages.trim())));
    }
    Ok(Output { spirv, log })
}

fn shader_log(shader: &Shader) -> Error {
    // SAFETY: `shader.0` is live; the log is copied.
    let log = unsafe { log_text(sys::glslang_shader_get_info_log(shader.0)) };
    if log.trim().is_empty() { Error::Other("glslang failed and wrote no log".to_owned()) } else { Error::Log(log) }
}

#[cfg(test)]
mod tests;
