// Two entry points: each becomes its own module, sky.wgsl#vs_main and sky.wgsl#fs_main.
struct VertexOutput {
    @builtin(position) position: vec4<f32>,
    @location(0) direction: vec3<f32>,
}

struct Sky {
    zenith: vec4<f32>,
    horizon: vec4<f32>,
}

@group(0) @binding(0) var<uniform> sky: Sky;

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOutput {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: VertexOutput;
    out.position = vec4<f32>(uv * 2.0 - 1.0, 1.0, 1.0);
    out.direction = vec3<f32>(uv * 2.0 - 1.0, 1.0);
    return out;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    let t = clamp(normalize(in.direction).y * 0.5 + 0.5, 0.0, 1.0);
    return mix(sky.horizon, sky.zenith, t);
}
