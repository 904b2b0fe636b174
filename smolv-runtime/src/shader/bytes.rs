//! Byte storage shared by loaded shaders and sets: embedded in the binary,
//! or shared with a loaded file.

#[cfg(feature = "zstd-fast")]
use std::sync::Arc;

/// Bytes that are either `'static` or a range of shared memory (a loaded
/// file).
#[cfg(feature = "zstd-fast")]
#[derive(Clone, Debug)]
pub(crate) enum Bytes {
    Static(&'static [u8]),
    Shared { data: Arc<[u8]>, start: usize, end: usize },
}

#[cfg(feature = "zstd-fast")]
impl Bytes {
    pub(crate) fn shared(data: Arc<[u8]>) -> Self {
        let end = data.len();
        Self::Shared { data, start: 0, end }
    }

    #[inline]
    pub(crate) fn get(&self) -> &[u8] {
        match self {
            Self::Static(bytes) => bytes,
            Self::Shared { data, start, end } => data.get(*start..*end).unwrap_or_default(),
        }
    }

    /// The part `start..end` of these bytes (empty if out of range).
    pub(crate) fn slice(&self, start: usize, end: usize) -> Self {
        match self {
            Self::Static(bytes) => Self::Static(bytes.get(start..end).unwrap_or_default()),
            Self::Shared { data, start: base, end: limit } => {
                let (start, end) = match (base.checked_add(start), base.checked_add(end)) {
                    (Some(s), Some(e)) if s <= e && e <= *limit => (s, e),
                    _ => (*base, *base),
                };
                Self::Shared { data: Arc::clone(data), start, end }
            }
        }
    }
}
