//! Any bytes as a pipeline recording (`smolv_runtime::vulkan::warmup`):
//! reading ends in `Ok` or `Err`, never a panic. The same bytes are also
//! read as the entries of a recording with a correct header and checksum,
//! so that the fuzzer reaches the entry parser past the checksum; whatever
//! reads writes back to bytes that read back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smolv_runtime::vulkan::warmup::Recording;

fuzz_target!(|data: &[u8]| {
    let _ = Recording::from_bytes(data);
    // The first 2 bytes: an entry count; the rest: the entries.
    let (count, body) = data.split_at(data.len().min(2));
    let mut count_bytes = [0u8; 4];
    count_bytes[..count.len()].copy_from_slice(count);
    let mut sealed = b"SMOLVPSO".to_vec();
    sealed.extend_from_slice(&Recording::VERSION.to_le_bytes());
    sealed.extend_from_slice(&count_bytes);
    sealed.extend_from_slice(blake3::hash(body).as_bytes());
    sealed.extend_from_slice(body);
    if let Ok(recording) = Recording::from_bytes(&sealed) {
        let again = Recording::from_bytes(&recording.to_bytes()).expect("a recording written reads back");
        assert_eq!(again.entries.len(), recording.entries.len());
        assert_eq!(again.to_bytes(), recording.to_bytes());
    }
});
