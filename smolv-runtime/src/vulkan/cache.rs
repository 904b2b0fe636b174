//! A `VkPipelineCache` persisted to a file, behind a checked header.

use std::path::{Path, PathBuf};

use ash::vk;

use super::{VulkanError, check};
use crate::pipeline_cache_file::{self as file, CacheLoad, CacheRejected, Format};

/// A pipeline cache kept in a file: used only if whole and for this device ([`CacheLoad`]).
///
/// ```no_run
/// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties) -> Result<(), Box<dyn std::error::Error>> {
/// use smolv_runtime::vulkan::{PipelineCacheFile, PipelineManager, PipelineOptions};
/// // SAFETY: `device` is valid, and the manager (which uses the cache) is
/// // dropped before the cache.
/// let (cache, _) = unsafe { PipelineCacheFile::open(device.clone(), properties, "pipelines.bin")? };
/// let manager = unsafe { PipelineManager::new(device.clone(), cache.handle(), &properties.limits, PipelineOptions::default()) };
/// // ... the game runs ...
/// drop(manager);
/// cache.save()?;
/// # Ok(())
/// # }
/// ```
pub struct PipelineCacheFile {
    device: ash::Device,
    cache: vk::PipelineCache,
    path: PathBuf,
}

impl std::fmt::Debug for PipelineCacheFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PipelineCacheFile").field("cache", &self.cache).field("path", &self.path).finish()
    }
}

const FORMAT: Format = Format { magic: *b"SMOLVPC\0", version: 1 };
/// Size of the driver's `VkPipelineCacheHeaderVersionOne`.
const DRIVER_HEADER_LEN: usize = 32;

fn u32_at(data: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]])
}

/// The driver data of a whole file whose driver header names this device.
fn driver_data<'d>(
    path: &Path,
    file: &'d [u8],
    properties: &vk::PhysicalDeviceProperties,
) -> Result<&'d [u8], CacheRejected> {
    let data = FORMAT.body(path, file)?;
    let path = || path.to_owned();
    let malformed = |reason| Err(CacheRejected::DriverHeader { path: path(), reason });
    if data.len() < DRIVER_HEADER_LEN {
        return malformed("shorter than VkPipelineCacheHeaderVersionOne");
    }
    let header_len = usize::try_from(u32_at(data, 0)).unwrap_or(usize::MAX);
    if header_len < DRIVER_HEADER_LEN || header_len > data.len() {
        return malformed("its headerSize is out of range");
    }
    if u32_at(data, 4) != vk::PipelineCacheHeaderVersion::ONE.as_raw().cast_unsigned() {
        return malformed("its headerVersion is not VK_PIPELINE_CACHE_HEADER_VERSION_ONE");
    }
    let (vendor, device) = (u32_at(data, 8), u32_at(data, 12));
    if vendor != properties.vendor_id || device != properties.device_id {
        return Err(CacheRejected::OtherDevice {
            path: path(),
            vendor,
            device,
            this_vendor: properties.vendor_id,
            this_device: properties.device_id,
        });
    }
    if data[16..32] != properties.pipeline_cache_uuid {
        return Err(CacheRejected::OtherDriver(path()));
    }
    Ok(data)
}

