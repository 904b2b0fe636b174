//! wgpu's `PipelineCache` persisted to a file per adapter: [`PipelineCacheFile`].
//! Body: the adapter record ([`Identity::to_bytes`]: texts are a `u16` LE length of at most
//! [`MAX_FIELD`] bytes, then UTF-8), then wgpu's data.

use std::path::{Path, PathBuf};

use super::error::WgpuError;
use super::scope::ready;
use crate::pipeline_cache_file::{self as file, CacheLoad, CacheRejected, Format};

const FORMAT: Format = Format { magic: *b"SMOLVWPC", version: 1 };
/// The most bytes a text field of the adapter record holds.
const MAX_FIELD: usize = 256;
/// The most characters of one field an error message shows.
const SHOWN_CHARS: usize = 80;

/// The driver and device a file was written for: [`AdapterInfo`] less what
/// may change between runs (the PCI bus id, subgroup sizes).
///
/// [`AdapterInfo`]: wgpu::AdapterInfo
#[derive(Clone, Debug, PartialEq, Eq)]
struct Identity {
    backend: String,
    vendor: u32,
    device: u32,
    device_type: String,
    name: String,
    driver: String,
    driver_info: String,
}

fn bounded(text: &str) -> String {
    let end = (0..=text.len().min(MAX_FIELD)).rev().find(|&end| text.is_char_boundary(end)).unwrap_or(0);
    text[..end].to_owned()
}

/// `text` quoted and escaped for a message, cut to [`SHOWN_CHARS`].
fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{:?}…", &text[..end]),
        None => format!("{text:?}"),
    }
}

impl Identity {
    fn of(adapter: &wgpu::AdapterInfo) -> Self {
        Self {
            backend: bounded(adapter.backend.to_str()),
            vendor: adapter.vendor,
            device: adapter.device,
            device_type: bounded(&format!("{:?}", adapter.device_type)),
            name: bounded(&adapter.name),
            driver: bounded(&adapter.driver),
            driver_info: bounded(&adapter.driver_info),
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let text =
            |text: &str| [&u16::try_from(text.len()).unwrap_or(u16::MAX).to_le_bytes()[..], text.as_bytes()].concat();
        let mut bytes = text(&self.backend);
        bytes.extend_from_slice(&self.vendor.to_le_bytes());
        bytes.extend_from_slice(&self.device.to_le_bytes());
        for field in [&self.device_type, &self.name, &self.driver, &self.driver_info] {
            bytes.extend(text(field));
        }
        bytes
    }

    /// The record at the start of `body`, and what follows it.
    fn read(body: &[u8]) -> Result<(Self, &[u8]), &'static str> {
        let mut reader = Reader(body);
        let identity = Self {
            backend: reader.text()?,
            vendor: reader.u32()?,
            device: reader.u32()?,
            device_type: reader.text()?,
            name: reader.text()?,
            driver: reader.text()?,
            driver_info: reader.text()?,
        };
        Ok((identity, reader.0))
    }

    fn describe(&self) -> String {
        let [backend, device_type, name, driver, driver_info] =
            [&self.backend, &self.device_type, &self.name, &self.driver, &self.driver_info].map(|text| shown(text));
        let (vendor, device) = (self.vendor, self.device);
        format!("{backend} adapter {vendor:04x}:{device:04x} ({device_type}) {name} with driver {driver} {driver_info}")
    }
}

/// Reads the adapter record's fields off the front of what is left.
struct Reader<'b>(&'b [u8]);

impl<'b> Reader<'b> {
    fn array<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        let (head, rest) = self.0.split_first_chunk::<N>().ok_or("the file ends inside it")?;
        self.0 = rest;
        Ok(*head)
    }

    fn u32(&mut self) -> Result<u32, &'static str> {
        self.array().map(u32::from_le_bytes)
    }

    fn text(&mut self) -> Result<String, &'static str> {
        let len = usize::from(u16::from_le_bytes(self.array()?));
        if len > MAX_FIELD {
            return Err("a text field is longer than 256 bytes");
        }
        let (text, rest) = self.0.split_at_checked(len).ok_or("the file ends inside it")?;
        self.0 = rest;
        String::from_utf8(text.to_vec()).map_err(|_| "a text field is not UTF-8")
    }
}

