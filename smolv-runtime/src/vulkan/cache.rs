//! A `VkPipelineCache` persisted to a file.

use std::path::{Path, PathBuf};

use ash::vk;

use super::{VulkanError, check};

/// What loading the cache file found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheLoad {
    /// The file matched this device; its contents seed the cache.
    Loaded {
        /// Bytes read.
        bytes: usize,
    },
    /// There was no file yet.
    Missing,
    /// The file was unusable and was ignored; the cache starts empty.
    /// Show the reason to the user as a warning.
    Ignored {
        /// Why.
        reason: String,
    },
}

/// A pipeline cache that lives in a file between runs.
///
/// The file is used only when its header names this device: the same
/// vendor, device and pipeline-cache UUID. Anything else, a corrupt or
/// truncated file included, is ignored (see [`CacheLoad::Ignored`]).
/// Saving writes a temporary file and renames it into place.
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

/// Size of the version-one pipeline cache header.
const HEADER_LEN: usize = 32;

/// Why `data` cannot seed a cache on a device with `properties`, if it cannot.
fn header_mismatch(data: &[u8], properties: &vk::PhysicalDeviceProperties) -> Option<String> {
    if data.len() < HEADER_LEN {
        return Some(format!("it is {} bytes, shorter than a pipeline cache header", data.len()));
    }
    let u32_at = |at: usize| u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let (header_len, version, vendor, device) = (u32_at(0), u32_at(4), u32_at(8), u32_at(12));
    if (header_len as usize) < HEADER_LEN || header_len as usize > data.len() {
        return Some(format!("its header claims {header_len} bytes"));
    }
    if version != vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32 {
        return Some(format!("its header version is {version}"));
    }
    if vendor != properties.vendor_id || device != properties.device_id {
        return Some(format!(
            "it was written on device {vendor:04x}:{device:04x}, not this {:04x}:{:04x}",
            properties.vendor_id, properties.device_id
        ));
    }
    if data[16..32] != properties.pipeline_cache_uuid {
        return Some("it was written by another driver version (pipeline cache UUID differs)".to_owned());
    }
    None
}

impl PipelineCacheFile {
    /// Creates the cache, seeded from `path` when the file suits this
    /// device. `properties` are the physical device's.
    pub fn open(
        device: ash::Device,
        properties: &vk::PhysicalDeviceProperties,
        path: impl AsRef<Path>,
    ) -> Result<(Self, CacheLoad), VulkanError> {
        let path = path.as_ref().to_owned();
        let (data, load) = match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), CacheLoad::Missing),
            Err(e) => (Vec::new(), CacheLoad::Ignored { reason: format!("{}: cannot read it: {e}", path.display()) }),
            Ok(data) => match header_mismatch(&data, properties) {
                Some(reason) => (Vec::new(), CacheLoad::Ignored { reason: format!("{}: {reason}", path.display()) }),
                None => {
                    let bytes = data.len();
                    (data, CacheLoad::Loaded { bytes })
                }
            },
        };
        let info = vk::PipelineCacheCreateInfo::default().initial_data(&data);
        // SAFETY: `info` points at `data`, which lives across the call; the
        // header was checked against this device above.
        let created = unsafe { device.create_pipeline_cache(&info, None) };
        let (cache, load) = match (created, load) {
            (Ok(cache), load) => (cache, load),
            // A driver that rejects the contents despite a matching header:
            // start empty rather than fail.
            (Err(result), CacheLoad::Loaded { .. }) => {
                let empty = vk::PipelineCacheCreateInfo::default();
                // SAFETY: as above, with no initial data.
                let cache = check("vkCreatePipelineCache", unsafe { device.create_pipeline_cache(&empty, None) })?;
                (cache, CacheLoad::Ignored { reason: format!("{}: the driver rejected it ({result})", path.display()) })
            }
            (Err(result), _) => return Err(VulkanError::Call { call: "vkCreatePipelineCache", result }),
        };
        Ok((Self { device, cache, path }, load))
    }

    /// The cache handle, for `vkCreateGraphicsPipelines` and friends.
    pub fn handle(&self) -> vk::PipelineCache {
        self.cache
    }

    /// Writes the cache's current contents to its file, atomically.
    pub fn save(&self) -> Result<usize, VulkanError> {
        // SAFETY: the cache is a live handle owned by this object.
        let data = check("vkGetPipelineCacheData", unsafe { self.device.get_pipeline_cache_data(self.cache) })?;
        let io = |source| VulkanError::Io { path: self.path.clone(), source };
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let temp = self.path.with_extension(format!("tmp.{}", std::process::id()));
        std::fs::write(&temp, &data).and_then(|()| std::fs::rename(&temp, &self.path)).map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            io(e)
        })?;
        Ok(data.len())
    }
}

impl Drop for PipelineCacheFile {
    fn drop(&mut self) {
        // SAFETY: the cache is owned by this object and no longer used.
        unsafe { self.device.destroy_pipeline_cache(self.cache, None) };
    }
}
