#version 450
layout(local_size_x = 64) in;

struct Particle {
    vec2 position;
    vec2 velocity;
};

layout(set = 0, binding = 0) buffer Particles {
    Particle particles[];
};

layout(push_constant) uniform Step {
    float dt;
    uint count;
} step;

layout(constant_id = 1) const uint BOUNCE = 1;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= step.count) {
        return;
    }
    Particle p = particles[i];
    p.position += p.velocity * step.dt;
    if (BOUNCE != 0 && abs(p.position.x) > 1.0) {
        p.velocity.x = -p.velocity.x;
    }
    particles[i] = p;
}