/// wgpu's data inside a cache file, if the file is whole and for `this` adapter and driver.
fn wgpu_data<'f>(path: &Path, file: &'f [u8], this: &Identity) -> Result<&'f [u8], CacheRejected> {
    let body = FORMAT.body(path, file)?;
    let (found, data) =
        Identity::read(body).map_err(|reason| CacheRejected::AdapterRecord { path: path.to_owned(), reason })?;
    if found != *this {
        let (found, this) = (found.describe(), this.describe());
        return Err(CacheRejected::OtherAdapter { path: path.to_owned(), found, this });
    }
    Ok(data)
}

/// A wgpu pipeline cache that lives in a file between runs, one file per
/// adapter in a directory of the program's (wgpu: Vulkan backend only, with
/// [`wgpu::Features::PIPELINE_CACHE`]).
///
/// ```no_run
/// # fn example(device: &wgpu::Device, descriptor: &wgpu::ComputePipelineDescriptor<'_>) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::wgpu::{CacheLoad, PipelineCacheFile};
/// // SAFETY: the directory is the program's own cache directory, which only
/// // `PipelineCacheFile::save` writes.
/// let (cache, load) = unsafe { PipelineCacheFile::open(device, "cache/pipelines")? };
/// if let CacheLoad::Ignored { reason } = &load {
///     eprintln!("warning: {reason}");
/// }
/// let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
///     cache: Some(cache.cache()),
///     ..descriptor.clone()
/// });
/// // ... the game runs ...
/// cache.save()?;
/// # let _ = pipeline;
/// # Ok(())
/// # }
/// ```
pub struct PipelineCacheFile {
    cache: wgpu::PipelineCache,
    path: PathBuf,
    /// This adapter's record, written before wgpu's data.
    record: Vec<u8>,
}

impl std::fmt::Debug for PipelineCacheFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineCacheFile").field("cache", &self.cache).field("path", &self.path).finish()
    }
}