impl PipelineCacheFile {
    /// Creates the cache, seeded from `path` when the file suits this device.
    ///
    /// # Errors
    /// Only when `vkCreatePipelineCache` fails for an empty cache.
    ///
    /// # Safety
    /// - `device` is valid and outlives the value; `properties` are its physical device's.
    /// - No pipeline creation uses [`handle`](Self::handle) once the value drops
    ///   (drop a [`PipelineManager`](super::PipelineManager) given it first).
    ///
    /// ```no_run
    /// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::PipelineCacheFile;
    /// // SAFETY: `device` is valid, `properties` are its physical device's, and no
    /// // pipeline creation uses the cache after it is dropped.
    /// let (cache, load) = unsafe { PipelineCacheFile::open(device.clone(), properties, "pipelines.bin")? };
    /// println!("{load:?}");
    /// # Ok(())
    /// # }
    /// ```
    pub unsafe fn open(
        device: ash::Device,
        properties: &vk::PhysicalDeviceProperties,
        path: impl AsRef<Path>,
    ) -> Result<(Self, CacheLoad), VulkanError> {
        let path = path.as_ref().to_owned();
        let file = file::read(&path);
        let (data, load) = match &file {
            Err(load) => (&[][..], load.clone()),
            Ok(file) => match driver_data(&path, file, properties) {
                Ok(data) => (data, CacheLoad::Loaded { bytes: data.len() }),
                Err(reason) => (&[][..], CacheLoad::Ignored { reason }),
            },
        };
        let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
        // SAFETY: `device` is valid; `data` is empty or what this driver returned.
        let created = unsafe { device.create_pipeline_cache(&info, None) };
        let (cache, load) = match (created, load) {
            (Ok(cache), load) => (cache, load),
            // A driver that refuses its own data: start empty.
            (Err(result), CacheLoad::Loaded { .. }) => {
                let empty = vk::PipelineCacheCreateInfo::default();
                // SAFETY: as above, with no initial data.
                let cache = check("vkCreatePipelineCache", unsafe { device.create_pipeline_cache(&empty, None) })?;
                (cache, CacheLoad::Ignored { reason: CacheRejected::DriverRejected { path: path.clone(), result } })
            }
            (Err(result), _) => return Err(VulkanError::Call { call: "vkCreatePipelineCache", result }),
        };
        Ok((Self { device, cache, path }, load))
    }

    /// The cache handle, for `vkCreateGraphicsPipelines` and friends.
    ///
    /// ```no_run
    /// # use ash::vk;
    /// # fn example(device: ash::Device, properties: &vk::PhysicalDeviceProperties) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::PipelineCacheFile;
    /// // SAFETY: as in `PipelineCacheFile::open`.
    /// let (cache, _) = unsafe { PipelineCacheFile::open(device.clone(), properties, "pipelines.bin")? };
    /// let handle: vk::PipelineCache = cache.handle(); // for the application's own vkCreate*Pipelines
    /// # Ok(())
    /// # }
    /// ```
    pub fn handle(&self) -> vk::PipelineCache {
        self.cache
    }

    /// The file the cache loads from and saves to.
    ///
    /// ```no_run
    /// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::PipelineCacheFile;
    /// // SAFETY: as in `PipelineCacheFile::open`.
    /// let (cache, _) = unsafe { PipelineCacheFile::open(device.clone(), properties, "pipelines.bin")? };
    /// assert_eq!(cache.path(), std::path::Path::new("pipelines.bin"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The driver's current cache data, as [`save`](Self::save) writes it.
    ///
    /// # Errors
    /// When `vkGetPipelineCacheData` fails.
    ///
    /// ```no_run
    /// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::PipelineCacheFile;
    /// // SAFETY: as in `PipelineCacheFile::open`.
    /// let (cache, _) = unsafe { PipelineCacheFile::open(device.clone(), properties, "pipelines.bin")? };
    /// println!("the driver holds {} bytes of pipeline cache", cache.data()?.len());
    /// # Ok(())
    /// # }
    /// ```
    pub fn data(&self) -> Result<Vec<u8>, VulkanError> {
        // SAFETY: a live handle of this object's (the contract of `open`).
        check("vkGetPipelineCacheData", unsafe { self.device.get_pipeline_cache_data(self.cache) })
    }

    /// Writes the cache to its file atomically; returns the driver data's length.
    ///
    /// # Errors
    /// When the driver cannot return the data, or the file cannot be written.
    ///
    /// ```no_run
    /// # fn example(device: ash::Device, properties: &ash::vk::PhysicalDeviceProperties) -> Result<(), Box<dyn std::error::Error>> {
    /// use smolv_runtime::vulkan::PipelineCacheFile;
    /// // SAFETY: as in `PipelineCacheFile::open`.
    /// let (cache, _) = unsafe { PipelineCacheFile::open(device.clone(), properties, "pipelines.bin")? };
    /// let written = cache.save()?; // at exit, or after a level loads
    /// println!("saved {written} bytes");
    /// # Ok(())
    /// # }
    /// ```
    pub fn save(&self) -> Result<usize, VulkanError> {
        let data = self.data()?;
        file::write_atomically(&self.path, &FORMAT.file_bytes(&[data.as_slice()]))
            .map_err(|source| VulkanError::Io { path: self.path.clone(), source })?;
        Ok(data.len())
    }
}

