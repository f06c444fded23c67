//! The engine each engine thread lends to the computer games it searches for, and the little
//! a game keeps between its searches ([`GameMemory`]).
//!
//! A game used to keep an [`Engine`] of its own, transposition table included, from its first
//! search to its end: 2.2 MB of RSS per computer game (issue 35: 20 level-8 games nobody
//! opened took the server from 33.0 to 76.1 MB). A game now keeps its level, its noise seed
//! and the plan of its turn (which S2 its S1 search expects, and the turn's time left): 56
//! bytes. The table lives with the thread, [`THREAD_HASH_MB`] for each of `--engine-threads`,
//! so the engine's memory is bounded by the threads, not by the games.
//!
//! When a thread searches for another game than last time it forgets what it learnt
//! ([`Engine::new_game`]): a game's search never reads another game's table, whose scores carry
//! another level's noise. A game that searches twice in a row on the same thread (its S1 and
//! S2, or a quiet server) keeps its table as before.

use std::cell::RefCell;
use std::sync::atomic::AtomicBool;

use crate::engine::{Engine, Level, Limits, SearchResult, TurnPlan};
use crate::rules::Game;

/// The transposition table of each engine thread, in MB: larger than the 2 MB a game had when
/// each kept its own, since there are only `--engine-threads` of them (1 on 2 cores).
pub const THREAD_HASH_MB: usize = 16;

/// What a computer game keeps between two searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameMemory {
    pub level: Level,
    /// The level noise seed, from the game's id; also tells one game from another on a thread.
    pub seed: u64,
    plan: Option<TurnPlan>,
}

impl GameMemory {
    pub fn new(level: Level, seed: u64) -> GameMemory {
        GameMemory {
            level,
            seed,
            plan: None,
        }
    }
}

/// The engine of this thread, and the seed of the game it last searched for.
struct Lent {
    engine: Engine,
    game: u64,
}

thread_local! {
    static LENT: RefCell<Option<Lent>> = const { RefCell::new(None) };
}

/// Searches `game` for the computer game of `memory` with this thread's engine (made at the
/// thread's first search), and keeps the plan of the turn in `memory`. Called on an engine
/// thread ([`super::engine_pool::EnginePool::run`]).
pub fn search(
    memory: &mut GameMemory,
    game: &Game,
    limits: &Limits,
    stop: &AtomicBool,
) -> SearchResult {
    LENT.with(|lent| {
        let mut lent = lent.borrow_mut();
        let lent = lent.get_or_insert_with(|| Lent {
            engine: Engine::with_hash_mb(THREAD_HASH_MB),
            game: memory.seed,
        });
        if lent.game != memory.seed {
            lent.engine.new_game();
            lent.game = memory.seed;
        }
        let engine = &mut lent.engine;
        engine.set_level(memory.level);
        engine.set_seed(memory.seed);
        engine.resume_plan(memory.plan);
        let result = engine.search(game, limits, stop, |_| {});
        memory.plan = engine.take_plan();
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Position;

    fn start() -> Game {
        Game::new(Position::initial())
    }

    #[test]
    fn a_game_keeps_a_few_bytes_between_searches() {
        assert!(std::mem::size_of::<GameMemory>() <= 64);
    }

    #[test]
    fn the_plan_of_a_turn_survives_another_games_search_on_the_same_thread() {
        let mut game = start();
        let mv = game.position().legal_submoves()[0];
        game.play(mv).unwrap();
        // Black's S1: the search plans its S2.
        let mut black = GameMemory::new(Level::FULL, 1);
        let limits = Limits::depth(4);
        let s1 = search(&mut black, &game, &limits, &AtomicBool::new(false));
        let s1 = s1.best.expect("a move");
        assert!(black.plan.is_some(), "an S1 search plans the turn");
        // Another game searches on the thread in between.
        let mut other = GameMemory::new(Level::new(3), 2);
        search(
            &mut other,
            &start(),
            &Limits::depth(2),
            &AtomicBool::new(false),
        );
        // The first game's S2 search finds its plan again.
        game.play(s1).unwrap();
        let mut engine = Engine::with_hash_mb(1);
        engine.resume_plan(black.plan);
        assert!(engine.planned_reply(game.position()).is_some());
    }
}
