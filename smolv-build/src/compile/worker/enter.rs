//! Serving before `main`, so a build script's worker never runs user code: constructor `ENTER` runs the initializers
//! after its slot (glslang's C++ ones), then serves and exits; else the worker serves from `Config::compile`.
#![allow(unsafe_code, reason = "a constructor in the C runtime's table, and the initializers after it, before main")]

/// Refers to `ENTER`, so that the linker keeps the object that holds it.
pub(crate) fn retain() {
    #[cfg(target_os = "linux")]
    std::hint::black_box(&linux::ENTER);
    #[cfg(target_os = "macos")]
    std::hint::black_box(&macos::ENTER);
    #[cfg(windows)]
    std::hint::black_box(&windows::ENTER);
}

fn worker_of_a_build_script() -> bool {
    crate::env::var_os(crate::compile::worker::MARKER).is_some() && crate::compile::worker::under_a_build_script()
}

#[cfg(windows)]
mod windows {
    use crate::compile::worker::serve;

    /// The constructor's slot, after MSVC's C++ constructors (`.CRT$XCU`).
    #[used]
    #[unsafe(link_section = ".CRT$XCY")]
    pub(super) static ENTER: extern "C" fn() = enter;

    extern "C" fn enter() {
        if !super::worker_of_a_build_script() {
            return;
        }
        // SAFETY: as mingw's start-up does before `main` (each runs once).
        #[cfg(target_env = "gnu")]
        unsafe {
            _pei386_runtime_relocator();
            __main();
        }
        serve::serve_if_asked();
    }

    #[cfg(target_env = "gnu")]
    unsafe extern "C" {
        /// mingw's pseudo-relocation pass (`pseudo-reloc.c`).
        fn _pei386_runtime_relocator();
        /// mingw's runner of the C++ constructors (`gccmain.c`).
        fn __main();
    }
}

#[cfg(target_os = "macos")]
mod macos {
    use std::ffi::{c_char, c_int, c_ulong, c_void};

    use crate::compile::worker::serve;

    /// The type of dyld's initializers: `(argc, argv, envp, apple, vars)`.
    type Initializer =
        unsafe extern "C" fn(c_int, *const *const c_char, *const *const c_char, *const *const c_char, *const c_void);

    #[used]
    #[unsafe(link_section = "__DATA,__mod_init_func,mod_init_funcs")]
    pub(super) static ENTER: Initializer = enter;

    unsafe extern "C" fn enter(
        argc: c_int,
        argv: *const *const c_char,
        envp: *const *const c_char,
        apple: *const *const c_char,
        vars: *const c_void,
    ) {
        if !super::worker_of_a_build_script() {
            return;
        }
        // SAFETY: as Rust's runtime does before `main`.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        let Some(after) = initializers_after_enter() else { return };
        for initializer in after {
            // SAFETY: called as dyld calls it; this process never returns.
            unsafe { initializer(argc, argv, envp, apple, vars) };
        }
        serve::serve_if_asked();
    }

    unsafe extern "C" {
        /// `<mach-o/getsect.h>`: a section's data in a loaded image.
        fn getsectiondata(
            header: *const c_void,
            segment: *const c_char,
            section: *const c_char,
            size: *mut c_ulong,
        ) -> *const u8;
    }

    /// The initializers that dyld calls after [`enter`] in this image.
    fn initializers_after_enter() -> Option<Vec<Initializer>> {
        let own = enter as Initializer as usize;
        // SAFETY: `dladdr` fills `info` for an address of this image.
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        if unsafe { libc::dladdr(own as *const c_void, &mut info) } == 0 || info.dli_fbase.is_null() {
            return None;
        }
        let header = info.dli_fbase.cast_const();
        let base = header as usize;
        for segment in [c"__DATA_CONST", c"__DATA"] {
            let Some(bytes) = section(header, segment.as_ptr(), c"__mod_init_func".as_ptr()) else { continue };
            let slots: Vec<usize> = bytes
                .chunks_exact(size_of::<usize>())
                .map(|b| usize::from_ne_bytes(b.try_into().unwrap_or_default()))
                .collect();
            if let Some(at) = slots.iter().position(|&slot| slot == own) {
                return Some(
                    slots[at + 1..].iter().filter(|&&slot| slot != 0).map(|&slot| as_initializer(slot)).collect(),
                );
            }
        }
        let bytes = section(header, c"__TEXT".as_ptr(), c"__init_offsets".as_ptr())?;
        let offsets: Vec<usize> = bytes
            .chunks_exact(4)
            .filter_map(|b| usize::try_from(u32::from_ne_bytes(b.try_into().ok()?)).ok())
            .collect();
        let at = offsets.iter().position(|&offset| base.wrapping_add(offset) == own)?;
        Some(offsets[at + 1..].iter().map(|&offset| as_initializer(base.wrapping_add(offset))).collect())
    }

