//! Specialization speed and size against spirv-opt, in the same run.
//!
//! `cargo bench -p smolv-runtime --bench specialize`
//!
//! For every corpus module with specialization constants, and for a large
//! generated ubershader (compiled with `glslangValidator`), it specializes
//! with the analysis reused, and runs spirv-opt's equivalent recipe:
//! `--set-spec-const-default-value … --freeze-spec-const
//! --fold-spec-const-op-composite --eliminate-dead-branches --merge-blocks
//! --eliminate-dead-code-aggressive --eliminate-dead-const
//! --eliminate-dead-functions`, minus the time of `spirv-opt --version`
//! (process start). It prints a row per module and the geometric means
//! `speedup vs spirv-opt` and `size vs spirv-opt`.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use smolv_runtime::specialize::{Specializer, Value};

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

fn time_spirv_opt(input: &Path, output: &Path, args: &[String]) -> Option<Duration> {
    let runs: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            let ok = Command::new("spirv-opt").args(args).arg(input).arg("-o").arg(output).status().ok()?.success();
            ok.then(|| start.elapsed())
        })
        .collect::<Option<_>>()?;
    Some(median(runs))
}

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
            } else if let Ok(analysis) = std::fs::read(&path).map(|b| Specializer::analyze(&words(&b))) {
                if analysis.is_ok_and(|a| !a.spec_ids().is_empty()) {
                    let name = path.strip_prefix(&corpus).unwrap().display().to_string();
                    inputs.push((name, path, Vec::new(), Vec::new()));
                }
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
    let startup = median(
        (0..5)
            .map(|_| {
                let start = Instant::now();
                let _ = Command::new("spirv-opt").arg("--version").output();
                start.elapsed()
            })
            .collect(),
    );

    println!(
        "{:<52} {:>8} {:>9} {:>10} {:>10} {:>8} {:>9} {:>9} {:>6}",
        "module", "spec ids", "SPIR-V", "analyze", "specialize", "ours", "spirv-opt", "theirs", "speed"
    );
    let (mut log_speed, mut log_size, mut count) = (0.0f64, 0.0f64, 0);
    for (name, path, ours, theirs) in &inputs {
        let module = words(&std::fs::read(path).unwrap());
        let start = Instant::now();
        let analysis = Specializer::analyze(&module).unwrap();
        let analyze = start.elapsed();
        let specialized = analysis.specialize(ours).unwrap();
        let runs = (2_000_000 / module.len()).clamp(5, 200);
        let specialize = median(
            (0..runs)
                .map(|_| {
                    let start = Instant::now();
                    std::hint::black_box(analysis.specialize(ours).unwrap());
                    start.elapsed()
                })
                .collect(),
        );
        let output = temp.join("spirv-opt.spv");
        let Some(theirs_time) = time_spirv_opt(path, &output, &spirv_opt_args(theirs)) else {
            println!("{name:<52} spirv-opt failed on it; skipped");
            continue;
        };
        let theirs_time = theirs_time.saturating_sub(startup).max(Duration::from_micros(1));
        let theirs_bytes = std::fs::metadata(&output).map_or(1, |m| m.len() as usize);
        let speed = theirs_time.as_secs_f64() / specialize.as_secs_f64();
        let size = (specialized.len() * 4) as f64 / theirs_bytes as f64;
        log_speed += speed.ln();
        log_size += size.ln();
        count += 1;
        println!(
            "{:<52} {:>8} {:>9} {:>8.2}ms {:>8.3}ms {:>8} {:>7.1}ms {:>9} {:>5.0}×",
            name,
            analysis.spec_ids().len(),
            module.len() * 4,
            analyze.as_secs_f64() * 1e3,
            specialize.as_secs_f64() * 1e3,
            specialized.len() * 4,
            theirs_time.as_secs_f64() * 1e3,
            theirs_bytes,
            speed
        );
    }
    let _ = std::fs::remove_dir_all(&temp);
    if count > 0 {
        println!("spirv-opt process start subtracted: {:.1} ms", startup.as_secs_f64() * 1e3);
        println!("speedup vs spirv-opt: {:.0}", (log_speed / count as f64).exp());
        println!("size vs spirv-opt: {:.3}", (log_size / count as f64).exp());
        println!("targets: speedup >= 100, size <= 1.15");
    }
}
