//! Specialization speed and size against spirv-opt, in the same run.
//!
//! `cargo bench -p smolv-codec --bench specialize`
//!
//! For every corpus module with specialization constants, and for a large
//! generated ubershader (compiled with `glslangValidator`), it times
//! `Specializer::analyze`, `Analysis::specialize` with the analysis reused
//! (warm), and both together from the module's words (cold), and runs
//! spirv-opt's equivalent recipe: `--set-spec-const-default-value …
//! --freeze-spec-const --fold-spec-const-op-composite
//! --eliminate-dead-branches --merge-blocks --eliminate-dead-code-aggressive
//! --eliminate-dead-const --eliminate-dead-functions`.
//!
//! spirv-opt is timed as a process, so its time includes process start. To
//! show it without, each of its runs on the module is paired with a run of
//! the same recipe on a tiny module (`specialize::doc_ubershader`),
//! alternating in one loop; the bench prints both medians and the median of
//! the paired differences. It prints a row per module, then geometric means
//! of the speedups (cold against spirv-opt with and without process start,
//! warm against spirv-opt without) and of `size vs spirv-opt`.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use smolv_codec::specialize::{Specializer, Value};

/// A module to specialize: name, path, our values, spirv-opt's values.
type Input = (String, PathBuf, Vec<(u32, Value)>, Vec<(u32, String)>);

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// A fragment ubershader: eight spec constants, each guarding real work,
/// repeated until the SPIR-V passes 200 KB.
fn ubershader_source(sections: usize) -> String {
    let mut glsl = String::from(
        "#version 450\nlayout(location = 0) in vec4 v_in;\nlayout(location = 0) out vec4 color;\n\
         layout(set = 0, binding = 0) uniform sampler2D tex;\n\
         layout(constant_id = 0) const bool FOG = true;\nlayout(constant_id = 1) const bool SHADOWS = false;\n\
         layout(constant_id = 2) const bool NORMAL_MAP = true;\nlayout(constant_id = 3) const int LIGHTS = 4;\n\
         layout(constant_id = 4) const int QUALITY = 2;\nlayout(constant_id = 5) const bool SSAO = false;\n\
         layout(constant_id = 6) const int TONEMAP = 1;\nlayout(constant_id = 7) const bool DEBUG_VIEW = false;\n",
    );
    for s in 0..sections {
        glsl.push_str(&format!(
            "vec4 section{s}(vec4 c, vec2 uv) {{\n\
               if (FOG) {{ for (int i = 0; i < 4; ++i) c = mix(c, texture(tex, uv * float(i + {s})), 0.1); }}\n\
               if (SHADOWS) {{ float sh = 0.0; for (int i = 0; i < 8; ++i) sh += texture(tex, uv + vec2(i, {s}) * 0.01).r; c.rgb *= sh / 8.0; }}\n\
               if (NORMAL_MAP) {{ vec3 n = normalize(texture(tex, uv * 2.0).xyz * 2.0 - 1.0); c.rgb *= max(dot(n, vec3(0.3, 0.5, 0.8)), 0.0); }}\n\
               for (int l = 0; l < LIGHTS; ++l) {{ c.rgb += vec3(0.01 * float(l + {s})) * texture(tex, uv + float(l) * 0.1).rgb; }}\n\
               if (QUALITY > 1) {{ c = sqrt(c * c + 0.001); }} else if (QUALITY == 1) {{ c = abs(c); }}\n\
               if (SSAO) {{ float ao = 0.0; for (int i = 0; i < 6; ++i) ao += texture(tex, uv * float(i)).a; c.rgb *= ao; }}\n\
               switch (TONEMAP) {{ case 0: break; case 1: c.rgb = c.rgb / (1.0 + c.rgb); break; default: c.rgb = clamp(c.rgb * 1.2, 0.0, 1.0); break; }}\n\
               if (DEBUG_VIEW) {{ c = vec4(uv, float({s}), 1.0); }}\n\
               return c;\n}}\n"
        ));
    }
    glsl.push_str("void main() {\n  vec4 c = v_in;\n");
    for s in 0..sections {
        glsl.push_str(&format!("  c = section{s}(c, v_in.xy + {s}.0 * 0.001);\n"));
    }
    glsl.push_str("  color = c;\n}\n");
    glsl
}

fn generated_ubershader(dir: &Path) -> Option<PathBuf> {
    let source = dir.join("ubershader.frag");
    let output = dir.join("ubershader.spv");
    for sections in [48, 96, 160] {
        std::fs::write(&source, ubershader_source(sections)).ok()?;
        let status = Command::new("glslangValidator")
            .args(["-V", "--target-env", "vulkan1.2", "-o"])
            .arg(&output)
            .arg(&source)
            .output()
            .ok()?;
        if !status.status.success() {
            return None;
        }
        if std::fs::metadata(&output).ok()?.len() >= 200_000 {
            return Some(output);
        }
    }
    Some(output)
}

