//! Judgements and accuracy of a game analysis (issue 31; docs/analysis.md, "Accuracy"): the
//! additive `accuracy` and `judgements` of the `done` line of `POST /api/analysis` and
//! `GET /api/games/{id}/analysis`. Pure: numbers in, numbers out.
//!
//! Lichess's formulas (lila `WinPercent`, `AccuracyPercent`, `Advice`), on Marseillais TURNS
//! (a turn is one or two sub-moves: a player's decision is the whole turn):
//! - winning chances of a centipawn number, from -1 to 1: `2 / (1 + exp(-0.00368208 * cp)) - 1`,
//!   `cp` clamped to ±1000 (a mate counts as ±1000); win% = `50 + 50 * chances`;
//! - a turn's accuracy from the mover's win% before and after it:
//!   `103.1668100711649 * exp(-0.04354415386753951 * (before - after)) - 3.166924740191411`,
//!   plus 1 (lichess's bonus for imperfect analysis), within 0..100; 100 when the turn gained;
//! - a player's game accuracy: the mean of (a) the mean of their turns' accuracies weighted by
//!   the volatility around each turn (the standard deviation of the win% in a window of
//!   `turns / 10` positions, from 2 to 8, each weight within 0.5..12) and (b) their harmonic
//!   mean;
//! - a turn's judgement from the mover's loss of winning chances over the whole turn: at least
//!   0.1 an inaccuracy, 0.2 a mistake, 0.3 a blunder.

use serde::Serialize;

use crate::rules::Color;
use crate::server::play::protocol::Side;

/// Lichess's slope of winning chances per centipawn.
const MULTIPLIER: f64 = 0.00368208;
/// Centipawn numbers beyond this count as this (a mate too).
const CP_CEILING: i32 = 1_000;

/// Winning chances of White for a White-relative number, from -1 to 1.
pub fn winning_chances(white: i32) -> f64 {
    let cp = f64::from(white.clamp(-CP_CEILING, CP_CEILING));
    2.0 / (1.0 + (-MULTIPLIER * cp).exp()) - 1.0
}

/// White's win% (0..100) for a White-relative number.
pub fn win_percent(white: i32) -> f64 {
    50.0 + 50.0 * winning_chances(white)
}

/// The accuracy (0..100) of a turn that took the mover's win% from `before` to `after`.
pub fn turn_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    let raw = 103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * (before - after)).exp()
        - 3.166_924_740_191_411;
    (raw + 1.0).clamp(0.0, 100.0)
}

/// How bad a turn was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

/// The judgement of a loss of winning chances (the mover's, -1..1 scale), if it is one.
pub fn judge(loss: f64) -> Option<Judgement> {
    if loss >= 0.3 {
        Some(Judgement::Blunder)
    } else if loss >= 0.2 {
        Some(Judgement::Mistake)
    } else if loss >= 0.1 {
        Some(Judgement::Inaccuracy)
    } else {
        None
    }
}

/// What the analysis found at one position, as the review needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionEval {
    /// 0 is the start; `k` follows the record's `k`-th sub-move.
    pub ply: usize,
    /// The White-relative number (±(10000 - n) for a mate).
    pub white: i32,
    pub side: Color,
    /// A turn starts here (or the record starts here).
    pub turn_start: bool,
    pub number: u32,
    /// The best turn from here, in UCI and SAN.
    pub best: Vec<String>,
    pub best_san: Vec<String>,
}

/// One turn judged: `ply` is the ply of its last sub-move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnJudgement {
    pub ply: usize,
    pub number: u32,
    pub color: Side,
    pub judgement: Judgement,
    /// The mover's loss of winning chances over the turn, rounded to 0.01.
    pub loss: f64,
    pub best: Vec<String>,
    pub best_san: Vec<String>,
}

/// Each player's accuracy, `null` for a player with no turn.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Accuracy {
    pub white: Option<f64>,
    pub black: Option<f64>,
}

/// The review a `done` line carries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    pub accuracy: Accuracy,
    pub judgements: Vec<TurnJudgement>,
}

/// One turn of the record: from a turn start to the next (or to the last position).
struct Turn<'a> {
    start: &'a PositionEval,
    end: &'a PositionEval,
}

