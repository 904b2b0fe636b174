//! What the GPU is told about the world each frame: the frame uniforms, the sprite instances
//! and the HUD rectangles.

use ash::vk;

use crate::game::{HALF_ARENA, World};
use crate::shader_types::hud_wgsl_vs_main;
use crate::shader_types::sprite_vert;
pub(crate) use crate::shader_types::sprite_vert::Frame;

/// The `Frame` uniform block of `include/frame.glsl`.
pub(crate) fn frame_uniforms(world: &World, extent: vk::Extent2D) -> Frame {
    let (width, height) = (extent.width.max(1) as f32, extent.height.max(1) as f32);
    // Fit the whole arena in the view, keeping its aspect.
    let pixels_per_unit = (width / (2.0 * HALF_ARENA[0])).min(height / (2.0 * HALF_ARENA[1]));
    let sx = 2.0 * pixels_per_unit / width;
    let sy = -2.0 * pixels_per_unit / height;
    let shake = world.shake * world.shake * 0.35;
    let (dx, dy) = ((world.time * 53.0).sin() * shake, (world.time * 41.0).cos() * shake);
    // One argument a line: a type error points at the line that fills the member (tests/typed_interface.rs).
    Frame::new(
        [[sx, 0.0, 0.0, 0.0], [0.0, sy, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [dx * sx, dy * sy, 0.0, 1.0]],
        [width, height],
        world.time,
        world.shake,
    )
}

/// One sprite: `sprite.vert`'s vertex (the corner comes from the corner buffer).
pub(crate) type SpriteInstance = sprite_vert::Vertex;

/// One HUD rectangle: an instance of `hud.wgsl`'s vertex inputs.
pub(crate) type HudRect = hud_wgsl_vs_main::Vertex;

/// A sprite at `[x, y]`, turned by `rotation` and scaled by `scale`.
fn sprite(x: f32, y: f32, rotation: f32, scale: f32, color: [f32; 4]) -> SpriteInstance {
    // The corner in the instance buffer is never read.
    SpriteInstance { corner: [0.0; 2], instance_transform: [x, y, rotation, scale], instance_color: color }
}

/// The sprites of `world`, grouped by program: rocks, ship, bullets.
pub(crate) fn sprites(world: &World) -> [Vec<SpriteInstance>; 3] {
    let rocks = world
        .rocks
        .iter()
        .map(|rock| {
            let [x, y] = rock.position;
            let tint = [[0.75, 0.55, 0.95], [0.55, 0.75, 1.0], [0.6, 1.0, 0.8]][rock.size];
            sprite(x, y, rock.angle, rock.radius() / 0.78, [tint[0], tint[1], tint[2], 1.0])
        })
        .collect();
    let mut ship = Vec::new();
    if world.ship.is_alive() {
        let [x, y] = world.ship.position;
        // Blinks while invulnerable after a respawn.
        let alpha = if world.ship.invulnerable > 0.0 && (world.time * 12.0).sin() < 0.0 { 0.3 } else { 1.0 };
        ship.push(sprite(x, y, world.ship.angle, 1.5, [0.45, 0.95, 1.0, alpha]));
    }
    let bullets =
        world.bullets.iter().map(|b| sprite(b.position[0], b.position[1], 0.0, 0.35, [1.0, 0.9, 0.4, 1.0])).collect();
    [rocks, ship, bullets]
}

/// Segments of the digits 0–9 (bits a–g of a seven-segment display).
const DIGIT_SEGMENTS: [u8; 10] = [0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F];

/// HUD rectangles (`[x0, y0, x1, y1]` in WebGPU's NDC, y up): the score as seven-segment digits
/// (top left) and one block per life (top right).
pub(crate) fn hud(world: &World, extent: vk::Extent2D) -> Vec<HudRect> {
    let (width, height) = (extent.width.max(1) as f32, extent.height.max(1) as f32);
    // Sizes in pixels, converted to NDC.
    let unit = (height / 90.0).max(2.0);
    let to_x = |px: f32| -1.0 + 2.0 * px / width;
    let to_y = |py: f32| 1.0 - 2.0 * py / height;
    let mut rects = Vec::new();
    let mut rect = |x0: f32, y0: f32, x1: f32, y1: f32, color: [f32; 4]| {
        rects.push(HudRect { rect: [to_x(x0), to_y(y0), to_x(x1), to_y(y1)], color });
    };
    let score_color = [1.0, 0.85, 0.4, 0.95];
    let (digit_w, digit_h, thick) = (3.0 * unit, 5.0 * unit, unit);
    let digits = format!("{:06}", world.score);
    for (i, digit) in digits.bytes().enumerate() {
        let segments = DIGIT_SEGMENTS[usize::from(digit - b'0')];
        let x = 3.0 * unit + i as f32 * (digit_w + 1.5 * unit);
        let y = 3.0 * unit;
        let (mid, bottom) = (y + (digit_h - thick) / 2.0, y + digit_h - thick);
        let horizontal = [(0, y), (6, mid), (3, bottom)];
        for (bit, top) in horizontal {
            if segments & (1 << bit) != 0 {
                rect(x, top, x + digit_w, top + thick, score_color);
            }
        }
        // (bit, left column?, upper half?)
        for (bit, left, upper) in [(5, true, true), (1, false, true), (4, true, false), (2, false, false)] {
            if segments & (1 << bit) != 0 {
                let sx = if left { x } else { x + digit_w - thick };
                let (y0, y1) = if upper { (y, mid + thick) } else { (mid, bottom + thick) };
                rect(sx, y0, sx + thick, y1, score_color);
            }
        }
    }
    for life in 0..world.lives {
        let x = width - 3.0 * unit - (life as f32 + 1.0) * 4.0 * unit;
        rect(x, 3.0 * unit, x + 3.0 * unit, 6.0 * unit, [0.45, 0.95, 1.0, 0.9]);
    }
    rects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arena_fits_the_view() {
        let world = World::new(1);
        let u = frame_uniforms(&world, vk::Extent2D { width: 1600, height: 900 });
        // The arena's corner maps to the view's corner at 16:9.
        assert!((u.view_projection[0][0] * HALF_ARENA[0] - 1.0).abs() < 1e-5);
        assert!((u.view_projection[1][1] * HALF_ARENA[1] + 1.0).abs() < 1e-5);
        // A tall window letterboxes horizontally instead.
        let u = frame_uniforms(&world, vk::Extent2D { width: 900, height: 1600 });
        assert!((u.view_projection[0][0] * HALF_ARENA[0] - 1.0).abs() < 1e-5);
        assert!(u.view_projection[1][1].abs() * HALF_ARENA[1] < 1.0);
    }

    #[test]
    fn hud_draws_every_digit_and_life() {
        let mut world = World::new(1);
        world.score = 0;
        let zeros = hud(&world, vk::Extent2D { width: 800, height: 450 });
        // Six zeros of six segments, plus three lives.
        assert_eq!(zeros.len(), 6 * 6 + 3);
        world.score = 111_111;
        world.lives = 1;
        assert_eq!(hud(&world, vk::Extent2D { width: 800, height: 450 }).len(), 6 * 2 + 1);
    }
}
