//! Verification: every line the finder made is searched again at a higher node count, from a
//! fresh analyst, before it is kept. A shallow search can miss a defence (the opponent's
//! reply was not the best) or a second solution (the solver's turn was not the only one):
//! the deeper search must agree at every turn of the line, or the puzzle is dropped.
//!
//! At each solver turn the deeper best turn must be the line's (at the mating turn of a mate:
//! any mating turn), still the only good one by the finder's rule ([`only_turn`]), and still
//! winning (a mate, at least the advantage's +200 cp, a defence's floor). At each reply the
//! deeper search's best reply for the opponent must still leave the solver that much; the
//! line's reply is then played (the trainer plays the line's).
//!
//! It also measures how hard the first turn is to find: the smallest node count, doubling from
//! 32, at which the engine's best turn is the line's first ([`Verified::find_nodes`], what
//! the initial rating is made of).

use super::analyst::{Analyst, Turn, pair, play_turn, same_turn, score_order, turn_mates};
use super::find::{Criteria, negate, only_turn};
use super::line::PuzzleLine;
use super::themes::PuzzleKind;
use super::win_chance::win_chance;
use crate::engine::Score;
use crate::rules::Game;

/// The first node count tried when measuring how hard the first turn is to find.
pub const FIND_NODES_START: u64 = 32;

/// A line the deeper search agrees with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The smallest node count (32, 64, ...) at which the engine, fresh, finds the first
    /// solver turn; twice the verification's count when it needs more.
    pub find_nodes: u64,
}

/// Why the deeper search drops a line. `turn` counts the line's turns, 0 being the opponent's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refuted {
    #[error("turn {turn}: the line does not play")]
    Illegal { turn: usize },
    #[error("turn {turn}: the deeper search prefers {best:?}")]
    OtherBest { turn: usize, best: Turn },
    #[error("turn {turn}: the solver's turn is not the only good one")]
    NotOnly { turn: usize },
    #[error("turn {turn}: the solver's turn no longer wins ({score:?})")]
    NotWinning { turn: usize, score: Score },
    #[error("turn {turn}: the opponent has a reply that holds ({score:?} for the solver)")]
    ReplyHolds { turn: usize, score: Score },
    #[error("the mate line does not end in mate")]
    NoMate,
}

/// Checks `line` again with searches of `nodes` each (after [`Analyst::reset`]).
pub fn verify(
    analyst: &mut impl Analyst,
    line: &PuzzleLine,
    kind: PuzzleKind,
    criteria: &Criteria,
    nodes: u64,
) -> Result<Verified, Refuted> {
    analyst.reset();
    let mut node = Game::new(*line.start());
    play_turn(&mut node, &line.turns()[0]).map_err(|_| Refuted::Illegal { turn: 0 })?;
    let solver_start = node.clone();
    for (index, turn) in line.solution().iter().enumerate() {
        let number = index + 1;
        if index % 2 == 0 {
            let pair = pair(analyst, &node, nodes).ok_or(Refuted::Illegal { turn: number })?;
            let mating = kind == PuzzleKind::Mate && turn_mates(&node, turn);
            if !mating && !same_turn(node.position(), &pair.best.turn, turn) {
                return Err(Refuted::OtherBest {
                    turn: number,
                    best: pair.best.turn,
                });
            }
            if !only_turn(analyst, &node, &pair, kind, criteria, nodes) {
                return Err(Refuted::NotOnly { turn: number });
            }
            if !keeps(kind, pair.best.score, criteria) {
                return Err(Refuted::NotWinning {
                    turn: number,
                    score: pair.best.score,
                });
            }
        } else {
            let reply = analyst
                .best_turn(&node, &[], nodes)
                .ok_or(Refuted::Illegal { turn: number })?;
            let kept = negate(reply.score);
            if !keeps(kind, kept, criteria) {
                return Err(Refuted::ReplyHolds {
                    turn: number,
                    score: kept,
                });
            }
        }
        play_turn(&mut node, turn).map_err(|_| Refuted::Illegal { turn: number })?;
    }
    if kind == PuzzleKind::Mate && !super::analyst::is_mated(&node) {
        return Err(Refuted::NoMate);
    }
    let first = &line.solution()[0];
    let mate_in_one = kind == PuzzleKind::Mate && line.solver_turns() == 1;
    Ok(Verified {
        find_nodes: find_nodes(analyst, &solver_start, first, mate_in_one, nodes),
    })
}

/// Whether the solver still has what a puzzle of `kind` promises.
fn keeps(kind: PuzzleKind, score: Score, criteria: &Criteria) -> bool {
    match kind {
        PuzzleKind::Mate => matches!(score, Score::Mate(n) if n > 0),
        PuzzleKind::Advantage => score_order(score) >= i64::from(criteria.advantage_min_cp),
        PuzzleKind::Defence => win_chance(score) >= criteria.defence_floor,
    }
}

/// The smallest node count, doubling from [`FIND_NODES_START`], at which a fresh search's best
/// turn is `first` (any mating turn when `first` mates); `2 * max` when none up to `max` is.
fn find_nodes(
    analyst: &mut impl Analyst,
    game: &Game,
    first: &[crate::rules::SubMove],
    any_mate: bool,
    max: u64,
) -> u64 {
    let mut nodes = FIND_NODES_START;
    while nodes <= max {
        analyst.reset();
        if let Some(best) = analyst.best_turn(game, &[], nodes)
            && (same_turn(game.position(), &best.turn, first)
                || any_mate && turn_mates(game, &best.turn))
        {
            return nodes;
        }
        nodes *= 2;
    }
    max.saturating_mul(2)
}

#[cfg(test)]
mod tests;
