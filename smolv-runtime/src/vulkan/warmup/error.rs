/// Why a recording was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordingError {
    /// The file does not start with the magic `SMOLVPSO`.
    #[error("not a smolv pipeline recording (no `SMOLVPSO` magic): record one with `PipelineManager::recorder`")]
    NotARecording,
    /// Written by another version of the format.
    #[error("pipeline recording format version {found}, this smolv reads version {supported}: record it again")]
    Version {
        /// The version in the file.
        found: u32,
        /// The version this build reads and writes.
        supported: u32,
    },
    /// The checksum does not match the contents.
    #[error("pipeline recording is corrupt (its checksum does not match): record it again or restore it")]
    Corrupt,
    /// The data ends early.
    #[error("pipeline recording is truncated at byte {offset}: record it again or restore it")]
    Truncated {
        /// Where the read ran past the end.
        offset: usize,
    },
    /// A count past its bound.
    #[error("pipeline recording lists {count} {what} at byte {offset}, more than the {max} allowed")]
    TooMany {
        /// Where the count is.
        offset: usize,
        /// What is counted.
        what: &'static str,
        /// The count in the file.
        count: usize,
        /// The bound.
        max: usize,
    },
    /// A value outside what it may be.
    #[error("pipeline recording has {what} at byte {offset}")]
    Invalid {
        /// Where the value is.
        offset: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// Bytes after the last entry.
    #[error("pipeline recording has {extra} bytes after its last entry")]
    Trailing {
        /// How many.
        extra: usize,
    },
    /// The file could not be read or written.
    #[error("pipeline recording {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        message: String,
    },
}
