//! WGSL a build for wgpu shipped instead of SPIR-V (`docs/format.md`): minified text as one
//! stream (plain, LZ4 or zstd), unpacked and checked on first use.

use core::mem::ManuallyDrop;
use std::sync::OnceLock;

use super::source::{Cache, ShaderSource};
use super::unpack::{UnpackOnce, corrupt, len};
use crate::shader_error::{ShaderError, ShippedAsWgsl};
use smolv_codec::DecodeOptions;

/// How a WGSL set's stream is stored. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct WgslUnpacker {
    /// Unpacks the stream; `None` for plain text.
    unpack_once: Option<UnpackOnce>,
}

/// Plain minified WGSL: served from the binary.
pub const WGSL: WgslUnpacker = WgslUnpacker { unpack_once: None };

/// Minified WGSL as one LZ4 block.
#[cfg(feature = "lz4")]
pub const WGSL_LZ4: WgslUnpacker = WgslUnpacker { unpack_once: Some(super::unpack::unpack_once_lz4) };

/// Minified WGSL as one zstd frame.
#[cfg(feature = "zstd-fast")]
pub const WGSL_ZSTD: WgslUnpacker = WgslUnpacker { unpack_once: Some(super::unpack::unpack_once_zstd) };

/// One module of a WGSL set's table. Not a stable API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct WgslEntry {
    name_end: u32,
    offset: u32,
    len: u32,
}

impl WgslEntry {
    /// An entry: the end of its name, and its text's offset and length.
    #[cfg_attr(not(debug_assertions), inline)]
    pub const fn new(name_end: u32, offset: u32, len: u32) -> Self {
        Self { name_end, offset, len }
    }
}

/// The WGSL modules of an embedded set. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct WgslSet {
    unpacker: &'static WgslUnpacker,
    data: &'static [u8],
    names: &'static str,
    entries: &'static [WgslEntry],
    /// `(unpacked length, xxHash32)` of the stream.
    once: (u32, u32),
    /// The stream unpacked, leaked; `ManuallyDrop` for no drop glue.
    unpacked: ManuallyDrop<OnceLock<&'static [u8]>>,
}

impl WgslSet {
    /// A set: its unpacker, data, names, table and `once`.
    #[cfg_attr(not(debug_assertions), inline)]
    pub const fn new(
        unpacker: &'static WgslUnpacker,
        data: &'static [u8],
        names: &'static str,
        entries: &'static [WgslEntry],
        once: (u32, u32),
    ) -> Self {
        Self { unpacker, data, names, entries, once, unpacked: ManuallyDrop::new(OnceLock::new()) }
    }

    /// The whole text, unpacked and checked on first use.
    #[cfg_attr(not(debug_assertions), inline)]
    fn text(&self) -> Result<&'static [u8], ShaderError> {
        match self.unpacker.unpack_once {
            None => Ok(self.data),
            Some(unpack_once) => super::unpacked_once(&self.unpacked, unpack_once, self.data, self.once),
        }
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn entry(&self, index: usize) -> Result<&WgslEntry, ShaderError> {
        self.entries.get(index).ok_or_else(|| corrupt("a shader lies outside its WGSL table"))
    }
}

/// The `ShaderSource` methods of a source that holds no SPIR-V.
macro_rules! no_spirv {
    () => {
        #[cfg_attr(not(debug_assertions), inline)]
        fn spirv_len(&self, _: usize) -> usize {
            0
        }

        #[cfg_attr(not(debug_assertions), inline)]
        fn decode(&self, _: usize, _: &DecodeOptions, out: &mut Vec<u32>) -> Result<(), ShaderError> {
            out.clear();
            Err(ShippedAsWgsl.into())
        }

        #[cfg_attr(not(debug_assertions), inline)]
        fn cache(&self, _: usize) -> Result<Cache<'_>, ShaderError> {
            Err(ShippedAsWgsl.into())
        }
    };
}

impl ShaderSource for WgslSet {
    #[cfg_attr(not(debug_assertions), inline)]
    fn name(&self, index: usize) -> &str {
        super::name_in(self.names, |i| self.entries.get(i).map(|e| e.name_end), index)
    }

    /// The module's text if the stream is plain, else the packed stream.
    #[cfg_attr(not(debug_assertions), inline)]
    fn stored(&self, index: usize) -> &[u8] {
        match (self.unpacker.unpack_once, self.wgsl(index)) {
            (None, Ok(Some(text))) => text.as_bytes(),
            _ => self.data,
        }
    }

    no_spirv!();

    #[cfg_attr(not(debug_assertions), inline)]
    fn wgsl(&self, index: usize) -> Result<Option<&str>, ShaderError> {
        let entry = self.entry(index)?;
        let start = len(entry.offset)?;
        let end = start.checked_add(len(entry.len)?);
        let text = self.text()?;
        let bytes =
            end.and_then(|end| text.get(start..end)).ok_or_else(|| corrupt("a module lies outside its WGSL"))?;
        core::str::from_utf8(bytes).map(Some).map_err(|_| corrupt("embedded WGSL is not UTF-8"))
    }
}

/// One WGSL module embedded on its own, as plain text. Not a stable API.
#[doc(hidden)]
#[derive(Debug)]
pub struct WgslModule {
    name: &'static str,
    text: &'static str,
}

