// Shared lighting helpers, included by several shaders.
#ifndef LIGHTING_GLSL
#define LIGHTING_GLSL

layout(set = 0, binding = 0) uniform Camera {
    mat4 view_projection;
    vec3 light_direction;
    float ambient;
} camera;

vec3 lambert(vec3 normal, vec3 albedo) {
    float diffuse = max(dot(normalize(normal), -camera.light_direction), 0.0);
    return albedo * (camera.ambient + diffuse);
}

#endif
