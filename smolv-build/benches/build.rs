//! Build-cache benchmark on a generated shader set.
//!
//! `cargo bench -p smolv-build --bench build`
//!
//! 20 shaders (fragment, vertex and compute, sharing three include files)
//! × 25 define permutations = 500 modules. In one run it measures cold
//! builds with one thread and with every thread, alternated (1, N, 1, N, …,
//! `SMOLV_BENCH_ROUNDS` pairs, default 3) so that both see the same machine
//! load over time, a warm no-op build, and the build after touching one
//! include, and prints every cold run and the ratios against the targets:
//! warm ≤ 2% of cold, parallel speedup ≥ 1.8× on 2 cores, and a touched
//! include recompiling only the modules that include it.
//!
//! With the `remote-cache` feature (on through the default `cli`), it also
//! starts nginx as a Bazel HTTP remote cache (as the remote_cache tests
//! do), builds cold while uploading, then builds as a new machine (empty
//! local cache, warm remote), and prints that against the cold build:
//! target ≤ 10%. A new machine given a copy of the local cache instead is
//! printed beside it: the same build without the network.
#![allow(missing_docs)]

#[cfg(feature = "remote-cache")]
#[path = "../tests/support/nginx.rs"]
mod nginx;

use std::path::Path;
use std::time::{Duration, Instant};

use smolv_build::{Config, Report, Variant};

const SHADERS: usize = 20;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes the shader set; shader `i` includes `lighting.glsl` only when
/// it is a fragment shader, so touching it recompiles a known subset.
fn generate(root: &Path) {
    write(&root.join("include/common.glsl"), COMMON);
    write(&root.join("include/lighting.glsl"), LIGHTING);
    write(&root.join("include/noise.glsl"), NOISE);
    for i in 0..SHADERS {
        let (ext, body) = match i % 4 {
            0 | 1 => ("frag", fragment(i)),
            2 => ("vert", vertex(i)),
            _ => ("comp", compute(i)),
        };
        write(&root.join(format!("shaders/s{i:02}.{ext}")), &body);
    }
}

fn fragment(i: usize) -> String {
    format!(
        "#version 450\n#include <common.glsl>\n#include <lighting.glsl>\n#include <noise.glsl>\n\
         layout(location=0) in vec3 v_normal;\nlayout(location=1) in vec2 v_uv;\nlayout(location=2) in vec3 v_world;\n\
         layout(location=0) out vec4 color;\n\
         layout(set=1, binding=0) uniform sampler2D albedo;\nlayout(set=1, binding=1) uniform sampler2D normal_map;\n\
         void main() {{\n  vec3 base = texture(albedo, v_uv * {scale}.0).rgb;\n\
         #if QUALITY >= 2\n  base *= 0.8 + 0.2 * fbm(v_world * {scale}.0);\n#endif\n\
         #if QUALITY >= 3\n  vec3 n = perturb(normalize(v_normal), texture(normal_map, v_uv).xyz);\n#else\n  vec3 n = normalize(v_normal);\n#endif\n\
         vec3 lit = vec3(0.0);\n  for (int l = 0; l < LIGHTS; ++l) {{ lit += shade_light(l, n, v_world, base); }}\n\
         #if STYLE == 1\n  lit = toon(lit);\n#elif STYLE == 2\n  lit = desaturate(lit, 0.{i});\n#elif STYLE >= 3\n  lit = tonemap_aces(lit * exposure());\n#endif\n\
         color = vec4(lit, 1.0);\n}}\n",
        scale = i + 1
    )
}

fn vertex(i: usize) -> String {
    format!(
        "#version 450\n#include <common.glsl>\n\
         layout(location=0) in vec3 position;\nlayout(location=1) in vec3 normal;\nlayout(location=2) in vec2 uv;\n\
         layout(location=0) out vec3 v_normal;\nlayout(location=1) out vec2 v_uv;\nlayout(location=2) out vec3 v_world;\n\
         layout(push_constant) uniform Model {{ mat4 model; }} push;\n\
         void main() {{\n  vec4 world = push.model * vec4(position, 1.0);\n\
         #if QUALITY >= 3\n  world.xyz += normal * 0.0{i} * sin(frame_time() + world.x);\n#endif\n\
         #if STYLE == 4\n  world.y = floor(world.y * 8.0) / 8.0;\n#endif\n\
         v_world = world.xyz;\n  v_normal = mat3(push.model) * normal;\n  v_uv = uv;\n  gl_Position = view_projection() * world;\n}}\n"
    )
}

