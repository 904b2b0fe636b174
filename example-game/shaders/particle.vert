#version 450
#include <frame.glsl>

// One instanced quad per particle, read straight from the buffer that
// particles.comp simulates.
layout(location = 0) in vec2 corner;
layout(location = 1) in vec4 position_velocity;
layout(location = 2) in vec4 particle_color;
layout(location = 3) in vec2 life_size;

layout(location = 0) out vec2 v_corner;
layout(location = 1) out vec4 v_color;

void main() {
    // Dead particles collapse to a point and cover no pixels.
    float size = life_size.x > 0.0 ? life_size.y : 0.0;
    v_corner = corner;
    v_color = particle_color;
    vec2 p = position_velocity.xy + corner * size;
    gl_Position = frame.view_projection * vec4(p, 0.0, 1.0);
}