impl PipelineCacheFile {
    /// Creates the cache for `device`, seeded from its adapter's file in
    /// `dir` ([`file_name`](Self::file_name)) when the file is whole and for
    /// this adapter and driver; [`CacheLoad`] says what was found. Data wgpu
    /// errors on is [`CacheRejected::WgpuRejected`] and is left out.
    ///
    /// # Errors
    /// - [`WgpuError::NeedsPipelineCache`]: the device lacks [`wgpu::Features::PIPELINE_CACHE`].
    /// - [`WgpuError::PipelineCache`]: wgpu cannot make even an empty cache (a lost device).
    ///
    /// # Safety
    /// - `dir` must be written only by this program, through [`save`](Self::save): wgpu
    ///   requires bytes [`wgpu::PipelineCache::get_data`] returned, and the file's hash is not a signature.
    ///
    /// ```no_run
    /// # fn example(device: &wgpu::Device) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::wgpu::PipelineCacheFile;
    /// // SAFETY: only this program writes the directory, through `save`.
    /// let (cache, load) = unsafe { PipelineCacheFile::open(device, "cache/pipelines")? };
    /// println!("{}: {load:?}", cache.path().display());
    /// # Ok(())
    /// # }
    /// ```
    #[allow(unsafe_code, reason = "wgpu's create_pipeline_cache; the caller upholds its contract, stated above")]
    pub unsafe fn open(device: &wgpu::Device, dir: impl AsRef<Path>) -> Result<(Self, CacheLoad), WgpuError> {
        let adapter = device.adapter_info();
        if !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return Err(WgpuError::NeedsPipelineCache { backend: adapter.backend.to_str() });
        }
        let path = dir.as_ref().join(Self::file_name(&adapter));
        let identity = Identity::of(&adapter);
        let file = file::read(&path);
        let (data, mut load) = match &file {
            Err(load) => (None, load.clone()),
            Ok(file) => match wgpu_data(&path, file, &identity) {
                Ok(data) => (Some(data), CacheLoad::Loaded { bytes: data.len() }),
                Err(reason) => (None, CacheLoad::Ignored { reason }),
            },
        };
        // SAFETY: `data` is `None` or bytes `save` wrote for this adapter (the caller's contract).
        let (mut cache, mut error) = unsafe { create(device, data) };
        if let (Some(message), Some(_)) = (&error, data) {
            let reason = CacheRejected::WgpuRejected { path: path.clone(), message: message.clone() };
            load = CacheLoad::Ignored { reason };
            // SAFETY: no data.
            (cache, error) = unsafe { create(device, None) };
        }
        if let Some(message) = error {
            return Err(WgpuError::PipelineCache { message });
        }
        Ok((Self { cache, path, record: identity.to_bytes() }, load))
    }

    /// The name of `adapter`'s file in [`open`](Self::open)'s directory, in `util::pipeline_cache_key` form.
    ///
    /// ```
    /// use smolv_runtime::wgpu::PipelineCacheFile;
    /// let adapter = wgpu::AdapterInfo {
    ///     vendor: 0x10005,
    ///     device: 0,
    ///     ..wgpu::AdapterInfo::new(wgpu::DeviceType::Cpu, wgpu::Backend::Vulkan)
    /// };
    /// assert_eq!(PipelineCacheFile::file_name(&adapter), "smolv_wgpu_pipeline_cache_vulkan_65541_0.bin");
    /// ```
    pub fn file_name(adapter: &wgpu::AdapterInfo) -> String {
        let backend: String = adapter
            .backend
            .to_str()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
            .collect();
        format!("smolv_wgpu_pipeline_cache_{backend}_{}_{}.bin", adapter.vendor, adapter.device)
    }

    /// The cache, for [`wgpu::RenderPipelineDescriptor::cache`] and
    /// [`wgpu::ComputePipelineDescriptor::cache`].
    ///
    /// ```no_run
    /// # fn example(device: &wgpu::Device, descriptor: &wgpu::RenderPipelineDescriptor<'_>,
    /// #     cache: &smolv_runtime::wgpu::PipelineCacheFile) {
    /// let descriptor = wgpu::RenderPipelineDescriptor { cache: Some(cache.cache()), ..descriptor.clone() };
    /// let pipeline = device.create_render_pipeline(&descriptor);
    /// # }
    /// ```
    pub fn cache(&self) -> &wgpu::PipelineCache {
        &self.cache
    }

    /// The file the cache loads from and saves to.
    ///
    /// ```no_run
    /// # fn example(device: &wgpu::Device, cache: &smolv_runtime::wgpu::PipelineCacheFile) {
    /// let name = smolv_runtime::wgpu::PipelineCacheFile::file_name(&device.adapter_info());
    /// assert_eq!(cache.path(), std::path::Path::new("cache/pipelines").join(name));
    /// # }
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the cache to its file, atomically; returns the bytes of wgpu's
    /// data written (`Ok(0)`, writing nothing, when wgpu has none).
    ///
    /// # Errors
    /// [`WgpuError::Io`] when the file cannot be written.
    ///
    /// ```no_run
    /// # fn example(cache: &smolv_runtime::wgpu::PipelineCacheFile) -> Result<(), smolv_runtime::wgpu::WgpuError> {
    /// let written = cache.save()?; // at exit, or after a level loads
    /// # Ok(())
    /// # }
    /// ```
    pub fn save(&self) -> Result<usize, WgpuError> {
        let Some(data) = self.cache.get_data() else {
            return Ok(0);
        };
        file::write_atomically(&self.path, &FORMAT.file_bytes(&[&self.record, &data]))
            .map_err(|source| WgpuError::Io { path: self.path.clone(), source })?;
        Ok(data.len())
    }
}

