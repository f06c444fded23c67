//! Winning chances: the engine's score mapped onto [-1, 1], the scale every threshold of the
//! generator is on (a jump of 0.6, a margin of 0.7). A centipawn difference means little on its
//! own: +300 against +800 is one won position against another, +0 against +300 is a game
//! turned. The curve is lichess's (lichess-puzzler `generator/util.py`, `win_chances`:
//! `2 / (1 + exp(-0.00368208 * cp)) - 1`, its multiplier from lila pull request 11148, fitted
//! on lichess games), so that the thresholds borrowed from its generator keep their meaning.
//! Our engine's centipawns are not Stockfish's (its minor pieces and queen are worth a little
//! more, docs/engine.md), close enough for thresholds this coarse.

use crate::engine::Score;

/// lichess's multiplier (lichess-puzzler `generator/util.py`, from lila PR 11148).
pub const MULTIPLIER: f64 = -0.003_682_08;

/// The winning chances of a score in centipawns, for the side it is counted for: -1 (lost) to
/// 1 (won), 0 for an equal position.
pub fn from_cp(cp: i32) -> f64 {
    2.0 / (1.0 + (MULTIPLIER * f64::from(cp)).exp()) - 1.0
}

/// The winning chances of an engine score: a mate for the side is 1, a mate against it -1
/// (lichess counts any mate as certain, however far).
pub fn win_chance(score: Score) -> f64 {
    match score {
        Score::Cp(cp) => from_cp(cp),
        Score::Mate(n) if n > 0 => 1.0,
        Score::Mate(_) => -1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn an_equal_position_is_zero() {
        assert_eq!(from_cp(0), 0.0);
    }

    #[test]
    fn the_curve_gives_lichess_values() {
        // 2 / (1 + exp(-0.00368208 * cp)) - 1, computed by hand.
        assert!(close(from_cp(100), 0.182_052), "{}", from_cp(100));
        assert!(close(from_cp(300), 0.502_251), "{}", from_cp(300));
        assert!(close(from_cp(-300), -0.502_251), "{}", from_cp(-300));
        assert!(close(from_cp(1000), 0.950_895), "{}", from_cp(1000));
    }

    #[test]
    fn the_curve_is_odd_and_bounded() {
        for cp in [-20_000, -5000, -1, 1, 37, 5000, 20_000] {
            let w = from_cp(cp);
            assert!((-1.0..=1.0).contains(&w));
            assert!(close(w, -from_cp(-cp)));
        }
        assert!(from_cp(200) > from_cp(199));
    }

    #[test]
    fn a_mate_is_certain_either_way() {
        assert_eq!(win_chance(Score::Mate(3)), 1.0);
        assert_eq!(win_chance(Score::Mate(-2)), -1.0);
        assert!(close(win_chance(Score::Cp(300)), from_cp(300)));
    }
}
