//! `--compute`: scales 100 floats by 3 with `scale.comp`, through the
//! generated bind group (`scale_comp::wgpu::BindGroup0`),
//! `set_bind_groups` and `compute_pipeline`, and checks what comes back.

use std::error::Error;

use smolv_runtime::wgpu::{BindGroupLayouts, LayoutOptions, create_shader_module};
use wgpu::util::DeviceExt;

use crate::gpu::Gpu;
use crate::shaders::{self, scale_comp};

const COUNT: u32 = 100;
const FACTOR: f32 = 3.0;

/// Dispatches the shader and returns the values it wrote, checked.
pub(crate) fn run(gpu: &Gpu) -> Result<String, Box<dyn Error>> {
    let device = &gpu.device;
    let shader = shaders::get(scale_comp::NAME)?;
    let program = BindGroupLayouts::new(&[shader], &LayoutOptions::new())?.create(device, Some("scale"))?;
    let module = create_shader_module(device, shader)?;
    let pipeline = scale_comp::wgpu::compute_pipeline(device, Some("scale"), &program, &module, &[]);

    let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("params"),
        contents: scale_comp::Params::new(FACTOR, COUNT).as_bytes(),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let values: Vec<f32> = (0..u16::try_from(COUNT)?).map(f32::from).collect();
    let data = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("data"),
        contents: bytemuck::cast_slice(&values),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let size = data.size();
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("data readback"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let group = scale_comp::wgpu::BindGroup0 {
        params: params.as_entire_buffer_binding(),
        data: data.as_entire_buffer_binding(),
    }
    .create(device, &program)?;

    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_pipeline(&pipeline);
        scale_comp::wgpu::set_bind_groups(&mut pass, &group);
        pass.dispatch_workgroups(COUNT.div_ceil(scale_comp::WORKGROUP_SIZE[0]), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&data, 0, &readback, 0, size);
    gpu.queue.submit([encoder.finish()]);
    readback.map_async(wgpu::MapMode::Read, .., |result| {
        if result.is_err() {
            crate::validation::push("mapping the compute readback buffer failed".to_owned());
        }
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let scaled: Vec<f32> = bytemuck::pod_collect_to_vec(&readback.get_mapped_range(..)?);
    readback.unmap();
    let expected: Vec<f32> = values.iter().map(|v| v * FACTOR).collect();
    if scaled != expected {
        return Err(format!("scale.comp wrote {scaled:?}, not {expected:?}").into());
    }
    Ok(format!("compute: {COUNT} values scaled by {FACTOR}"))
}
