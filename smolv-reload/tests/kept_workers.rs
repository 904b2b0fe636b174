//! A watcher keeps its compiler workers across edits, in a program that
//! calls `worker_main` first (this test binary, without libtest's harness,
//! so that its `main` is the program's): two edits are compiled by the
//! one worker started with the watcher; an edit that crashes the compiler
//! fails that edit alone, and its worker is replaced in the background,
//! before the next edit; so is an idle worker killed from outside. The
//! debug-build test hooks `SMOLV_WORKER_TEST_STARTED` (each worker writes
//! its process id) and `SMOLV_WORKER_TEST_CRASH` (a worker dies of SIGSEGV
//! on a source holding the token) show it.
#![allow(unsafe_code, reason = "set_var before any thread, and kill(2) on the test's own worker")]

fn main() {
    // In a worker, serves and exits here.
    smolv_reload::worker_main();
    // The test hooks exist in debug builds only; `kill` on unix.
    #[cfg(all(unix, debug_assertions))]
    kept::kept_across_edits();
}

/// The test itself: the hooks it reads exist in debug builds, and it
/// kills a worker with kill(2), on unix.
#[cfg(all(unix, debug_assertions))]
mod kept {
    use std::path::Path;
    use std::time::{Duration, Instant};

    use smolv_build::recipe::ShaderRecipe;
    use smolv_format::{ARTIFACT_DIR, MANIFEST_FILE};
    use smolv_reload::{Event, Reloader, Watcher};
    use smolv_runtime::ShaderSet;

    const TINT: &str =
        "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1, 0, 0, 1); }\n";

    /// The process ids the workers wrote, once there are `count` (at most 60 s).
    fn workers_started(file: &Path, count: usize) -> Vec<u32> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            let pids: Vec<u32> = text.lines().map(|line| line.parse().unwrap()).collect();
            assert!(pids.len() <= count, "more workers started than {count}: {pids:?}");
            if pids.len() == count {
                return pids;
            }
            assert!(Instant::now() < deadline, "{count} workers did not start in time: {pids:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Saves `source` as the shader, and returns the edit's events.
    fn edit(watcher: &Watcher, path: &Path, source: &str) -> Vec<Event> {
        // What a late file event of the last save compiled again is not this edit's.
        std::thread::sleep(Duration::from_millis(200));
        let _ = watcher.events().try_iter().count();
        std::fs::write(path, source).unwrap();
        let event = watcher.events().recv_timeout(Duration::from_secs(60)).expect("the edit is reported");
        vec![event]
    }

    fn reloaded(events: &[Event]) -> bool {
        matches!(events, [Event::Reloaded { name, .. }] if name == "tint.frag")
    }

    pub(crate) fn kept_across_edits() {
        let dir = tempfile::tempdir().unwrap();
        let started = dir.path().join("started");
        // SAFETY: no other thread runs yet.
        unsafe {
            std::env::set_var("SMOLV_WORKER_TEST_STARTED", &started);
            std::env::set_var("SMOLV_WORKER_TEST_CRASH", "CRASH_THE_COMPILER");
            std::env::remove_var("SMOLV_WORKERS");
        }
        let shaders = dir.path().join("shaders");
        std::fs::create_dir_all(&shaders).unwrap();
        let tint = shaders.join("tint.frag");
        std::fs::write(&tint, TINT).unwrap();
        let out = dir.path().join("out");
        let mut config = smolv_build::Config::new();
        config.shader_dir(&shaders).out_dir(&out).cache_dir(dir.path().join("cache")).cargo_directives(false);
        config.try_compile().unwrap();
        let artifacts = out.join(ARTIFACT_DIR);
        let manifest: smolv_format::Manifest<ShaderRecipe> =
            serde_json::from_slice(&std::fs::read(artifacts.join(MANIFEST_FILE)).unwrap()).unwrap();
        let set: &'static ShaderSet =
            Box::leak(Box::new(ShaderSet::from_vec(std::fs::read(artifacts.join(&manifest.bundle)).unwrap()).unwrap()));
        // The build ran in workers too (this program called `worker_main`),
        // which are gone with it: count the watcher's alone.
        let _ = std::fs::remove_file(&started);
        let mut reloader = Reloader::new();
        reloader
            .quiet(true)
            .shader_with_recipe(set.get("tint.frag").unwrap(), manifest.modules[0].recipe.clone().unwrap());
        let watcher = reloader.start().unwrap();

        // The first worker starts with the watcher, before any edit.
        let first = workers_started(&started, 1);
        for green in ["0.5", "1.0"] {
            let events = edit(&watcher, &tint, &TINT.replace("vec4(1, 0, 0, 1)", &format!("vec4(0, {green}, 0, 1)")));
            assert!(reloaded(&events), "{events:?}");
        }
        assert_eq!(workers_started(&started, 1), first, "two edits, one worker");

        // A compiler crash fails that edit, naming the signal...
        let events = edit(&watcher, &tint, &format!("{TINT}// CRASH_THE_COMPILER\n"));
        let [Event::Failed { errors, .. }] = &events[..] else { panic!("{events:?}") };
        assert!(errors[0].message.contains("SIGSEGV"), "{}", errors[0].message);
        // ... and its worker is replaced in the background, which compiles
        // the next edit: no third start.
        let second = workers_started(&started, 2)[1];
        assert!(reloaded(&edit(&watcher, &tint, TINT)));
        assert_eq!(workers_started(&started, 2).len(), 2);

        // An idle worker killed from outside is replaced the same way.
        let pid = libc_pid(second);
        // SAFETY: a plain signal to the worker this test's watcher started.
        unsafe { kill(pid, 9) };
        workers_started(&started, 3);
        assert!(reloaded(&edit(&watcher, &tint, &TINT.replace("vec4(1, 0, 0, 1)", "vec4(0, 0, 1, 1)"))));
        assert_eq!(workers_started(&started, 3).len(), 3);
        drop(watcher);
        println!("kept_workers: ok");
    }

    fn libc_pid(pid: u32) -> i32 {
        i32::try_from(pid).unwrap()
    }

    unsafe extern "C" {
        /// kill(2).
        fn kill(pid: i32, signal: i32) -> i32;
    }
}
