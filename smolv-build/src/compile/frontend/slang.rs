//! Slang through `slangc`: one run lists the entry points (reflection JSON), then one per entry
//! point at `-O0` with `-depfile` makes its module.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use smolv_format::reflect::Reflection;

use super::external::{hash_read, missing_candidates, parse_depfile, scratch, words};
use super::{Compiled, CompiledModule};
use crate::cache::Cache;
use crate::compile::tool;
use crate::env::Env;
use crate::error::Diagnostic;
use crate::options::SpirvVersion;
use crate::settings::Settings;
use crate::source::Job;

const INSTALL_HINT: &str = "`.slang` files are compiled by slangc, which was not found: install the Vulkan SDK \
     (it ships slangc) or `pip install --no-deps slangtorch` (slangc is in slangtorch/bin/), then put slangc on \
     PATH or set SMOLV_SLANGC (or Config::slangc) to its path";

/// Finds `slangc`: the configured path, `SMOLV_SLANGC` (always read, to be watched), or `PATH`.
pub(crate) fn find_slangc(configured: Option<&Path>, env: Env) -> Option<PathBuf> {
    tool::find(configured, env.var_os("SMOLV_SLANGC"), "slangc")
}

/// `slangc -v`, for the cache keys of Slang jobs.
pub(crate) fn identity(slangc: &Path, cache: &Cache) -> String {
    format!("slangc [{}];", tool::identity(slangc, "-v", cache))
}

pub(super) fn compile(job: &Job, settings: &Settings) -> Result<Compiled, Vec<Diagnostic>> {
    let fail = |message: String| vec![Diagnostic::whole_file(&job.path, message)];
    let slangc = settings.slangc.as_deref().ok_or_else(|| fail(INSTALL_HINT.to_owned()))?;
    let scratch = scratch().map_err(|e| fail(format!("cannot create a directory for slangc's output: {e}")))?;
    let started = SystemTime::now();
    let common = common_args(job, settings);

    let reflection = scratch.path().join("reflection.json");
    let mut list = Command::new(slangc);
    list.args(&common).arg("-no-codegen").arg("-reflection-json").arg(&reflection);
    let mut warnings = run(&mut list, slangc, job)?;
    let json = std::fs::read(&reflection)
        .map_err(|e| fail(format!("slangc wrote no reflection data listing the entry points: {e}")))?;
    let entry_points = entry_points(&json).map_err(fail)?;
    if entry_points.is_empty() {
        return Err(fail(
            "the Slang file has no entry points; mark each with [shader(\"vertex\")] (or fragment, compute, …)".into(),
        ));
    }

    let mut modules = Vec::new();
    let mut read = std::collections::BTreeSet::new();
    for (index, entry) in entry_points.iter().enumerate() {
        let (output, depfile) =
            (scratch.path().join(format!("{index}.spv")), scratch.path().join(format!("{index}.d")));
        let mut command = Command::new(slangc);
        command.args(&common).args(["-emit-spirv-directly", "-O0", "-fvk-use-entrypoint-name", "-entry", entry]);
        command.arg("-o").arg(&output).arg("-depfile").arg(&depfile);
        // No `-g`: Slang's debug info needs VK_KHR_shader_non_semantic_info.
        for warning in run(&mut command, slangc, job)? {
            if !warnings.contains(&warning) {
                warnings.push(warning);
            }
        }
        let bytes = std::fs::read(&output).map_err(|e| fail(format!("slangc wrote no module for {entry}: {e}")))?;
        let mut spirv = words(&bytes).ok_or_else(|| fail(format!("slangc wrote no SPIR-V module for {entry}")))?;
        super::spirv::patch_source_language(&mut spirv);
        let Reflection { stage, entry_point, .. } = Reflection::from_spirv(&spirv)
            .map_err(|_| fail(format!("slangc's module for {entry} has no OpEntryPoint of a Vulkan stage")))?;
        let depfile = std::fs::read_to_string(&depfile).unwrap_or_default();
        read.extend(parse_depfile(&depfile));
        modules.push(CompiledModule::new(format!("{}#{entry}", job.name), stage, entry_point, spirv));
    }
    let dependencies = read.iter().map(|path| (path.clone(), hash_read(path, started))).collect();
    Ok(Compiled { modules, dependencies, missing: missing_candidates(job, settings, &read), warnings })
}

