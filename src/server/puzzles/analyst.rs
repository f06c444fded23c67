//! Turns as the generator judges them: the best turn of the side to move and its score, the
//! best turn left once some turns are ruled out, the second-best turn, and the turn rules the
//! generator needs (every turn of a position, whether a turn mates). The engine answers one
//! sub-move at a time; a turn is S1 and S2 (or S1 alone when it checks or ends the game), so
//! the best turn is two searches: the position, then the position after its S1.
//!
//! [`Analyst`] is what the finder and the verifier ask; [`EngineAnalyst`] answers with our
//! engine at fixed node counts (reproducible), tests answer with scripted scores.

use std::sync::atomic::AtomicBool;

use super::judge::same_position;
use crate::engine::{Engine, Limits, Score};
use crate::rules::{Game, Outcome, Position, SubMove, Termination};

/// A turn's sub-moves: one or two.
pub type Turn = Vec<SubMove>;

/// A turn and its score for the side that plays it, counted from the turn's start (a mate's
/// sub-moves include the turn's own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnEval {
    pub turn: Turn,
    pub score: Score,
    /// The nodes its searches took.
    pub nodes: u64,
}

/// The best turn and the best of the others (none when the best is the only legal turn).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnPair {
    pub best: TurnEval,
    pub second: Option<TurnEval>,
}

/// What the finder and the verifier ask about a position at a turn start.
pub trait Analyst {
    /// The score of the game's position for its side to move; `None` when the game is over.
    fn eval(&mut self, game: &Game, nodes: u64) -> Option<Score>;
    /// The best turn of the side to move that is not one of `excluded` (`None` when the game
    /// is over or every turn is excluded). `nodes` bounds each of its searches.
    fn best_turn(&mut self, game: &Game, excluded: &[Turn], nodes: u64) -> Option<TurnEval>;
    /// Forgets what earlier searches learnt, so that an answer depends only on the questions
    /// asked since (a game's puzzles do not depend on the games analysed before it).
    fn reset(&mut self);
}

/// The best turn and the second: the best of the turns that do not reach the best turn's
/// position (the judge takes S1,S2 in the other order, or any other way to the same position,
/// as the same turn, so they are no second solution).
pub fn pair(analyst: &mut impl Analyst, game: &Game, nodes: u64) -> Option<TurnPair> {
    let best = analyst.best_turn(game, &[], nodes)?;
    let same = same_turns(game.position(), &best.turn);
    let second = analyst.best_turn(game, &same, nodes);
    Some(TurnPair { best, second })
}

/// The position a turn reaches (the turn is legal: it comes from the rules or the engine).
fn reached(position: &Position, turn: &[SubMove]) -> Position {
    turn.iter().fold(*position, |at, &mv| at.play_unchecked(mv))
}

/// Every turn that reaches the same position as `turn`, `turn` included.
pub fn same_turns(position: &Position, turn: &[SubMove]) -> Vec<Turn> {
    let target = reached(position, turn);
    let mut same: Vec<Turn> = all_turns(position)
        .into_iter()
        .filter(|other| same_position(&reached(position, other), &target))
        .collect();
    if !same.iter().any(|other| other == turn) {
        same.push(turn.to_vec());
    }
    same
}

/// Whether two turns reach the same position, the judge's test of a right turn.
pub fn same_turn(position: &Position, a: &[SubMove], b: &[SubMove]) -> bool {
    a == b || same_position(&reached(position, a), &reached(position, b))
}

/// Orders scores for the side they are counted for: a shorter mate is better, being mated
/// later is better, any mate beats any centipawn score.
pub fn score_order(score: Score) -> i64 {
    const MATE: i64 = 1_000_000;
    match score {
        Score::Cp(cp) => i64::from(cp),
        Score::Mate(n) if n > 0 => MATE - i64::from(n),
        Score::Mate(n) => -MATE - i64::from(n),
    }
}

/// The same score one sub-move earlier, by the same side: a mate is one sub-move further.
fn one_submove_earlier(score: Score) -> Score {
    match score {
        Score::Mate(n) if n > 0 => Score::Mate(n + 1),
        Score::Mate(n) => Score::Mate(n - 1),
        cp => cp,
    }
}

/// Whether playing `mv` ends the mover's turn (a check, a single-sub-move turn, or the end of
/// the game, e.g. the second-move stalemate).
fn ends_turn(after: &Game, mover: crate::rules::Color) -> bool {
    after.outcome().is_some() || after.position().side_to_move() != mover
}

/// Plays a turn on a game.
pub fn play_turn(game: &mut Game, turn: &[SubMove]) -> Result<(), crate::rules::GameError> {
    for &mv in turn {
        game.play(mv)?;
    }
    Ok(())
}

