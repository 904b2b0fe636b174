//! The varints and zigzag deltas of the SMOL-V stream, and its byte cursors.

use alloc::vec::Vec;

use super::error::DecodeError;

/// The encoder's output: stores by index into a zero-filled buffer, faster than `Vec::push`.
pub(crate) struct Sink {
    buf: Vec<u8>,
    len: usize,
}

impl Sink {
    /// Appends after the current contents of `buf`.
    pub(crate) fn new(buf: Vec<u8>) -> Self {
        let len = buf.len();
        Self { buf, len }
    }

    /// Bytes written so far, including what the buffer held before.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Makes room for `additional` more bytes, for the fast path.
    #[inline]
    pub(crate) fn reserve(&mut self, additional: usize) {
        let needed = self.len + additional;
        if needed > self.buf.len() {
            self.grow(needed);
        }
    }

    #[cold]
    fn grow(&mut self, needed: usize) {
        let size = needed.max(self.buf.len() * 2).max(64);
        self.buf.resize(size, 0);
    }

    /// Appends one byte.
    #[inline]
    pub(crate) fn byte(&mut self, byte: u8) {
        match self.buf.get_mut(self.len) {
            Some(slot) => *slot = byte,
            None => {
                self.grow(self.len + 1);
                self.buf[self.len] = byte;
            }
        }
        self.len += 1;
    }

    /// Appends `value` as a little-endian base-128 varint (1 to 5 bytes).
    #[inline]
    pub(crate) fn varint(&mut self, mut value: u32) {
        while value >= 0x80 {
            self.byte((value & 0x7F) as u8 | 0x80);
            value >>= 7;
        }
        // Below 0x80 here, so the mask changes nothing.
        self.byte((value & 0x7F) as u8);
    }

    /// Appends `value` as four little-endian bytes.
    #[inline]
    pub(crate) fn word(&mut self, value: u32) {
        self.reserve(4);
        if let Some(slot) = self.buf.get_mut(self.len..self.len + 4) {
            slot.copy_from_slice(&value.to_le_bytes());
            self.len += 4;
        }
    }

    /// Overwrites bytes already written at `at`.
    pub(crate) fn patch(&mut self, at: usize, bytes: &[u8]) {
        if let Some(slot) = self.buf.get_mut(at..at + bytes.len()) {
            slot.copy_from_slice(bytes);
        }
    }

    /// The written bytes.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.buf.truncate(self.len);
        self.buf
    }
}

/// Maps a wrapping difference to a value that is small when it is small either way.
#[inline]
pub(crate) const fn zigzag(delta: u32) -> u32 {
    (delta << 1) ^ ((delta as i32 >> 31) as u32)
}

/// Inverse of [`zigzag`].
#[inline]
pub(crate) const fn unzigzag(coded: u32) -> u32 {
    (coded >> 1) ^ 0u32.wrapping_sub(coded & 1)
}

/// A bounds-checked cursor over a SMOL-V byte stream.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8], pos: usize) -> Self {
        Self { bytes, pos }
    }

    /// Byte offset of the next read.
    #[inline]
    pub(crate) fn offset(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read.
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    #[inline]
    pub(crate) fn is_at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// Reads one varint; one past the end, or over 32 bits, is an error.
    #[inline]
    pub(crate) fn varint(&mut self) -> Result<u32, DecodeError> {
        // One byte is by far the common case.
        if let Some(&b) = self.bytes.get(self.pos)
            && b < 0x80
        {
            self.pos += 1;
            return Ok(u32::from(b));
        }
        self.varint_multibyte()
    }

    /// Two to five bytes, unrolled when five bytes are left to read.
    #[inline]
    fn varint_multibyte(&mut self) -> Result<u32, DecodeError> {
        let Some(&[b0, b1, b2, b3, b4]) = self.bytes.get(self.pos..).and_then(<[u8]>::first_chunk) else {
            return self.varint_near_end();
        };
        let mut value = u32::from(b0 & 0x7F);
        for (i, b) in [b1, b2, b3].into_iter().enumerate() {
            value |= u32::from(b & 0x7F) << (7 * (i + 1));
            if b < 0x80 {
                self.pos += i + 2;
                return Ok(value);
            }
        }
        if b4 > 0x0F {
            return Err(DecodeError::VarintOverflow { offset: self.pos });
        }
        self.pos += 5;
        Ok(value | u32::from(b4) << 28)
    }

    #[cold]
    #[inline]
    fn varint_near_end(&mut self) -> Result<u32, DecodeError> {
        let start = self.pos;
        let mut value = 0u32;
        for shift in (0..35).step_by(7) {
            let Some(&b) = self.bytes.get(self.pos) else { return Err(DecodeError::TruncatedVarint { offset: start }) };
            self.pos += 1;
            let payload = u32::from(b & 0x7F);
            if shift == 28 && (payload > 0x0F || b & 0x80 != 0) {
                return Err(DecodeError::VarintOverflow { offset: start });
            }
            value |= payload << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::VarintOverflow { offset: start })
    }

    #[inline]
    pub(crate) fn byte(&mut self) -> Result<u8, DecodeError> {
        let b = *self.bytes.get(self.pos).ok_or(DecodeError::UnexpectedEnd { offset: self.pos, needed: 1 })?;
        self.pos += 1;
        Ok(b)
    }

    /// Reads one little-endian 32-bit word.
    #[inline]
    pub(crate) fn word(&mut self) -> Result<u32, DecodeError> {
        let chunk =
            self.bytes.get(self.pos..self.pos + 4).ok_or(DecodeError::UnexpectedEnd { offset: self.pos, needed: 4 })?;
        self.pos += 4;
        Ok(u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_round_trips_boundaries() {
        for value in [0, 1, 127, 128, 16_383, 16_384, 1 << 21, 1 << 28, u32::MAX] {
            let mut sink = Sink::new(Vec::new());
            sink.varint(value);
            let buf = sink.finish();
            let mut reader = Reader::new(&buf, 0);
            assert_eq!(reader.varint().unwrap(), value);
            assert!(reader.is_at_end());
        }
    }

    #[test]
    fn truncated_varint_is_an_error() {
        let mut reader = Reader::new(&[0x80, 0x80], 0);
        assert_eq!(reader.varint(), Err(DecodeError::TruncatedVarint { offset: 0 }));
    }

    #[test]
    fn varint_wider_than_32_bits_is_an_error() {
        let mut reader = Reader::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0x1F], 0);
        assert_eq!(reader.varint(), Err(DecodeError::VarintOverflow { offset: 0 }));
        let mut reader = Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0);
        assert_eq!(reader.varint(), Err(DecodeError::VarintOverflow { offset: 0 }));
    }

    #[test]
    fn zigzag_is_symmetric_around_zero() {
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(u32::MAX), 1); // -1
        assert_eq!(zigzag(1), 2);
        for delta in [0u32, 1, 2, u32::MAX, 0x8000_0000, 0x7FFF_FFFF, 12345] {
            assert_eq!(unzigzag(zigzag(delta)), delta);
        }
    }
}
