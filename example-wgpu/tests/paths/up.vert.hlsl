// The triangle of up.wgsl, in HLSL, with the same clip-space corners.
static const float2 CORNERS[3] = { float2(-0.75, 0.125), float2(0.25, 0.125), float2(-0.75, 0.875) };
static const float3 COLORS[3] = { float3(1.0, 0.0, 0.0), float3(0.0, 1.0, 0.0), float3(0.0, 0.0, 1.0) };

struct Varyings
{
    float4 position : SV_Position;
    [[vk::location(0)]] float3 color : COLOR0;
};

Varyings main(uint index : SV_VertexID)
{
    Varyings output;
    output.position = float4(CORNERS[index], 0.0, 1.0);
    output.color = COLORS[index];
    return output;
}
