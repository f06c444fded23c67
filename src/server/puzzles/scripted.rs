//! A scripted [`Analyst`] for the tests of the finder and the verifier: for each position, the
//! turns it ranks with their scores (some seen only from a node count up, as a deeper search
//! sees more) and the score of every other turn. The rules of the finder are tested on it
//! whatever our engine's strength; the engine's own answers are tested in `analyst.rs`.

use std::collections::HashMap;

use super::analyst::{Analyst, Turn, TurnEval, all_turns, score_order};
use super::find::position_key;
use crate::engine::Score;
use crate::rules::{Game, Position};

/// What the analyst knows of one position.
#[derive(Clone, Debug)]
pub struct Script {
    /// Turns, their scores for the side to move, and the nodes from which they are seen.
    ranked: Vec<(Turn, Score, u64)>,
    /// The score of every turn not ranked (or not seen yet).
    rest: Score,
    /// The scan's score, when it is not the best turn's.
    eval: Option<Score>,
}

#[derive(Default)]
pub struct Scripted {
    positions: HashMap<String, Script>,
    /// How many turns were asked for.
    pub asked: usize,
}

/// Reads `e2e4,d2d4`.
pub fn turn(text: &str) -> Turn {
    text.split(',')
        .map(|uci| uci.parse().expect("a sub-move"))
        .collect()
}

impl Scripted {
    pub fn new() -> Scripted {
        Scripted::default()
    }

    /// The script of a position (empty at first: every turn scores 0).
    pub fn at(&mut self, position: &Position) -> &mut Script {
        self.positions
            .entry(position_key(position))
            .or_insert(Script {
                ranked: Vec::new(),
                rest: Score::Cp(0),
                eval: None,
            })
    }

    fn script(&self, position: &Position) -> Option<&Script> {
        self.positions.get(&position_key(position))
    }
}

impl Script {
    /// A turn seen at any node count.
    pub fn turn(&mut self, text: &str, score: Score) -> &mut Script {
        self.seen_from(text, score, 0)
    }

    /// A turn seen only by searches of at least `nodes`.
    pub fn seen_from(&mut self, text: &str, score: Score, nodes: u64) -> &mut Script {
        self.ranked.push((turn(text), score, nodes));
        self
    }

    pub fn rest(&mut self, score: Score) -> &mut Script {
        self.rest = score;
        self
    }

    pub fn eval(&mut self, score: Score) -> &mut Script {
        self.eval = Some(score);
        self
    }
}

impl Analyst for Scripted {
    fn eval(&mut self, game: &Game, nodes: u64) -> Option<Score> {
        if game.outcome().is_some() {
            return None;
        }
        let Some(script) = self.script(game.position()) else {
            return Some(Score::Cp(0));
        };
        if let Some(score) = script.eval {
            return Some(score);
        }
        let best = self.best_turn(game, &[], nodes)?;
        Some(best.score)
    }

    fn best_turn(&mut self, game: &Game, excluded: &[Turn], nodes: u64) -> Option<TurnEval> {
        self.asked += 1;
        if game.outcome().is_some() {
            return None;
        }
        let (ranked, rest) = match self.script(game.position()) {
            Some(script) => (script.ranked.clone(), script.rest),
            None => (Vec::new(), Score::Cp(0)),
        };
        let mut visible: Vec<(Turn, Score)> = ranked
            .iter()
            .filter(|(turn, _, from)| *from <= nodes && !excluded.contains(turn))
            .map(|(turn, score, _)| (turn.clone(), *score))
            .collect();
        // Stable: equal scores keep the script's order.
        visible.sort_by_key(|(_, score)| std::cmp::Reverse(score_order(*score)));
        let ranked_turns: Vec<&Turn> = ranked.iter().map(|(turn, _, _)| turn).collect();
        let other = all_turns(game.position())
            .into_iter()
            .find(|turn| !excluded.contains(turn) && !ranked_turns.contains(&turn))
            .map(|turn| (turn, rest));
        let best = match (visible.into_iter().next(), other) {
            (Some(top), Some(other)) if score_order(other.1) > score_order(top.1) => other,
            (Some(top), _) => top,
            (None, other) => other?,
        };
        Some(TurnEval {
            turn: best.0,
            score: best.1,
            nodes,
        })
    }

    fn reset(&mut self) {}
}
