//! glslang's include callbacks, calling a Rust closure. A result with an empty name is "not found"
//! (its text is the error); no panic crosses into C++.

#![allow(unsafe_code, reason = "extern \"C\" callbacks that glslang calls with its pointers")]

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use glslang_sys::{glsl_include_callbacks_t, glsl_include_result_t};

use super::{IncludeType, Resolve};

/// The context pointer glslang hands back to the callbacks.
pub(super) struct Context<'a, 'b> {
    pub(super) resolve: &'a mut Resolve<'b>,
}

/// The callbacks, for an input whose `callbacks_ctx` is a live [`Context`].
pub(super) fn callbacks() -> glsl_include_callbacks_t {
    glsl_include_callbacks_t {
        include_system: Some(include_system),
        include_local: Some(include_local),
        free_include_result: Some(free_include_result),
    }
}

/// A result as glslang reads it (`raw`, first), with the strings it points into.
#[repr(C)]
struct Owned {
    raw: glsl_include_result_t,
    name: CString,
    data: Vec<u8>,
}

impl Owned {
    /// Boxed, and leaked to glslang until [`free_include_result`].
    fn into_raw(name: CString, data: Vec<u8>) -> *mut glsl_include_result_t {
        let mut owned = Box::new(Owned {
            raw: glsl_include_result_t {
                header_name: std::ptr::null(),
                header_data: std::ptr::null(),
                header_length: 0,
            },
            name,
            data,
        });
        // The heap buffers of `name` and `data` do not move with the box.
        owned.raw.header_name = owned.name.as_ptr();
        owned.raw.header_data = owned.data.as_ptr().cast::<c_char>();
        owned.raw.header_length = owned.data.len();
        Box::into_raw(owned).cast::<glsl_include_result_t>()
    }
}

/// Text for C, NUL bytes dropped.
fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', "")).unwrap_or_default()
}

/// The answer for one request: the file, or a "not found" with the message.
fn answer(
    ctx: *mut c_void,
    header: *const c_char,
    includer: *const c_char,
    kind: IncludeType,
) -> *mut glsl_include_result_t {
    let attempt = catch_unwind(AssertUnwindSafe(|| {
        if ctx.is_null() || header.is_null() {
            return Err("glslang asked for an include without a name".to_owned());
        }
        // SAFETY: glslang passes NUL-terminated strings that live through the call.
        let requested = unsafe { CStr::from_ptr(header) }.to_string_lossy();
        let requesting = if includer.is_null() {
            String::new()
        } else {
            // SAFETY: as above.
            unsafe { CStr::from_ptr(includer) }.to_string_lossy().into_owned()
        };
        // SAFETY: `ctx` is the input's `callbacks_ctx`, a live `Context` nothing else touches meanwhile.
        let context = unsafe { &mut *ctx.cast::<Context<'_, '_>>() };
        (context.resolve)(&requested, kind, &requesting)
    }));
    let result = attempt.unwrap_or_else(|_| Err("reading the include failed (a panic in smolv-build)".to_owned()));
    match result {
        Ok(found) => Owned::into_raw(c_string(&found.name), found.content.into_bytes()),
        Err(message) => Owned::into_raw(CString::default(), message.replace('\0', "").into_bytes()),
    }
}

unsafe extern "C" fn include_local(
    ctx: *mut c_void,
    header_name: *const c_char,
    includer_name: *const c_char,
    _depth: usize,
) -> *mut glsl_include_result_t {
    answer(ctx, header_name, includer_name, IncludeType::Relative)
}

unsafe extern "C" fn include_system(
    ctx: *mut c_void,
    header_name: *const c_char,
    includer_name: *const c_char,
    _depth: usize,
) -> *mut glsl_include_result_t {
    answer(ctx, header_name, includer_name, IncludeType::Standard)
}

unsafe extern "C" fn free_include_result(_ctx: *mut c_void, result: *mut glsl_include_result_t) -> c_int {
    if !result.is_null() {
        // SAFETY: every result came from `Owned::into_raw` (a leaked `Box<Owned>`, result first), given back once.
        drop(unsafe { Box::from_raw(result.cast::<Owned>()) });
    }
    0
}
