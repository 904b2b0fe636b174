//! Download-size estimates: what bytes cost after `xz -9`, as installers compress a binary again.

use lzma_rust2::{XzOptions, XzWriter};

use crate::error::Error;

/// xz's highest preset, `xz -9`.
const PRESET: u32 = 9;
/// liblzma's smallest dictionary.
const MIN_DICTIONARY: u32 = 4096;

/// The size of `bytes` as one `.xz` stream at preset 9.
pub(crate) fn compressed_len(bytes: &[u8]) -> Result<usize, Error> {
    let failed = |e: std::io::Error| Error::Internal(format!("xz size estimate failed: {e}"));
    let mut options = XzOptions::with_preset(PRESET);
    // A dictionary larger than the input finds nothing more: shrinking it keeps the output the same.
    let fits = u32::try_from(bytes.len()).unwrap_or(u32::MAX).max(MIN_DICTIONARY).checked_next_power_of_two();
    options.lzma_options.dict_size =
        fits.map_or(options.lzma_options.dict_size, |size| size.min(options.lzma_options.dict_size));
    let mut writer = XzWriter::new(Vec::new(), options).map_err(failed)?;
    std::io::Write::write_all(&mut writer, bytes).map_err(failed)?;
    Ok(writer.finish().map_err(failed)?.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetitive_bytes_shrink_and_the_stream_decodes() {
        let input: Vec<u8> = (0..50_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let len = compressed_len(&input).unwrap();
        assert!(len < input.len() / 20, "{len}");
        assert!(compressed_len(&[]).unwrap() > 0, "an empty stream still has headers");
    }
}
