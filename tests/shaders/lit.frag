#version 450
#include "include/lighting.glsl"

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec2 v_uv;
layout(location = 0) out vec4 color;

layout(set = 1, binding = 0) uniform sampler2D albedo;
#ifdef SHADOWS
layout(set = 1, binding = 1) uniform sampler2DShadow shadow_map;
#endif

layout(constant_id = 0) const float EXPOSURE = 1.0;

void main() {
    vec3 base = texture(albedo, v_uv).rgb;
    vec3 lit = lambert(v_normal, base) * EXPOSURE;
#ifdef SHADOWS
    lit *= texture(shadow_map, vec3(v_uv, 0.5));
#endif
    color = vec4(lit, 1.0);
}
