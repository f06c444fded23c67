//! Who plays in a match: an engine at a level with its techniques, vchess's algorithm (the
//! published reference), or another build's engine over UCI. On the command line:
//! `level:N` with any `+name`/`-name` switching a technique on or off against the defaults
//! (`level:8+nmp`, `level:8-lmr+asp`; the names are [`Feature::name`]), `vchess`, or
//! `uci:PATH` (a marseillais binary, run as `PATH uci`, at its default level 8).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;

use crate::engine::vchess::Vchess;
use crate::engine::{Engine, Feature, Features, Level, Limits};
use crate::rules::{Game, SubMove};

use super::uci_player::{UciEngine, UciPlayerError};

/// Why a player name was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("'{0}': expected level:N (1-8) with +name/-name techniques ({names}), vchess or uci:PATH", names = feature_names())]
pub struct SpecError(String);

fn feature_names() -> String {
    Feature::ALL.map(Feature::name).join(", ")
}

/// A player as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    Level(Level, Features),
    Vchess,
    Uci(PathBuf),
}

impl FromStr for Spec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Spec, SpecError> {
        if text == "vchess" {
            return Ok(Spec::Vchess);
        }
        let bad = || SpecError(text.to_string());
        if let Some(path) = text.strip_prefix("uci:") {
            if path.is_empty() {
                return Err(bad());
            }
            return Ok(Spec::Uci(PathBuf::from(path)));
        }
        let rest = text.strip_prefix("level:").ok_or_else(bad)?;
        let end = rest.find(['+', '-']).unwrap_or(rest.len());
        let n: i64 = rest[..end].parse().map_err(|_| bad())?;
        if !(1..=8).contains(&n) {
            return Err(bad());
        }
        let mut features = Features::default();
        let mut switches = &rest[end..];
        while let Some(sign) = switches.chars().next() {
            let body = &switches[1..];
            let next = body.find(['+', '-']).unwrap_or(body.len());
            let feature = Feature::from_name(&body[..next]).ok_or_else(bad)?;
            features = features.with(feature, sign == '+');
            switches = &body[next..];
        }
        Ok(Spec::Level(Level::new(n), features))
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spec::Vchess => f.write_str("vchess"),
            Spec::Uci(path) => write!(f, "uci:{}", path.display()),
            Spec::Level(level, features) => {
                write!(f, "level:{}", level.get())?;
                let default = Features::default();
                for feature in Feature::ALL {
                    match (default.has(feature), features.has(feature)) {
                        (false, true) => write!(f, "+{}", feature.name())?,
                        (true, false) => write!(f, "-{}", feature.name())?,
                        _ => {}
                    }
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
    /// Another build's process; `None` when it failed to start, and then it forfeits.
    Uci(Option<UciEngine>),
}

impl Player {
    /// `hash_mb`: the engine's table; the harness gives each of its concurrent games its own.
    pub fn new(spec: &Spec, seed: u64, hash_mb: usize) -> Player {
        match spec {
            Spec::Level(level, features) => {
                let mut engine = Engine::with_hash_mb(hash_mb);
                engine.set_level(*level);
                engine.set_features(*features);
                engine.set_seed(seed);
                Player::Engine(Box::new(engine))
            }
            Spec::Vchess => Player::Vchess(Vchess::new(seed)),
            Spec::Uci(path) => Player::Uci(UciEngine::start(path, hash_mb).ok()),
        }
    }

    /// Starts the player once and says why it cannot play: what the command line checks
    /// before a match, so that a bad `uci:PATH` is refused instead of forfeiting every game.
    pub fn check(spec: &Spec) -> Result<(), UciPlayerError> {
        match spec {
            Spec::Uci(path) => UciEngine::start(path, 1).map(drop),
            _ => Ok(()),
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
            Player::Uci(engine) => engine.as_mut()?.choose(game, limits),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_name_reads_back_as_written() {
        let mut names = vec![
            "level:8".to_string(),
            "vchess".to_string(),
            "uci:/tmp/old/marseillais".to_string(),
        ];
        // Each technique switched against the defaults, whichever they are.
        for feature in Feature::ALL {
            let sign = if Features::default().has(feature) {
                '-'
            } else {
                '+'
            };
            names.push(format!("level:3{sign}{}", feature.name()));
        }
        for name in names {
            let spec: Spec = name.parse().expect(&name);
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
            "level:8+nope",
            "level:8+",
            "level:+lmr",
            "uci:",
            "",
        ] {
            assert!(name.parse::<Spec>().is_err(), "{name}");
        }
    }

    #[test]
    fn a_switch_turns_one_technique_on_or_off_against_the_defaults() {
        let Ok(Spec::Level(_, features)) = "level:8+nmp-lmr+lmr".parse::<Spec>() else {
            panic!("a level");
        };
        assert!(features.has(Feature::NullMove));
        assert!(features.has(Feature::Lmr));
        let Ok(Spec::Level(_, features)) = "level:8-nmp".parse::<Spec>() else {
            panic!("a level");
        };
        assert!(!features.has(Feature::NullMove));
    }
}
