//! A headless wgpu device on the Vulkan backend (lavapipe in CI), with the
//! Khronos validation layer and wgpu's validation on.

use std::error::Error;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use wgpu::util::DeviceExt;

use crate::validation;

/// The device and its queue.
pub(crate) struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) adapter: String,
}

impl Gpu {
    /// The first adapter of the backends `WGPU_BACKEND` names (Vulkan when
    /// unset), with immediates (push constants) and passthrough shaders.
    pub(crate) fn new() -> Result<Self, Box<dyn Error>> {
        validation::install();
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
        descriptor.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::VULKAN);
        descriptor.flags = wgpu::InstanceFlags::VALIDATION | wgpu::InstanceFlags::DEBUG;
        let instance = wgpu::Instance::new(descriptor);
        let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))?;
        let info = adapter.get_info();
        let features = wgpu::Features::IMMEDIATES | wgpu::Features::PASSTHROUGH_SHADERS;
        let (device, queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("example-wgpu"),
            required_features: features,
            required_limits: wgpu::Limits { max_immediate_size: 128, ..wgpu::Limits::default() },
            ..Default::default()
        }))?;
        device.on_uncaptured_error(Arc::new(|error| validation::push(format!("wgpu: {error}"))));
        Ok(Self { device, queue, adapter: format!("{} ({:?})", info.name, info.backend) })
    }

    /// A buffer for `usage` holding `contents`.
    pub(crate) fn buffer(&self, label: Option<&str>, contents: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label, contents, usage })
    }

    /// A buffer of `size` bytes to copy into and [`read`](Self::read).
    pub(crate) fn readback(&self, label: &str, size: u64) -> wgpu::Buffer {
        let usage = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ;
        let descriptor = wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false };
        self.device.create_buffer(&descriptor)
    }

    /// The bytes of `buffer`, once the work submitted so far is done; a failure to map it is
    /// recorded as "mapping the `what` failed".
    pub(crate) fn read(&self, buffer: &wgpu::Buffer, what: &str) -> Result<Vec<u8>, Box<dyn Error>> {
        let failed = format!("mapping the {what} failed");
        buffer.map_async(wgpu::MapMode::Read, .., move |result| {
            if result.is_err() {
                validation::push(failed);
            }
        });
        self.device.poll(wgpu::PollType::wait_indefinitely())?;
        let bytes = buffer.get_mapped_range(..)?.to_vec();
        buffer.unmap();
        Ok(bytes)
    }
}

/// Waits for a future that native wgpu resolves without a runtime (ready when first polled).
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        std::thread::yield_now();
    }
}