fn spirv_opt_args(values: &[(u32, String)]) -> Vec<String> {
    let mut args = Vec::new();
    if !values.is_empty() {
        let list: Vec<String> = values.iter().map(|(id, v)| format!("{id}:{v}")).collect();
        args.push(format!("--set-spec-const-default-value={}", list.join(" ")));
    }
    for pass in [
        "--freeze-spec-const",
        "--fold-spec-const-op-composite",
        "--eliminate-dead-branches",
        "--merge-blocks",
        "--eliminate-dead-code-aggressive",
        "--eliminate-dead-const",
        "--eliminate-dead-functions",
    ] {
        args.push(pass.to_owned());
    }
    args
}

/// spirv-opt's times on one module, from runs alternated with runs on a
/// trivial module: with process start, the trivial module's (process start,
/// file I/O and a near-empty pass pipeline), and their paired difference.
struct SpirvOptTimes {
    module: Duration,
    trivial: Duration,
    /// Median of `module - trivial` over the pairs, in seconds; may be
    /// negative when spirv-opt's own work is within start-up noise.
    without_start: f64,
}

fn run_spirv_opt(input: &Path, output: &Path, args: &[String]) -> Option<Duration> {
    let start = Instant::now();
    let ok = Command::new("spirv-opt").args(args).arg(input).arg("-o").arg(output).status().ok()?.success();
    ok.then(|| start.elapsed())
}

fn time_spirv_opt(input: &Path, output: &Path, args: &[String], trivial: &Path) -> Option<SpirvOptTimes> {
    const PAIRS: usize = 7;
    let trivial_out = output.with_extension("trivial.spv");
    let trivial_args = spirv_opt_args(&[]);
    let (mut module, mut baseline, mut differences) = (Vec::new(), Vec::new(), Vec::new());
    for pair in 0..PAIRS {
        // Alternate which goes first, so neither always runs on a warmer machine.
        let (m, t) = if pair % 2 == 0 {
            let t = run_spirv_opt(trivial, &trivial_out, &trivial_args)?;
            (run_spirv_opt(input, output, args)?, t)
        } else {
            let m = run_spirv_opt(input, output, args)?;
            (m, run_spirv_opt(trivial, &trivial_out, &trivial_args)?)
        };
        module.push(m);
        baseline.push(t);
        differences.push(m.as_secs_f64() - t.as_secs_f64());
    }
    differences.sort_by(f64::total_cmp);
    Some(SpirvOptTimes { module: median(module), trivial: median(baseline), without_start: differences[PAIRS / 2] })
}

/// Median time of `runs` calls of `f`.
fn median_of<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(f());
                start.elapsed()
            })
            .collect(),
    )
}

/// Geometric mean of ratios, with how many there were.
#[derive(Default)]
struct GeoMean {
    log_sum: f64,
    count: usize,
}

impl GeoMean {
    fn add(&mut self, ratio: f64) {
        self.log_sum += ratio.ln();
        self.count += 1;
    }

    fn value(&self) -> f64 {
        (self.log_sum / self.count as f64).exp()
    }
}

fn ms(seconds: f64) -> f64 {
    seconds * 1e3
}

