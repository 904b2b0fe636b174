//! The embedded set, read back as the runtime would: every packing's
//! directory, data and dictionary decode to exactly the SPIR-V that was
//! built, with independent decoders (`lz4_flex`, zstd, SMOL-V); the
//! automatic choice; precompiled SPIR-V inputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use smolv_build::{Config, DictionaryMode, Error, Framing, Optimization, Packing, Report, SizeGoal};
use smolv_format::Manifest;
use smolv_runtime::__private::RelativeIdsModule;
use smolv_runtime::reflect::{Reflection, ShaderStage};

/// The shared SMOL-V corpus's SPIR-V modules: `SMOLV_CORPUS_DIR`, else
/// `../shared/corpus` next to the repository. Missing is a failure on CI,
/// and skips the test elsewhere.
#[allow(clippy::disallowed_methods, reason = "SMOLV_CORPUS_DIR, where the corpus is")]
fn corpus() -> Option<PathBuf> {
    let root = std::env::var_os("SMOLV_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let spirv = root.join("spirv");
    if spirv.is_dir() {
        return Some(spirv);
    }
    assert!(std::env::var_os("CI").is_none(), "the SMOL-V corpus is missing at {}", root.display());
    None
}

/// Every SPIR-V file below `dir`, sorted.
fn spirv_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()) {
        if path.is_dir() {
            files.extend(spirv_files(&path));
        } else if path.extension().is_some_and(|e| e == "spv" || e == "spirv") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Unity's smallest modules, until they add up to `bytes` of SPIR-V: many
/// modules, little data (a game's set, not a stress test).
fn corpus_subset(corpus: &Path, bytes: u64) -> Vec<PathBuf> {
    let mut files: Vec<(u64, PathBuf)> = spirv_files(&corpus.join("unity"))
        .into_iter()
        .map(|path| (std::fs::metadata(&path).unwrap().len(), path))
        .collect();
    files.sort();
    let mut total = 0;
    files
        .into_iter()
        .map(|(_, path)| path)
        .take_while(|path| {
            let more = total < bytes;
            total += std::fs::metadata(path).unwrap().len();
            more
        })
        .collect()
}

/// A build of `files` into `out`, unoptimized (the packing is what is
/// tested) and unstripped, so each module decodes to its input exactly.
fn config(files: &[PathBuf], out: &Path) -> Config {
    let mut config = Config::new();
    config
        .out_dir(out)
        .cache_dir(out.join("cache"))
        .cargo_directives(false)
        .optimization(Optimization::None)
        .strip_debug(false);
    files.iter().for_each(|file| {
        config.shader(file);
    });
    config
}

fn words(bytes: &[u8]) -> Vec<u32> {
    assert_eq!(bytes.len() % 4, 0);
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn manifest(out: &Path) -> (Manifest, serde_json::Value) {
    let text = std::fs::read_to_string(out.join("smolv/manifest.json")).unwrap();
    (serde_json::from_str(&text).unwrap(), serde_json::from_str(&text).unwrap())
}

fn read(out: &Path, relative: &str) -> Vec<u8> {
    std::fs::read(out.join("smolv").join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// One directory entry, read field by field as `docs/format.md` lays it out.
#[derive(Debug)]
struct Entry {
    offset: usize,
    packed_len: usize,
    unpacked_len: usize,
    spirv_len: usize,
    check: u32,
    name: String,
}

struct Directory {
    codec: u8,
    layout: u8,
    stream_len: usize,
    stream_check: u32,
    entries: Vec<Entry>,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn parse_directory(bytes: &[u8]) -> Directory {
    assert_eq!(&bytes[..4], b"SMVD");
    assert_eq!(bytes[4], 1, "format version");
    assert_eq!(bytes[7], 0, "reserved");
    let field = |at| u32_at(bytes, at) as usize;
    let mut entries = Vec::new();
    let mut at = 20;
    for _ in 0..u32_at(bytes, 8) {
        assert_eq!(at % 4, 0, "entries start 4-byte aligned");
        let name_len = usize::from(u16::from_le_bytes([bytes[at + 20], bytes[at + 21]]));
        let name = String::from_utf8(bytes[at + 22..at + 22 + name_len].to_vec()).unwrap();
        entries.push(Entry {
            offset: field(at),
            packed_len: field(at + 4),
            unpacked_len: field(at + 8),
            spirv_len: field(at + 12),
            check: u32_at(bytes, at + 16),
            name,
        });
        let end = at + 22 + name_len;
        at = end.next_multiple_of(4);
        assert!(bytes[end..at].iter().all(|&b| b == 0), "padding is zeros");
    }
    assert_eq!(at, bytes.len(), "the directory ends after its last entry");
    Directory { codec: bytes[5], layout: bytes[6], stream_len: field(12), stream_check: u32_at(bytes, 16), entries }
}

/// Unpacks a block packed with `codec` to exactly `len` bytes.
fn unpack(codec: u8, packed: &[u8], len: usize, dictionary: Option<&[u8]>) -> Vec<u8> {
    let out = match codec {
        0 | 1 | 5 => packed.to_vec(),
        2 | 6 => {
            let mut out = vec![0; len];
            assert_eq!(lz4_flex::block::decompress_into(packed, &mut out).unwrap(), len);
            out
        }
        3 | 4 => {
            // One frame with the content size, no checksum, no dictionary id.
            assert_eq!(zstd::zstd_safe::get_frame_content_size(packed).unwrap(), Some(len as u64));
            let mut decompressor = match dictionary {
                Some(dictionary) => zstd::bulk::Decompressor::with_dictionary(dictionary).unwrap(),
                None => zstd::bulk::Decompressor::new().unwrap(),
            };
            decompressor.decompress(packed, len).unwrap()
        }
        other => panic!("unknown codec {other}"),
    };
    assert_eq!(out.len(), len);
    out
}

/// Decodes unpacked module bytes to SPIR-V words.
fn decode(codec: u8, unpacked: &[u8]) -> Vec<u32> {
    match codec {
        0 => words(unpacked),
        5 | 6 => smolv_runtime::relative_ids::decode(&words(unpacked)).unwrap(),
        _ => smolv_runtime::decode(unpacked, &Default::default()).unwrap(),
    }
}

/// The codecs by directory byte.
const CODECS: [&str; 7] = [
    "spirv",
    "smolv",
    "smolv-lz4",
    "smolv-zstd",
    "smolv-zstd-dictionary",
    "spirv-relative-ids",
    "spirv-relative-ids-lz4",
];

/// The index of `entry` in `directory`.
fn index_of(directory: &Directory, entry: &Entry) -> usize {
    directory.entries.iter().position(|e| std::ptr::eq(e, entry)).unwrap()
}

/// The module as `include_shader!` would embed it, through the runtime.
fn runtime_alone(
    codec: &str,
    entry: &Entry,
    packed: Vec<u8>,
    dictionary: Option<&[u8]>,
    (dictionary_len, dictionary_check): (usize, u32),
) -> &'static smolv_runtime::Shader {
    let field = |value: usize| u32::try_from(value).unwrap();
    if codec == "spirv" || codec == "spirv-relative-ids" {
        // The macro embeds raw modules, and modules with relative ids, as
        // words made at compile time.
        let words: &'static [u32] = words(&packed).leak();
        let name = entry.name.clone().leak();
        return Box::leak(Box::new(if codec == "spirv" {
            smolv_runtime::Shader::raw(name, words)
        } else {
            smolv_runtime::Shader::relative_ids(Box::leak(Box::new(RelativeIdsModule::new(name, words))))
        }));
    }
    let module = smolv_runtime::__private::EmbeddedModule::new(
        entry.name.clone().leak(),
        match codec {
            "smolv" => &smolv_runtime::__private::SMOLV_MODULE,
            "smolv-lz4" => &smolv_runtime::__private::SMOLV_LZ4_MODULE,
            "spirv-relative-ids-lz4" => &smolv_runtime::__private::RELATIVE_IDS_LZ4_MODULE,
            _ => &smolv_runtime::__private::SMOLV_ZSTD_MODULE,
        },
        packed.leak(),
        dictionary.map(|d| &*d.to_vec().leak()).unwrap_or_default(),
        (field(dictionary_len), dictionary_check),
        field(entry.unpacked_len),
        field(entry.spirv_len),
        entry.check,
    );
    Box::leak(Box::new(smolv_runtime::Shader::embedded(Box::leak(Box::new(module)))))
}

fn unpacker(codec: &str) -> &'static smolv_runtime::__private::Unpacker {
    match codec {
        "spirv" => &smolv_runtime::__private::RAW,
        "spirv-relative-ids" => &smolv_runtime::__private::RELATIVE_IDS,
        "smolv" => &smolv_runtime::__private::SMOLV,
        "smolv-lz4" => &smolv_runtime::__private::SMOLV_LZ4,
        "spirv-relative-ids-lz4" => &smolv_runtime::__private::RELATIVE_IDS_LZ4,
        "smolv-zstd" => &smolv_runtime::__private::SMOLV_ZSTD,
        _ => &smolv_runtime::__private::SMOLV_ZSTD_DICTIONARY,
    }
}

/// The set as `include_shaders!` would embed it, through the runtime's
/// embedded-set code (everything leaked, as the macro's statics are).
fn runtime_set(directory: &Directory, codec: &str, data: &[u8], dictionary: Option<&[u8]>) -> smolv_runtime::ShaderSet {
    use smolv_runtime::__private::{EmbeddedEntry, EmbeddedSet, leaked_embedded_set};
    let unpacker = unpacker(codec);
    let (mut names, mut entries) = (String::new(), Vec::new());
    let field = |value: usize| u32::try_from(value).unwrap();
    for entry in &directory.entries {
        names.push_str(&entry.name);
        entries.push(EmbeddedEntry::new(
            field(names.len()),
            field(entry.offset),
            field(entry.packed_len),
            field(entry.unpacked_len),
            field(entry.spirv_len),
            entry.check,
        ));
    }
    // The data is 4-byte aligned in a binary; so it is here.
    let aligned: &'static mut [u32] = vec![0u32; data.len().div_ceil(4)].leak();
    let aligned: &'static mut [u8] = &mut bytemuck::cast_slice_mut(aligned)[..data.len()];
    aligned.copy_from_slice(data);
    leaked_embedded_set(EmbeddedSet::new(
        unpacker,
        aligned,
        dictionary.map(|d| &*d.to_vec().leak()).unwrap_or_default(),
        names.leak(),
        entries.leak(),
        (field(directory.stream_len), directory.stream_check),
    ))
}

/// Reads the embedded set and every module's `include_shader!` form back
/// with independent decoders, and checks them against the SPIR-V the
/// build wrote (`optimized_spirv`) and against the format's rules.
fn check_embedded(out: &Path) -> Directory {
    let (manifest, json) = manifest(out);
    assert_eq!(manifest.format, 2);
    for field in ["codec", "layout", "goal", "directory", "data", "dictionary", "spirv_bytes", "stored_bytes"] {
        assert!(json["embedded"].get(field).is_some(), "manifest embedded.{field}");
    }
    let embedded = &manifest.embedded;
    let directory_bytes = read(out, &embedded.directory);
    let data = read(out, &embedded.data);
    let dictionary = embedded.dictionary.as_ref().map(|d| read(out, d));
    let directory = parse_directory(&directory_bytes);
    // The binary carries data, dictionary, the names and 24 bytes of table per module.
    let tables: usize = directory.entries.iter().map(|e| e.name.len() + 24).sum();
    assert_eq!(embedded.stored_bytes, data.len() + dictionary.as_ref().map_or(0, Vec::len) + tables);
    assert_eq!(CODECS[usize::from(directory.codec)], embedded.codec.name());
    assert_eq!(["module", "stream"][usize::from(directory.layout)], embedded.framing.name());
    assert_eq!(dictionary.is_some(), directory.codec == 4, "a dictionary exactly for codec 4");
    assert_eq!(directory.entries.len(), manifest.modules.len());

    // Where modules live: the data, or the stream.
    let stream = (directory.layout == 1).then(|| {
        assert!(matches!(directory.codec, 2 | 3 | 6), "only LZ4 and zstd sets are streams");
        let stream = unpack(directory.codec, &data, directory.stream_len, None);
        assert_eq!(xxhash_rust::xxh32::xxh32(&stream, 0), directory.stream_check);
        stream
    });
    // The dictionary ships as one zstd frame; the directory's "once"
    // fields give its unpacked length and check.
    let packed_dictionary = dictionary.clone();
    let dictionary = dictionary.map(|packed| {
        assert!(packed.len() < directory.stream_len, "the dictionary ships packed");
        let unpacked = unpack(3, &packed, directory.stream_len, None);
        assert_eq!(xxhash_rust::xxh32::xxh32(&unpacked, 0), directory.stream_check);
        unpacked
    });
    if stream.is_none() && dictionary.is_none() {
        assert_eq!((directory.stream_len, directory.stream_check), (0, 0));
    }
    let runtime_set = runtime_set(&directory, embedded.codec.name(), &data, packed_dictionary.as_deref());
    let runtime_shaders = runtime_set.shaders();
    assert_eq!(runtime_shaders.len(), directory.entries.len());

    let names: Vec<&str> = directory.entries.iter().map(|e| e.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    sorted.dedup();
    assert_eq!(names, sorted, "names sorted by bytes and unique");

    let mut end = 0;
    let mut stream_ranges = Vec::new();
    let mut stored_modules: Vec<(usize, usize)> = Vec::new();
    let mut spirv_total = 0;
    for (entry, module) in directory.entries.iter().zip(&manifest.modules) {
        assert_eq!(entry.name, module.name);
        let mut expected = words(&read(out, &module.optimized_spirv));
        if manifest.strip_debug {
            // Stripped of every name, or of all but those reflection reads
            // where the build was asked to keep them.
            let r = &module.reflection;
            let names: std::collections::BTreeSet<String> = (r.bindings.iter().map(|b| b.name.clone()))
                .chain(r.spec_constants.iter().map(|s| s.name.clone()))
                .chain(r.inputs.iter().chain(&r.outputs).map(|v| v.name.clone()))
                .filter(|_| manifest.interface_names)
                .collect();
            let options = smolv_runtime::EncodeOptions::new().strip_debug(true).keep_names(move |n| names.contains(n));
            let stripped = smolv_runtime::encode(&expected[..], &options).unwrap();
            expected = smolv_runtime::decode(&stripped, &Default::default()).unwrap();
        }
        let expected_bytes: Vec<u8> = expected.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(entry.spirv_len, expected_bytes.len(), "{}", entry.name);
        assert_eq!(entry.check, xxhash_rust::xxh32::xxh32(&expected_bytes, 0), "{}", entry.name);
        let unpacked = match &stream {
            Some(stream) => {
                assert_eq!(entry.packed_len, entry.unpacked_len);
                stream_ranges.push((entry.offset, entry.offset + entry.packed_len));
                stream[entry.offset..entry.offset + entry.packed_len].to_vec()
            }
            None => {
                if matches!(directory.codec, 0 | 5) {
                    assert_eq!(entry.offset % 4, 0, "words are read from aligned data");
                    assert_eq!(entry.unpacked_len, entry.spirv_len);
                }
                if matches!(directory.codec, 0 | 1 | 5) {
                    assert_eq!(entry.packed_len, entry.unpacked_len);
                }
                // Modules follow each other in entry order, each distinct
                // one once: a module that packs to the bytes of an earlier
                // one shares them.
                let packed = &data[entry.offset..entry.offset + entry.packed_len];
                if entry.offset != end {
                    assert!(entry.offset < end, "{}: a module past the data", entry.name);
                    assert!(
                        stored_modules.iter().any(|&(offset, len)| (offset, len) == (entry.offset, entry.packed_len)),
                        "{}: a module shares only an identical module's bytes",
                        entry.name
                    );
                } else {
                    assert!(
                        !stored_modules.iter().any(|&(offset, len)| data[offset..offset + len] == *packed),
                        "{}: identical modules are stored once",
                        entry.name
                    );
                    stored_modules.push((entry.offset, entry.packed_len));
                }
                unpack(directory.codec, packed, entry.unpacked_len, dictionary.as_deref())
            }
        };
        end = end.max(entry.offset + entry.packed_len);
        let decoded = decode(directory.codec, &unpacked);
        assert_eq!(decoded, expected, "{}", entry.name);
        // The runtime's embedded-set code decodes it the same.
        let in_set = &runtime_shaders[index_of(&directory, entry)];
        assert_eq!(in_set.name(), entry.name);
        assert_eq!(in_set.decode().unwrap(), expected, "{} through the runtime", entry.name);
        // Embedded shaders reflect their decoded SPIR-V: as the build did,
        // with the names only where the manifest says they were kept.
        let mut shipped = module.reflection.clone();
        if !manifest.interface_names {
            shipped.bindings.iter_mut().for_each(|b| b.name.clear());
            shipped.spec_constants.iter_mut().for_each(|s| s.name.clear());
            shipped.inputs.iter_mut().chain(&mut shipped.outputs).for_each(|v| v.name.clear());
        }
        assert_eq!(Reflection::from_spirv(&decoded).unwrap(), shipped, "{}", entry.name);

        // The module alone, as include_shader! embeds it.
        let alone = &module.embedded;
        assert_eq!(
            (alone.unpacked_bytes, alone.spirv_bytes, alone.check),
            (entry.unpacked_len, entry.spirv_len, entry.check)
        );
        let packed = read(out, &alone.data);
        let unpacked_alone = unpack(directory.codec, &packed, alone.unpacked_bytes, dictionary.as_deref());
        assert_eq!(decode(directory.codec, &unpacked_alone), expected, "{} alone", entry.name);
        let once = if packed_dictionary.is_some() { (directory.stream_len, directory.stream_check) } else { (0, 0) };
        let alone = runtime_alone(embedded.codec.name(), entry, packed, packed_dictionary.as_deref(), once);
        assert_eq!(alone.decode().unwrap(), expected, "{} alone through the runtime", entry.name);
        spirv_total += entry.spirv_len;
    }
    // A stream holds every module once, in any order, and nothing else.
    stream_ranges.sort_unstable();
    if let Some(stream) = &stream {
        assert!(stream_ranges.windows(2).all(|w| w[0].1 == w[1].0), "stream modules tile the stream");
        assert_eq!(stream_ranges.first().map(|r| r.0), Some(0));
        assert_eq!(stream_ranges.last().map(|r| r.1), Some(stream.len()), "the modules fill the stream");
    } else {
        assert_eq!(end, data.len(), "the modules fill the data");
    }
    assert_eq!(embedded.spirv_bytes, spirv_total);
    directory
}

fn forced(files: &[PathBuf], packing: Packing) -> (Report, Directory) {
    let out = tempfile::tempdir().unwrap();
    let report = config(files, out.path()).packing(packing).try_compile().unwrap();
    (report, check_embedded(out.path()))
}

/// Seven modules without the corpus: the doc example, and six copies
/// renamed (LZ4 and zstd have something to find across them).
fn example_files(dir: &Path) -> Vec<PathBuf> {
    let bytes: Vec<u8> = smolv_runtime::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
    ["a.comp.spv", "b.comp.spv", "c.comp.spv", "d/e.comp.spv", "f.comp.spirv", "g.comp.spv", "h.comp.spv"]
        .iter()
        .map(|name| {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            path
        })
        .collect()
}

const PACKINGS: [Packing; 10] = [
    Packing::Raw,
    Packing::RelativeIds,
    Packing::RelativeIdsLz4 { framing: Framing::PerModule },
    Packing::RelativeIdsLz4 { framing: Framing::Stream },
    Packing::Smolv,
    Packing::Lz4 { framing: Framing::PerModule },
    Packing::Lz4 { framing: Framing::Stream },
    Packing::Zstd { framing: Framing::PerModule },
    Packing::Zstd { framing: Framing::Stream },
    Packing::ZstdDictionary,
];

#[test]
fn every_forced_packing_decodes_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let files = example_files(dir.path());
    // Seven copies of a tiny module are too little to train a zstd
    // dictionary on; the corpus test below covers that packing.
    for packing in &PACKINGS[..9] {
        let (report, directory) = forced(&files, *packing);
        let chosen = report.packing.unwrap();
        assert_eq!(chosen.packing, packing.name());
        assert_eq!(chosen.candidates.iter().filter(|c| c.chosen).count(), 1);
        assert_eq!(directory.entries.len(), 7);
    }
}

#[test]
fn every_forced_packing_of_corpus_modules_decodes_back_exactly() {
    let Some(corpus) = corpus() else { return };
    let files = corpus_subset(&corpus, 40_000);
    for packing in PACKINGS {
        let (report, directory) = forced(&files, packing);
        let chosen = report.packing.unwrap();
        assert_eq!(chosen.packing, packing.name(), "{packing:?}");
        let codecs = [0, 5, 6, 6, 1, 2, 2, 3, 3, 4];
        assert_eq!(directory.codec, codecs[PACKINGS.iter().position(|p| *p == packing).unwrap()]);
        assert!(
            chosen.net_bytes == chosen.stored_bytes as i64 + chosen.decoder_bytes as i64 - chosen.spirv_bytes as i64
        );
    }
}

#[test]
fn a_forced_dictionary_without_one_to_train_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let files = example_files(dir.path());
    let out = dir.path().join("out");
    let error = config(&files[..1], &out).packing(Packing::ZstdDictionary).try_compile().unwrap_err();
    assert!(matches!(&error, Error::Config(why) if why.contains("zstd dictionary")), "{error}");
    let mut off = config(&files, &out);
    off.dictionary(DictionaryMode::Off).packing(Packing::ZstdDictionary);
    assert!(matches!(off.try_compile(), Err(Error::Config(_))));
}

#[test]
fn auto_ships_a_tiny_set_raw() {
    let dir = tempfile::tempdir().unwrap();
    let files = example_files(dir.path());
    let out = dir.path().join("out");
    let report = config(&files[..2], &out).try_compile().unwrap();
    let packing = report.packing.unwrap();
    assert_eq!(packing.codec, "spirv");
    assert!(packing.decoder_bytes < 8_000, "raw SPIR-V links only the set's glue: {}", packing.decoder_bytes);
    assert_eq!(packing.goal, "installed");
    // zstd's decoder alone costs more than raw SPIR-V's total here, so
    // its packings are not built (nor a dictionary trained): the other 7
    // are weighed.
    assert_eq!(packing.candidates.len(), 7, "every packing but zstd's was weighed: {}", packing.candidates_line());
    assert!(packing.candidates.iter().all(|c| !c.codec.contains("zstd")), "{}", packing.candidates_line());
    let raw = packing.candidates.iter().find(|c| c.codec == "spirv").unwrap();
    assert!(raw.installed_bytes < 45_000, "zstd's decoder alone would cost more: {}", raw.installed_bytes);
    let smallest = packing.candidates.iter().map(|c| c.installed_bytes).min().unwrap();
    assert_eq!(packing.candidates.iter().find(|c| c.chosen).unwrap().installed_bytes, smallest);
    let directory = check_embedded(&out);
    assert_eq!(directory.codec, 0);
}

#[test]
fn auto_compresses_the_corpus() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let files = spirv_files(&corpus);
    assert_eq!(files.len(), 280);
    let mut config = config(&[], dir.path());
    config.shader_dir(&corpus).strip_debug(true);
    let report = config.try_compile().unwrap();
    let packing = report.packing.clone().unwrap();
    assert!(["smolv-lz4", "smolv-zstd", "smolv-zstd-dictionary"].contains(&packing.codec.as_str()), "{packing:?}");
    assert_eq!(packing.candidates.len(), 10);
    assert!(packing.net_bytes < -(packing.spirv_bytes as i64) / 2, "{}", packing.summary());
    let chosen = packing.candidates.iter().find(|c| c.chosen).unwrap();
    assert!(packing.candidates.iter().all(|c| c.installed_bytes >= chosen.installed_bytes));
    let text = report.to_text();
    assert!(text.contains(&packing.summary()), "{text}");
    check_embedded(dir.path());
}

#[test]
fn the_download_goal_weighs_sizes_after_xz() {
    let dir = tempfile::tempdir().unwrap();
    let files = match corpus() {
        Some(corpus) => corpus_subset(&corpus, 74_000),
        None => example_files(dir.path()),
    };
    let out = dir.path().join("out");
    let report = config(&files, &out).size_goal(SizeGoal::Download).try_compile().unwrap();
    let packing = report.packing.unwrap();
    assert_eq!(packing.goal, "download");
    assert!(packing.candidates.iter().all(|c| c.download_bytes >= c.stored_xz_bytes && c.stored_xz_bytes.is_some()));
    let chosen = packing.candidates.iter().find(|c| c.chosen).unwrap();
    assert!(packing.candidates.iter().all(|c| c.download_bytes >= chosen.download_bytes));
    // A compressed payload does not shrink again: the download goal ships
    // what xz compresses best with the least code, SPIR-V with relative
    // ids for about 74 KB of corpus modules (raw SPIR-V for the tiny
    // stand-in set without the corpus).
    let expected = if corpus().is_some() { "spirv-relative-ids" } else { "spirv" };
    assert_eq!(packing.codec, expected, "{}", packing.candidates_line());
    let (_, json) = manifest(&out);
    assert_eq!(json["embedded"]["goal"], "download");
    check_embedded(&out);
}

#[test]
fn precompiled_spirv_becomes_modules_named_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let shaders = dir.path().join("shaders");
    example_files(&shaders);
    let out = dir.path().join("out");
    let mut config = config(&[], &out);
    config.shader_dir(&shaders);
    let report = config.try_compile().unwrap();
    let names: Vec<&str> = report.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        ["a.comp.spv", "b.comp.spv", "c.comp.spv", "d/e.comp.spv", "f.comp.spirv", "g.comp.spv", "h.comp.spv"]
    );
    let (manifest, _) = manifest(&out);
    let module = &manifest.modules[3];
    let expected = smolv_runtime::doc_example_module();
    assert_eq!(words(&read(&out, &module.optimized_spirv)), expected);
    assert_eq!(module.reflection.stage, ShaderStage::Compute);
    assert_eq!(module.reflection.entry_point, report.modules[3].entry_point);
    check_embedded(&out);
}

