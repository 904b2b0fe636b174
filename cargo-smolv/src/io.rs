//! Reading inputs and writing outputs, with errors that name the file.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A failure tied to one file: the message names it and says what went wrong.
#[derive(Debug)]
pub(crate) struct FileError {
    path: PathBuf,
    message: String,
}

impl FileError {
    pub(crate) fn new(path: &Path, message: impl fmt::Display) -> Self {
        Self { path: path.to_owned(), message: message.to_string() }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Reads a whole input file; `-` reads standard input.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, FileError> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
            .map_err(|e| FileError::new(path, format!("cannot read standard input: {e}")))?;
        return Ok(bytes);
    }
    std::fs::read(path).map_err(|e| FileError::new(path, format!("cannot read input: {e}")))
}

/// Writes an output file atomically through a new, randomly named temporary file; `-` writes standard output.
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    if path == Path::new("-") {
        return std::io::stdout()
            .lock()
            .write_all(bytes)
            .map_err(|e| FileError::new(path, format!("cannot write standard output: {e}")));
    }
    let file_name = path.file_name().ok_or_else(|| FileError::new(path, "output path names no file"))?;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(file_name);
    prefix.push(".");
    let cannot = |e: std::io::Error| FileError::new(path, format!("cannot write output: {e}"));
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // An ordinary file: the umask decides, as for `std::fs::write` (tempfile's default is 0600).
    #[cfg(unix)]
    builder.permissions(<std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o666));
    let mut temp = builder.tempfile_in(dir).map_err(cannot)?;
    temp.write_all(bytes).map_err(cannot)?;
    temp.persist(path).map_err(|e| cannot(e.error))?;
    Ok(())
}

/// A new private (0700) temporary directory named `prefix`…, removed on drop; errors name `near`.
pub(crate) fn private_temp_dir(prefix: &str, near: &Path) -> Result<tempfile::TempDir, FileError> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    #[cfg(unix)]
    builder.permissions(<std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o700));
    builder.tempdir().map_err(|e| FileError::new(near, format!("cannot create a temporary directory: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_directories_are_new_and_private_never_a_predictable_path() {
        // What the old code used: the system's temporary directory and this
        // process's id, which another user can create first.
        let predictable = std::env::temp_dir().join(format!("cargo-smolv-types-{}", std::process::id()));
        std::fs::create_dir_all(&predictable).unwrap();
        std::fs::write(predictable.join("planted"), b"").unwrap();
        let dir = private_temp_dir("cargo-smolv-types-", Path::new("shaders")).unwrap();
        let path = dir.path().to_owned();
        let _ = std::fs::remove_dir_all(&predictable);
        assert_ne!(path, predictable);
        assert!(path.starts_with(std::env::temp_dir()), "{}", path.display());
        assert_eq!(std::fs::read_dir(&path).unwrap().count(), 0, "the directory is new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "only this user may enter it");
        }
        drop(dir);
        assert!(!path.exists(), "removed when dropped");
    }

    #[cfg(unix)]
    #[test]
    fn an_output_is_never_written_through_a_link_placed_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let output = dir.path().join("out.smvb");
        // The old temporary name: `.out.smvb.PID.tmp`.
        let planted = dir.path().join(format!(".out.smvb.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write_output(&output, b"bundle").unwrap();
        assert_eq!(std::fs::read(&output).unwrap(), b"bundle");
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep", "the file the link names is untouched");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left.len(), 3, "no temporary file left: {left:?}");
    }
}
