//! `glslang::TShader::setHlslIoMapping(bool)`, which glslang's C API
//! lacks (`Config::hlsl_io_mapping`: HLSL resources placed by register
//! class, as DXC does).
//!
//! A plain non-virtual member function, called through its mangled name
//! with the C calling convention, `this` first: the Itanium C++ ABI and
//! Microsoft's x64 and ARM64 ABI. 32-bit Windows (`thiscall`) has no
//! switch ([`AVAILABLE`] is false). The `TShader` is the first member of
//! the C API's `glslang_shader_t` (`glslang_c_interface.cpp`), in the one
//! glslang-sys version pinned, and a test checks that the switch works.

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
        // SAFETY: `tshader` is the live `TShader`; the function is
        // non-virtual, takes `this` and a bool in the C convention on these
        // targets, and throws nothing (glslang is built with -fno-exceptions).
        unsafe { tshader_set_hlsl_io_mapping(tshader, on) };
    }
    #[cfg(all(target_arch = "x86", target_os = "windows"))]
    let _ = (shader, on);
}
