//! External tools the build runs (`spirv-opt`, `slangc`): finding them,
//! and naming their version for cache keys without spawning them on every
//! warm build.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::process::ExitStatus;

use crate::cache::{Cache, KeyBuilder};

/// Finds a tool: the configured path, else the path in the environment
/// variable `variable`, else `name` on `PATH`.
pub(crate) fn find(configured: Option<&Path>, variable: &str, name: &str) -> Option<PathBuf> {
    if let Some(path) = configured {
        return Some(path.to_owned());
    }
    if let Some(path) = std::env::var_os(variable).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let name = if cfg!(windows) { format!("{name}.exe") } else { name.to_owned() };
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).map(|dir| dir.join(&name)).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|candidate| candidate.is_file())
}

/// The first line `tool <version_arg>` prints, on stdout or else on
/// stderr (`slangc -v` writes there); empty if it cannot be run.
pub(crate) fn version(tool: &Path, version_arg: &str) -> String {
    let Ok(out) = Command::new(tool).arg(version_arg).output() else {
        return String::new();
    };
    let first_line = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes).lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default().to_owned()
    };
    let stdout = first_line(&out.stdout);
    if stdout.is_empty() { first_line(&out.stderr) } else { stdout }
}

/// [`version`], for cache keys, remembered in the cache by the tool's
/// path, size and modification time: a warm build spawns nothing, and a
/// replaced binary is asked again. A version that cannot be read is not
/// remembered.
pub(crate) fn identity(tool: &Path, version_arg: &str, cache: &Cache) -> String {
    let Ok(meta) = std::fs::metadata(tool) else {
        return version(tool, version_arg);
    };
    let mtime =
        meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    let key = KeyBuilder::new("smolv-build tool identity v1")
        .text(&tool.to_string_lossy())
        .field(&meta.len().to_le_bytes())
        .field(&mtime.to_le_bytes())
        .text(version_arg)
        .finish();
    // Local only: the entry describes this machine's binary, never shared.
    if let Some(version) = cache.get_local(&key).and_then(|body| String::from_utf8(body).ok()) {
        return version;
    }
    let version = version(tool, version_arg);
    if !version.is_empty() {
        cache.put_local(&key, version.as_bytes());
    }
    version
}

/// "was killed by signal 11 (SIGSEGV)", "exited with status 101": how a
/// child process ended, in words, for every tool smolv-build runs.
pub(crate) fn describe_exit(exit: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = exit.signal() {
            let name = match signal {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            return format!("was killed by signal {signal}{name}");
        }
    }
    match exit.code() {
        Some(code) => format!("exited with status {code}"),
        None => format!("ended: {exit}"),
    }
}

/// How a tool that a signal ended died ("was killed by signal 11
/// (SIGSEGV)"), or `None` if it exited: a crash is named as such, never
/// taken for the tool's ordinary failure.
pub(crate) fn crashed(exit: ExitStatus) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if exit.signal().is_some() {
            return Some(describe_exit(exit));
        }
    }
    let _ = exit;
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_path_wins_and_a_missing_tool_is_none() {
        let configured = Path::new("/opt/tools/slangc");
        assert_eq!(find(Some(configured), "SMOLV_NO_SUCH_VARIABLE", "slangc").as_deref(), Some(configured));
        assert_eq!(find(None, "SMOLV_NO_SUCH_VARIABLE", "smolv-no-such-tool-anywhere"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_version_printed_on_stderr_is_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("slangc");
        let temp = dir.path().join("slangc.new");
        std::fs::write(&temp, "#!/bin/sh\necho '2026.14.1' >&2\n").unwrap();
        std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::rename(&temp, &tool).unwrap();
        assert_eq!(version(&tool, "-v"), "2026.14.1");
        assert_eq!(version(Path::new("/no/such/slangc"), "-v"), "");
    }
}
