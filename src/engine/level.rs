//! Playing levels 1-8 (UCI `Skill Level`). Lower levels search less (a depth
//! and a node cap, whatever the clock allows) and misjudge positions (a
//! deterministic evaluation noise), so that a beginner can beat level 1 while
//! level 8 plays at full strength in the time it is given.
//!
//! Noise rather than random move choice: a noisy evaluation still prefers
//! captures of big pieces, but misses subtler points, which looks like a weak
//! human rather than a random mover. It is a pure function of the position
//! hash and a seed, so a search at a fixed node count stays reproducible.

/// A playing level, 1 (weakest) to 8 (full strength).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Level(u8);

/// What a level allows the search.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct LevelParams {
    /// Deepest iteration, in sub-moves.
    pub max_depth: Option<i32>,
    /// Most nodes per search.
    pub max_nodes: Option<u64>,
    /// Evaluation noise amplitude in centipawns (± this much).
    pub noise: i32,
}

impl Level {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 8;
    pub const FULL: Level = Level(8);

    /// The level `n`, clamped into 1..=8.
    pub fn new(n: i64) -> Level {
        Level(n.clamp(Self::MIN as i64, Self::MAX as i64) as u8)
    }

    pub fn get(self) -> u8 {
        self.0
    }

    pub fn params(self) -> LevelParams {
        // (depth, nodes, noise), tuned so that neighbouring levels stand 288-430 Elo apart
        // (200-game matches at 150 000 nodes, docs/engine.md "Levels"; level 1 is -2457
        // against level 8). Level 7 is capped at 40 000 nodes (a few tens of milliseconds);
        // level 8 has no cap: the clock decides.
        let (depth, nodes, noise) = match self.0 {
            1 => (Some(1), Some(30), 600),
            2 => (Some(2), Some(100), 260),
            3 => (Some(3), Some(400), 160),
            4 => (Some(4), Some(1_000), 95),
            5 => (Some(5), Some(3_000), 60),
            6 => (Some(6), Some(10_000), 30),
            7 => (None, Some(40_000), 10),
            _ => (None, None, 0),
        };
        LevelParams {
            max_depth: depth,
            max_nodes: nodes,
            noise,
        }
    }
}

impl Default for Level {
    fn default() -> Self {
        Level::FULL
    }
}

/// The noise for a position: uniform in `-amplitude..=amplitude`, White's view.
pub fn noise(hash: u64, seed: u64, amplitude: i32) -> i32 {
    if amplitude <= 0 {
        return 0;
    }
    let r = splitmix(hash ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    (r % (2 * amplitude as u64 + 1)) as i32 - amplitude
}

/// SplitMix64: a tiny, well-mixed hash/generator (also used by the harness).
pub fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_clamp_into_one_to_eight() {
        assert_eq!(Level::new(0).get(), 1);
        assert_eq!(Level::new(99).get(), 8);
        assert_eq!(Level::new(8).params().noise, 0);
    }

    #[test]
    fn noise_stays_within_its_amplitude() {
        for h in 0..1000u64 {
            assert!(noise(h, 7, 50).abs() <= 50);
        }
    }
}
