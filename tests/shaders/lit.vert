#version 450
#include <lighting.glsl>

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;

layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec2 v_uv;

layout(push_constant) uniform Model {
    mat4 model;
} push;

void main() {
    v_normal = mat3(push.model) * normal;
    v_uv = uv;
    gl_Position = camera.view_projection * push.model * vec4(position, 1.0);
}