impl WgslModule {
    /// The module `name`, whose minified WGSL is `text`.
    #[cfg_attr(not(debug_assertions), inline)]
    pub const fn new(name: &'static str, text: &'static str) -> Self {
        Self { name, text }
    }
}

impl ShaderSource for WgslModule {
    #[cfg_attr(not(debug_assertions), inline)]
    fn name(&self, _: usize) -> &str {
        self.name
    }

    #[cfg_attr(not(debug_assertions), inline)]
    fn stored(&self, _: usize) -> &[u8] {
        self.text.as_bytes()
    }

    no_spirv!();

    #[cfg_attr(not(debug_assertions), inline)]
    fn wgsl(&self, _: usize) -> Result<Option<&str>, ShaderError> {
        Ok(Some(self.text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Shader, ShaderErrorKind};

    static TEXT: &str = "@compute @workgroup_size(1)fn main(){}@fragment fn fs()->@location(0)vec4f{return vec4f();}";
    static ENTRIES: [WgslEntry; 2] = [WgslEntry::new(9, 0, 38), WgslEntry::new(17, 38, 53)];
    static PLAIN: WgslSet = WgslSet::new(&WGSL, TEXT.as_bytes(), "fill.compsky.frag", &ENTRIES, (91, 0));

    #[test]
    fn a_plain_wgsl_set_serves_each_module_s_text() {
        let fill = Shader::in_wgsl_set(&PLAIN, 0);
        let sky = Shader::in_wgsl_set(&PLAIN, 1);
        assert_eq!((fill.name(), sky.name()), ("fill.comp", "sky.frag"));
        assert_eq!(fill.wgsl().unwrap().as_deref(), Some("@compute @workgroup_size(1)fn main(){}"));
        assert_eq!(sky.wgsl().unwrap().as_deref(), Some("@fragment fn fs()->@location(0)vec4f{return vec4f();}"));
        assert_eq!(sky.stored_bytes(), &TEXT.as_bytes()[38..]);
    }

    #[test]
    fn a_wgsl_shader_has_no_spirv_and_says_so() {
        let fill = Shader::in_wgsl_set(&PLAIN, 0);
        let error = fill.decode().unwrap_err();
        assert_eq!(error.kind(), ShaderErrorKind::ShippedAsWgsl);
        assert!(error.to_string().contains("Shader::wgsl"), "{error}");
        assert_eq!(fill.decode_cached().unwrap_err().kind(), ShaderErrorKind::ShippedAsWgsl);
        assert_eq!(fill.spirv_len(), 0);
    }

    #[test]
    fn a_damaged_wgsl_table_is_an_error_not_a_panic() {
        static BAD: [WgslEntry; 1] = [WgslEntry::new(4, 80, 20)];
        static SET: WgslSet = WgslSet::new(&WGSL, TEXT.as_bytes(), "fill", &BAD, (91, 0));
        let shader = Shader::in_wgsl_set(&SET, 0);
        assert_eq!(shader.wgsl().unwrap_err().kind(), ShaderErrorKind::Corrupt);
        static NOT_UTF8: [u8; 2] = [0xC3, 0x28];
        static ONE: [WgslEntry; 1] = [WgslEntry::new(1, 0, 2)];
        static BROKEN: WgslSet = WgslSet::new(&WGSL, &NOT_UTF8, "x", &ONE, (2, 0));
        assert_eq!(Shader::in_wgsl_set(&BROKEN, 0).wgsl().unwrap_err().kind(), ShaderErrorKind::Corrupt);
        assert_eq!(Shader::in_wgsl_set(&BROKEN, 7).name(), "");
    }

    #[cfg(feature = "lz4")]
    #[test]
    fn an_lz4_wgsl_stream_unpacks_once_and_is_checked() {
        let packed: &'static [u8] = Vec::leak(lz4::block::compress(TEXT.as_bytes(), None, false).unwrap());
        let check = xxhash_rust::xxh32::xxh32(TEXT.as_bytes(), 0);
        let set: &'static WgslSet =
            Box::leak(Box::new(WgslSet::new(&WGSL_LZ4, packed, "fill.compsky.frag", &ENTRIES, (91, check))));
        let sky = Shader::in_wgsl_set(set, 1);
        assert_eq!(sky.wgsl().unwrap().as_deref(), Some(&TEXT[38..]));
        let wrong: &'static WgslSet =
            Box::leak(Box::new(WgslSet::new(&WGSL_LZ4, packed, "fill.compsky.frag", &ENTRIES, (91, check ^ 1))));
        assert_eq!(Shader::in_wgsl_set(wrong, 0).wgsl().unwrap_err().kind(), ShaderErrorKind::HashMismatch);
    }

    #[test]
    fn a_lone_wgsl_module_serves_its_text() {
        static MODULE: WgslModule = WgslModule::new("sky.frag", "@fragment fn f(){}");
        static SKY: Shader = Shader::wgsl_module(&MODULE);
        assert_eq!(SKY.wgsl().unwrap().as_deref(), Some("@fragment fn f(){}"));
        assert_eq!(SKY.decode().unwrap_err().kind(), ShaderErrorKind::ShippedAsWgsl);
    }

    #[test]
    fn spirv_shaders_have_no_wgsl() {
        static WORDS: [u32; 39] = smolv_format::DOC_EXAMPLE_WORDS;
        assert!(Shader::raw("fill.comp", &WORDS).wgsl().unwrap().is_none());
    }
}
