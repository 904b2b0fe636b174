//! The game itself, with no graphics: a ship in a wrap-around arena full of rocks (big ones
//! split). Deterministic for a given seed and input sequence, for the headless golden image.

use std::collections::BTreeSet;
use std::f32::consts::TAU;

/// Half the arena's width and height in world units; the arena wraps.
pub(crate) const HALF_ARENA: [f32; 2] = [16.0, 9.0];
/// Simulation step: the game always advances in 60 Hz steps.
pub(crate) const STEP: f32 = 1.0 / 60.0;

const SHIP_RADIUS: f32 = 0.55;
const TURN_SPEED: f32 = 4.0;
const THRUST: f32 = 14.0;
const DRAG: f32 = 0.6;
const BULLET_SPEED: f32 = 22.0;
const BULLET_LIFE: f32 = 0.9;
const FIRE_COOLDOWN: f32 = 0.14;
const ROCK_RADII: [f32; 3] = [1.6, 0.95, 0.5];
const RESPAWN_DELAY: f32 = 1.5;
const INVULNERABLE: f32 = 2.0;
const STARTING_LIVES: u32 = 3;

/// What the player does this step, from the keyboard or from the script.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Input {
    /// -1 turns clockwise, +1 counter-clockwise.
    pub(crate) turn: f32,
    pub(crate) thrust: bool,
    pub(crate) fire: bool,
}

/// A small deterministic random number generator (xorshift64*).
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }

    /// Uniform in `[low, high)`.
    pub(crate) fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// The ship.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ship {
    pub(crate) position: [f32; 2],
    pub(crate) velocity: [f32; 2],
    /// Radians; 0 points up (+y).
    pub(crate) angle: f32,
    /// Seconds until it can fire again.
    cooldown: f32,
    /// Seconds of invulnerability left after a respawn.
    pub(crate) invulnerable: f32,
    /// Seconds until respawn, while destroyed.
    pub(crate) respawn: Option<f32>,
}

impl Ship {
    fn new() -> Self {
        Self { invulnerable: INVULNERABLE, ..Self::default() }
    }

    /// The unit vector the ship points along.
    pub(crate) fn heading(&self) -> [f32; 2] {
        [-self.angle.sin(), self.angle.cos()]
    }

    pub(crate) fn is_alive(&self) -> bool {
        self.respawn.is_none()
    }
}

/// A rock; size 0 is the biggest, 2 the smallest.
#[derive(Clone, Debug)]
pub(crate) struct Rock {
    pub(crate) position: [f32; 2],
    pub(crate) velocity: [f32; 2],
    pub(crate) angle: f32,
    spin: f32,
    pub(crate) size: usize,
}

impl Rock {
    pub(crate) fn radius(&self) -> f32 {
        ROCK_RADII[self.size]
    }
}

/// A bullet.
#[derive(Clone, Debug)]
pub(crate) struct Bullet {
    pub(crate) position: [f32; 2],
    velocity: [f32; 2],
    life: f32,
}

/// A particle as the GPU simulates it: `particles.comp`'s `Particle`.
pub(crate) use crate::shader_types::particles_comp::Particle;

/// Everything in play.
#[derive(Clone, Debug)]
pub(crate) struct World {
    pub(crate) ship: Ship,
    pub(crate) rocks: Vec<Rock>,
    pub(crate) bullets: Vec<Bullet>,
    pub(crate) score: u32,
    pub(crate) lives: u32,
    pub(crate) wave: u32,
    /// Seconds since the start.
    pub(crate) time: f32,
    /// Screen shake, decaying from 1 after an explosion.
    pub(crate) shake: f32,
    /// Particles born this step, for the renderer to hand to the GPU.
    pub(crate) spawned: Vec<Particle>,
    rng: Rng,
}

fn wrap(mut p: [f32; 2]) -> [f32; 2] {
    for (value, half) in p.iter_mut().zip(HALF_ARENA) {
        if *value > half {
            *value -= 2.0 * half;
        } else if *value < -half {
            *value += 2.0 * half;
        }
    }
    p
}

/// `p` moved by `v` over `dt`, wrapped.
fn moved(p: [f32; 2], v: [f32; 2], dt: f32) -> [f32; 2] {
    wrap([p[0] + v[0] * dt, p[1] + v[1] * dt])
}

