//! `pipelines`: read, merge and check pipeline recordings (docs/warmup.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use smolv_runtime::ShaderSet;
use smolv_runtime::vulkan::warmup::{RecordedKind, Recording, ShaderChange};

use crate::io::FileError;

/// Arguments of `cargo smolv pipelines`.
#[derive(clap::Args)]
pub(crate) struct PipelinesArgs {
    #[command(subcommand)]
    action: PipelinesAction,
    /// Print the result as JSON on standard output.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum PipelinesAction {
    /// List a recording's pipelines by scope, with their use counts and shaders.
    Show {
        /// The recording.
        file: PathBuf,
    },
    /// Merge recordings (of several runs) into one, with use counts.
    Merge {
        /// Where to write the merged recording.
        #[arg(long, short)]
        output: PathBuf,
        /// The recordings.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Report the entries whose shaders are gone from a shader set (.smvb)
    /// or changed their interface; fails when there is any.
    Check {
        /// The recording.
        file: PathBuf,
        /// The shader set the game ships.
        set: PathBuf,
    },
}

#[derive(serde::Serialize)]
struct JsonEntry {
    order: u64,
    millis: u64,
    uses: u32,
    scope: Option<String>,
    kind: &'static str,
    shaders: Vec<String>,
}

#[derive(serde::Serialize)]
struct JsonProblem {
    order: u64,
    shader: String,
    problem: &'static str,
}

fn load(path: &Path) -> Result<Recording, FileError> {
    let bytes = crate::io::read_input(path)?;
    Recording::from_bytes(&bytes).map_err(|e| FileError::new(path, e))
}

/// A shader's name for the listing, escaped (`{:?}`) against a hostile file's control characters.
fn shown(name: &str) -> String {
    if name.is_empty() { "(unnamed)".to_owned() } else { format!("{name:?}") }
}

pub(crate) fn pipelines(args: &PipelinesArgs) -> Result<(), FileError> {
    match &args.action {
        PipelinesAction::Show { file } => show(file, args.json),
        PipelinesAction::Merge { output, files } => {
            let recordings = files.iter().map(|f| load(f)).collect::<Result<Vec<_>, _>>()?;
            let merged = Recording::merge(&recordings);
            crate::io::write_output(output, &merged.to_bytes())?;
            println!("{} pipelines from {} recordings in {}", merged.entries.len(), files.len(), output.display());
            Ok(())
        }
        PipelinesAction::Check { file, set } => check(file, set, args.json),
    }
}

fn show(file: &Path, json: bool) -> Result<(), FileError> {
    let recording = load(file)?;
    let entries: Vec<JsonEntry> = recording
        .entries
        .iter()
        .map(|e| JsonEntry {
            order: e.order,
            millis: e.millis,
            uses: e.uses,
            scope: e.scope.clone(),
            kind: match e.kind {
                RecordedKind::Graphics { .. } => "graphics",
                RecordedKind::Compute { .. } => "compute",
            },
            shaders: e.stages().iter().map(|s| s.name.clone()).collect(),
        })
        .collect();
    if json {
        let text = serde_json::to_string_pretty(&entries).map_err(|e| FileError::new(file, e))?;
        println!("{text}");
        return Ok(());
    }
    let mut by_scope: BTreeMap<Option<&str>, Vec<&JsonEntry>> = BTreeMap::new();
    for entry in &entries {
        by_scope.entry(entry.scope.as_deref()).or_default().push(entry);
    }
    println!("{}: {} pipelines ({} entries skipped)", file.display(), entries.len(), recording.skipped);
    for (scope, entries) in by_scope {
        println!(
            "scope {}: {} pipelines",
            scope.map_or_else(|| "(none)".to_owned(), |s| format!("{s:?}")),
            entries.len()
        );
        for e in entries {
            let shaders: Vec<String> = e.shaders.iter().map(|s| shown(s)).collect();
            println!("  #{:<4} {:>7} ms  {:<8} used {}x  {}", e.order, e.millis, e.kind, e.uses, shaders.join(" + "));
        }
    }
    Ok(())
}

fn check(file: &Path, set_path: &Path, json: bool) -> Result<(), FileError> {
    let recording = load(file)?;
    let set = ShaderSet::open(set_path).map_err(|e| FileError::new(set_path, e))?;
    let mut problems = Vec::new();
    let mut rebuilt = 0;
    for entry in &recording.entries {
        for stage in entry.stages() {
            let found = set.get(&stage.name).ok().and_then(|s| Some((s.decode().ok()?, s.reflection().ok()?)));
            let problem = match found {
                None => Some("gone"),
                Some((spirv, reflection)) => match stage.compare(&spirv, &reflection) {
                    ShaderChange::Unchanged => None,
                    ShaderChange::CodeChanged => {
                        rebuilt += 1;
                        None
                    }
                    ShaderChange::InterfaceChanged => Some("interface changed"),
                },
            };
            if let Some(problem) = problem {
                problems.push(JsonProblem { order: entry.order, shader: stage.name.clone(), problem });
            }
        }
    }
    // An entry with two stages gone is one pipeline dropped.
    let dropped = problems.iter().map(|p| p.order).collect::<std::collections::BTreeSet<_>>().len();
    if json {
        let text = serde_json::to_string_pretty(&problems).map_err(|e| FileError::new(file, e))?;
        println!("{text}");
    } else {
        for p in &problems {
            println!("#{}: {} {}", p.order, shown(&p.shader), p.problem);
        }
        println!(
            "{} pipelines: {} with a shader gone or changed in interface (dropped on replay), {} shaders changed in code only (rebuilt)",
            recording.entries.len(),
            dropped,
            rebuilt
        );
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(FileError::new(file, format!("{dropped} entries would be dropped on replay; record it again")))
    }
}
