#version 450

layout(location = 0) in vec2 v_corner;
layout(location = 1) in vec4 v_color;
layout(location = 0) out vec4 color;

// Additive glow: premultiplied colour with zero alpha adds to what is there.
void main() {
    float falloff = exp(-4.0 * dot(v_corner, v_corner));
    color = vec4(v_color.rgb * (v_color.a * falloff), 0.0);
}
