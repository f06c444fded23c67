//! Texel's method for the evaluation's numbers ([`crate::engine::weights`]): positions from
//! self-play games, each with its game's result; the evaluation's win chance of a position is
//! `1 / (1 + 10^(-K·eval/400))`; the numbers that make the mean squared error between win
//! chances and results smallest are the tuned ones.
//!
//! - **The sample** ([`sample`]): positions of a game where the mover is not in check and
//!   the sub-move played next is quiet (no capture, no promotion): there the static
//!   evaluation is what the search would see at a leaf, and a capture in flight would only
//!   add noise. Both phases are kept: S1 and S2 positions differ by the tempo terms.
//! - **K** is fitted first, with the numbers as they are, by golden-section search.
//! - **The search** ([`tune`]) is Texel's local search: each number moved up, then down, by a
//!   step, kept where the error falls; the step halves when a whole round moves nothing.
//!   Bounded by its rounds.
//!
//! The positions are read as FEN with the result from White's side (`FEN;1`, `FEN;0.5`,
//! `FEN;0`), the format `tune gen` writes.

use std::fmt;

use crate::engine::eval::evaluate_with;
use crate::engine::ordering::is_tactical;
use crate::engine::weights::Weights;
use crate::rules::{Color, Game, Position, Rules};

/// A position and its game's result for White (1, 0.5 or 0).
#[derive(Clone, Copy, Debug)]
pub struct Labelled {
    pub position: Position,
    pub white_score: f64,
}

/// Why a line of a data file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {why}")]
pub struct DataError {
    pub line: usize,
    pub why: String,
}

/// Reads `FEN;result` lines (blank lines and `#` comments skipped).
pub fn parse(text: &str) -> Result<Vec<Labelled>, DataError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: String| DataError { line: i + 1, why };
        let (fen, result) = line
            .rsplit_once(';')
            .ok_or_else(|| bad("expected FEN;result".into()))?;
        let white_score = match result.trim() {
            "1" => 1.0,
            "0.5" => 0.5,
            "0" => 0.0,
            other => return Err(bad(format!("result '{other}': expected 1, 0.5 or 0"))),
        };
        let position =
            Position::from_fen(fen.trim(), Rules::Marseillais).map_err(|e| bad(e.to_string()))?;
        out.push(Labelled {
            position,
            white_score,
        });
    }
    Ok(out)
}

impl fmt::Display for Labelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{};{}", self.position.fen(), self.white_score)
    }
}

/// The positions of `game` worth a label (see the module's comment), with `white_score`.
pub fn sample(game: &Game, white_score: f64) -> Vec<Labelled> {
    game.replay()
        .filter(|(position, played)| !position.is_check() && !is_tactical(position, *played))
        .map(|(position, _)| Labelled {
            position,
            white_score,
        })
        .collect()
}

/// The evaluation for White.
fn white_eval(position: &Position, weights: &Weights) -> f64 {
    let eval = evaluate_with(position, weights);
    f64::from(match position.side_to_move() {
        Color::White => eval,
        Color::Black => -eval,
    })
}

