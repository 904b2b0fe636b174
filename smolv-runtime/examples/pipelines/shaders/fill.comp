#version 450
// Writes 3 * i + 1 into element i of the storage buffer.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint values[]; } data;
void main() {
    uint i = gl_GlobalInvocationID.x;
    data.values[i] = 3u * i + 1u;
}
