//! Who plays in a match: an engine at a level with its features, or vchess's algorithm (the
//! published reference), named on the command line as `level:N`, `level:N+lmr` or `vchess`.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;

use crate::engine::vchess::Vchess;
use crate::engine::{Engine, Features, Level, Limits};
use crate::rules::{Game, SubMove};

/// Why a player name was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("'{0}': expected level:N (1-8), level:N+lmr or vchess")]
pub struct SpecError(String);

/// A player as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    Level(Level, Features),
    Vchess,
}

impl FromStr for Spec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Spec, SpecError> {
        if text == "vchess" {
            return Ok(Spec::Vchess);
        }
        let bad = || SpecError(text.to_string());
        let rest = text.strip_prefix("level:").ok_or_else(bad)?;
        let (number, lmr) = match rest.strip_suffix("+lmr") {
            Some(n) => (n, true),
            None => (rest, false),
        };
        let n: i64 = number.parse().map_err(|_| bad())?;
        if !(1..=8).contains(&n) {
            return Err(bad());
        }
        Ok(Spec::Level(Level::new(n), Features { lmr }))
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Vchess => f.write_str("vchess"),
            Spec::Level(level, features) => {
                write!(f, "level:{}", level.get())?;
                if features.lmr {
                    f.write_str("+lmr")?;
                }
                Ok(())
            }
        }
    }
}

/// A player for one game: its own engine (table and history fresh), seeded.
pub enum Player {
    Engine(Box<Engine>),
    Vchess(Vchess),
}

impl Player {
    /// `hash_mb`: the engine's table; the harness gives each of its concurrent games its own.
    pub fn new(spec: Spec, seed: u64, hash_mb: usize) -> Player {
        match spec {
            Spec::Level(level, features) => {
                let mut engine = Engine::with_hash_mb(hash_mb);
                engine.set_level(level);
                engine.set_features(features);
                engine.set_seed(seed);
                Player::Engine(Box::new(engine))
            }
            Spec::Vchess => Player::Vchess(Vchess::new(seed)),
        }
    }

    /// The sub-move it plays in `game`'s position, within `limits`.
    pub fn choose(&mut self, game: &Game, limits: &Limits) -> Option<SubMove> {
        match self {
            Player::Engine(engine) => {
                let stop = AtomicBool::new(false);
                engine.search(game, limits, &stop, |_| {}).best
            }
            Player::Vchess(v) => v.choose(game.position()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_name_reads_back_as_written() {
        for name in ["level:8", "level:1+lmr", "vchess"] {
            let spec: Spec = name.parse().expect(name);
            assert_eq!(spec.to_string(), name);
        }
    }

    #[test]
    fn names_outside_the_levels_are_refused() {
        for name in [
            "level:0",
            "level:9",
            "level:x",
            "stockfish",
            "level:8+nmp",
            "",
        ] {
            assert!(name.parse::<Spec>().is_err(), "{name}");
        }
    }
}
