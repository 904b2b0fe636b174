//! SPIR-V (or relative ids) as words, made and checked at compile time, so serving
//! raw SPIR-V can neither fail nor copy.

const SPIRV_MAGIC: u32 = 0x0723_0203;

/// The SPIR-V header: five words.
const HEADER_WORDS: usize = 5;

/// `data`, `BYTES` (= 4 × `WORDS`) bytes, as little-endian words, for a `static`. Not a stable API.
///
/// ```
/// use smolv_runtime::__private::le_words;
///
/// // What the macros write: `static WORDS: [u32; 2] = le_words::<8, 2>(include_bytes!(...));`
/// assert_eq!(le_words::<8, 2>(&[3, 2, 0x23, 7, 0, 0, 1, 0]), [0x0723_0203, 0x0001_0000]);
/// ```
pub const fn le_words<const BYTES: usize, const WORDS: usize>(data: &[u8]) -> [u32; WORDS] {
    let (Some(bytes), true) = (data.first_chunk::<BYTES>(), data.len() == BYTES) else {
        panic!("smolv: embedded SPIR-V is not the length the build recorded; rebuild the crate")
    };
    // One copy of the whole array: a const-eval loop would take a minute per megabyte.
    let mut words: [u32; WORDS] = bytemuck::must_cast(*bytes);
    if cfg!(target_endian = "big") {
        let mut index = 0;
        while index < WORDS {
            words[index] = u32::from_le(words[index]);
            index += 1;
        }
    }
    words
}

/// The module of `len` words at word `start` of `words`, for a `static`; a bad one stops
/// the build. Not a stable API.
///
/// ```
/// use smolv_runtime::__private::spirv_module;
///
/// static WORDS: [u32; 6] = [0xAAAA_AAAA, 0x0723_0203, 0x0001_0000, 0, 1, 0];
/// static LIT: &[u32] = spirv_module(&WORDS, 1, 5);
/// assert_eq!(LIT, &WORDS[1..]);
/// ```
pub const fn spirv_module(words: &'static [u32], start: usize, len: usize) -> &'static [u32] {
    let Some((_, rest)) = words.split_at_checked(start) else {
        panic!("smolv: an embedded module starts past the end of its set's words; rebuild the crate")
    };
    let Some((module, _)) = rest.split_at_checked(len) else {
        panic!("smolv: an embedded module ends past the end of its set's words; rebuild the crate")
    };
    if len < HEADER_WORDS || module[0] != SPIRV_MAGIC {
        panic!("smolv: an embedded module is not SPIR-V (no header or magic number); rebuild the crate");
    }
    module
}

#[cfg(test)]
mod tests {
    use super::{SPIRV_MAGIC, le_words, spirv_module};

    const HEADER: [u32; 5] = [SPIRV_MAGIC, 0x0001_0000, 0, 1, 0];

    /// `lead` other words, then a SPIR-V header.
    fn header_after(lead: usize) -> &'static [u32] {
        let mut words = vec![0xAAAA_AAAA; lead];
        words.extend(HEADER);
        words.leak()
    }

    #[test]
    fn little_endian_bytes_become_words() {
        let bytes: Vec<u8> = HEADER.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(le_words::<20, 5>(&bytes), HEADER);
    }

    #[test]
    #[should_panic(expected = "not the length the build recorded")]
    fn data_of_another_length_stops_the_build() {
        le_words::<20, 5>(&[0; 24]);
    }

    #[test]
    fn a_module_at_an_offset_is_its_words() {
        assert_eq!(spirv_module(header_after(3), 3, 5), HEADER);
    }

    #[test]
    #[should_panic(expected = "ends past the end")]
    fn a_module_past_the_end_of_its_set_stops_the_build() {
        spirv_module(header_after(0), 0, 6);
    }

    #[test]
    #[should_panic(expected = "starts past the end")]
    fn a_start_past_the_end_stops_the_build() {
        spirv_module(header_after(0), 6, 0);
    }

    #[test]
    #[should_panic(expected = "not SPIR-V")]
    fn words_without_the_magic_number_stop_the_build() {
        spirv_module(header_after(1), 0, 5);
    }

    #[test]
    #[should_panic(expected = "not SPIR-V")]
    fn a_module_shorter_than_a_header_stops_the_build() {
        spirv_module(header_after(0), 0, 4);
    }
}
