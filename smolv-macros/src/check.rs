//! Reading an embedded set's directory (`docs/format.md`, "Embedded sets") at compile time:
//! everything the runtime relies on is checked here, so a damaged artifact fails the build.

use smolv_format::{Codec, Framing};

/// One module of the directory.
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) offset: u32,
    pub(crate) packed_len: u32,
    pub(crate) unpacked_len: u32,
    pub(crate) spirv_len: u32,
    pub(crate) check: u32,
}

/// A checked directory.
pub(crate) struct Directory {
    /// `(unpacked length, xxHash32)` of the stream or dictionary the set unpacks once, or `(0, 0)`.
    pub(crate) once: (u32, u32),
    pub(crate) entries: Vec<Entry>,
}

fn u32_at(bytes: &[u8], at: usize) -> Result<u32, &'static str> {
    bytes.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes).ok_or("is truncated")
}

fn within(offset: u32, len: u32, limit: u64) -> bool {
    u64::from(offset) + u64::from(len) <= limit
}

/// Whether the entries' ranges cover `0..len` exactly, without overlap.
fn tiles(entries: &[Entry], len: u32) -> bool {
    let mut ranges: Vec<(u64, u64)> =
        entries.iter().map(|e| (u64::from(e.offset), u64::from(e.offset) + u64::from(e.packed_len))).collect();
    ranges.sort_unstable();
    let end = ranges.iter().try_fold(0, |end, &(start, stop)| (start == end).then_some(stop));
    end == Some(u64::from(len))
}

/// Parses and checks a directory of `codec` over `data_len` bytes of data.
pub(crate) fn directory(bytes: &[u8], codec: Codec, data_len: u64) -> Result<Directory, &'static str> {
    if bytes.len() < 20 || &bytes[..4] != b"SMVD" {
        return Err("is not a smolv embedded-set directory");
    }
    if bytes[4] != 1 {
        return Err("has a directory format this smolv-macros does not read");
    }
    if Codec::from_byte(bytes[5]) != Some(codec) {
        return Err("names another codec than the manifest");
    }
    // Only the compressing codecs pack a stream.
    let compressed = matches!(codec, Codec::SmolvLz4 | Codec::SmolvZstd | Codec::SpirvRelativeIdsLz4);
    let stream = match Framing::from_byte(bytes[6]) {
        Some(Framing::PerModule) => false,
        Some(Framing::Stream) if compressed => true,
        _ => return Err("has an unknown layout for its codec"),
    };
    let dictionary = codec == Codec::SmolvZstdDictionary;
    let count = u32_at(bytes, 8)?;
    let once = (u32_at(bytes, 12)?, u32_at(bytes, 16)?);
    if dictionary && once.0 == 0 {
        return Err("has no dictionary length for a dictionary codec");
    }
    if !stream && !dictionary && once != (0, 0) {
        return Err("has stream fields set for modules packed one by one");
    }
    let limit = if stream { u64::from(once.0) } else { data_len };
    let mut entries: Vec<Entry> = Vec::new();
    let mut at = 20;
    for _ in 0..count {
        let field = |i: usize| u32_at(bytes, at + 4 * i);
        let name_len = bytes.get(at + 20..at + 22).map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])));
        let name_len = name_len.ok_or("is truncated")?;
        let name = bytes.get(at + 22..at + 22 + name_len).ok_or("is truncated")?;
        let name = String::from_utf8(name.to_vec()).map_err(|_| "has a name that is not UTF-8")?;
        let entry = Entry {
            name,
            offset: field(0)?,
            packed_len: field(1)?,
            unpacked_len: field(2)?,
            spirv_len: field(3)?,
            check: field(4)?,
        };
        if !within(entry.offset, entry.packed_len, limit) {
            return Err("has a module outside its data");
        }
        if entry.spirv_len < 20 || !entry.spirv_len.is_multiple_of(4) {
            return Err("has a SPIR-V length that is not a whole module");
        }
        // Words are as long as the SPIR-V, and 4-byte aligned where stored as they are.
        let words = matches!(codec, Codec::Spirv | Codec::SpirvRelativeIds | Codec::SpirvRelativeIdsLz4);
        let stored_as_is = matches!(codec, Codec::Spirv | Codec::Smolv | Codec::SpirvRelativeIds) || stream;
        if (stored_as_is && entry.packed_len != entry.unpacked_len)
            || (words && entry.unpacked_len != entry.spirv_len)
            || (matches!(codec, Codec::Spirv | Codec::SpirvRelativeIds) && !entry.offset.is_multiple_of(4))
        {
            return Err("has lengths that do not fit its codec");
        }
        if entries.last().is_some_and(|last| last.name >= entry.name) {
            return Err("has names out of order");
        }
        entries.push(entry);
        at = (at + 22 + name_len).next_multiple_of(4);
    }
    if at != bytes.len() {
        return Err("does not end after its last entry");
    }
    if stream && !tiles(&entries, once.0) {
        return Err("has stream modules that do not fill the stream exactly once");
    }
    Ok(Directory { once, entries })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of SMOL-V + LZ4 (codec byte 2) as one stream (framing
    /// byte 1), with `entries` of
    /// (name, offset, length) over a stream of `stream_len` bytes.
    fn stream_directory(stream_len: u32, entries: &[(&str, u32, u32)]) -> Vec<u8> {
        let mut out = b"SMVD".to_vec();
        out.extend_from_slice(&[1, 2, 1, 0]);
        out.extend_from_slice(&u32::try_from(entries.len()).unwrap().to_le_bytes());
        out.extend_from_slice(&stream_len.to_le_bytes());
        out.extend_from_slice(&7u32.to_le_bytes());
        for (name, offset, len) in entries {
            for field in [*offset, *len, *len, 20, 0] {
                out.extend_from_slice(&field.to_le_bytes());
            }
            out.extend_from_slice(&u16::try_from(name.len()).unwrap().to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.resize(out.len().next_multiple_of(4), 0);
        }
        out
    }

    #[test]
    fn stream_modules_must_fill_the_stream_exactly_once_in_any_order() {
        let ok = stream_directory(30, &[("a", 10, 20), ("b", 0, 10)]);
        assert_eq!(directory(&ok, Codec::SmolvLz4, 5).unwrap().once, (30, 7));
        for bad in [
            stream_directory(30, &[("a", 0, 10), ("b", 15, 15)]),
            stream_directory(30, &[("a", 0, 20), ("b", 10, 20)]),
            stream_directory(40, &[("a", 0, 20), ("b", 20, 10)]),
        ] {
            assert!(directory(&bad, Codec::SmolvLz4, 5).is_err());
        }
    }
}
