//! Shaders for the generated-types tests: each layout case of issue 29,
//! and two shaders sharing one block.

/// `Frame`, as two shaders include it.
pub(crate) const FRAME: &str = "\
struct Light { vec3 position; float radius; vec3 color; };
layout(std140, set = 0, binding = 0) uniform Frame {
    vec3 light_dir;
    float time;
    mat3 normal_matrix;
    mat4x3 wide;
    layout(row_major) mat3 rows;
    mat2 small;
    float weights[4];
    vec2 offsets[3];
    vec3 corners[2];
    Light lights[2];
    bool enabled;
    mat4 view_proj;
} frame;
";

/// std430 storage with a runtime-sized last member, and scalar-layout
/// push constants, with 8-, 16- and 64-bit scalars.
pub(crate) const LAYOUTS: &str = "#version 450
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#include \"frame.glsl\"
struct Particle { vec3 position; float life; vec2 velocity; };
layout(std430, set = 0, binding = 1) buffer Particles {
    vec3 gravity;
    uint count;
    float16_t half_scale;
    int8_t small;
    double exact;
    uint64_t big;
    Particle items[];
} particles;
layout(scalar, push_constant) uniform Push {
    vec3 tint;
    float strength;
    vec3 pad_me;
    layout(row_major) mat3 rotation;
} push;
layout(constant_id = 0) const uint QUALITY = 2;
layout(constant_id = 3) const float GAIN = 1.5;
layout(constant_id = 5) const bool FANCY = true;
layout(location = 0) out vec4 color;
void main() {
    float sum = frame.time + frame.weights[1] + frame.offsets[2].x + frame.corners[1].z + frame.lights[1].radius
        + frame.normal_matrix[1][1] + frame.wide[3][2] + frame.rows[2][1] + frame.small[1][0] + frame.view_proj[3][3]
        + float(frame.enabled) + frame.light_dir.x;
    sum += particles.gravity.y + float(particles.count) + float(particles.half_scale) + float(particles.small)
        + float(particles.exact) + float(particles.big) + particles.items[3].life + particles.items[0].velocity.x;
    sum += push.tint.x + push.strength + push.pad_me.y + push.rotation[1][2];
    color = vec4(sum * float(QUALITY) * GAIN, FANCY ? 1.0 : 0.0, 0.0, 1.0);
}
";

/// A second shader with the same `Frame`, and a `Light` of its own.
pub(crate) const SAME_FRAME: &str = "#version 450
#include \"frame.glsl\"
layout(location = 0) in vec3 position;
layout(location = 1) in vec2 uv;
layout(location = 2) in uvec4 joints;
layout(location = 0) out vec2 out_uv;
void main() {
    out_uv = uv + vec2(joints.xy);
    gl_Position = frame.view_proj * vec4(position + frame.lights[0].position, frame.time);
}
";

/// A `Light` that differs from `frame.glsl`'s.
pub(crate) const OTHER_LIGHT: &str = "#version 450
struct Light { vec4 color; float intensity; };
layout(std140, set = 1, binding = 0) uniform Lights { Light lights[4]; uint count; } lights;
layout(local_size_x_id = 1, local_size_y = 4) in;
layout(std430, set = 1, binding = 1) buffer Out { float values[]; } result;
void main() {
    result.values[gl_GlobalInvocationID.x] = lights.lights[lights.count].intensity + lights.lights[0].color.x;
}
";
