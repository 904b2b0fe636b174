#version 450

layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(location = 0) out vec4 color;

// Signed-distance shapes: no textures to ship. The game specializes this
// constant per draw (one pipeline per shape).
layout(constant_id = 0) const int SHAPE = 0; // 0 ship, 1 rock, 2 bullet

float ship(vec2 p) {
    p.x = abs(p.x);
    return max(dot(p, normalize(vec2(1.0, 0.45))) - 0.25, -p.y - 0.35);
}

float rock(vec2 p) {
    float bumps = 0.08 * sin(atan(p.y, p.x) * 7.0) + 0.05 * sin(atan(p.y, p.x) * 3.0 + 1.0);
    return length(p) - 0.78 - bumps;
}

void main() {
    vec2 p = v_uv * 2.0 - 1.0;
    float d = SHAPE == 0 ? ship(p) : SHAPE == 1 ? rock(p) : length(p) - 0.45;
    float edge = fwidth(d);
    float fill = 1.0 - smoothstep(-edge, edge, d);
    // A halo outside the shape (and, except for rocks, inside it too).
    // Rocks fill most of their quad, so their halo must fade out sooner.
    float glow = d > 0.0 ? exp(-(SHAPE == 1 ? 24.0 : 8.0) * d) : float(SHAPE != 1);
    // Rocks are dark with a bright rim; the ship and bullets are solid.
    float rim = SHAPE == 1 ? exp(-abs(d) * 40.0) : 0.0;
    float body = SHAPE == 1 ? 0.25 : 1.0;
    vec3 rgb = v_color.rgb * (fill * body + rim + 0.5 * glow) * v_color.a;
#ifdef ADDITIVE
    // The `@additive` variant (build.rs): bright, and adds instead of covering.
    color = vec4(rgb * 1.6, 0.0);
#else
    color = vec4(rgb, max(fill, glow * 0.6) * v_color.a);
#endif
}
