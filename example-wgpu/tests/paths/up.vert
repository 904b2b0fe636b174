#version 450
// The triangle of up.wgsl, in GLSL, with the same clip-space corners.
const vec2 CORNERS[3] = vec2[](vec2(-0.75, 0.125), vec2(0.25, 0.125), vec2(-0.75, 0.875));
const vec3 COLORS[3] = vec3[](vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0), vec3(0.0, 0.0, 1.0));

layout(location = 0) out vec3 color;

void main() {
    color = COLORS[gl_VertexIndex];
    gl_Position = vec4(CORNERS[gl_VertexIndex], 0.0, 1.0);
}
