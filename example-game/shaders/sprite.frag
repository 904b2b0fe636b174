#version 450

layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(location = 0) out vec4 color;

// Signed-distance shapes: no textures to ship.
layout(constant_id = 0) const int SHAPE = 0; // 0 ship, 1 rock, 2 bullet

float ship(vec2 p) {
    p.x = abs(p.x);
    return max(dot(p, normalize(vec2(1.0, 0.45))) - 0.25, -p.y - 0.35);
}

void main() {
    vec2 p = v_uv * 2.0 - 1.0;
#ifdef ADDITIVE
    const float GAIN = 1.6;
#else
    const float GAIN = 1.0;
#endif
    float d = SHAPE == 0 ? ship(p) : SHAPE == 1 ? length(p) - 0.8 + 0.1 * sin(p.x * 9.0) * cos(p.y * 7.0) : length(p) - 0.5;
    float edge = fwidth(d);
    float fill = 1.0 - smoothstep(-edge, edge, d);
    float glow = exp(-8.0 * max(d, 0.0));
    color = vec4(v_color.rgb * (fill + 0.5 * glow) * GAIN, max(fill, glow * 0.6) * v_color.a);
}
