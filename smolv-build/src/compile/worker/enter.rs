//! Serving before `main`: a build script's worker never runs the user's
//! code.
//!
//! A worker of a build script is the build script started again. Were it
//! to serve only once the user's `main` reached `Config::compile`,
//! everything `main` did before that (a `cc::Build`, code generation, a
//! download, a sleep) would run again in every worker, at the same time,
//! in the same `OUT_DIR`, and a prelude slower than the greeting time-out
//! would fail every shader. So smolv-build puts a constructor in the
//! program's `.init_array` (`ENTER`): the C runtime calls it before
//! `main`, and in a build script's worker it serves and exits there.
//!
//! Why a constructor of our own rather than the `ctor` crate: before it
//! serves, the constructor runs the initializers that come after it in the
//! same array (`finish_initialization`), and for that it needs the
//! address of its own slot, which `ctor` does not give. They matter: the
//! linker puts a crate's constructors before those of the libraries it
//! depends on, so glslang's C++ static constructors (in the static library
//! glslang-sys builds) would otherwise not have run when the worker compiles. A
//! dedicated worker binary is no option either: a build script cannot
//! depend on a binary.
//!
//! The constructor serves only in a worker of a build script (`MARKER` set,
//! and Cargo's build-script variables). Other programs (`cargo-smolv`, a
//! game with hot reload) serve from `Config::worker_main` at the top of
//! their `main`, after Rust's runtime is set up: there a stack overflow in
//! naga is reported as one. Before `main`, Rust has installed no
//! stack-overflow handler, so in a build script's worker it ends the
//! worker with SIGSEGV; the shader is still the only one that fails.
//!
//! The linker takes an object file out of a library archive only when
//! something refers to it, and `#[used]` does not change that. So
//! [`retain`] refers to `ENTER`, and `Config::try_compile`, which every
//! build script calls, calls it. `smolv-build/tests/build_script_workers.rs`
//! checks this in a test binary that links smolv-build as a library.
//!
//! Only Linux has the constructor; elsewhere a build script's worker serves
//! from `Config::compile`, as before, and runs what `main` does before it.
//! So does a Linux worker whose `.init_array` cannot be found (a static
//! program without a dynamic section): it never serves with glslang
//! unconstructed.
//!
//! The guarantee covers the user's `main`, not every constructor: those
//! of the build script's own crate and its dependencies (`#[ctor]`
//! functions, for one) come before `ENTER` in the array, or after it, and
//! run in every worker as in the build script itself.
#![allow(unsafe_code, reason = "a constructor in .init_array, and the initializers after it, before main")]

/// Refers to `ENTER`, so that the linker keeps the object that holds it
/// (see the module docs). Free.
pub(crate) fn retain() {
    #[cfg(target_os = "linux")]
    std::hint::black_box(&linux::ENTER);
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::{c_char, c_int, c_void};

    use crate::compile::worker::{MARKER, serve, under_a_build_script};

    /// The type of the functions of `.init_array`. glibc calls them with
    /// `(argc, argv, envp)`; musl calls them with no arguments, and then
    /// `enter` receives, and forwards to the initializers after it, whatever
    /// the registers hold: harmless, since an initializer that takes
    /// arguments cannot rely on them under musl either.
    type Initializer = unsafe extern "C" fn(c_int, *const *const c_char, *const *const c_char);

    /// The constructor's slot in `.init_array`.
    #[used]
    #[unsafe(link_section = ".init_array")]
    pub(super) static ENTER: Initializer = enter;

    /// Serves, and exits, if this process is a worker of a build script;
    /// else returns at once.
    unsafe extern "C" fn enter(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
        if std::env::var_os(MARKER).is_none() || !under_a_build_script() {
            return;
        }
        // SAFETY: as Rust's runtime does before `main`: a worker whose
        // parent closed the pipe gets an error from its write, not a
        // signal. Nothing else runs in this process yet.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        // SAFETY: the arguments are what the C runtime called this
        // constructor with; this process never returns to the runtime,
        // which so never calls the initializers after this one again.
        // Without them (no `.init_array` found: no dynamic section, as in a
        // static non-PIE program) glslang's C++ statics would be
        // unconstructed: the worker then serves from `Config::compile`, as
        // off Linux.
        if unsafe { finish_initialization(argc, argv, envp) } {
            serve::serve_if_asked();
        }
    }

    /// Calls the initializers after [`ENTER`] in its module's
    /// `.init_array`, in order, as the C runtime would have once [`enter`]
    /// returned, and returns `true`. Calls none, and returns `false`, if the
    /// array cannot be found.
    ///
    /// # Safety
    /// Only from [`enter`], with its arguments, and only if it then never
    /// returns when this returns `true`.
    #[must_use]
    unsafe fn finish_initialization(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) -> bool {
        let slot = std::ptr::addr_of!(ENTER) as usize;
        let Some((start, bytes)) = init_array_holding(slot) else { return false };
        let step = std::mem::size_of::<usize>();
        let mut at = slot + step;
        while at + step <= start + bytes {
            // SAFETY: `at` is a slot of the module's `.init_array`, which
            // holds function addresses (0 and -1 are markers of old
            // toolchains, skipped).
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

    /// The address and size in bytes of the `.init_array` that holds
    /// `slot`, from the dynamic section of the module it is in.
    fn init_array_holding(slot: usize) -> Option<(usize, usize)> {
        let mut search = Search { slot, array: None };
        // SAFETY: `visit` reads only what the loader describes, and
        // `search` outlives the call.
        unsafe { libc::dl_iterate_phdr(Some(visit), (&raw mut search).cast::<c_void>()) };
        search.array
    }

    /// What [`visit`] looks for: the `.init_array` holding `slot`.
    struct Search {
        slot: usize,
        /// Its address and size in bytes.
        array: Option<(usize, usize)>,
    }

    /// `DT_NULL`, `DT_INIT_ARRAY` and `DT_INIT_ARRAYSZ` of the ELF spec.
    const DT_NULL: usize = 0;
    const DT_INIT_ARRAY: usize = 25;
    const DT_INIT_ARRAYSZ: usize = 27;

    /// `dl_iterate_phdr`'s callback: reads each module's dynamic section
    /// for its `.init_array`, and stops at the one holding the slot.
    unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: libc::size_t, data: *mut c_void) -> c_int {
        // SAFETY: the loader passes a valid description of one module, and
        // `data` is the `Search` of `finish_initialization`.
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
                // SAFETY: the module's dynamic section, mapped, which ends
                // with DT_NULL; each entry is a tag and a value, each the
                // size of an address.
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