/// The oldest SPIR-V `slangc` emits as stable: a Slang module needs a Vulkan 1.1 device.
const SLANG_MIN_SPIRV: SpirvVersion = SpirvVersion::V1_3;

fn common_args(job: &Job, settings: &Settings) -> Vec<std::ffi::OsString> {
    let (major, minor) = settings.spirv_version.max(SLANG_MIN_SPIRV).major_minor();
    let mut args: Vec<std::ffi::OsString> = vec![job.path.clone().into()];
    args.extend(["-target".into(), "spirv".into(), "-profile".into(), format!("spirv_{major}_{minor}").into()]);
    args.extend(settings.include_dirs.iter().flat_map(|dir| ["-I".into(), dir.clone().into()]));
    args.extend(job.defines.iter().flat_map(|define| {
        let define = match &define.value {
            Some(value) => format!("{}={value}", define.name),
            None => define.name.clone(),
        };
        ["-D".into(), define.into()]
    }));
    args
}

/// Runs `slangc` under the limits of every tool; its warnings, or its errors.
fn run(command: &mut Command, slangc: &Path, job: &Job) -> Result<Vec<String>, Vec<Diagnostic>> {
    let limits = tool::Limits::from_env();
    let output = tool::run(command, None, limits).map_err(|stopped| {
        vec![Diagnostic::whole_file(
            &job.path,
            match stopped {
                tool::Stopped::Start(e) => format!("cannot run slangc ({}): {e}; {INSTALL_HINT}", slangc.display()),
                over_time => format!(
                    "slangc {over_time} on this shader; the other shaders were compiled. Simplify the shader, or \
                     raise the limit"
                ),
            },
        )]
    })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(how) = crate::compile::tool::crashed(output.status) {
        return Err(vec![Diagnostic::whole_file(
            &job.path,
            format!(
                "the shader compiler crashed on this shader: slangc {how}; this is a compiler bug (or a shader \
                 beyond the limits of {}): rewrite the construct it fails on, or use another slangc version{}",
                limits.describe(),
                if stderr.trim().is_empty() { String::new() } else { format!("; it printed: {}", stderr.trim()) }
            ),
        )]);
    }
    let messages = parse_diagnostics(&stderr);
    if output.status.success() {
        return Ok(messages
            .into_iter()
            .filter(|m| m.severity == Severity::Warning)
            .map(|m| m.diagnostic.to_string())
            .collect());
    }
    let errors: Vec<Diagnostic> =
        messages.into_iter().filter(|m| m.severity == Severity::Error).map(|m| m.diagnostic).collect();
    if errors.is_empty() {
        let text = stderr.trim();
        let why = match output.status.code() {
            _ if !text.is_empty() => text.to_owned(),
            Some(code) => format!("slangc exited with status {code} and printed nothing"),
            None => format!("slangc ended without an exit status ({})", output.status),
        };
        return Err(vec![Diagnostic::whole_file(&job.path, why)]);
    }
    Err(errors)
}

/// The entry points' names in slangc's reflection JSON, in its order.
fn entry_points(json: &[u8]) -> Result<Vec<String>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| format!("slangc's reflection JSON does not parse: {e}"))?;
    let Some(entries) = value.get("entryPoints") else { return Ok(Vec::new()) };
    let entries = entries.as_array().ok_or("slangc's reflection JSON has entryPoints that are not a list")?;
    entries
        .iter()
        .map(|entry| {
            entry
                .get("name")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| "slangc's reflection JSON has an entry point without a name".to_owned())
        })
        .collect()
}

#[derive(Debug, PartialEq, Eq)]
enum Severity {
    Error,
    Warning,
    Other,
}

#[derive(Debug)]
struct Message {
    severity: Severity,
    diagnostic: Diagnostic,
}

fn severity(word: &str) -> Severity {
    match word {
        "error" | "fatal error" | "internal error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => Severity::Other,
    }
}

