//! `glslang::TShader::setHlslIoMapping(bool)` (`Config::hlsl_io_mapping`), which glslang's C API lacks: a
//! non-virtual member function, called by its mangled name with the C convention, `this` first (the
//! Itanium ABI, Microsoft's x64 and ARM64; not 32-bit Windows' `thiscall`, see [`AVAILABLE`]). The
//! `TShader` is the first member of the pinned glslang-sys's `glslang_shader_t`; a test checks the switch.

#![allow(unsafe_code, reason = "a C++ member function of glslang, called by its mangled name")]

use std::ffi::c_void;

use glslang_sys::glslang_shader_t;

/// Whether this target can set the switch.
pub(super) const AVAILABLE: bool = !cfg!(all(target_arch = "x86", target_os = "windows"));

#[cfg(not(all(target_arch = "x86", target_os = "windows")))]
unsafe extern "C" {
    #[cfg_attr(target_env = "msvc", link_name = "?setHlslIoMapping@TShader@glslang@@QEAAX_N@Z")]
    #[cfg_attr(not(target_env = "msvc"), link_name = "_ZN7glslang7TShader16setHlslIoMappingEb")]
    fn tshader_set_hlsl_io_mapping(this: *mut c_void, on: bool);
}

/// Sets `TShader::setHlslIoMapping(on)` on the shader behind `shader`.
///
/// # Safety
/// `shader` is a live shader made by `glslang_shader_create`.
pub(super) unsafe fn set_hlsl_io_mapping(shader: *mut glslang_shader_t, on: bool) {
    #[cfg(not(all(target_arch = "x86", target_os = "windows")))]
    {
        // SAFETY: the caller's live `glslang_shader_t` starts with its `glslang::TShader*` (see the module docs).
        let tshader = unsafe { shader.cast::<*mut c_void>().read() };
        // SAFETY: `tshader` is the live `TShader`; the function is non-virtual, takes `this` and a bool in
        // the C convention on these targets, and throws nothing (glslang is built with -fno-exceptions).
        unsafe { tshader_set_hlsl_io_mapping(tshader, on) };
    }
    #[cfg(all(target_arch = "x86", target_os = "windows"))]
    let _ = (shader, on);
}
