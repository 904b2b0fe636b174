// Per-frame data shared by every shader of the game.
#ifndef FRAME_GLSL
#define FRAME_GLSL

layout(set = 0, binding = 0) uniform Frame {
    mat4 view_projection;
    vec2 resolution;
    float time;
    float shake;
} frame;

#endif
