//! LZ4 blocks at liblz4's HC level 12, without a size prefix (the directory has both sizes).

use lz4::block::CompressionMode;

use crate::error::Error;

/// liblz4's highest HC level.
const HC_LEVEL: i32 = 12;

/// One LZ4 block of `bytes`, without a size prefix.
pub(crate) fn compress_block(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    // liblz4's HC compressor reads an empty slice's dangling pointer; nothing is one empty token.
    if bytes.is_empty() {
        return Ok(vec![0]);
    }
    lz4::block::compress(bytes, Some(CompressionMode::HIGHCOMPRESSION(HC_LEVEL)), false)
        .map_err(|e| Error::Internal(format!("LZ4 compression of {} bytes failed: {e}", bytes.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_input_is_one_token_that_decodes_to_nothing() {
        let block = compress_block(&[]).unwrap();
        assert_eq!(block, [0]);
        assert_eq!(lz4_flex::block::decompress_into(&block, &mut []).unwrap(), 0);
    }

    #[test]
    fn blocks_decode_with_lz4_flex_and_shrink_repetitive_data() {
        let input: Vec<u8> = (0..20_000u32).flat_map(|i| (i % 97).to_le_bytes()).collect();
        let block = compress_block(&input).unwrap();
        assert!(block.len() < input.len() / 4, "{} of {}", block.len(), input.len());
        let mut out = vec![0; input.len()];
        assert_eq!(lz4_flex::block::decompress_into(&block, &mut out).unwrap(), input.len());
        assert_eq!(out, input);
    }
}
