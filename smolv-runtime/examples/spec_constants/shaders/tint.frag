#version 450
// The colour of a push constant, changed by three spec constants: a gain,
// an inversion and a swizzle. Set them from the generated `SpecConstants`.
layout(push_constant) uniform Colour { vec4 rgba; } colour;
layout(location = 0) out vec4 color;
layout(constant_id = 0) const float GAIN = 1.0;
layout(constant_id = 1) const bool INVERT = false;
layout(constant_id = 2) const int SWIZZLE = 0;
void main() {
    vec3 c = colour.rgba.rgb * GAIN;
    if (INVERT) {
        c = 1.0 - c;
    }
    switch (SWIZZLE) {
        case 1: c = c.bgr; break;
        case 2: c = c.gbr; break;
        default: break;
    }
    color = vec4(c, colour.rgba.a);
}
