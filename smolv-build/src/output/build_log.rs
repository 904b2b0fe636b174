//! The log of a failed build, `OUT_DIR/smolv-build.log`: a line per
//! shader, then the errors in full.

use std::path::{Path, PathBuf};

/// The log's name inside `OUT_DIR`.
pub(crate) const LOG_FILE: &str = "smolv-build.log";

/// Removes the last build's log, so that a log is always this build's.
pub(crate) fn clear(out_dir: &Path) {
    let _ = std::fs::remove_file(out_dir.join(LOG_FILE));
}

/// Writes `text` as the build's log; its path, if it could be written.
pub(crate) fn write(out_dir: &Path, text: &str) -> Option<PathBuf> {
    let path = out_dir.join(LOG_FILE);
    std::fs::create_dir_all(out_dir).and_then(|()| std::fs::write(&path, format!("{text}\n"))).ok()?;
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_is_only_ever_this_build_s() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "a.frag:3:28: 'tint' : undeclared identifier").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a.frag:3:28: 'tint' : undeclared identifier\n");
        clear(dir.path());
        assert!(!path.exists(), "the next build starts without the last one's errors");
    }
}
