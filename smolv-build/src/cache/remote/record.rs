//! The action-cache record: a real REAPI `ActionResult` protobuf (bazel-remote checks them) naming one output
//! file, the entry, by its SHA-256 digest in the CAS:
//!
//! ```text
//! ActionResult { output_files (2): [OutputFile { path (1): "smolv-cache-entry",
//!                                                digest (2): Digest { hash (1): "<sha256 hex>",
//!                                                                     size_bytes (2): <n> } }] }
//! ```
//!
//! Reading skips every other field and refuses anything malformed.

/// The output file's path in the `ActionResult`.
pub(crate) const ENTRY_PATH: &str = "smolv-cache-entry";

/// A CAS digest: lowercase hex SHA-256 and size, as REAPI's `Digest`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Digest {
    pub(crate) hash: String,
    pub(crate) size: u64,
}

/// Why a record cannot be used.
pub(crate) type Invalid = &'static str;

fn varint(out: &mut Vec<u8>, mut value: u64) {
    // The low seven bits of each group, as a byte (the mask makes it fit).
    let low = |value: u64| u8::try_from(value & 0x7f).unwrap_or(0);
    while value >= 0x80 {
        out.push(low(value) | 0x80);
        value >>= 7;
    }
    out.push(low(value));
}

fn bytes_field(out: &mut Vec<u8>, number: u64, bytes: &[u8]) {
    varint(out, number << 3 | 2);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// The record naming `digest`.
pub(crate) fn encode(digest: &Digest) -> Vec<u8> {
    let mut digest_message = Vec::new();
    bytes_field(&mut digest_message, 1, digest.hash.as_bytes());
    varint(&mut digest_message, 2 << 3);
    varint(&mut digest_message, digest.size);
    let mut output_file = Vec::new();
    bytes_field(&mut output_file, 1, ENTRY_PATH.as_bytes());
    bytes_field(&mut output_file, 2, &digest_message);
    let mut action_result = Vec::new();
    bytes_field(&mut action_result, 2, &output_file);
    action_result
}

/// The digest a record names; an error for anything but exactly one well-formed entry.
pub(crate) fn decode(record: &[u8]) -> Result<Digest, Invalid> {
    let mut found = None;
    for field in Fields(record) {
        if let (2, Value::Bytes(output_file)) = field?
            && let Some(digest) = entry_digest(output_file)?
            && found.replace(digest).is_some()
        {
            return Err("it names two smolv entries");
        }
    }
    found.ok_or("it names no smolv entry")
}

/// The digest of an `OutputFile` if it is the smolv entry.
fn entry_digest(output_file: &[u8]) -> Result<Option<Digest>, Invalid> {
    let (mut path, mut digest) = (None, None);
    for field in Fields(output_file) {
        match field? {
            (1, Value::Bytes(bytes)) => path = Some(bytes),
            (2, Value::Bytes(bytes)) => digest = Some(bytes),
            (1 | 2, _) => return Err("an output file's path or digest has the wrong wire type"),
            _ => {}
        }
    }
    if path != Some(ENTRY_PATH.as_bytes()) {
        return Ok(None);
    }
    let (mut hash, mut size) = (None, None);
    for field in Fields(digest.ok_or("the entry has no digest")?) {
        match field? {
            (1, Value::Bytes(bytes)) => hash = Some(bytes),
            (2, Value::Varint(value)) => size = Some(value),
            (1 | 2, _) => return Err("the digest's hash or size has the wrong wire type"),
            _ => {}
        }
    }
    let hash = hash.ok_or("the digest has no hash")?;
    if hash.len() != 64 || !hash.iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b)) {
        return Err("the digest's hash is not 64 lowercase hex digits");
    }
    // size_bytes is an int64: a negative one arrives as a huge varint.
    let size = size.unwrap_or(0);
    if i64::try_from(size).is_err() {
        return Err("the digest's size is negative");
    }
    Ok(Some(Digest { hash: String::from_utf8_lossy(hash).into_owned(), size }))
}

/// A field's value by wire type (groups are refused).
enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed,
}