/// Reads slangc's rich (`error[E20001]: …`) or classic (`path(line): error 20001: …`) diagnostics;
/// unlocated errors are dropped where there are located ones.
fn parse_diagnostics(stderr: &str) -> Vec<Message> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut messages: Vec<Message> = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        if let Some((severity, message)) = rich_headline(lines[at]) {
            let end = (at + 1..lines.len()).find(|&i| rich_headline(lines[i]).is_some() || classic(lines[i]).is_some());
            let block = &lines[at..end.unwrap_or(lines.len())];
            messages.push(rich_message(severity, message, block));
            at += block.len();
            continue;
        }
        if let Some((path, line, severity, message)) = classic(lines[at]) {
            // The source line and a caret line under it give the column.
            let column = lines
                .get(at + 2)
                .and_then(|caret| caret.find('^'))
                .and_then(|offset| u32::try_from(offset + 1).ok())
                .unwrap_or(0);
            let diagnostic = Diagnostic { path: PathBuf::from(path), line, column, message, rendered: None };
            messages.push(Message { severity, diagnostic });
        }
        at += 1;
    }
    if messages.iter().any(|m| m.severity == Severity::Error && m.diagnostic.line > 0) {
        messages.retain(|m| m.severity != Severity::Error || m.diagnostic.line > 0);
    }
    messages
}

/// `error[E20001]: unexpected token` → (severity, message).
fn rich_headline(line: &str) -> Option<(Severity, String)> {
    let (word, rest) = line.split_once('[')?;
    let (code, message) = rest.split_once("]: ")?;
    let known = matches!(word, "error" | "fatal error" | "internal error" | "warning" | "note");
    (known && code.bytes().all(|b| b.is_ascii_alphanumeric())).then(|| (severity(word), message.trim().to_owned()))
}

/// A rich block: the headline, its location, and the label under the carets.
fn rich_message(severity: Severity, headline: String, block: &[&str]) -> Message {
    let location = block.iter().find_map(|line| line.trim_start().strip_prefix("--> ")).and_then(|location| {
        let (rest, column) = location.trim().rsplit_once(':')?;
        let (path, line) = rest.rsplit_once(':')?;
        Some((PathBuf::from(path), line.parse().ok()?, column.parse().ok()?))
    });
    let label = block.iter().find_map(|line| {
        let (_, after_gutter) = line.split_once('|')?;
        let label = after_gutter.trim_start().strip_prefix('^')?.trim_start_matches(['^', '~', '-']).trim();
        (!label.is_empty()).then(|| label.to_owned())
    });
    let message = match label {
        Some(label) if label.starts_with(&headline) => label,
        Some(label) if !headline.contains(&label) => format!("{headline}: {label}"),
        _ => headline,
    };
    let rendered = block.iter().skip(1).filter(|line| line.trim() != "--'").copied().collect::<Vec<_>>().join("\n");
    let (path, line, column) = location.unwrap_or_default();
    let rendered = (!rendered.trim().is_empty()).then_some(rendered);
    Message { severity, diagnostic: Diagnostic { path, line, column, message, rendered } }
}

