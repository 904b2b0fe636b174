//! A recording's bytes: little-endian integers and length-prefixed strings,
//! every length bounded before anything is allocated.

use super::error::RecordingError;

/// A value read, or why not.
pub(super) type Result<T, E = RecordingError> = std::result::Result<T, E>;

/// Appends values to a byte vector.
#[derive(Default)]
pub(super) struct Writer(pub(super) Vec<u8>);

/// Little-endian integers, by the [`Writer`] and [`Reader`] methods of their types' names.
macro_rules! integers {
    ($($ty:ident),*) => {
        impl Writer {
            $(pub(super) fn $ty(&mut self, value: $ty) {
                self.0.extend_from_slice(&value.to_le_bytes());
            })*
        }
        impl Reader<'_> {
            $(pub(super) fn $ty(&mut self) -> Result<$ty> {
                Ok($ty::from_le_bytes(self.array()?))
            })*
        }
    };
}

integers!(u8, u32, i32, u64);

impl Writer {
    pub(super) fn bool(&mut self, value: bool) {
        self.u8(u8::from(value));
    }

    pub(super) fn bytes(&mut self, value: &[u8]) {
        self.0.extend_from_slice(value);
    }

    /// A count (under the format's bounds), as a `u32`.
    pub(super) fn count(&mut self, count: usize) {
        self.u32(u32::try_from(count).unwrap_or(u32::MAX));
    }

    /// `value` cut to at most `max` bytes, on a character boundary.
    pub(super) fn str(&mut self, value: &str, max: usize) {
        let mut end = value.len().min(max);
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        self.count(end);
        self.bytes(&value.as_bytes()[..end]);
    }

    /// A presence byte, then `value` as `write` writes it.
    pub(super) fn option<T>(&mut self, value: Option<&T>, write: impl FnOnce(&mut Self, &T)) {
        self.bool(value.is_some());
        if let Some(value) = value {
            write(self, value);
        }
    }
}

/// Reads values from a byte slice, refusing reads past its end.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    pub(super) fn offset(&self) -> usize {
        self.at
    }

    pub(super) fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    pub(super) fn take(&mut self, len: usize) -> Result<&'a [u8]> {
        let range = self.at..self.at.saturating_add(len);
        let taken = self.bytes.get(range).ok_or(RecordingError::Truncated { offset: self.at })?;
        self.at += len;
        Ok(taken)
    }

    pub(super) fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        // `take` gives exactly `N` bytes.
        self.take(N).map(|bytes| bytes.try_into().unwrap_or([0; N]))
    }

    pub(super) fn bool(&mut self) -> Result<bool> {
        let offset = self.at;
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(RecordingError::Invalid { offset, what: "a boolean that is neither 0 nor 1" }),
        }
    }

    /// A count of at most `max`, named `what` in the error.
    pub(super) fn count(&mut self, max: usize, what: &'static str) -> Result<usize> {
        let offset = self.at;
        let count = usize::try_from(self.u32()?).unwrap_or(usize::MAX);
        if count > max {
            return Err(RecordingError::TooMany { offset, what, count, max });
        }
        Ok(count)
    }

    pub(super) fn str(&mut self, max: usize, what: &'static str) -> Result<String> {
        let len = self.count(max, what)?;
        let offset = self.at;
        String::from_utf8(self.take(len)?.to_vec())
            .map_err(|_| RecordingError::Invalid { offset, what: "a string that is not UTF-8" })
    }
}
