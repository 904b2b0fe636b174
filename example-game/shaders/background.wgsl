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

// One layer of stars: at most one soft, twinkling point per grid cell.
fn stars(uv: vec2<f32>, scale: f32, drift: f32) -> f32 {
    let aspect = frame.resolution.x / max(frame.resolution.y, 1.0);
    let p = uv * vec2<f32>(scale * aspect, scale) + vec2<f32>(drift, 0.0);
    let cell = floor(p);
    let h = hash(cell);
    let center = vec2<f32>(hash(cell + vec2<f32>(17.0, 3.0)), hash(cell + vec2<f32>(5.0, 31.0))) * 0.6 + 0.2;
    let d = length(fract(p) - center);
    let twinkle = 0.65 + 0.35 * sin(frame.time * 3.0 + h * 60.0);
    return step(0.9, h) * (1.0 - smoothstep(0.0, 0.09, d)) * twinkle;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    var color = mix(vec3<f32>(0.01, 0.01, 0.04), vec3<f32>(0.05, 0.02, 0.10), in.uv.y);
    for (var layer = 1; layer <= 3; layer = layer + 1) {
        let depth = f32(layer);
        let brightness = stars(in.uv, 14.0 * depth, frame.time * 0.15 / depth) / depth;
        color = color + vec3<f32>(0.8, 0.85, 1.0) * brightness;
    }
    return vec4<f32>(color, 1.0);
}
