// The background: a full-screen triangle with a vertical gradient.
struct Sky {
    top: vec4<f32>,
    bottom: vec4<f32>,
}

@group(0) @binding(0) var<uniform> sky: Sky;

struct VertexOutput {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOutput {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: VertexOutput;
    out.position = vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
    out.uv = uv;
    return out;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    return mix(sky.bottom, sky.top, in.uv.y);
}
