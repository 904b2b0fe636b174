//! The `SMVD` directory of an embedded set (`docs/format.md`); the macros turn it into tables.

use super::{Codec, Framing};
use crate::error::Error;

const MAGIC: &[u8; 4] = b"SMVD";
const FORMAT_VERSION: u8 = 1;

/// What a set unpacks once: its stream or dictionary (zero for neither).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Once {
    /// Bytes it unpacks to.
    pub(crate) len: usize,
    /// xxHash32 (seed 0) of what it unpacks to.
    pub(crate) check: u32,
}

/// One module's entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry<'a> {
    pub(crate) name: &'a str,
    pub(crate) offset: usize,
    pub(crate) packed_len: usize,
    pub(crate) unpacked_len: usize,
    pub(crate) spirv_len: usize,
    pub(crate) check: u32,
}

fn push_u32(out: &mut Vec<u8>, value: usize, what: &str) -> Result<(), Error> {
    let value = u32::try_from(value).map_err(|_| {
        Error::Internal(format!("the embedded shader set is too large for its format: {what} does not fit in 32 bits"))
    })?;
    out.extend_from_slice(&value.to_le_bytes());
    Ok(())
}

/// The directory of `entries`, which must be sorted by name bytes and unique.
pub(crate) fn write(codec: Codec, framing: Framing, once: Once, entries: &[Entry<'_>]) -> Result<Vec<u8>, Error> {
    if let Some(pair) = entries.windows(2).find(|pair| pair[0].name >= pair[1].name) {
        return Err(Error::Config(format!(
            "two shader modules are named {:?} (or names are out of order: {:?} before {:?})",
            pair[1].name, pair[0].name, pair[1].name
        )));
    }
    let mut out = Vec::with_capacity(20 + entries.iter().map(|e| 24 + e.name.len()).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[FORMAT_VERSION, codec.byte(), framing.byte(), 0]);
    push_u32(&mut out, entries.len(), "the module count")?;
    push_u32(&mut out, once.len, "the stream or dictionary length")?;
    out.extend_from_slice(&once.check.to_le_bytes());
    for entry in entries {
        push_u32(&mut out, entry.offset, "a module offset")?;
        push_u32(&mut out, entry.packed_len, "a packed module length")?;
        push_u32(&mut out, entry.unpacked_len, "an unpacked module length")?;
        push_u32(&mut out, entry.spirv_len, "a SPIR-V length")?;
        out.extend_from_slice(&entry.check.to_le_bytes());
        let name_len = u16::try_from(entry.name.len())
            .map_err(|_| Error::Config(format!("the shader name {:?} is longer than 65535 bytes", entry.name)))?;
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(entry.name.as_bytes());
        out.resize(out.len().next_multiple_of(4), 0);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> Entry<'_> {
        Entry { name, offset: 8, packed_len: 5, unpacked_len: 7, spirv_len: 20, check: 0xDEAD_BEEF }
    }

    #[test]
    fn header_and_entries_are_laid_out_as_the_format_says() {
        let stream = Once { len: 100, check: 0x0102_0304 };
        let bytes = write(Codec::SmolvLz4, Framing::Stream, stream, &[entry("a.frag"), entry("b.vert1")]).unwrap();
        assert_eq!(&bytes[..8], b"SMVD\x01\x02\x01\x00");
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!([u32_at(8), u32_at(12), u32_at(16)], [2, 100, 0x0102_0304]);
        assert_eq!([u32_at(20), u32_at(24), u32_at(28), u32_at(32), u32_at(36)], [8, 5, 7, 20, 0xDEAD_BEEF]);
        assert_eq!(&bytes[40..42], &6u16.to_le_bytes());
        assert_eq!(&bytes[42..48], b"a.frag");
        // 22 + 6 = 28 bytes: already aligned, so the next entry follows at once.
        assert_eq!(&bytes[48 + 20..48 + 22], &7u16.to_le_bytes());
        assert_eq!(&bytes[48 + 22..48 + 29], b"b.vert1");
        assert_eq!(bytes.len(), 48 + 32, "29 bytes padded to 32");
        assert_eq!(&bytes[48 + 29..], &[0, 0, 0]);
    }

    #[test]
    fn per_module_sets_leave_the_stream_fields_zero() {
        let bytes = write(Codec::Spirv, Framing::PerModule, Once::default(), &[entry("abc")]).unwrap();
        assert_eq!(&bytes[12..20], &[0; 8]);
        assert_eq!(bytes.len(), 20 + (22 + 3usize).next_multiple_of(4));
    }

    #[test]
    fn duplicate_or_unsorted_names_are_errors() {
        let stream = Once::default();
        assert!(write(Codec::Smolv, Framing::PerModule, stream, &[entry("a"), entry("a")]).is_err());
        assert!(write(Codec::Smolv, Framing::PerModule, stream, &[entry("b"), entry("a")]).is_err());
    }
}
