#version 450
// One colour, set by a push constant.
layout(push_constant) uniform Colour { vec4 rgba; } colour;
layout(location = 0) out vec4 color;
void main() {
    color = colour.rgba;
}