impl Drop for PipelineCacheFile {
    fn drop(&mut self) {
        // SAFETY: an owned cache; the contract of `open`.
        unsafe { self.device.destroy_pipeline_cache(self.cache, None) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE_HEADER_LEN: usize = file::HEADER_LEN;

    fn file_bytes(data: &[u8]) -> Vec<u8> {
        FORMAT.file_bytes(&[data])
    }

    fn properties() -> vk::PhysicalDeviceProperties {
        vk::PhysicalDeviceProperties {
            vendor_id: 0x10005,
            device_id: 7,
            pipeline_cache_uuid: [3; 16],
            ..vk::PhysicalDeviceProperties::default()
        }
    }

    /// Driver data as a driver for `properties()` writes it, with a body.
    fn driver_bytes() -> Vec<u8> {
        let mut data = Vec::new();
        data.extend_from_slice(&32u32.to_le_bytes());
        data.extend_from_slice(&1u32.to_le_bytes());
        data.extend_from_slice(&0x10005u32.to_le_bytes());
        data.extend_from_slice(&7u32.to_le_bytes());
        data.extend_from_slice(&[3; 16]);
        data.extend_from_slice(b"compiled pipelines");
        data
    }

    fn load(file: &[u8]) -> Result<&[u8], CacheRejected> {
        driver_data(Path::new("p.bin"), file, &properties())
    }

    #[test]
    fn a_saved_file_gives_back_exactly_the_driver_data() {
        let file = file_bytes(&driver_bytes());
        assert_eq!(file.len(), FILE_HEADER_LEN + driver_bytes().len());
        assert_eq!(load(&file), Ok(&driver_bytes()[..]));
    }

    #[test]
    fn truncated_files_are_refused() {
        let file = file_bytes(&driver_bytes());
        for len in [0, 10, FILE_HEADER_LEN - 1] {
            assert!(matches!(load(&file[..len]), Err(CacheRejected::NotACacheFile(_))), "{len}");
        }
        for len in [FILE_HEADER_LEN, FILE_HEADER_LEN + 31, file.len() - 1] {
            assert!(matches!(load(&file[..len]), Err(CacheRejected::Length { .. })), "{len}");
        }
    }

    #[test]
    fn appended_bytes_are_refused() {
        let mut file = file_bytes(&driver_bytes());
        file.push(0);
        assert!(matches!(load(&file), Err(CacheRejected::Length { expected: 50, found: 51, .. })));
    }

    #[test]
    fn every_flipped_body_byte_is_refused() {
        let file = file_bytes(&driver_bytes());
        for at in FILE_HEADER_LEN..file.len() {
            let mut tampered = file.clone();
            tampered[at] ^= 0x01;
            assert!(matches!(load(&tampered), Err(CacheRejected::Checksum(_))), "byte {at}");
        }
    }

    #[test]
    fn a_wrong_length_field_is_refused() {
        let mut file = file_bytes(&driver_bytes());
        file[16] = file[16].wrapping_add(1);
        assert!(matches!(load(&file), Err(CacheRejected::Length { .. })));
        file[16] = file[16].wrapping_sub(1);
        file[23] = 0x80; // a length no file has
        assert!(matches!(load(&file), Err(CacheRejected::Length { .. })));
    }

    #[test]
    fn headers_of_other_formats_and_devices_are_refused() {
        let file = file_bytes(&driver_bytes());
        let mut magic = file.clone();
        magic[0] = b'X';
        assert!(matches!(load(&magic), Err(CacheRejected::NotACacheFile(_))));
        let mut version = file.clone();
        version[8] = 2;
        assert!(matches!(load(&version), Err(CacheRejected::Version { found: 2, .. })));

        let mut other_vendor = driver_bytes();
        other_vendor[8] ^= 0xFF;
        assert!(matches!(
            load(&file_bytes(&other_vendor)),
            Err(CacheRejected::OtherDevice { this_vendor: 0x10005, this_device: 7, .. })
        ));
        let mut other_driver = driver_bytes();
        other_driver[20] ^= 0xFF;
        assert!(matches!(load(&file_bytes(&other_driver)), Err(CacheRejected::OtherDriver(_))));
        let mut header_size = driver_bytes();
        header_size[0] = 200;
        assert!(matches!(load(&file_bytes(&header_size)), Err(CacheRejected::DriverHeader { .. })));
        assert!(matches!(load(&file_bytes(&driver_bytes()[..31])), Err(CacheRejected::DriverHeader { .. })));
    }
}
