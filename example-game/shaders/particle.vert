#version 450
#include <frame.glsl>

layout(location = 0) in vec2 corner;
layout(location = 1) in vec4 position_velocity;
layout(location = 2) in vec4 particle_color;
layout(location = 3) in vec2 life_size;

layout(location = 0) out vec2 v_corner;
layout(location = 1) out vec4 v_color;

void main() {
    v_corner = corner;
    v_color = particle_color;
    vec2 p = position_velocity.xy + corner * life_size.y;
    gl_Position = frame.view_projection * vec4(p, 0.0, 1.0);
}
