// A triangle in the top-left part of the target, coloured by corner:
// red at the bottom left, green at the bottom right, blue at the top.
// WGSL's y is up, so the top corner is drawn near the target's first row.

struct Varyings {
    @builtin(position) position: vec4f,
    @location(0) color: vec3f,
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> Varyings {
    var corners = array(vec2f(-0.75, 0.125), vec2f(0.25, 0.125), vec2f(-0.75, 0.875));
    var colors = array(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0));
    var out: Varyings;
    out.position = vec4f(corners[index], 0.0, 1.0);
    out.color = colors[index];
    return out;
}

@fragment
fn fs_main(in: Varyings) -> @location(0) vec4f {
    return vec4f(in.color, 1.0);
}
