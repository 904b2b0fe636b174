//! `glslang::TShader::setHlslIoMapping(bool)`, which glslang's C API
//! lacks: with it, `mapIO` places HLSL resources by register class (`t`,
//! `s`, `u`, `b`) rather than by their SPIR-V type, as DXC does (glslc's
//! `-fhlsl-iomap`, `Config::hlsl_io_mapping`).
//!
//! It is a plain non-virtual member function, so it is called through its
//! mangled name with the C calling convention, `this` first: that is the
//! Itanium C++ ABI (Linux, macOS, the BSDs, MinGW on x86-64 and AArch64)
//! and Microsoft's x64 and ARM64 ABI. 32-bit Windows passes `this` in a
//! register (`thiscall`) and decorates names its own ways; there the
//! switch is not offered ([`AVAILABLE`] is false) and a build that asks for
//! it fails with a message, rather than a link that fails for everyone.
//!
//! The `TShader` is read from the C API's `glslang_shader_t`, whose first
//! member it is (`glslang_c_interface.cpp`: `struct glslang_shader_s {
//! glslang::TShader* shader; … }`, no base class, no virtual function).
//! glslang-sys is pinned to one version (`=0.9.2` in the workspace), and a
//! test compiles HLSL with the switch and checks that it took effect.

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
/// Returns false, doing nothing, where [`AVAILABLE`] is false.
///
/// # Safety
/// `shader` is a live shader made by `glslang_shader_create` and not yet
/// deleted.
pub(super) unsafe fn set_hlsl_io_mapping(shader: *mut glslang_shader_t, on: bool) -> bool {
    #[cfg(not(all(target_arch = "x86", target_os = "windows")))]
    {
        // SAFETY: the caller gives a live `glslang_shader_t`, whose first
        // member is its `glslang::TShader*` (see the module docs); reading
        // that pointer reads initialized memory of the live object.
        let tshader = unsafe { shader.cast::<*mut c_void>().read() };
        // SAFETY: `tshader` is the live `TShader` the C API created;
        // `setHlslIoMapping(bool)` is non-virtual, takes `this` and a bool
        // by value in the C convention on these targets (see the module
        // docs), stores the flag in the shader's intermediate and throws
        // nothing (glslang is built with -fno-exceptions).
        unsafe { tshader_set_hlsl_io_mapping(tshader, on) };
        true
    }
    #[cfg(all(target_arch = "x86", target_os = "windows"))]
    {
        let _ = (shader, on);
        false
    }
}
