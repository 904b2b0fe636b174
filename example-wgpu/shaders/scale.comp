#version 450
// Scales a storage buffer of floats by a uniform factor: the compute
// pipeline of `--compute`, made with the generated bind group and
// `compute_pipeline`.
layout(local_size_x = 64) in;

layout(set = 0, binding = 0) uniform Params {
    float factor;
    uint count;
} params;

layout(set = 0, binding = 1) buffer Data {
    float values[];
} data;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < params.count) {
        data.values[i] *= params.factor;
    }
}