/// Every turn of the side to move: a sub-move that ends the turn alone, else S1 followed by
/// each S2. A turn with no legal S2 ends the game (second-move stalemate) and is S1 alone.
pub fn all_turns(position: &Position) -> Vec<Turn> {
    let us = position.side_to_move();
    let mut out = Vec::new();
    for s1 in position.legal_submoves() {
        let after = position.play_unchecked(s1);
        let seconds = if after.side_to_move() == us {
            after.legal_submoves()
        } else {
            Default::default()
        };
        if seconds.is_empty() {
            out.push(vec![s1]);
        } else {
            out.extend(seconds.into_iter().map(|s2| vec![s1, s2]));
        }
    }
    out
}

/// Whether the game is over by the checkmate of the side to move.
pub fn is_mated(game: &Game) -> bool {
    matches!(
        game.outcome(),
        Some(Outcome::Win {
            reason: Termination::Checkmate,
            ..
        })
    )
}

/// Whether `turn` checkmates from the game's position (false when it is not legal).
pub fn turn_mates(game: &Game, turn: &[SubMove]) -> bool {
    let mut after = game.clone();
    play_turn(&mut after, turn).is_ok() && is_mated(&after)
}

/// Our engine at full strength (level 8, no noise), one search per sub-move, each bounded by
/// nodes only.
pub struct EngineAnalyst {
    engine: Engine,
    stop: AtomicBool,
}

impl Default for EngineAnalyst {
    fn default() -> Self {
        EngineAnalyst::new()
    }
}

impl EngineAnalyst {
    pub fn new() -> EngineAnalyst {
        EngineAnalyst {
            engine: Engine::new(),
            stop: AtomicBool::new(false),
        }
    }

    /// One search; the best sub-move, its score for the side to move, and the nodes.
    fn search(
        &mut self,
        game: &Game,
        excluded: &[SubMove],
        nodes: u64,
    ) -> Option<(SubMove, Score, u64)> {
        let result =
            self.engine
                .search_excluding(game, &Limits::nodes(nodes), excluded, &self.stop, |_| {});
        let info = result.info?;
        Some((result.best?, info.score, info.nodes))
    }

    /// The best turn starting with `s1`, S2 among those not in `excluded`.
    fn turn_from(
        &mut self,
        game: &Game,
        s1: SubMove,
        excluded: &[SubMove],
        nodes: u64,
    ) -> Option<TurnEval> {
        let mover = game.position().side_to_move();
        let mut after = game.clone();
        after.play(s1).ok()?;
        if ends_turn(&after, mover) {
            return None;
        }
        let (s2, score, used) = self.search(&after, excluded, nodes)?;
        Some(TurnEval {
            turn: vec![s1, s2],
            score: one_submove_earlier(score),
            nodes: used,
        })
    }
}

impl Analyst for EngineAnalyst {
    fn eval(&mut self, game: &Game, nodes: u64) -> Option<Score> {
        self.search(game, &[], nodes).map(|(_, score, _)| score)
    }

    fn best_turn(&mut self, game: &Game, excluded: &[Turn], nodes: u64) -> Option<TurnEval> {
        // S1s excluded whole, and S1s of which only some S2s are excluded.
        let mut whole: Vec<SubMove> = Vec::new();
        let mut partial: Vec<(SubMove, Vec<SubMove>)> = Vec::new();
        for turn in excluded {
            match turn.as_slice() {
                [s1] => whole.push(*s1),
                [s1, s2] => match partial.iter_mut().find(|(first, _)| first == s1) {
                    Some((_, seconds)) => seconds.push(*s2),
                    None => partial.push((*s1, vec![*s2])),
                },
                _ => {}
            }
        }
        let mut root_excluded = whole.clone();
        root_excluded.extend(partial.iter().map(|(s1, _)| *s1));
        let mut spent = 0;
        let mut candidates = Vec::new();
        if let Some((s1, score, used)) = self.search(game, &root_excluded, nodes) {
            spent += used;
            match self.turn_from(game, s1, &[], nodes) {
                Some(turn) => {
                    spent += turn.nodes;
                    candidates.push(turn);
                }
                None => candidates.push(TurnEval {
                    turn: vec![s1],
                    score,
                    nodes: 0,
                }),
            }
        }
        for (s1, seconds) in &partial {
            if whole.contains(s1) {
                continue;
            }
            if let Some(turn) = self.turn_from(game, *s1, seconds, nodes) {
                spent += turn.nodes;
                candidates.push(turn);
            }
        }
        // The first of the best: the unrestricted search's turn wins a tie.
        let mut best: Option<TurnEval> = None;
        for candidate in candidates {
            if best
                .as_ref()
                .is_none_or(|b| score_order(candidate.score) > score_order(b.score))
            {
                best = Some(candidate);
            }
        }
        best.map(|b| TurnEval { nodes: spent, ..b })
    }

