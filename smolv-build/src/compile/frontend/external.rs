//! What a frontend that runs a compiler binary (`slangc`) needs: a scratch directory, and its depfile read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::settings::Settings;
use crate::source::Job;

/// A fresh directory for one job's compiler outputs, private (unix).
pub(super) fn scratch() -> std::io::Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix("smolv-compile-");
    #[cfg(unix)]
    builder.permissions(<std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o700));
    builder.tempdir()
}

/// Little-endian words of a SPIR-V module, if it is one.
pub(crate) fn words(bytes: &[u8]) -> Option<Vec<u32>> {
    if bytes.len() < 20 || !bytes.len().is_multiple_of(4) || bytes[..4] != 0x0723_0203u32.to_le_bytes() {
        return None;
    }
    Some(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// The prerequisites of a Make rule as `slangc -depfile` writes it (with `\ `, `\`-newline and `$$`).
pub(super) fn parse_depfile(text: &str) -> Vec<PathBuf> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut paths = Vec::new();
    for line in joined.lines() {
        let Some(colon) = rule_colon(line) else { continue };
        let mut current = String::new();
        let mut chars = line[colon + 1..].chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if matches!(chars.peek(), Some(' ' | '#' | '\\')) => current.extend(chars.next()),
                '$' if chars.peek() == Some(&'$') => current.extend(chars.next()),
                // Unescaped whitespace ends a path (a line holds no newline).
                c if c.is_whitespace() => current.push('\n'),
                c => current.push(c),
            }
        }
        paths.extend(current.split('\n').filter(|path| !path.is_empty()).map(PathBuf::from));
    }
    paths
}

/// The colon that ends a rule's target (not a Windows drive letter's).
fn rule_colon(line: &str) -> Option<usize> {
    line.match_indices(':')
        .map(|(at, _)| at)
        .find(|&at| line[at + 1..].starts_with([' ', '\t']) || at + 1 == line.len())
}

/// The blake3 of a file the compiler read, or zeros if modified since the compile started (less 2 s).
pub(super) fn hash_read(path: &Path, started: SystemTime) -> [u8; 32] {
    const UNKNOWN: [u8; 32] = [0; 32];
    let Ok(bytes) = std::fs::read(path) else {
        return UNKNOWN;
    };
    let window = started.checked_sub(Duration::from_secs(2)).unwrap_or(SystemTime::UNIX_EPOCH);
    match std::fs::metadata(path).and_then(|m| m.modified()) {
        Ok(modified) if modified < window => *blake3::hash(&bytes).as_bytes(),
        _ => UNKNOWN,
    }
}

/// Where a file the compiler found would have been found first, had it existed.
pub(super) fn missing_candidates(job: &Job, settings: &Settings, read: &BTreeSet<PathBuf>) -> Vec<PathBuf> {
    let search: Vec<PathBuf> = job
        .path
        .parent()
        .map(Path::to_owned)
        .into_iter()
        .chain(settings.include_dirs.iter().cloned())
        .map(|dir| dir.canonicalize().unwrap_or(dir))
        .collect();
    let mut missing = BTreeSet::new();
    for path in read {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { continue };
        for earlier in search.iter().take_while(|earlier| earlier.as_path() != dir) {
            let candidate = earlier.join(name);
            if !candidate.exists() {
                missing.insert(candidate);
            }
        }
    }
    missing.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn scratch_directories_are_private_fresh_and_removed() {
        use std::os::unix::fs::PermissionsExt;
        let (one, two) = (scratch().unwrap(), scratch().unwrap());
        assert_ne!(one.path(), two.path());
        for scratch in [&one, &two] {
            let mode = std::fs::metadata(scratch.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", scratch.path().display());
            let name = scratch.path().file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.contains(&std::process::id().to_string()), "a name from the PID is guessable: {name}");
        }
        let path = one.path().to_owned();
        drop(one);
        assert!(!path.exists());
    }

    #[test]
    fn depfiles_read_as_make_rules() {
        let text = "/tmp/x/0.spv: /src/tri.slang /src/my\\ common.slang \\\n  /src/defs.h\n";
        assert_eq!(
            parse_depfile(text),
            [PathBuf::from("/src/tri.slang"), PathBuf::from("/src/my common.slang"), PathBuf::from("/src/defs.h")]
        );
        assert_eq!(parse_depfile("C:\\out\\0.spv: C:\\src\\a.slang\n"), [PathBuf::from("C:\\src\\a.slang")]);
    }

    #[test]
    fn a_file_edited_during_the_compile_is_never_reused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("common.slang");
        std::fs::write(&path, "module common;").unwrap();
        let started_later = SystemTime::now() + Duration::from_secs(60);
        assert_eq!(hash_read(&path, started_later), *blake3::hash(b"module common;").as_bytes());
        assert_eq!(hash_read(&path, SystemTime::now()), [0; 32], "modified just now: unknown");
        assert_eq!(hash_read(&dir.path().join("gone.slang"), started_later), [0; 32]);
    }
}
