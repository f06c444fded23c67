//! Seeded engine self-play: the generator's games when the store has few. Puzzles come from
//! mistakes, so the players are weak and noisy: each side plays at a level from 2 to 6 (their
//! node caps and evaluation noise, docs/engine.md "Levels") with a noise seed of its own, and
//! the first three sub-moves (White's single first turn, Black's first turn) are drawn at
//! random among the legal ones, so that games differ from the first turn. Every search is
//! bounded by its level's nodes: game `n` of seed `s` is always the same game.
//!
//! A game stops at its end, after [`MAX_TURNS`] turns, or at a turn start where one side is
//! [`DECIDED_MATERIAL`] pawns ahead: what follows is already won, and the finder takes no
//! puzzle from a won position.

use std::sync::atomic::AtomicBool;

use super::find::material_diff;
use crate::engine::level::splitmix;
use crate::engine::{Engine, Level, Limits};
use crate::rules::{Color, Game, Position};

/// The most turns (both sides') of a self-play game.
pub const MAX_TURNS: usize = 160;
/// A material lead, in pawns, at which a self-play game stops.
pub const DECIDED_MATERIAL: i32 = 12;
/// Sub-moves drawn at random at the start: White's first turn and Black's.
pub const RANDOM_SUBMOVES: usize = 3;
/// The weakest and the strongest level that play.
pub const LEVELS: std::ops::RangeInclusive<u8> = 2..=6;
/// Each engine's table: small, the levels search at most 12 000 nodes a sub-move.
const HASH_MB: usize = 4;

/// A self-play game and who played it.
#[derive(Clone, Debug)]
pub struct SelfPlayed {
    pub game: Game,
    pub white: Level,
    pub black: Level,
    /// `selfplay:{seed}:{n}`, the CSV's GameUrl for it.
    pub source: String,
}

/// Game `n` of seed `seed`.
pub fn play(seed: u64, n: u64) -> SelfPlayed {
    let mix = splitmix(seed ^ splitmix(n));
    let span = u64::from(LEVELS.end() - LEVELS.start() + 1);
    let level = |bits: u64| Level::new(i64::from(*LEVELS.start()) + (bits % span) as i64);
    let white = level(mix);
    let black = level(mix >> 16);
    let mut engines = [white, black].map(|level| {
        let mut engine = Engine::with_hash_mb(HASH_MB);
        engine.set_level(level);
        engine
    });
    engines[0].set_seed(splitmix(mix ^ 1));
    engines[1].set_seed(splitmix(mix ^ 2));

    let mut game = Game::new(Position::initial());
    let mut draw = mix;
    for _ in 0..RANDOM_SUBMOVES {
        draw = splitmix(draw);
        let legal = game.legal_submoves();
        if game.outcome().is_some() || legal.is_empty() {
            break;
        }
        let mv = legal[(draw % legal.len() as u64) as usize];
        if game.play(mv).is_err() {
            break;
        }
    }
    let stop = AtomicBool::new(false);
    let mut turns = 0;
    while game.outcome().is_none() && turns < MAX_TURNS {
        let side = game.position().side_to_move();
        let engine = &mut engines[usize::from(side == Color::Black)];
        let nodes = engine.level().params().max_nodes.unwrap_or(20_000);
        let result = engine.search(&game, &Limits::nodes(nodes), &stop, |_| {});
        let Some(mv) = result.best else {
            break;
        };
        if game.play(mv).is_err() {
            break;
        }
        if game.position().is_turn_start() {
            turns += 1;
            if material_diff(game.position(), Color::White).abs() >= DECIDED_MATERIAL {
                break;
            }
        }
    }
    SelfPlayed {
        game,
        white,
        black,
        source: format!("selfplay:{seed}:{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_and_number_play_the_same_game() {
        let a = play(7, 3);
        let b = play(7, 3);
        assert_eq!(a.game.submoves(), b.game.submoves());
        assert_eq!((a.white, a.black), (b.white, b.black));
        assert_eq!(a.source, "selfplay:7:3");
    }

    #[test]
    fn other_numbers_play_other_games_at_levels_two_to_six() {
        let games: Vec<SelfPlayed> = (0..4).map(|n| play(7, n)).collect();
        for g in &games {
            assert!(LEVELS.contains(&g.white.get()) && LEVELS.contains(&g.black.get()));
            assert!(g.game.submove_count() > RANDOM_SUBMOVES);
        }
        assert_ne!(games[0].game.submoves(), games[1].game.submoves());
    }
}
