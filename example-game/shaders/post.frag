#version 450
#include <frame.glsl>

// The post-processing ubershader: spec constants switch its features.
layout(constant_id = 0) const bool BLOOM = true;
layout(constant_id = 1) const bool VIGNETTE = true;
layout(constant_id = 2) const bool SCANLINES = false;
layout(constant_id = 3) const bool CHROMATIC = false;
layout(constant_id = 4) const int TONEMAP = 1; // 0 none, 1 Reinhard, 2 ACES

layout(set = 1, binding = 0) uniform sampler2D scene;

layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 color;

vec3 bloom(vec2 uv) {
    // A 5x5 Gaussian of what is brighter than 0.6, three texels apart.
    vec3 sum = vec3(0.0);
    float total = 0.0;
    vec2 texel = 1.0 / frame.resolution;
    for (int i = -2; i <= 2; ++i) {
        for (int j = -2; j <= 2; ++j) {
            float weight = exp(-0.5 * float(i * i + j * j));
            vec3 c = texture(scene, uv + vec2(i, j) * texel * 3.0).rgb;
            sum += max(c - 0.6, 0.0) * weight;
            total += weight;
        }
    }
    return sum / total;
}

void main() {
    vec3 c;
    if (CHROMATIC) {
        vec2 offset = (v_uv - 0.5) * (0.004 + 0.03 * frame.shake);
        c = vec3(texture(scene, v_uv + offset).r, texture(scene, v_uv).g, texture(scene, v_uv - offset).b);
    } else {
        c = texture(scene, v_uv).rgb;
    }
    if (BLOOM) {
        c += bloom(v_uv) * 1.5;
    }
    if (TONEMAP == 1) {
        c = c / (1.0 + c);
    } else if (TONEMAP == 2) {
        c = clamp((c * (2.51 * c + 0.03)) / (c * (2.43 * c + 0.59) + 0.14), 0.0, 1.0);
    }
    if (VIGNETTE) {
        vec2 d = v_uv - 0.5;
        c *= 1.0 - dot(d, d) * 1.2;
    }
    if (SCANLINES) {
        c *= 0.85 + 0.15 * sin(v_uv.y * frame.resolution.y * 3.14159);
    }
    color = vec4(c, 1.0);
}