#[test]
fn precompiled_corpus_modules_keep_their_stage_and_entry_point() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(&[], dir.path());
    config.shader_glob(format!("{}/glslang/*.spv", corpus.display()));
    let report = config.try_compile().unwrap();
    let stages: BTreeMap<&str, &str> = report.modules.iter().map(|m| (m.name.as_str(), m.stage.as_str())).collect();
    assert_eq!(stages["spv.AnyHitShader.rahit.spv"], "rahit");
    assert_eq!(stages["spv.1.3.coopmat.comp.spv"], "compute");
    assert_eq!(stages["spv.320.meshShaderUserDefined.mesh.spv"], "mesh");
}

#[test]
fn broken_spirv_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("odd.comp.spv");
    let module: Vec<u8> = smolv_runtime::doc_example_module().iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&odd, &module[..module.len() - 2]).unwrap();
    let text = dir.path().join("text.spv");
    std::fs::write(&text, "#version 450\nvoid main() {}\n").unwrap();
    let out = dir.path().join("out");
    let error = config(&[odd.clone(), text.clone()], &out).try_compile().unwrap_err();
    let Error::Compile { diagnostics, failed, .. } = &error else { panic!("{error}") };
    assert_eq!(*failed, 2);
    assert!(diagnostics.iter().any(|d| d.path == odd && d.message.contains("32-bit words")), "{error}");
    assert!(diagnostics.iter().any(|d| d.path == text && d.message.contains("magic number")), "{error}");
}

#[test]
fn a_warm_build_rewrites_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let files = example_files(dir.path());
    let out = dir.path().join("out");
    let mut config = config(&files, &out);
    config.packing(Packing::Lz4 { framing: Framing::Stream });
    let first = config.try_compile().unwrap();
    let data = out.join("smolv/embedded/set.data");
    let modified = std::fs::metadata(&data).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = config.try_compile().unwrap();
    assert_eq!(second.cache_hits, 7);
    assert_eq!(first.packing, second.packing);
    assert_eq!(std::fs::metadata(&data).unwrap().modified().unwrap(), modified, "unchanged files keep their time");
}