/// The fields of one message, in order; stops after the first error.
struct Fields<'a>(&'a [u8]);

impl<'a> Fields<'a> {
    fn varint(&mut self) -> Result<u64, Invalid> {
        let mut value = 0u64;
        for (index, &byte) in self.0.iter().enumerate().take(10) {
            value |= u64::from(byte & 0x7f) << (7 * index);
            if byte & 0x80 == 0 {
                self.0 = &self.0[index + 1..];
                return Ok(value);
            }
        }
        Err("a varint is truncated or longer than 10 bytes")
    }

    fn take(&mut self, len: u64) -> Result<&'a [u8], Invalid> {
        let len = usize::try_from(len).map_err(|_| "a length does not fit in memory")?;
        let rest: &'a [u8] = self.0;
        let (head, tail) = rest.split_at_checked(len).ok_or("a field runs past the end of its message")?;
        self.0 = tail;
        Ok(head)
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>), Invalid>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let field = (|| {
            let key = self.varint()?;
            let number = key >> 3;
            if number == 0 {
                return Err("a field number is 0");
            }
            let value = match key & 7 {
                0 => Value::Varint(self.varint()?),
                1 => self.take(8).map(|_| Value::Fixed)?,
                2 => self.varint().and_then(|len| self.take(len)).map(Value::Bytes)?,
                5 => self.take(4).map(|_| Value::Fixed)?,
                _ => return Err("a field has a group or unknown wire type"),
            };
            Ok((number, value))
        })();
        if field.is_err() {
            self.0 = &[];
        }
        Some(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest() -> Digest {
        Digest { hash: "0123456789abcdef".repeat(4), size: 300 }
    }

    #[test]
    fn records_round_trip() {
        assert_eq!(decode(&encode(&digest())).unwrap(), digest());
        let empty = Digest { hash: "e3".repeat(32), size: 0 };
        assert_eq!(decode(&encode(&empty)).unwrap(), empty);
    }

    #[test]
    fn fields_a_server_adds_are_skipped() {
        // bazel-remote stores `execution_metadata` (9) { worker (1): "10.0.0.7" },
        // and Bazel writes exit_code (4) and other output files.
        let mut record = encode(&digest());
        let mut metadata = Vec::new();
        bytes_field(&mut metadata, 1, b"10.0.0.7");
        bytes_field(&mut record, 9, &metadata);
        varint(&mut record, 4 << 3);
        varint(&mut record, 0);
        let mut other = Vec::new();
        bytes_field(&mut other, 1, b"bazel-out/other.o");
        bytes_field(&mut record, 2, &other);
        record.extend_from_slice(&[(5 << 3) | 5, 1, 2, 3, 4, (6 << 3) | 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(decode(&record).unwrap(), digest());
    }

    #[test]
    fn every_truncation_and_bit_flip_is_refused_or_harmless() {
        let record = encode(&digest());
        for len in 0..record.len() {
            assert!(decode(&record[..len]).is_err(), "truncated to {len} bytes was accepted");
        }
        for index in 0..record.len() {
            for bit in 0..8 {
                let mut flipped = record.clone();
                flipped[index] ^= 1 << bit;
                // Either refused, or a well-formed digest (then the blob's
                // SHA-256 check decides); never a panic.
                if let Ok(found) = decode(&flipped) {
                    assert_eq!(found.hash.len(), 64);
                }
            }
        }
    }

    #[test]
    fn malformed_digests_are_refused() {
        let upper = Digest { hash: "0123456789ABCDEF".repeat(4), size: 1 };
        assert!(decode(&encode(&upper)).is_err());
        let short = Digest { hash: "abc".into(), size: 1 };
        assert!(decode(&encode(&short)).is_err());
        let negative = Digest { hash: digest().hash, size: u64::MAX };
        assert!(decode(&encode(&negative)).is_err());
        let mut twice = encode(&digest());
        twice.extend(encode(&digest()));
        assert!(decode(&twice).is_err(), "two entries are ambiguous");
        assert!(decode(b"").is_err() && decode(b"not a protobuf").is_err());
    }
}
