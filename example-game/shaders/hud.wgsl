// The heads-up display: score digits and lives as rounded rectangles,
// drawn over the post-processed frame. One instance per rectangle, in
// WebGPU's normalized device coordinates (y up), like every WGSL shader.
struct HudOutput {
    @builtin(position) position: vec4<f32>,
    @location(0) local: vec2<f32>,
    @location(1) color: vec4<f32>,
}

@vertex
fn vs_main(
    @builtin(vertex_index) index: u32,
    @location(0) rect: vec4<f32>,  // x0, y0, x1, y1 in normalized device coordinates
    @location(1) color: vec4<f32>,
) -> HudOutput {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0),
    );
    let c = corners[index % 6u];
    var out: HudOutput;
    out.position = vec4<f32>(mix(rect.xy, rect.zw, c), 0.0, 1.0);
    out.local = c;
    out.color = color;
    return out;
}

@fragment
fn fs_main(in: HudOutput) -> @location(0) vec4<f32> {
    let d = abs(in.local * 2.0 - vec2<f32>(1.0));
    let coverage = 1.0 - smoothstep(0.7, 1.0, max(d.x, d.y));
    let alpha = in.color.a * coverage;
    return vec4<f32>(in.color.rgb * alpha, alpha);
}