/// The shortest offset from `a` to `b` across the wrapping edges.
pub(crate) fn offset(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    wrap([b[0] - a[0], b[1] - a[1]])
}

pub(crate) fn length(v: [f32; 2]) -> f32 {
    v[0].hypot(v[1])
}

impl World {
    /// A new game; the same seed always plays out the same way.
    pub(crate) fn new(seed: u64) -> Self {
        let mut world = Self {
            ship: Ship::new(),
            rocks: Vec::new(),
            bullets: Vec::new(),
            score: 0,
            lives: STARTING_LIVES,
            wave: 0,
            time: 0.0,
            shake: 0.0,
            spawned: Vec::new(),
            rng: Rng::new(seed),
        };
        world.next_wave();
        world
    }

    fn next_wave(&mut self) {
        self.wave += 1;
        for _ in 0..(3 + self.wave) {
            // Start away from the ship.
            let angle = self.rng.range(0.0, TAU);
            let distance = self.rng.range(6.0, 9.0);
            let position = wrap([
                self.ship.position[0] + angle.cos() * distance * 1.5,
                self.ship.position[1] + angle.sin() * distance,
            ]);
            self.add_rock(position, 0);
        }
    }

    fn add_rock(&mut self, position: [f32; 2], size: usize) {
        let heading = self.rng.range(0.0, TAU);
        let speed = self.rng.range(1.0, 2.5) * (1.0 + size as f32 * 0.6);
        let rock = Rock {
            position,
            velocity: [heading.cos() * speed, heading.sin() * speed],
            angle: self.rng.range(0.0, TAU),
            spin: self.rng.range(-1.5, 1.5),
            size,
        };
        self.rocks.push(rock);
    }

    fn burst(&mut self, at: [f32; 2], count: usize, speed: f32, color: [f32; 3], size: f32) {
        for _ in 0..count {
            let angle = self.rng.range(0.0, TAU);
            let v = self.rng.range(0.2, 1.0) * speed;
            let life = self.rng.range(0.5, 1.4);
            self.spawned.push(Particle {
                position: at,
                velocity: [angle.cos() * v, angle.sin() * v],
                color: [color[0], color[1], color[2], 1.0],
                life,
                size: size * self.rng.range(0.6, 1.2),
                pad: [0.0; 2],
            });
        }
    }

    /// Advances the game by one [`STEP`].
    pub(crate) fn step(&mut self, input: &Input) {
        let dt = STEP;
        self.time += dt;
        self.shake = (self.shake - 2.5 * dt).max(0.0);
        self.spawned.clear();
        self.step_ship(input, dt);
        for rock in &mut self.rocks {
            rock.position = moved(rock.position, rock.velocity, dt);
            rock.angle += rock.spin * dt;
        }
        for bullet in &mut self.bullets {
            bullet.position = moved(bullet.position, bullet.velocity, dt);
            bullet.life -= dt;
        }
        self.bullets.retain(|b| b.life > 0.0);
        self.collide();
        if self.rocks.is_empty() {
            self.next_wave();
        }
    }

    fn step_ship(&mut self, input: &Input, dt: f32) {
        if let Some(left) = self.ship.respawn {
            let left = left - dt;
            if left > 0.0 {
                self.ship.respawn = Some(left);
                return;
            }
            if self.lives == 0 {
                // Game over: a fresh game, keeping the random sequence going.
                self.lives = STARTING_LIVES;
                self.score = 0;
                self.wave = 0;
                self.rocks.clear();
                self.next_wave();
            }
            self.ship = Ship::new();
        }
        let ship = &mut self.ship;
        ship.angle += input.turn.clamp(-1.0, 1.0) * TURN_SPEED * dt;
        ship.invulnerable = (ship.invulnerable - dt).max(0.0);
        ship.cooldown = (ship.cooldown - dt).max(0.0);
        let heading = ship.heading();
        if input.thrust {
            ship.velocity[0] += heading[0] * THRUST * dt;
            ship.velocity[1] += heading[1] * THRUST * dt;
        }
        let drag = 1.0 - DRAG * dt;
        ship.velocity = [ship.velocity[0] * drag, ship.velocity[1] * drag];
        ship.position = moved(ship.position, ship.velocity, dt);
        let (position, velocity) = (ship.position, ship.velocity);
        if input.fire && ship.cooldown == 0.0 {
            ship.cooldown = FIRE_COOLDOWN;
            self.bullets.push(Bullet {
                position: [position[0] + heading[0] * 0.5, position[1] + heading[1] * 0.5],
                velocity: [velocity[0] + heading[0] * BULLET_SPEED, velocity[1] + heading[1] * BULLET_SPEED],
                life: BULLET_LIFE,
            });
        }
        if input.thrust {
            let jitter = self.rng.range(-0.4, 0.4);
            let back = [-heading[0] + jitter * heading[1], -heading[1] - jitter * heading[0]];
            self.spawned.push(Particle {
                position: [position[0] + back[0] * 0.4, position[1] + back[1] * 0.4],
                velocity: [velocity[0] + back[0] * 6.0, velocity[1] + back[1] * 6.0],
                color: [1.0, 0.55, 0.15, 1.0],
                life: self.rng.range(0.3, 0.6),
                size: 0.35,
                pad: [0.0; 2],
            });
        }
    }