#[allow(clippy::disallowed_methods, reason = "SMOLV_CORPUS_DIR, where the corpus is")]
fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let corpus = std::env::var_os("SMOLV_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"))
        .join("spirv");
    let temp = std::env::temp_dir().join(format!("smolv-specialize-bench-{}", std::process::id()));
    std::fs::create_dir_all(&temp).unwrap();
    let mut inputs: Vec<Input> = Vec::new();
    let mut pending = vec![corpus.clone()];
    while let Some(dir) = pending.pop() {
        for path in std::fs::read_dir(&dir).into_iter().flatten().flatten().map(|e| e.path()) {
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(analysis) = std::fs::read(&path).map(|b| Specializer::analyze(&words(&b)))
                && analysis.is_ok_and(|a| !a.spec_ids().is_empty())
            {
                let name = path.strip_prefix(&corpus).unwrap().display().to_string();
                inputs.push((name, path, Vec::new(), Vec::new()));
            }
        }
    }
    inputs.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some(path) = generated_ubershader(&temp) {
        let ours = vec![
            (0, Value::Bool(false)),
            (1, Value::Bool(true)),
            (2, Value::Bool(false)),
            (3, Value::I32(2)),
            (4, Value::I32(1)),
            (5, Value::Bool(false)),
            (6, Value::I32(2)),
            (7, Value::Bool(false)),
        ];
        let theirs = vec![
            (0, "false".to_owned()),
            (1, "true".to_owned()),
            (2, "false".to_owned()),
            (3, "2".to_owned()),
            (4, "1".to_owned()),
            (5, "false".to_owned()),
            (6, "2".to_owned()),
            (7, "false".to_owned()),
        ];
        inputs.push(("generated ubershader".to_owned(), path, ours, theirs));
    }
    let trivial = temp.join("trivial.spv");
    let trivial_words = smolv_codec::specialize::doc_ubershader();
    std::fs::write(&trivial, trivial_words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()).unwrap();

    println!("ours: analyze; specialize with the analysis reused (warm); cold = analyze + specialize timed as one");
    println!(
        "spirv-opt: the recipe as a process on the module (with process start), on a {}-word module (start), \
         and their paired difference (without start), alternated in one loop",
        trivial_words.len()
    );
    println!("all times are medians; speedups are spirv-opt's time / ours");
    println!(
        "{:<52} {:>4} {:>8} {:>9} {:>9} {:>9} {:>8} | {:>9} {:>8} {:>9} {:>8} | {:>9} {:>9} {:>9}",
        "module",
        "spec",
        "SPIR-V",
        "analyze",
        "warm",
        "cold",
        "ours",
        "spirv-opt",
        "start",
        "w/o start",
        "theirs",
        "cold/with",
        "cold/w/o",
        "warm/w/o"
    );
    let (mut cold_with, mut cold_without, mut warm_without, mut size) =
        (GeoMean::default(), GeoMean::default(), GeoMean::default(), GeoMean::default());
    let mut within_noise = 0;
    let mut starts = Vec::new();
    for (name, path, ours, theirs) in &inputs {
        let module = words(&std::fs::read(path).unwrap());
        let analysis = Specializer::analyze(&module).unwrap();
        let specialized = analysis.specialize(ours).unwrap();
        let runs = (2_000_000 / module.len()).clamp(5, 200);
        let analyze = median_of(runs, || Specializer::analyze(&module).unwrap());
        let warm = median_of(runs, || analysis.specialize(ours).unwrap());
        let cold = median_of(runs, || Specializer::analyze(&module).unwrap().specialize(ours).unwrap());
        let output = temp.join("spirv-opt.spv");
        let Some(opt) = time_spirv_opt(path, &output, &spirv_opt_args(theirs), &trivial) else {
            println!("{name:<52} spirv-opt failed on it; skipped");
            continue;
        };
        starts.push(opt.trivial);
        let theirs_bytes = std::fs::metadata(&output).map_or(1, |m| m.len());
        let ours_bytes = specialized.len() * 4;
        cold_with.add(opt.module.as_secs_f64() / cold.as_secs_f64());
        size.add(ours_bytes as f64 / theirs_bytes as f64);
        let (cold_w_o, warm_w_o) = if opt.without_start > 0.0 {
            let pair = (opt.without_start / cold.as_secs_f64(), opt.without_start / warm.as_secs_f64());
            cold_without.add(pair.0);
            warm_without.add(pair.1);
            (format!("{:.1}×", pair.0), format!("{:.0}×", pair.1))
        } else {
            within_noise += 1;
            ("noise".to_owned(), "noise".to_owned())
        };
        println!(
            "{:<52} {:>4} {:>8} {:>7.3}ms {:>7.3}ms {:>7.3}ms {:>8} | {:>7.2}ms {:>6.2}ms {:>7.2}ms {:>8} | {:>9} {:>9} {:>9}",
            name,
            analysis.spec_ids().len(),
            module.len() * 4,
            ms(analyze.as_secs_f64()),
            ms(warm.as_secs_f64()),
            ms(cold.as_secs_f64()),
            ours_bytes,
            ms(opt.module.as_secs_f64()),
            ms(opt.trivial.as_secs_f64()),
            ms(opt.without_start),
            theirs_bytes,
            format!("{:.1}×", opt.module.as_secs_f64() / cold.as_secs_f64()),
            cold_w_o,
            warm_w_o
        );
    }
    let _ = std::fs::remove_dir_all(&temp);
    if cold_with.count > 0 {
        starts.sort();
        println!(
            "spirv-opt process start (the {}-word module, measured alongside each module): median {:.2} ms, {:.2}-{:.2} ms",
            trivial_words.len(),
            ms(median(starts.clone()).as_secs_f64()),
            ms(starts[0].as_secs_f64()),
            ms(starts[starts.len() - 1].as_secs_f64())
        );
        println!("geometric means over {} modules:", cold_with.count);
        println!("  cold speedup vs spirv-opt with process start:    {:.1}×", cold_with.value());
        if cold_without.count > 0 {
            println!(
                "  cold speedup vs spirv-opt without process start: {:.1}× (over {} modules{})",
                cold_without.value(),
                cold_without.count,
                if within_noise > 0 {
                    format!("; {within_noise} left out, where spirv-opt's own time was within start-up noise")
                } else {
                    String::new()
                }
            );
            println!(
                "  warm speedup vs spirv-opt without process start: {:.0}× (the same modules)",
                warm_without.value()
            );
        }
        println!("  size vs spirv-opt: {:.3}", size.value());
        println!("targets: warm speedup (without process start) >= 100, size <= 1.15");
    }
}
