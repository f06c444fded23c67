//! The themes of a puzzle, found by detectors on its checked line (pure: the generator calls
//! [`tag`] once per puzzle it keeps). Each detector is a function of the line, after
//! lichess-puzzler's `cook.py` where lichess has the theme, adapted to two sub-moves a turn.
//!
//! | theme | the line is tagged when | where |
//! |---|---|---|
//! | `mate`, `mateInN` | it ends in checkmate; N = the solver's turns (1 to 4) | [`mate`] |
//! | `doubleCapture` | one solver turn captures on both sub-moves, the two taken worth 4 or more (two pawns never count) and the solver's material at the line's end at least 2 above where that turn started (not given back) | [`capture`] |
//! | `fork` | a solver sub-move (not the line's last) puts a piece other than the king where it attacks two or more of the opponent's pieces other than pawns, each worth more than it (the king counts 99) or undefended and not attacking it; a turn-ending sub-move must not leave it in a bad spot (attacked and undefended, or attacked by a cheaper piece); and the forking piece's next sub-move takes one of them (the opponent has two sub-moves to save two pieces, so a fork counts when it is cashed) | [`fork`] |
//! | `discoveredAttack` | a solver sub-move (not castling) leaves a line so that a bishop, rook or queen behind it attacks the king (a discovered check), or attacks a piece other than a pawn worth more than it or undefended, which that slider's next sub-move takes | [`discovered`] |
//! | `promotion` | a solver sub-move promotes | [`special`] |
//! | `enPassant` | a solver sub-move takes en passant (always across sub-moves: rules section 2) | [`special`] |
//! | `checkEndsTurn` | at some solver turn where the line does not check on S1, the solver has a tempting checking S1 that does not mate: one that captures, or whose checking piece also attacks a piece other than a pawn worth more than it or undefended (a forking check). The check would end the turn after one sub-move; the line keeps both | [`special`] |
//! | `defence` | the generator found it as the only turn that saves the game ([`PuzzleKind::Defence`]) | [`shape`] |
//! | `advantage`, `crushing` | found as a winning turn ([`PuzzleKind::Advantage`]): `crushing` when the solver's winning chances (lichess's curve, -1 to 1) rose by [`CRUSHING_GAIN`] or more, else `advantage` | [`shape`] |
//! | `opening`, `middlegame`, `endgame` | at the solver's start, the queens, rooks, bishops and knights of both sides number 6 or fewer: `endgame` (lila's `Divider`); else fullmove 10 or less with more than 10 of them: `opening`; else `middlegame` | [`shape`] |
//! | `short`, `long` | one solver turn; three or more | [`shape`] |

mod capture;
mod discovered;
mod fork;
mod kind;
mod mate;
mod shape;
mod solver;
mod special;
mod value;

use super::line::PuzzleLine;
use super::theme::Theme;
use solver::{SolverSubMove, solver_submoves};

pub use kind::PuzzleKind;
pub use shape::CRUSHING_GAIN;

/// Every theme of a puzzle, sorted and deduplicated. `win_chance_gain` is how much the solver's
/// winning chances rose (lichess's curve, -1 to 1, so 0 to 2), as the generator measured it.
pub fn tag(line: &PuzzleLine, kind: PuzzleKind, win_chance_gain: f64) -> Vec<Theme> {
    let moves = solver_submoves(line);
    let mut themes = mate::themes(line);
    themes.extend(shape::themes(line, kind, win_chance_gain));
    let detectors: [(Theme, Detector); 6] = [
        (Theme::DoubleCapture, capture::double_capture),
        (Theme::Fork, fork::fork),
        (Theme::DiscoveredAttack, discovered::discovered_attack),
        (Theme::Promotion, special::promotion),
        (Theme::EnPassant, special::en_passant),
        (Theme::CheckEndsTurn, special::check_ends_turn),
    ];
    themes.extend(
        detectors
            .into_iter()
            .filter(|(_, found)| found(&moves))
            .map(|(theme, _)| theme),
    );
    themes.sort();
    themes.dedup();
    themes
}

/// A detector of one theme on the solver's sub-moves.
type Detector = fn(&[SolverSubMove]) -> bool;

#[cfg(test)]
mod tests {
    use super::*;

    /// Black hangs a knight and a bishop; White's rooks take both (see `capture`'s tests).
    const DOUBLE: &str = "6k1/5pp1/1n5p/4b3/8/8/4QPPP/R2R2K1 b - - 0 20";

    #[test]
    fn the_themes_are_sorted_and_each_once() {
        let line = PuzzleLine::parse(DOUBLE, "b6a4,e5d4 a1a4,d1d4").unwrap();
        let themes = tag(&line, PuzzleKind::Advantage, 0.65);
        let mut sorted = themes.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(themes, sorted);
        assert!(themes.contains(&Theme::DoubleCapture), "{themes:?}");
        assert!(themes.contains(&Theme::Advantage), "{themes:?}");
        assert!(themes.contains(&Theme::Short), "{themes:?}");
        // Two rooks and a queen against a knight and a bishop: 5 pieces.
        assert!(themes.contains(&Theme::Endgame), "{themes:?}");
        assert!(!themes.contains(&Theme::Mate), "{themes:?}");
    }

    #[test]
    fn the_solvers_submoves_are_walked_with_their_turns() {
        let line = PuzzleLine::parse(
            "6k1/1p3ppp/1n6/4b3/8/8/5PPP/R2R2K1 b - - 0 20",
            "b6a4,e5d4 a1a4,d1d4 b7b6,b6b5 d4d8",
        )
        .unwrap();
        let moves = solver_submoves(&line);
        let seen: Vec<_> = moves
            .iter()
            .map(|m| (m.turn, m.at, m.submove.to_string(), m.ends_turn))
            .collect();
        assert_eq!(
            seen,
            vec![
                (1, 0, "a1a4".to_string(), false),
                (1, 1, "d1d4".to_string(), true),
                (3, 0, "d4d8".to_string(), true),
            ]
        );
        assert!(moves[2].after.is_check());
        assert_eq!(moves[0].line_end, moves[2].after);
    }
}
