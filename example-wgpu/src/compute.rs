//! `--compute`: scales 100 floats by 3 with `scale.comp`, through the
//! generated bind group (`scale_comp::wgpu::BindGroup0`),
//! `set_bind_groups` and `compute_pipeline`, and checks what comes back.

use std::error::Error;

use smolv_runtime::wgpu::{BindGroupLayouts, LayoutOptions, create_shader_module};

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

    let params =
        gpu.buffer(Some("params"), scale_comp::Params::new(FACTOR, COUNT).as_bytes(), wgpu::BufferUsages::UNIFORM);
    let values: Vec<f32> = (0..u16::try_from(COUNT)?).map(f32::from).collect();
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
    let data = gpu.buffer(Some("data"), bytemuck::cast_slice(&values), usage);
    let size = data.size();
    let readback = gpu.readback("data readback", size);
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
    let scaled: Vec<f32> = bytemuck::pod_collect_to_vec(&gpu.read(&readback, "compute readback buffer")?);
    let expected: Vec<f32> = values.iter().map(|v| v * FACTOR).collect();
    if scaled != expected {
        return Err(format!("scale.comp wrote {scaled:?}, not {expected:?}").into());
    }
    Ok(format!("compute: {COUNT} values scaled by {FACTOR}"))
}