fn win_chance(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// The mean squared error of `weights` over `data` at scale `k`, on every core (the tuner
/// computes it a few hundred times a round).
pub fn error(data: &[Labelled], weights: &Weights, k: f64) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum_of = |chunk: &[Labelled]| -> f64 {
        chunk
            .iter()
            .map(|d| {
                let miss = d.white_score - win_chance(k, white_eval(&d.position, weights));
                miss * miss
            })
            .sum()
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = data.len().div_ceil(threads).max(1);
    let sum: f64 = std::thread::scope(|scope| {
        let parts: Vec<_> = data
            .chunks(chunk)
            .map(|part| scope.spawn(move || sum_of(part)))
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .sum()
    });
    sum / data.len() as f64
}

/// The K in (0.1, 3) that makes the error of `weights` smallest (golden-section search; the
/// error is unimodal in K).
pub fn fit_k(data: &[Labelled], weights: &Weights) -> f64 {
    let evals: Vec<(f64, f64)> = data
        .iter()
        .map(|d| (white_eval(&d.position, weights), d.white_score))
        .collect();
    let err = |k: f64| {
        evals
            .iter()
            .map(|&(e, r)| (r - win_chance(k, e)).powi(2))
            .sum::<f64>()
    };
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.1, 3.0);
    for _ in 0..60 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if err(a) < err(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// One round's report.
#[derive(Clone, Copy, Debug)]
pub struct Round {
    pub round: u32,
    pub step: i32,
    pub error: f64,
    pub moved: usize,
}

/// Texel's local search from `start`: at most `rounds` rounds, steps from `first_step` down
/// to 1. `on_round` sees each round. Returns the tuned numbers.
pub fn tune(
    data: &[Labelled],
    start: &Weights,
    k: f64,
    first_step: i32,
    rounds: u32,
    mut on_round: impl FnMut(&Round),
) -> Weights {
    let mut best = start.clone();
    let mut best_error = error(data, &best, k);
    let count = best.clone().numbers().len();
    let mut step = first_step.max(1);
    for round in 1..=rounds {
        let mut moved = 0;
        for index in 0..count {
            for delta in [step, -step] {
                let mut trial = best.clone();
                *trial.numbers()[index] += delta;
                if !sane(&trial) {
                    continue;
                }
                let e = error(data, &trial, k);
                if e < best_error {
                    best_error = e;
                    best = trial;
                    moved += 1;
                    break;
                }
            }
        }
        on_round(&Round {
            round,
            step,
            error: best_error,
            moved,
        });
        if moved == 0 {
            if step == 1 {
                break;
            }
            step /= 2;
        }
    }
    best
}

/// What the search must not produce: a piece worth nothing, a negative attack weight.
pub fn sane(w: &Weights) -> bool {
    w.material.iter().all(|&(m, e)| m > 0 && e > 0)
        && w.attack_now.iter().chain(&w.attack_next).all(|&u| u >= 0)
        && w.danger_many >= 0
        && w.danger_one >= 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(lines: &str) -> Vec<Labelled> {
        parse(lines).expect("data")
    }

    #[test]
    fn a_data_line_is_a_fen_and_a_result_and_bad_lines_are_named() {
        let d = data("# made by tune gen\n4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1;1\n\n");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].white_score, 1.0);
        assert_eq!(parse(&d[0].to_string()).expect("round trip").len(), 1);
        let bad = parse("4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1;2").expect_err("result");
        assert_eq!(bad.line, 1);
        assert!(parse("x;1").is_err());
        assert!(parse("no result").is_err());
    }

    #[test]
    fn k_is_the_scale_with_the_least_error() {
        // A rook up wins, a rook down loses, bare kings draw (scored the tempo up): the fitted
        // K beats a flatter and a sharper curve.
        let d = data(
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1;1\n\
             r3k3/8/8/8/8/8/8/4K3 w - - 0 1 1;0\n\
             4k3/8/8/8/8/8/8/4K3 w - - 0 1 1;0.5",
        );
        let w = Weights::DEFAULT;
        let k = fit_k(&d, &w);
        assert!((0.1..3.0).contains(&k), "{k}");
        for other in [k / 2.0, k * 1.5] {
            assert!(
                error(&d, &w, k) < error(&d, &w, other),
                "{k} against {other}"
            );
        }
    }

    #[test]
    fn the_local_search_moves_a_number_toward_the_results_and_never_up_the_error() {
        // A rook up draws, in every position: the rook's worth must fall.
        let d = data(
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1;0.5\n\
             r3k3/8/8/8/8/8/8/4K3 b - - 0 1 1;0.5",
        );
        let start = Weights::DEFAULT;
        let before = error(&d, &start, 1.0);
        let mut errors = Vec::new();
        let tuned = tune(&d, &start, 1.0, 64, 6, |r| errors.push(r.error));
        assert!(tuned.material[3].1 < start.material[3].1);
        assert!(errors.windows(2).all(|w| w[1] <= w[0]));
        assert!(error(&d, &tuned, 1.0) < before);
    }

    #[test]
    fn only_quiet_positions_out_of_check_are_sampled() {
        let mut game = Game::new(Position::initial());
        for mv in ["e2e4", "d7d5", "a7a6", "e4d5"] {
            game.play(mv.parse().expect("uci")).expect("legal");
        }
        // e2e4 (quiet), d7d5 (quiet), a7a6 (quiet), e4d5 (a capture: left out).
        let sampled = sample(&game, 0.5);
        assert_eq!(sampled.len(), 3);
    }
}
