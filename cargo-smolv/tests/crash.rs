//! A shader that crashes the compiler fails alone, on the first run: the
//! compilers run in worker processes of `cargo-smolv` itself, so the crash
//! ends a worker, is named with its signal, the other shaders compile, and
//! nothing about the crash is cached.

use std::path::Path;
use std::process::{Command, Output};

/// A valid shader: the test hook `SMOLV_WORKER_TEST_CRASH=boom.frag`
/// (debug builds) makes the process that compiles it die of SIGSEGV, as a
/// glslang crash does. glslang 12 (Debian's shaderc 2023.x) segfaulted on
/// an rvalue given to `atomicAdd`; glslang 16 (glslang-sys 0.9.2) reports
/// it as an error instead.
const BOOM: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(1.0); }\n";
/// What once crashed glslang 12, now an ordinary error.
const ONCE_A_CRASH: &str = "#version 450\nlayout(location = 0) out vec4 color;\n\
                            void main() {\n    uint n = 3u;\n    atomicAdd(n + 1u, 1u);\n    color = vec4(1.0);\n}\n";
/// The hook that crashes the compiler on `boom.frag`.
#[cfg(unix)]
const CRASH: (&str, &str) = ("SMOLV_WORKER_TEST_CRASH", "boom.frag");
const GOOD: &str = "#version 450\nlayout(location = 0) out vec4 color;\nvoid main() { color = vec4(0.5); }\n";

fn build(dir: &Path, env: &[(&str, &str)]) -> (Output, String) {
    build_with(dir, &[], env)
}

/// `cargo smolv build` of `dir/shaders` into `dir/out`, with `dir/cache`
/// and the `extra` arguments: how it ended, and all it printed.
fn build_with(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> (Output, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-smolv"))
        .args(["smolv", "build"])
        .arg(dir.join("shaders"))
        .arg("-o")
        .arg(dir.join("out"))
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .args(extra)
        .envs(env.iter().copied())
        .output()
        .expect("cargo-smolv runs");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output, text)
}

fn tree(boom: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    std::fs::write(dir.path().join(format!("shaders/{boom}")), BOOM).unwrap();
    std::fs::write(dir.path().join("shaders/good.frag"), GOOD).unwrap();
    dir
}

#[cfg(all(unix, debug_assertions))]
#[test]
fn a_compiler_crash_names_the_shader_and_signal_on_the_first_run_and_is_never_cached() {
    let dir = tree("boom.frag");
    let boom = dir.path().join("shaders/boom.frag");
    for run in ["first", "second"] {
        let (output, text) = build(dir.path(), &[CRASH]);
        assert_eq!(output.status.code(), Some(1), "{run} run: a failed build, not a dead one:\n{text}");
        let named = text.lines().any(|l| {
            l.starts_with(&format!("{}: error: the shader compiler crashed on this shader", boom.display()))
                && l.contains("glslang was killed by signal 11 (SIGSEGV) in a worker process")
        });
        assert!(named, "{run} run: boom.frag and its signal are named:\n{text}");
        assert!(text.contains("1 of 2 shaders failed to compile"), "{run} run:\n{text}");
        // good.frag compiled on the first run (and was cached); boom.frag
        // crashed again on the second: the crash was not cached.
        let counts = if run == "first" { "1 compiled, 0 from cache" } else { "0 compiled, 1 from cache" };
        assert!(text.contains(counts), "{run} run: good.frag is built ({counts}):\n{text}");
    }
}

