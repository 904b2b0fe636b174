// The starfield behind the arena: a full-screen triangle and procedural stars.
struct Frame {
    view_projection: mat4x4<f32>,
    resolution: vec2<f32>,
    time: f32,
    shake: f32,
}

@group(0) @binding(0) var<uniform> frame: Frame;

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

fn hash(p: vec2<f32>) -> f32 {
    return fract(sin(dot(p, vec2<f32>(127.1, 311.7))) * 43758.5453);
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    var color = mix(vec3<f32>(0.01, 0.01, 0.04), vec3<f32>(0.05, 0.02, 0.10), in.uv.y);
    for (var layer = 1; layer <= 3; layer = layer + 1) {
        let scale = f32(layer) * 60.0;
        let cell = floor(in.uv * scale + vec2<f32>(frame.time * 0.02 * f32(layer), 0.0));
        let star = step(0.985, hash(cell));
        color = color + vec3<f32>(star * 0.6 / f32(layer));
    }
    return vec4<f32>(color, 1.0);
}