    fn reset(&mut self) {
        self.engine.new_game();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn game(fen: &str) -> Game {
        Game::new(Position::from_fen(fen, Rules::Marseillais).unwrap())
    }

    fn uci(text: &str) -> Turn {
        text.split(',').map(|m| m.parse().unwrap()).collect()
    }

    /// Back rank: Ra8# and Re8# both mate on S1.
    const TWO_MATES: &str = "6k1/5ppp/8/8/8/8/8/R3R1K1 w - - 0 5";

    #[test]
    fn the_best_turn_of_a_mate_on_s1_is_that_sub_move_alone() {
        let mut analyst = EngineAnalyst::new();
        let best = analyst
            .best_turn(&game(TWO_MATES), &[], 20_000)
            .expect("a turn");
        assert_eq!(best.turn.len(), 1);
        assert_eq!(best.score, Score::Mate(1));
        assert!(turn_mates(&game(TWO_MATES), &best.turn));
    }

    #[test]
    fn with_both_s1_mates_excluded_the_best_turn_mates_on_s2() {
        let mut analyst = EngineAnalyst::new();
        let excluded = [uci("a1a8"), uci("e1e8")];
        let best = analyst
            .best_turn(&game(TWO_MATES), &excluded, 20_000)
            .expect("a turn");
        assert_eq!(best.turn.len(), 2, "{best:?}");
        assert_eq!(best.score, Score::Mate(2));
        assert!(turn_mates(&game(TWO_MATES), &best.turn));
    }

    #[test]
    fn an_excluded_s2_leaves_the_other_s2s_of_its_s1() {
        // White: Kb6, Rh1 against Ka8: Rh2 (quiet) then Rh8# is one mating turn; with it
        // excluded, S1 h1h2 is still searched with its other S2s.
        let g = game("k7/8/1K6/8/8/8/8/7R w - - 0 5");
        let mut analyst = EngineAnalyst::new();
        let best = analyst.best_turn(&g, &[], 20_000).expect("a turn");
        assert!(turn_mates(&g, &best.turn), "{best:?}");
        let second = analyst
            .best_turn(&g, std::slice::from_ref(&best.turn), 20_000)
            .expect("a second turn");
        assert_ne!(second.turn, best.turn);
    }

    #[test]
    fn every_turn_excluded_leaves_no_turn() {
        let g = game("k7/8/1K6/8/8/8/8/7R w - - 0 5");
        let every = all_turns(g.position());
        let mut analyst = EngineAnalyst::new();
        assert_eq!(analyst.best_turn(&g, &every, 5_000), None);
    }

    #[test]
    fn the_second_turn_never_reaches_the_best_turns_position() {
        // Two rooks: Rb7 and Rh8 in either order mate; the second-best turn is another one.
        let g = game("4k3/8/8/8/8/8/8/KR5R w - - 0 5");
        let mut analyst = EngineAnalyst::new();
        let pair = pair(&mut analyst, &g, 20_000).expect("a pair");
        let second = pair.second.expect("a second turn");
        assert!(!same_turn(g.position(), &pair.best.turn, &second.turn));
        let same = same_turns(g.position(), &pair.best.turn);
        assert!(same.contains(&pair.best.turn));
        if let [s1, s2] = pair.best.turn.as_slice() {
            let swapped = vec![*s2, *s1];
            if all_turns(g.position()).contains(&swapped) {
                assert!(same.contains(&swapped));
            }
        }
    }

    #[test]
    fn a_turn_played_in_the_other_order_is_the_same_turn() {
        let g = game("4k3/8/8/8/8/8/8/KR5R w - - 0 5");
        assert!(!same_turn(
            g.position(),
            &uci("b1b7,h1h8"),
            &uci("h1h2,b1b7")
        ));
        assert!(same_turn(
            g.position(),
            &uci("b1b7,a1a2"),
            &uci("a1a2,b1b7")
        ));
        let same = same_turns(g.position(), &uci("b1b7,a1a2"));
        assert_eq!(same.len(), 2, "{same:?}");
    }

    #[test]
    fn all_turns_counts_single_and_double_turns() {
        // The opening turn is one sub-move: 20 turns.
        assert_eq!(all_turns(&Position::initial()).len(), 20);
        // A mate on S1 is a turn alone; a quiet S1 makes a turn with each S2.
        let g = game("6k1/5ppp/8/8/8/8/8/R3R1K1 w - - 0 5");
        assert!(all_turns(g.position()).iter().any(|t| t.len() == 1));
        assert!(all_turns(g.position()).iter().any(|t| t.len() == 2));
    }

    #[test]
    fn scores_order_mates_first_and_short_mates_before_long() {
        assert!(score_order(Score::Mate(1)) > score_order(Score::Mate(3)));
        assert!(score_order(Score::Mate(3)) > score_order(Score::Cp(5000)));
        assert!(score_order(Score::Cp(-5000)) > score_order(Score::Mate(-6)));
        assert!(score_order(Score::Mate(-6)) > score_order(Score::Mate(-2)));
    }
}