    fn collide(&mut self) {
        let mut hit_rocks = BTreeSet::new();
        self.bullets.retain(|bullet| {
            let hit = self.rocks.iter().position(|rock| length(offset(bullet.position, rock.position)) < rock.radius());
            hit_rocks.extend(hit);
            hit.is_none()
        });
        if self.ship.is_alive() && self.ship.invulnerable == 0.0 {
            let ship = self.ship.position;
            if let Some(index) =
                self.rocks.iter().position(|rock| length(offset(ship, rock.position)) < rock.radius() + SHIP_RADIUS)
            {
                hit_rocks.insert(index);
                self.lives = self.lives.saturating_sub(1);
                self.ship.respawn = Some(RESPAWN_DELAY);
                self.shake = 1.0;
                self.burst(ship, 90, 9.0, [0.4, 0.8, 1.0], 0.5);
            }
        }
        // Highest first: `swap_remove` leaves the lower indices in place.
        for index in hit_rocks.into_iter().rev() {
            let rock = self.rocks.swap_remove(index);
            self.score += [20, 50, 100][rock.size];
            self.shake = self.shake.max(0.35 + 0.2 * (2 - rock.size) as f32);
            let count = [70, 40, 24][rock.size];
            self.burst(rock.position, count, 7.0, [1.0, 0.7, 0.35], 0.45);
            if rock.size < 2 {
                for _ in 0..2 {
                    self.add_rock(rock.position, rock.size + 1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pilot::scripted_input;

    #[test]
    fn same_seed_same_game() {
        let play = |seed| {
            let mut world = World::new(seed);
            for frame in 0..600 {
                let input = scripted_input(&world, frame);
                world.step(&input);
            }
            (world.score, world.lives, world.rocks.len(), world.ship.position)
        };
        assert_eq!(play(7), play(7));
        assert_ne!(play(7), play(8));
    }

    #[test]
    fn wrapping_takes_the_short_way() {
        assert_eq!(offset([15.0, 0.0], [-15.0, 0.0]), [2.0, 0.0]);
        assert_eq!(wrap([16.5, -9.5]), [-15.5, 8.5]);
    }

    #[test]
    fn big_rocks_split() {
        let mut world = World::new(3);
        world.rocks.truncate(1);
        let rock = world.rocks[0].clone();
        world.bullets.push(Bullet { position: rock.position, velocity: [0.0, 0.0], life: 1.0 });
        world.collide();
        assert_eq!(world.rocks.len(), 2);
        assert!(world.rocks.iter().all(|r| r.size == 1));
        assert_eq!(world.score, 20);
        assert!(!world.spawned.is_empty());
    }

    #[test]
    fn losing_the_last_life_starts_a_new_game() {
        let mut world = World::new(5);
        world.lives = 1;
        world.score = 500;
        world.ship.invulnerable = 0.0;
        let rock = world.rocks[0].position;
        world.ship.position = rock;
        world.collide();
        assert_eq!(world.lives, 0);
        assert!(!world.ship.is_alive());
        for _ in 0..((RESPAWN_DELAY / STEP) as usize + 2) {
            world.step(&Input::default());
        }
        assert!(world.ship.is_alive());
        assert_eq!((world.lives, world.score, world.wave), (STARTING_LIVES, 0, 1));
    }
}
