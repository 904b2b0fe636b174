//! `prepare`: writes (or `--check`s) each crate's prepared directory, recorded by `cargo check` builds.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use smolv_build::cache::prepared::{self, Changes};

use crate::io::FileError;

/// Arguments of `cargo smolv prepare`.
#[derive(clap::Args)]
pub(crate) struct PrepareArgs {
    /// Change nothing: fail (exit 1) if a prepared directory is not what the builds use now, and say how.
    #[arg(long)]
    check: bool,
    /// The Cargo.toml of the crate or workspace (default: found from the current directory).
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// A Cargo profile to prepare, repeatable (default: dev and release, whose builds differ in debug info).
    #[arg(long = "profile", value_name = "NAME")]
    profiles: Vec<String>,
    /// More arguments for `cargo check`, after `--` (`--workspace`, `--features ...`, `--target ...`).
    #[arg(last = true, value_name = "CARGO_ARGS")]
    cargo_args: Vec<OsString>,
}

/// The profiles prepared when none is named (their shaders differ in debug info).
const DEFAULT_PROFILES: [&str; 2] = ["dev", "release"];

pub(crate) fn prepare(args: &PrepareArgs) -> Result<(), FileError> {
    let manifest = args.manifest_path.clone().unwrap_or_else(|| PathBuf::from("Cargo.toml"));
    let session = tempfile::Builder::new()
        .prefix("smolv-prepare-")
        .tempdir()
        .map_err(|e| FileError::new(&std::env::temp_dir(), format!("cannot create a session directory: {e}")))?;
    let profiles: Vec<&str> = if args.profiles.is_empty() {
        DEFAULT_PROFILES.to_vec()
    } else {
        args.profiles.iter().map(String::as_str).collect()
    };
    for profile in &profiles {
        check_build(args, profile, session.path())?;
    }
    let staged = prepared::staged(session.path())
        .map_err(|e| FileError::new(session.path(), format!("cannot read the session directory: {e}")))?;
    if staged.is_empty() {
        return Err(FileError::new(
            &manifest,
            "no build script recorded a shader: prepare needs a crate whose build.rs compiles shaders with \
             smolv-build (of this version or later)",
        ));
    }
    let workspace = workspace_root(args)?;
    let mut stale = Vec::new();
    for set in &staged {
        // A dependency outside the workspace records its directory too: not ours to write.
        if !set.dir().starts_with(&workspace) {
            println!("{}: left alone: outside the workspace at {}", set.dir().display(), workspace.display());
            continue;
        }
        if args.check {
            let changes = set.compare().map_err(|e| FileError::new(set.dir(), format!("cannot read it: {e}")))?;
            if changes.is_empty() {
                println!("{}: up to date ({} entries)", set.dir().display(), set.len());
            } else {
                println!("{}: stale: {}", set.dir().display(), describe(&changes));
                stale.push(set.dir().to_owned());
            }
        } else {
            let changes = set.write().map_err(|e| FileError::new(set.dir(), format!("cannot write it: {e}")))?;
            println!("{}: {} entries ({})", set.dir().display(), set.len(), describe(&changes));
        }
    }
    match stale.first() {
        None => Ok(()),
        Some(first) => Err(FileError::new(
            first,
            format!(
                "{} prepared {} not what the builds use now; run `cargo smolv prepare` and commit the result",
                stale.len(),
                if stale.len() == 1 { "directory is" } else { "directories are" }
            ),
        )),
    }
}

/// The workspace's root directory, from `cargo metadata`.
fn workspace_root(args: &PrepareArgs) -> Result<PathBuf, FileError> {
    let mut command = cargo_metadata::MetadataCommand::new();
    command.no_deps();
    if let Some(manifest) = &args.manifest_path {
        command.manifest_path(manifest);
    }
    let metadata =
        command.exec().map_err(|e| FileError::new(Path::new("Cargo.toml"), format!("cargo metadata: {e}")))?;
    Ok(metadata.workspace_root.into_std_path_buf())
}

/// `cargo check` of `profile` with `SMOLV_PREPARE` naming `session`.
fn check_build(args: &PrepareArgs, profile: &str, session: &Path) -> Result<(), FileError> {
    let mut command = crate::cargo_command();
    command.args(["check", "--profile", profile]);
    if let Some(manifest) = &args.manifest_path {
        command.arg("--manifest-path").arg(manifest);
    }
    command.args(&args.cargo_args).env(prepared::PREPARE_ENV, session);
    let status = command.status().map_err(|e| FileError::new(Path::new("cargo"), format!("cannot run it: {e}")))?;
    if !status.success() {
        return Err(FileError::new(
            args.manifest_path.as_deref().unwrap_or(Path::new("Cargo.toml")),
            format!(
                "`cargo check --profile {profile}` failed, so nothing was prepared; fix the build (its errors are \
                 above), then prepare again"
            ),
        ));
    }
    Ok(())
}

/// "2 added, 1 changed, 0 removed", or "unchanged".
fn describe(changes: &Changes) -> String {
    if changes.is_empty() {
        return "unchanged".to_owned();
    }
    format!("{} added, {} changed, {} removed", changes.added.len(), changes.changed.len(), changes.removed.len())
}
