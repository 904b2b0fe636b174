#version 450
#include <frame.glsl>

layout(local_size_x = 64) in;

struct Particle {
    vec2 position;
    vec2 velocity;
    vec4 color;
    float life;
    float size;
    vec2 pad;
};

layout(set = 1, binding = 0) buffer Particles {
    Particle particles[];
};

layout(push_constant) uniform Step {
    float dt;
    uint count;
} step;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= step.count) {
        return;
    }
    Particle p = particles[i];
    p.velocity *= 1.0 - 1.5 * step.dt;
    p.position += p.velocity * step.dt;
    p.life -= step.dt;
    p.color.a = clamp(p.life, 0.0, 1.0);
    particles[i] = p;
}
