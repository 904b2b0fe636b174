#version 450
// A textured quad from a vertex buffer, placed by a uniform and scaled by
// a spec constant (a wgpu override).
layout(constant_id = 0) const float SCALE = 1.0;

layout(set = 1, binding = 0) uniform Placement {
    vec2 offset;
} placement;

layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv;

layout(location = 0) out vec2 v_uv;

void main() {
    v_uv = uv;
    gl_Position = vec4(position * SCALE + placement.offset, 0.0, 1.0);
}
