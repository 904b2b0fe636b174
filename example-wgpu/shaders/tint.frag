#version 450
// A flat colour for the small quad, shaded along it: green, or red in the
// `@red` variant that the hot-reload test publishes in its place.
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 color;

void main() {
    float shade = 0.6 + 0.4 * v_uv.x;
#ifdef RED
    color = vec4(shade, 0.0, 0.0, 1.0);
#else
    color = vec4(0.0, shade, 0.0, 1.0);
#endif
}