    fn section(header: *const c_void, segment: *const c_char, name: *const c_char) -> Option<&'static [u8]> {
        let mut size: c_ulong = 0;
        // SAFETY: `header` is a loaded image's; the names are C strings.
        let data = unsafe { getsectiondata(header, segment, name, &mut size) };
        let size = usize::try_from(size).ok()?;
        // SAFETY: dyld maps the section for the image's life, `size` bytes.
        (!data.is_null()).then(|| unsafe { std::slice::from_raw_parts(data, size) })
    }

    fn as_initializer(address: usize) -> Initializer {
        // SAFETY: the table holds the addresses of initializers.
        unsafe { std::mem::transmute::<usize, Initializer>(address) }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::{c_char, c_int, c_void};

    use crate::compile::worker::serve;

    /// The type of the functions of `.init_array`, as glibc calls them.
    type Initializer = unsafe extern "C" fn(c_int, *const *const c_char, *const *const c_char);

    #[used]
    #[unsafe(link_section = ".init_array")]
    pub(super) static ENTER: Initializer = enter;

    unsafe extern "C" fn enter(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
        if !super::worker_of_a_build_script() {
            return;
        }
        // SAFETY: as Rust's runtime does before `main`; nothing else runs yet.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        // SAFETY: the C runtime's arguments; this process never returns.
        if unsafe { finish_initialization(argc, argv, envp) } {
            serve::serve_if_asked();
        }
    }

    /// Calls the initializers after [`ENTER`] in its `.init_array`.
    ///
    /// # Safety
    /// Only from [`enter`], with its arguments, never returning after `true`.
    #[must_use]
    unsafe fn finish_initialization(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) -> bool {
        let slot = std::ptr::addr_of!(ENTER) as usize;
        let Some((start, bytes)) = init_array_holding(slot) else { return false };
        let step = std::mem::size_of::<usize>();
        let mut at = slot + step;
        while at + step <= start + bytes {
            // SAFETY: a slot of the `.init_array` (0 and -1 are markers).
            let entry = unsafe { std::ptr::read(at as *const usize) };
            if entry != 0 && entry != usize::MAX {
                // SAFETY: as above, the address of an initializer.
                let initializer: Initializer = unsafe { std::mem::transmute::<usize, Initializer>(entry) };
                // SAFETY: called as the C runtime calls it.
                unsafe { initializer(argc, argv, envp) };
            }
            at += step;
        }
        true
    }

    /// The address and size in bytes of the `.init_array` holding `slot`.
    fn init_array_holding(slot: usize) -> Option<(usize, usize)> {
        let mut search = Search { slot, array: None };
        // SAFETY: `search` outlives the call.
        unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut search).cast::<c_void>()) };
        search.array
    }

    /// What [`visit`] looks for: the `.init_array` holding `slot`.
    struct Search {
        slot: usize,
        array: Option<(usize, usize)>,
    }

    // The ELF spec's tags.
    const DT_NULL: usize = 0;
    const DT_INIT_ARRAY: usize = 25;
    const DT_INIT_ARRAYSZ: usize = 27;

    /// `dl_iterate_phdr`'s callback.
    unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: libc::size_t, data: *mut c_void) -> c_int {
        // SAFETY: a valid description of one module; `data` is a `Search`.
        let (info, search) = unsafe { (&*info, &mut *data.cast::<Search>()) };
        let Ok(base) = usize::try_from(info.dlpi_addr) else {
            return 0;
        };
        let count = usize::from(info.dlpi_phnum);
        if info.dlpi_phdr.is_null() {
            return 0;
        }
        // SAFETY: the loader's program headers of this module.
        let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, count) };
        for header in headers.iter().filter(|h| h.p_type == libc::PT_DYNAMIC) {
            let Ok(offset) = usize::try_from(header.p_vaddr) else { continue };
            let (mut array, mut bytes) = (None, None);
            let mut entry = base.wrapping_add(offset) as *const [usize; 2];
            loop {
                // SAFETY: the mapped dynamic section, which ends with DT_NULL.
                let [tag, value] = unsafe { std::ptr::read(entry) };
                match tag {
                    DT_NULL => break,
                    DT_INIT_ARRAY => array = Some(value),
                    DT_INIT_ARRAYSZ => bytes = Some(value),
                    _ => {}
                }
                // SAFETY: the next entry, before DT_NULL.
                entry = unsafe { entry.add(1) };
            }
            let (Some(array), Some(bytes)) = (array, bytes) else { continue };
            // The loader may have relocated the entry in place, or not.
            for start in [base.wrapping_add(array), array] {
                if start <= search.slot && search.slot < start.saturating_add(bytes) {
                    search.array = Some((start, bytes));
                    return 1;
                }
            }
        }
        0
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_constructor_finds_its_own_slot_and_the_initializers_after_it() {
            let slot = std::ptr::addr_of!(ENTER) as usize;
            let (start, bytes) = init_array_holding(slot).expect("the module's .init_array");
            assert!(start <= slot && slot < start + bytes, "{start:#x} + {bytes} holds {slot:#x}");
            // SAFETY: the slot, inside the array, holds the constructor.
            let entry = unsafe { std::ptr::read(slot as *const usize) };
            assert_eq!(entry, enter as Initializer as usize);
            // Rust's own initializer (the arguments, priority 99) comes
            // before ours; the C++ ones of glslang-sys's library after it.
            assert!(bytes / std::mem::size_of::<usize>() >= 2, "{bytes} B");
            #[cfg(feature = "glsl")]
            assert!(slot + std::mem::size_of::<usize>() < start + bytes, "glslang's come after ours, and must run");
            assert!(init_array_holding(0).is_none());
        }
    }
}
