// HLSL fragment shader: the stage comes from the double extension.
Texture2D<float4> hdr : register(t0, space0);
SamplerState linear_sampler : register(s1, space0);

struct Input {
    float4 position : SV_Position;
    float2 uv : TEXCOORD0;
};

float4 main(Input input) : SV_Target0 {
    float3 c = hdr.Sample(linear_sampler, input.uv).rgb;
    c = c / (1.0 + c);
    return float4(c, 1.0);
}