fn compute(i: usize) -> String {
    format!(
        "#version 450\n#include <common.glsl>\n#include <noise.glsl>\nlayout(local_size_x=64) in;\n\
         layout(set=0, binding=0) buffer Data {{ vec4 items[]; }};\n\
         void main() {{\n  uint id = gl_GlobalInvocationID.x;\n  vec4 v = items[id];\n\
         #if QUALITY >= 1\n  v.xyz += fbm(v.xyz * {i}.0) * 0.01;\n#endif\n\
         for (int k = 0; k < LIGHTS; ++k) {{ v.w = mix(v.w, hash(v.xy + float(k)), 0.1); }}\n\
         #if STYLE >= 2\n  v = clamp(v, -1.0, 1.0);\n#endif\n  items[id] = v;\n}}\n"
    )
}

const COMMON: &str = "layout(set=0, binding=0) uniform Frame { mat4 vp; vec4 time_exposure; vec4 lights[8]; vec4 colors[8]; } frame;\n\
mat4 view_projection() { return frame.vp; }\nfloat frame_time() { return frame.time_exposure.x; }\nfloat exposure() { return frame.time_exposure.y; }\n\
#ifndef LIGHTS\n#define LIGHTS 4\n#endif\n#ifndef QUALITY\n#define QUALITY 1\n#endif\n#ifndef STYLE\n#define STYLE 0\n#endif\n";
const LIGHTING: &str = "vec3 shade_light(int l, vec3 n, vec3 p, vec3 albedo) {\n  vec3 d = frame.lights[l].xyz - p;\n  float att = 1.0 / (1.0 + dot(d, d));\n  float ndl = max(dot(n, normalize(d)), 0.0);\n  vec3 h = normalize(normalize(d) + vec3(0, 0, 1));\n  float spec = pow(max(dot(n, h), 0.0), 32.0);\n  return (albedo * ndl + spec) * frame.colors[l].rgb * att;\n}\n\
vec3 perturb(vec3 n, vec3 t) { return normalize(n + (t * 2.0 - 1.0) * 0.5); }\nvec3 toon(vec3 c) { return floor(c * 4.0) / 4.0; }\n\
vec3 desaturate(vec3 c, float k) { float l = dot(c, vec3(0.299, 0.587, 0.114)); return mix(c, vec3(l), k); }\n\
vec3 tonemap_aces(vec3 x) { return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0); }\n";
const NOISE: &str = "float hash(vec2 p) { return fract(sin(dot(p, vec2(12.9898, 78.233))) * 43758.5453); }\n\
float noise3(vec3 p) { vec3 i = floor(p); vec3 f = fract(p); float a = hash(i.xy + i.z); float b = hash(i.xy + i.z + 1.0); return mix(a, b, f.z); }\n\
float fbm(vec3 p) { float v = 0.0; float a = 0.5; for (int o = 0; o < 5; ++o) { v += a * noise3(p); p *= 2.0; a *= 0.5; } return v; }\n";

fn config(root: &Path, out: &str, cache: &str, jobs: Option<usize>) -> Config {
    let mut config = Config::new();
    config
        .shader_dir(root.join("shaders"))
        .include_dir(root.join("include"))
        .out_dir(root.join(out))
        .cache_dir(root.join(cache))
        .cargo_directives(false)
        .strip_debug(true);
    let permutations =
        Variant::permutations(&[("QUALITY", &["0", "1", "2", "3", "4"]), ("STYLE", &["0", "1", "2", "3", "4"])]);
    for i in 0..SHADERS {
        let ext = match i % 4 {
            0 | 1 => "frag",
            2 => "vert",
            _ => "comp",
        };
        config.variants(format!("s{i:02}.{ext}"), permutations.clone());
    }
    if let Some(jobs) = jobs {
        config.jobs(jobs);
    }
    config
}

fn timed(config: &Config) -> (Duration, Report) {
    let start = Instant::now();
    let report = config.try_compile().expect("benchmark shaders compile");
    (start.elapsed(), report)
}

/// The middle run, or the mean of the middle two.
fn median(runs: &[Duration]) -> Duration {
    let mut sorted = runs.to_vec();
    sorted.sort();
    let middle = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) { (sorted[middle - 1] + sorted[middle]) / 2 } else { sorted[middle] }
}