#[cfg(all(unix, debug_assertions))]
#[test]
fn with_workers_off_the_same_crash_takes_the_cli_down() {
    // SMOLV_WORKERS=0 compiles in the CLI's own process, as before
    // workers: the crash is the process's death, which is what workers
    // prevent.
    let dir = tree("boom.frag");
    let (output, text) = build(dir.path(), &[("SMOLV_WORKERS", "0"), CRASH]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(output.status.signal(), Some(11), "in-process, glslang's SIGSEGV kills the CLI:\n{text}");
}

/// The shader that crashed glslang 12 fails as an error now, located on
/// its line: no hook, nothing crashes.
#[test]
fn the_shader_that_crashed_glslang_12_is_an_error_now() {
    let dir = tree("boom.frag");
    std::fs::write(dir.path().join("shaders/boom.frag"), ONCE_A_CRASH).unwrap();
    let (output, text) = build(dir.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let boom = dir.path().join("shaders/boom.frag");
    assert!(text.contains(&format!("{}:5", boom.display())) && !text.contains("crashed"), "{text}");
    assert!(text.contains("1 of 2 shaders failed to compile"), "{text}");
}

/// The test hook `SMOLV_WORKER_TEST_DELAY` (debug builds) makes the worker
/// sleep on one file: past the time limit, the worker is stopped, the
/// shader is named, and the others compile in a new worker.
#[cfg(debug_assertions)]
#[test]
fn a_worker_over_its_time_limit_is_stopped_and_names_the_shader() {
    let dir = tree("slow.frag");
    std::fs::write(dir.path().join("shaders/slow.frag"), GOOD.replace("0.5", "0.75")).unwrap();
    std::fs::write(dir.path().join("shaders/zzz.frag"), GOOD.replace("0.5", "0.125")).unwrap();
    let start = std::time::Instant::now();
    // 5 s: far above what the other two take even on a loaded machine,
    // far below the 60 s the slow one would.
    let (output, text) =
        build(dir.path(), &[("SMOLV_WORKER_TEST_DELAY", "slow.frag=60000"), ("SMOLV_WORKER_TIMEOUT", "5")]);
    assert!(start.elapsed().as_secs() < 45, "the limit stopped the worker: {:?}", start.elapsed());
    assert_eq!(output.status.code(), Some(1), "{text}");
    let slow = dir.path().join("shaders/slow.frag");
    assert!(
        text.lines().any(|l| l.starts_with(&format!("{}: error:", slow.display()))
            && l.contains("took longer than 5 s, the worker's time limit (SMOLV_WORKER_TIMEOUT), and was stopped")),
        "{text}"
    );
    assert!(text.contains("2 compiled, 0 from cache"), "good.frag and zzz.frag compile:\n{text}");
}

/// WESL is linked by the wesl crate, whose passes recurse over the tree: a
/// 200,000-deep expression overflows the stack, which aborts a process.
/// In a worker it fails that shader only.
#[cfg(all(unix, feature = "wesl"))]
#[test]
fn a_stack_overflow_in_the_wesl_compiler_fails_that_shader_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    let depth = 200_000;
    let deep = format!(
        "@fragment fn fs() -> @location(0) vec4f {{ return vec4f({}1.0{}); }}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    std::fs::write(dir.path().join("shaders/deep.wesl"), deep).unwrap();
    std::fs::write(
        dir.path().join("shaders/good.wesl"),
        "@fragment fn fs() -> @location(0) vec4f { return vec4f(1.0); }\n",
    )
    .unwrap();
    let (output, text) = build(dir.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "a failed build, not a dead one:\n{text}");
    let deep = dir.path().join("shaders/deep.wesl");
    assert!(
        text.lines().any(|l| l.starts_with(&format!("{}: error: the shader compiler crashed", deep.display()))
            && l.contains("wesl or naga was killed by signal")
            && l.contains("stack overflow")),
        "deep.wesl and how the worker ended are named:\n{text}"
    );
    assert!(text.contains("1 compiled, 0 from cache"), "good.wesl compiles:\n{text}");
}

/// For a wgpu target, naga translates each module's SPIR-V to WGSL in the
/// same workers. The test hook `SMOLV_WORKER_TEST_ABORT=translate` (debug
/// builds) aborts the worker there, as a naga crash would: the module
/// ships as SPIR-V with a warning that names it and the signal, the build
/// succeeds, and nothing is cached, so the next build translates it (and
/// caches that).
#[cfg(all(unix, debug_assertions, feature = "wgpu"))]
#[test]
fn a_crash_translating_to_wgsl_ships_spirv_with_a_warning_and_is_never_cached() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    std::fs::write(dir.path().join("shaders/good.frag"), GOOD).unwrap();
    let wgsl = dir.path().join("out/smolv/wgsl/0000-good.frag.wgsl");
    let build_for_wgpu = |env: &[(&str, &str)]| {
        let (output, text) = build_with(dir.path(), &["--target-api", "wgpu"], env);
        assert!(output.status.success(), "a crash in translation fails no build:\n{text}");
        text
    };

    let text = build_for_wgpu(&[("SMOLV_WORKER_TEST_ABORT", "translate")]);
    assert!(
        text.lines().any(|l| l.starts_with("warning: good.frag (")
            && l.contains(
                "ships as SPIR-V for wgpu, not WGSL: naga failed translating it to WGSL, in a worker process"
            )
            && l.contains("naga was killed by signal 6 (SIGABRT)")),
        "the module and the signal are named:\n{text}"
    );
    assert!(!wgsl.exists(), "the module ships as SPIR-V");

    let text = build_for_wgpu(&[]);
    assert!(!text.contains("naga failed"), "the crash was not cached:\n{text}");
    assert!(text.contains("wgpu: ships wgsl"), "{text}");
    let shipped = std::fs::read_to_string(&wgsl).expect("good.frag ships as WGSL now");
    assert!(shipped.contains("@fragment"), "{shipped}");

    // The translation is cached: with the hook on again, no worker is
    // asked, so nothing crashes.
    let text = build_for_wgpu(&[("SMOLV_WORKER_TEST_ABORT", "translate")]);
    assert!(!text.contains("naga failed") && text.contains("wgpu: ships wgsl"), "from the cache:\n{text}");
}

/// A real naga crash: SPIR-V whose fragment shader adds its input to a
/// running sum 50,000 times, each sum used once. naga's WGSL writer nests
/// such single-use expressions, one stack frame per level, and overflows
/// the stack (naga 30), which aborts the process it runs in.
#[cfg(all(unix, feature = "wgpu"))]
fn deep_sum_spirv(adds: u32) -> Vec<u8> {
    fn op(words: &mut Vec<u32>, opcode: u32, operands: &[u32]) {
        let len = u32::try_from(operands.len() + 1).unwrap();
        words.push(len << 16 | opcode);
        words.extend_from_slice(operands);
    }
    // Ids: 1 main, 2 void, 3 fn type, 4 f32, 5 vec4, 6 input pointer, 7
    // output pointer, 8 input, 9 output, 10 label, 11 the input's value,
    // 12.. the sums, then the vector.
    let mut words = vec![0x0723_0203, 0x0001_0000, 0, 12 + adds + 1, 0];
    op(&mut words, 17, &[1]); // OpCapability Shader
    op(&mut words, 14, &[0, 1]); // OpMemoryModel Logical GLSL450
    op(&mut words, 15, &[4, 1, u32::from_le_bytes(*b"main"), 0, 8, 9]); // OpEntryPoint Fragment
    op(&mut words, 16, &[1, 7]); // OpExecutionMode OriginUpperLeft
    op(&mut words, 71, &[8, 30, 0]); // OpDecorate Location 0
    op(&mut words, 71, &[9, 30, 0]);
    op(&mut words, 19, &[2]); // OpTypeVoid
    op(&mut words, 33, &[3, 2]); // OpTypeFunction
    op(&mut words, 22, &[4, 32]); // OpTypeFloat 32
    op(&mut words, 23, &[5, 4, 4]); // OpTypeVector
    op(&mut words, 32, &[6, 1, 4]); // OpTypePointer Input
    op(&mut words, 32, &[7, 3, 5]); // OpTypePointer Output
    op(&mut words, 59, &[6, 8, 1]); // OpVariable Input
    op(&mut words, 59, &[7, 9, 3]); // OpVariable Output
    op(&mut words, 54, &[2, 1, 0, 3]); // OpFunction
    op(&mut words, 248, &[10]); // OpLabel
    op(&mut words, 61, &[4, 11, 8]); // OpLoad
    let mut sum = 11;
    for id in 12..12 + adds {
        op(&mut words, 129, &[4, id, sum, 11]); // OpFAdd
        sum = id;
    }
    op(&mut words, 80, &[5, 12 + adds, sum, sum, sum, sum]); // OpCompositeConstruct
    op(&mut words, 62, &[9, 12 + adds]); // OpStore
    op(&mut words, 253, &[]); // OpReturn
    op(&mut words, 56, &[]); // OpFunctionEnd
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[cfg(all(unix, feature = "wgpu"))]
#[test]
fn a_real_naga_crash_translating_to_wgsl_ships_that_module_as_spirv_and_the_build_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shaders")).unwrap();
    std::fs::write(dir.path().join("shaders/deep.spv"), deep_sum_spirv(50_000)).unwrap();
    std::fs::write(dir.path().join("shaders/small.spv"), deep_sum_spirv(2)).unwrap();
    // 600 levels: naga writes them, but wgpu's WGSL reader could overflow
    // a game thread's stack on them, so the build refuses that WGSL.
    std::fs::write(dir.path().join("shaders/nested.spv"), deep_sum_spirv(600)).unwrap();
    // spirv-opt would take a while over 50,000 additions.
    let extra = ["--target-api", "wgpu", "--optimization", "none"];
    let (output, text) = build_with(dir.path(), &extra, &[]);
    assert!(output.status.success(), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("warning: deep.spv (")
            && l.contains("naga failed translating it to WGSL, in a worker process")
            && l.contains("naga was killed by signal 6 (SIGABRT)")
            && l.contains("overflowed its stack")),
        "deep.spv, the signal and the overflow are named:\n{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("warning: nested.spv (")
            && l.contains("its WGSL would nest expressions too deeply for wgpu's WGSL reader on a game thread")
            && l.contains("over smolv's limit of 64")),
        "nested.spv would overflow a game thread: it ships as SPIR-V:\n{text}"
    );
    assert!(text.contains("2 modules as SPIR-V"), "small.spv still translates:\n{text}");

    // In the CLI's own process, the same overflow is the CLI's death.
    let (output, _) = build_with(dir.path(), &extra, &[("SMOLV_WORKERS", "0")]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(output.status.signal(), Some(6), "in-process, naga's stack overflow aborts the CLI");
}