fn turns(positions: &[PositionEval]) -> Vec<Turn<'_>> {
    let starts: Vec<usize> = positions
        .iter()
        .enumerate()
        .filter(|(index, p)| *index == 0 || p.turn_start)
        .map(|(index, _)| index)
        .collect();
    let mut turns = Vec::new();
    for (k, &from) in starts.iter().enumerate() {
        let to = starts.get(k + 1).copied().unwrap_or(positions.len() - 1);
        if to > from {
            turns.push(Turn {
                start: &positions[from],
                end: &positions[to],
            });
        }
    }
    turns
}

/// The mover's view of White's number.
fn for_mover(white: f64, mover: Color) -> f64 {
    match mover {
        Color::White => white,
        Color::Black => -white,
    }
}

fn round(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

/// The judgements and accuracies of an analysed record (its positions in order).
pub fn review(positions: &[PositionEval]) -> Review {
    if positions.is_empty() {
        return Review {
            accuracy: Accuracy {
                white: None,
                black: None,
            },
            judgements: Vec::new(),
        };
    }
    let turns = turns(positions);
    let mut judgements = Vec::new();
    for turn in &turns {
        let mover = turn.start.side;
        let before = for_mover(winning_chances(turn.start.white), mover);
        let after = for_mover(winning_chances(turn.end.white), mover);
        let loss = before - after;
        if let Some(judgement) = judge(loss) {
            judgements.push(TurnJudgement {
                ply: turn.end.ply,
                number: turn.start.number,
                color: Side::from(mover),
                judgement,
                loss: round(loss, 2),
                best: turn.start.best.clone(),
                best_san: turn.start.best_san.clone(),
            });
        }
    }
    Review {
        accuracy: game_accuracy(&turns),
        judgements,
    }
}

/// Population standard deviation.
fn standard_deviation(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt()
}

/// Lichess's game accuracy over the turns (`AccuracyPercent.gameAccuracy`).
fn game_accuracy(turns: &[Turn<'_>]) -> Accuracy {
    let Some(first) = turns.first() else {
        return Accuracy {
            white: None,
            black: None,
        };
    };
    // White's win% at each turn boundary: before the first turn, then after each.
    let mut wins = vec![win_percent(first.start.white)];
    wins.extend(turns.iter().map(|t| win_percent(t.end.white)));
    let window = (turns.len() / 10).clamp(2, 8);
    let first_window = &wins[..window.min(wins.len())];
    let mut windows: Vec<&[f64]> = vec![first_window; window.min(wins.len()).saturating_sub(2)];
    if wins.len() <= window {
        windows.push(&wins[..]);
    } else {
        windows.extend(wins.windows(window));
    }
    let weights: Vec<f64> = windows
        .iter()
        .map(|w| standard_deviation(w).clamp(0.5, 12.0))
        .collect();
    let mut by_side: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for ((turn, pair), weight) in turns.iter().zip(wins.windows(2)).zip(weights) {
        let mover = turn.start.side;
        let (before, after) = match mover {
            Color::White => (pair[0], pair[1]),
            Color::Black => (100.0 - pair[0], 100.0 - pair[1]),
        };
        by_side[usize::from(mover == Color::Black)].push((turn_accuracy(before, after), weight));
    }
    let side = |turns: &[(f64, f64)]| -> Option<f64> {
        if turns.is_empty() {
            return None;
        }
        let weight: f64 = turns.iter().map(|(_, w)| w).sum();
        let weighted = turns.iter().map(|(a, w)| a * w).sum::<f64>() / weight;
        let inverse: f64 = turns.iter().map(|(a, _)| 1.0 / a).sum();
        let harmonic = turns.len() as f64 / inverse;
        Some(round((weighted + harmonic) / 2.0, 1))
    };
    Accuracy {
        white: side(&by_side[0]),
        black: side(&by_side[1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn win_percent_is_lichess_curve_on_known_values() {
        assert!(close(win_percent(0), 50.0, 1e-9));
        // 2 / (1 + e^-0.368208) - 1 = 0.18206...
        assert!(
            close(win_percent(100), 59.103, 0.001),
            "{}",
            win_percent(100)
        );
        assert!(close(win_percent(-100), 40.897, 0.001));
        assert!(
            close(win_percent(300), 75.113, 0.001),
            "{}",
            win_percent(300)
        );
        // Clamped at 1000 centipawns: a mate is 1000.
        assert!(close(win_percent(9_999), win_percent(1_000), 1e-12));
        assert!(
            close(win_percent(1_000), 97.545, 0.001),
            "{}",
            win_percent(1_000)
        );
    }

    #[test]
    fn turn_accuracy_is_lichess_formula_with_its_bonus() {
        assert_eq!(turn_accuracy(50.0, 50.0), 100.0);
        assert_eq!(turn_accuracy(40.0, 60.0), 100.0, "a gain is perfect");
        // 103.1668 e^(-0.435442) - 3.1669 + 1 = 64.580
        assert!(
            close(turn_accuracy(60.0, 50.0), 64.580, 0.001),
            "{}",
            turn_accuracy(60.0, 50.0)
        );
        assert!(close(turn_accuracy(100.0, 0.0), 0.0, 1e-9));
    }

    #[test]
    fn judgements_follow_lichess_thresholds_on_winning_chances() {
        assert_eq!(judge(0.09), None);
        assert_eq!(judge(0.1), Some(Judgement::Inaccuracy));
        assert_eq!(judge(0.2), Some(Judgement::Mistake));
        assert_eq!(judge(0.29), Some(Judgement::Mistake));
        assert_eq!(judge(0.3), Some(Judgement::Blunder));
        assert_eq!(judge(-0.5), None, "a gain");
    }

    fn at(ply: usize, white: i32, side: Color, turn_start: bool, number: u32) -> PositionEval {
        PositionEval {
            ply,
            white,
            side,
            turn_start,
            number,
            best: vec!["e2e4".into()],
            best_san: vec!["e4".into()],
        }
    }

    #[test]
    fn a_turn_is_judged_over_both_its_sub_moves_at_the_ply_of_its_last() {
        use Color::{Black, White};
        // 1. e4 (single) then Black's two sub-moves lose 600 cp (S1 looked fine).
        let positions = [
            at(0, 30, White, true, 1),
            at(1, 30, Black, true, 1),
            at(2, 20, Black, false, 1),
            at(3, 600, White, true, 2),
        ];
        let review = review(&positions);
        assert_eq!(review.judgements.len(), 1, "{review:?}");
        let j = &review.judgements[0];
        assert_eq!((j.ply, j.number, j.color), (3, 1, Side::Black));
        assert_eq!(j.judgement, Judgement::Blunder);
        assert!(close(
            j.loss,
            winning_chances(600) - winning_chances(30),
            0.006
        ));
        assert_eq!(j.best_san, ["e4"]);
        assert_eq!(review.accuracy.white, Some(100.0));
        let black = review.accuracy.black.unwrap();
        assert!(black < 30.0, "{black}");
    }

    #[test]
    fn game_accuracy_is_the_mean_of_the_weighted_and_harmonic_means() {
        use Color::{Black, White};
        // Four turns: White keeps 50%, Black's first turn gives White 100 cp (win% 59.1).
        let positions = [
            at(0, 0, White, true, 1),
            at(1, 0, Black, true, 1),
            at(3, 100, White, true, 2),
            at(5, 100, Black, true, 2),
            at(7, 100, White, true, 3),
        ];
        let review = review(&positions);
        assert_eq!(review.accuracy.white, Some(100.0));
        // Windows of 2 (4 turns / 10, at least 2) over the win% [50, 50, 59.1, 59.1, 59.1]:
        // deviations 0, 4.55, 0, 0, so weights 0.5, 4.55, 0.5, 0.5 (0.5 the floor).
        let w = win_percent(100);
        let bad = turn_accuracy(50.0, 100.0 - w);
        let volatility = (w - 50.0) / 2.0;
        let weighted = (bad * volatility + 100.0 * 0.5) / (volatility + 0.5);
        let harmonic = 2.0 / (1.0 / bad + 1.0 / 100.0);
        let expected = ((weighted + harmonic) / 2.0 * 10.0).round() / 10.0;
        assert_eq!(
            review.accuracy.black,
            Some(expected),
            "{bad} {weighted} {harmonic}"
        );
        // Black's loss of 0.18 winning chances is an inaccuracy.
        assert_eq!(review.judgements.len(), 1);
        assert_eq!(review.judgements[0].judgement, Judgement::Inaccuracy);
        assert_eq!(review.judgements[0].ply, 3);
    }

    #[test]
    fn a_player_without_a_turn_has_no_accuracy() {
        let review = review(&[at(0, 0, Color::White, true, 1)]);
        assert_eq!(
            review.accuracy,
            Accuracy {
                white: None,
                black: None
            }
        );
        assert!(review.judgements.is_empty());
    }
}