#[allow(clippy::disallowed_methods, reason = "SMOLV_BENCH_ROUNDS, the benchmark's own knob")]
fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` probes bench binaries this way.
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    generate(root);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());

    let rounds: usize = std::env::var("SMOLV_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
    let (mut cold_1, mut cold_n) = (Vec::new(), Vec::new());
    let mut report = Report::default();
    for round in 0..rounds {
        // Each cold run gets an empty cache and output directory of its own.
        let (time, one) = timed(&config(root, &format!("out-1-{round}"), &format!("cache-1-{round}"), Some(1)));
        cold_1.push(time);
        let (time, _) = timed(&config(root, &format!("out-n-{round}"), &format!("cache-n-{round}"), Some(threads)));
        cold_n.push(time);
        report = one;
    }
    let modules = report.modules.len();
    let last = rounds - 1;
    let warm_config = config(root, &format!("out-n-{last}"), &format!("cache-n-{last}"), Some(threads));
    let warm = (0..5).map(|_| timed(&warm_config)).min_by_key(|(t, _)| *t).unwrap();
    assert_eq!(warm.1.compiled, 0, "the warm build compiled something");

    let lighting = root.join("include/lighting.glsl");
    let mut text = std::fs::read_to_string(&lighting).unwrap();
    text.push_str("// touched\n");
    std::fs::write(&lighting, text).unwrap();
    let (touched, touched_report) = timed(&warm_config);
    let expected: usize = (0..SHADERS).filter(|i| i % 4 <= 1).count() * 26;

    println!(
        "smolv-build cache benchmark: {SHADERS} shaders × 25 permutations (+ the base) = {modules} modules, {threads} threads"
    );
    let seconds = |runs: &[Duration]| runs.iter().map(|t| format!("{:.2}", t.as_secs_f64())).collect::<Vec<_>>();
    let (median_1, median_n) = (median(&cold_1), median(&cold_n));
    println!("  cold builds, alternated 1 thread / {threads} threads, {rounds} rounds:");
    println!("    1 thread   {} s   median {:>6.2} s", seconds(&cold_1).join(" "), median_1.as_secs_f64());
    println!("    {threads} threads  {} s   median {:>6.2} s", seconds(&cold_n).join(" "), median_n.as_secs_f64());
    println!(
        "    speedup    {} ×   median {:>6.2} × (target ≥ 1.8× on 2 cores)",
        cold_1
            .iter()
            .zip(&cold_n)
            .map(|(a, b)| format!("{:.2}", a.as_secs_f64() / b.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(" "),
        median_1.as_secs_f64() / median_n.as_secs_f64()
    );
    println!(
        "  warm no-op build                {:>9.3} s   {:.2}% of the median cold {threads}-thread build (target ≤ 2%)",
        warm.0.as_secs_f64(),
        100.0 * warm.0.as_secs_f64() / median_n.as_secs_f64()
    );
    println!(
        "  after touching lighting.glsl    {:>9.2} s   recompiled {} jobs; {} include it (target: exactly those)",
        touched.as_secs_f64(),
        touched_report.compiled,
        expected
    );
    println!(
        "  bundle (zstd): {} bytes for {} bytes of SPIR-V ({:.1}%), dictionary {} bytes",
        report.total_bundle_bytes,
        report.total_spirv_bytes,
        100.0 * report.total_bundle_bytes as f64 / report.total_spirv_bytes as f64,
        report.dictionary_bytes
    );
    if let Some(packing) = &report.packing {
        println!("  embedded: {}", packing.summary());
    }
    #[cfg(feature = "remote-cache")]
    remote(root, threads, median_n);
}

/// Cold with uploads, then a new machine against the warm remote; and, for
/// reference, a new machine given a copy of the local cache (what a new
/// machine costs without any network: a fresh output directory).
#[cfg(feature = "remote-cache")]
fn remote(root: &Path, threads: usize, cold: Duration) {
    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            let target = to.join(entry.file_name());
            if entry.path().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let server = nginx::Nginx::start();
    let url = server.url();
    let machine = |name: &str| {
        let mut config = config(root, &format!("out-{name}"), &format!("cache-{name}"), Some(threads));
        config.remote_cache(url.as_str()).remote_cache_mode(smolv_build::cache::RemoteCacheMode::ReadWrite);
        config
    };
    let (upload, uploaded) = timed(&machine("ci"));
    let (fresh, new_machine) = timed(&machine("new"));
    assert_eq!(new_machine.compiled, 0, "the new machine compiled something");
    assert_eq!(new_machine.remote_misses, 0, "the new machine missed the remote");
    assert!(new_machine.warnings.is_empty(), "{:?}", new_machine.warnings);
    copy_dir(&root.join("cache-ci"), &root.join("cache-copied"));
    let (copied, _) = timed(&config(root, "out-copied", "cache-copied", Some(threads)));
    let percent = |t: Duration| 100.0 * t.as_secs_f64() / cold.as_secs_f64();
    println!(
        "  cold build + upload to nginx    {:>9.2} s   {:.0}% of cold; {} entries, {:.1} KB up, {:.2} s in requests (all threads)",
        upload.as_secs_f64(),
        percent(upload),
        uploaded.remote_uploads,
        uploaded.remote_bytes_up as f64 / 1000.0,
        uploaded.remote_seconds
    );
    println!(
        "  new machine, warm remote        {:>9.3} s   {:.1}% of cold (target ≤ 10%); {} remote hits, {:.1} KB down, 0 compiled",
        fresh.as_secs_f64(),
        percent(fresh),
        new_machine.remote_hits,
        new_machine.remote_bytes_down as f64 / 1000.0
    );
    println!(
        "  new machine, local cache copied {:>9.3} s   {:.1}% of cold (no network: the fresh output directory's share)",
        copied.as_secs_f64(),
        percent(copied)
    );
}
