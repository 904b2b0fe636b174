//! The scripted pilot that plays headless runs, through the same [`Input`] as the keyboard.

use std::f32::consts::TAU;

use crate::game::{Input, World, length, offset};

/// This frame's input: turn towards the nearest rock, fire when lined up, thrust now and then.
pub(crate) fn scripted_input(world: &World, frame: u64) -> Input {
    let ship = &world.ship;
    // Open with a showy turn and burn, then hunt.
    if frame < 40 {
        return Input { turn: 1.0, thrust: frame > 10, fire: frame.is_multiple_of(12) };
    }
    let Some(target) = world
        .rocks
        .iter()
        .min_by(|a, b| length(offset(ship.position, a.position)).total_cmp(&length(offset(ship.position, b.position))))
    else {
        return Input::default();
    };
    let to_target = offset(ship.position, target.position);
    let wanted = (-to_target[0]).atan2(to_target[1]);
    let mut error = (wanted - ship.angle) % TAU;
    if error > TAU / 2.0 {
        error -= TAU;
    } else if error < -TAU / 2.0 {
        error += TAU;
    }
    let distance = length(to_target);
    Input {
        turn: (error * 3.0).clamp(-1.0, 1.0),
        thrust: distance > 7.0 && error.abs() < 0.5 || (frame / 90) % 3 == 1 && distance > 3.5,
        fire: error.abs() < 0.2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pilot_scores() {
        let mut world = World::new(1);
        for frame in 0..1200 {
            let input = scripted_input(&world, frame);
            world.step(&input);
        }
        assert!(world.score > 0, "the scripted pilot should hit something in 20 s");
    }
}