/// `path(line): error 20001: message` → (path, line, severity, message).
fn classic(text: &str) -> Option<(&str, u32, Severity, String)> {
    let (location, rest) = text.split_once("): ")?;
    let (path, line) = location.rsplit_once('(')?;
    let line = line.split(',').next()?.trim().parse().ok()?;
    let (word, rest) = rest.split_once(' ')?;
    let (_code, message) = rest.split_once(": ")?;
    let severity = severity(word);
    (severity != Severity::Other || word == "note").then(|| (path, line, severity, message.trim().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compiles `shaders/tri.slang` with `slangc` and `limits`.
    #[cfg(unix)]
    fn compile_with(slangc: PathBuf, limits: tool::Limits) -> Vec<Diagnostic> {
        let job = Job::for_test("tri.slang", "shaders/tri.slang", crate::options::Language::Slang);
        let mut settings = crate::compile::job::tests::settings();
        settings.slangc = Some(slangc);
        tool::tests::with_limits(limits, || compile(&job, &settings)).unwrap_err()
    }

    #[cfg(unix)]
    #[test]
    fn a_hung_slangc_costs_its_shader_and_its_children_stop() {
        let dir = tempfile::tempdir().unwrap();
        let ticks = dir.path().join("ticks");
        let slangc = tool::tests::hanging_tool(dir.path(), "slangc", &ticks);
        let limits = tool::Limits { time: std::time::Duration::from_millis(500), memory_bytes: 1 << 30 };
        let errors = compile_with(slangc, limits);
        assert_eq!(errors[0].path, Path::new("shaders/tri.slang"));
        assert!(errors[0].message.contains("slangc took longer than 0.5 s"), "{}", errors[0].message);
        tool::tests::assert_still(&ticks);
    }

    #[cfg(unix)]
    #[test]
    fn a_runaway_slangc_ends_at_the_memory_cap_and_costs_its_shader() {
        let dir = tempfile::tempdir().unwrap();
        let slangc = tool::tests::allocating_tool(dir.path(), "slangc");
        let limits = tool::Limits { time: std::time::Duration::from_secs(120), memory_bytes: 128 << 20 };
        let errors = compile_with(slangc, limits);
        assert_eq!(errors[0].path, Path::new("shaders/tri.slang"));
        // Had it lived on, it would have printed `survived` and no
        // reflection data.
        assert!(
            errors[0].message.contains("crashed on this shader: slangc was killed by signal"),
            "{}",
            errors[0].message
        );
    }

    #[test]
    fn rich_diagnostics_are_located_and_keep_the_caret_label() {
        let stderr = "error[E20001]: unexpected token\n --> shaders/bad.slang:5:1\n  |\n5 | }\n  | ^ unexpected '}', \
                      expected ';'\n--'\nfatal error[E40003]: compilation ceased\n";
        let messages = parse_diagnostics(stderr);
        assert_eq!(messages.len(), 1, "{messages:?}");
        let d = &messages[0].diagnostic;
        assert_eq!((d.path.as_path(), d.line, d.column), (Path::new("shaders/bad.slang"), 5, 1));
        assert_eq!(d.message, "unexpected token: unexpected '}', expected ';'");
        assert_eq!(d.headline(), "shaders/bad.slang:5:1: unexpected token: unexpected '}', expected ';'");
        assert!(d.rendered.as_deref().unwrap().contains("5 | }"));
    }

    #[test]
    fn a_label_that_repeats_the_headline_replaces_it() {
        let stderr = "error[E30015]: undefined identifier\n --> c.slang:2:43\n  |\n2 | x * oops;\n  |     ^^^^ \
                      undefined identifier 'oops'.\n--'\nwarning[E30081]: implicit conversion not recommended\n --> \
                      c.slang:3:9\n";
        let messages = parse_diagnostics(stderr);
        assert_eq!(messages[0].diagnostic.message, "undefined identifier 'oops'.");
        assert_eq!(messages[1].severity, Severity::Warning);
        assert_eq!((messages[1].diagnostic.line, messages[1].diagnostic.column), (3, 9));
    }

    #[test]
    fn classic_diagnostics_take_the_column_from_the_caret() {
        let stderr = "shaders/tri.slang(5): error 20001: unexpected '}', expected ';'\n}\n^\n";
        let messages = parse_diagnostics(stderr);
        let d = &messages[0].diagnostic;
        assert_eq!((d.line, d.column, messages[0].severity == Severity::Error), (5, 1, true));
        assert_eq!(d.message, "unexpected '}', expected ';'");
    }

    #[test]
    fn an_unlocated_failure_is_kept_when_it_is_all_there_is() {
        let messages = parse_diagnostics("error[E00100]: failed to load downstream compiler 'spirv-opt'\n");
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].diagnostic.line, 0);
    }

    #[test]
    fn entry_points_come_in_reflection_order() {
        let json = br#"{"parameters": [], "entryPoints": [{"name": "vs_main", "stage": "vertex"},
                        {"name": "fs_main", "stage": "fragment"}]}"#;
        assert_eq!(entry_points(json).unwrap(), ["vs_main", "fs_main"]);
        assert_eq!(entry_points(b"{}").unwrap(), Vec::<String>::new());
        assert!(entry_points(b"not json").unwrap_err().contains("does not parse"));
    }
}
