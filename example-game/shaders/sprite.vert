#version 450
#include <frame.glsl>

// One instanced quad per ship, asteroid or bullet.
layout(location = 0) in vec2 corner;
layout(location = 1) in vec4 instance_transform; // xy position, z rotation, w scale
layout(location = 2) in vec4 instance_color;

layout(location = 0) out vec2 v_uv;
layout(location = 1) out vec4 v_color;

void main() {
    float c = cos(instance_transform.z);
    float s = sin(instance_transform.z);
    vec2 p = mat2(c, s, -s, c) * corner * instance_transform.w + instance_transform.xy;
    v_uv = corner * 0.5 + 0.5;
    v_color = instance_color;
    gl_Position = frame.view_projection * vec4(p, 0.0, 1.0);
}