/// A cache made from `data`, and wgpu's validation error making it, as text.
///
/// # Safety
/// `data`, when given, came from [`wgpu::PipelineCache::get_data`] on an
/// adapter with the same `wgpu::util::pipeline_cache_key`.
#[allow(unsafe_code, reason = "wgpu's create_pipeline_cache; the caller upholds its contract, stated above")]
unsafe fn create(device: &wgpu::Device, data: Option<&[u8]>) -> (wgpu::PipelineCache, Option<String>) {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let descriptor = wgpu::PipelineCacheDescriptor { label: Some("smolv pipeline cache"), data, fallback: true };
    // SAFETY: the caller's contract is wgpu's.
    let cache = unsafe { device.create_pipeline_cache(&descriptor) };
    (cache, ready(scope.pop()).map(|error| one_line(&error)))
}

/// wgpu's error on one line: its causes, outermost first.
fn one_line(error: &wgpu::Error) -> String {
    let causes: Vec<String> =
        std::iter::successors(std::error::Error::source(error), |e| e.source()).map(|e| e.to_string()).collect();
    if causes.is_empty() {
        error.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        causes.join(": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapter() -> wgpu::AdapterInfo {
        wgpu::AdapterInfo {
            name: "llvmpipe (LLVM 15.0.6, 256 bits)".to_owned(),
            vendor: 0x10005,
            device: 0,
            driver: "llvmpipe".to_owned(),
            driver_info: "Mesa 22.3.6 (LLVM 15.0.6)".to_owned(),
            ..wgpu::AdapterInfo::new(wgpu::DeviceType::Cpu, wgpu::Backend::Vulkan)
        }
    }

    const DATA: &[u8] = b"WGPUPLCH and the driver's pipelines";

    fn file_for(adapter: &wgpu::AdapterInfo, data: &[u8]) -> Vec<u8> {
        FORMAT.file_bytes(&[&Identity::of(adapter).to_bytes(), data])
    }

    fn load(file: &[u8]) -> Result<&[u8], CacheRejected> {
        wgpu_data(Path::new("p.bin"), file, &Identity::of(&adapter()))
    }

    #[test]
    fn a_saved_file_gives_back_exactly_wgpus_data() {
        let file = file_for(&adapter(), DATA);
        assert_eq!(load(&file), Ok(DATA));
        assert_eq!(load(&file_for(&adapter(), b"")), Ok(&b""[..]));
    }

    #[test]
    fn truncated_files_are_refused() {
        let file = file_for(&adapter(), DATA);
        for len in [0, 10, file::HEADER_LEN - 1] {
            assert!(matches!(load(&file[..len]), Err(CacheRejected::NotACacheFile(_))), "{len}");
        }
        for len in [file::HEADER_LEN, file::HEADER_LEN + 5, file.len() - 1] {
            assert!(matches!(load(&file[..len]), Err(CacheRejected::Length { .. })), "{len}");
        }
        // Whole as a file, but the body ends inside the adapter record.
        let record = Identity::of(&adapter()).to_bytes();
        for len in [0, 1, 5, record.len() - 1] {
            let cut = FORMAT.file_bytes(&[&record[..len]]);
            assert_eq!(
                load(&cut),
                Err(CacheRejected::AdapterRecord { path: "p.bin".into(), reason: "the file ends inside it" }),
                "{len}"
            );
        }
    }

    #[test]
    fn every_flipped_byte_is_refused() {
        let file = file_for(&adapter(), DATA);
        // Every byte but the header's four reserved ones (12..16), which no
        // version has used.
        for at in (0..12).chain(16..file.len()) {
            let mut tampered = file.clone();
            tampered[at] ^= 0x01;
            let reason = load(&tampered).expect_err("a flipped byte must not load");
            if at >= file::HEADER_LEN {
                assert!(matches!(reason, CacheRejected::Checksum(_)), "byte {at}: {reason}");
            }
        }
    }

    #[test]
    fn a_file_of_another_adapter_or_driver_is_refused_naming_both() {
        let updated = wgpu::AdapterInfo { driver_info: "Mesa 24.0.1\n\u{1b}[31m".to_owned(), ..adapter() };
        let Err(CacheRejected::OtherAdapter { found, this, .. }) = load(&file_for(&updated, DATA)) else {
            panic!("a driver update must be refused");
        };
        assert!(found.contains(r#""Mesa 24.0.1\n\u{1b}[31m""#), "the file's text is escaped: {found}");
        assert!(this.contains(r#""Mesa 22.3.6 (LLVM 15.0.6)""#) && this.contains("10005:0000"), "{this}");
        for other in [
            wgpu::AdapterInfo { device: 1, ..adapter() },
            wgpu::AdapterInfo { vendor: 0x10de, ..adapter() },
            wgpu::AdapterInfo { backend: wgpu::Backend::Metal, ..adapter() },
            wgpu::AdapterInfo { device_type: wgpu::DeviceType::DiscreteGpu, ..adapter() },
            wgpu::AdapterInfo { name: "another".to_owned(), ..adapter() },
            wgpu::AdapterInfo { driver: "radv".to_owned(), ..adapter() },
        ] {
            assert!(matches!(load(&file_for(&other, DATA)), Err(CacheRejected::OtherAdapter { .. })), "{other:?}");
        }
        // What may change between runs of one driver does not count.
        let same = wgpu::AdapterInfo { device_pci_bus_id: "0000:01:00.0".to_owned(), ..adapter() };
        assert_eq!(load(&file_for(&same, DATA)), Ok(DATA));
    }

    #[test]
    fn a_file_of_another_version_or_layer_is_refused() {
        let mut version = file_for(&adapter(), DATA);
        version[8] = 2;
        assert!(matches!(load(&version), Err(CacheRejected::Version { found: 2, .. })));
        let vulkan = Format { magic: *b"SMOLVPC\0", version: 1 }.file_bytes(&[DATA]);
        assert!(matches!(load(&vulkan), Err(CacheRejected::NotACacheFile(_))));
    }

    #[test]
    fn an_oversize_or_malformed_record_is_refused_before_copying() {
        let refused = |record: &[u8]| match load(&FORMAT.file_bytes(&[record, DATA])) {
            Err(CacheRejected::AdapterRecord { reason, .. }) => reason,
            other => panic!("{other:?}"),
        };
        // A backend field that claims 65 535 bytes.
        assert_eq!(refused(&[0xFF, 0xFF, b'v']), "a text field is longer than 256 bytes");
        let mut long = vec![1, 1];
        long.extend(std::iter::repeat_n(b'a', 257));
        assert_eq!(refused(&long), "a text field is longer than 256 bytes");
        assert_eq!(refused(&[2, 0, 0xC3, 0x28]), "a text field is not UTF-8");
    }

    #[test]
    fn an_adapters_long_text_is_cut_the_same_way_when_writing_and_comparing() {
        let long = wgpu::AdapterInfo { name: "é".repeat(200), ..adapter() };
        let identity = Identity::of(&long);
        assert_eq!(identity.name.len(), 256, "cut at a character boundary");
        let file = FORMAT.file_bytes(&[&identity.to_bytes(), DATA]);
        assert_eq!(wgpu_data(Path::new("p.bin"), &file, &Identity::of(&long)), Ok(DATA));
        let shown = identity.describe();
        assert!(shown.len() < 600 && shown.contains('…'), "{shown}");
    }

    #[test]
    fn the_file_name_is_the_adapters() {
        assert_eq!(PipelineCacheFile::file_name(&adapter()), "smolv_wgpu_pipeline_cache_vulkan_65541_0.bin");
        let gl = wgpu::AdapterInfo { backend: wgpu::Backend::Gl, vendor: 7, device: 9, ..adapter() };
        assert_eq!(PipelineCacheFile::file_name(&gl), "smolv_wgpu_pipeline_cache_gl_7_9.bin");
    }
}
