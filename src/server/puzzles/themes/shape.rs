//! The themes of the puzzle as a whole: what the generator found it as (defence, advantage,
//! crushing), the game's phase at the solver's start, and the line's length.

use super::super::line::PuzzleLine;
use super::super::theme::Theme;
use super::kind::PuzzleKind;
use crate::rules::{Piece, Position};

/// The rise in the solver's winning chances (lichess's curve, -1 to 1) from which an advantage
/// is crushing: 0.8 is what going from an equal position to about +6 pawns gains
/// (`2 / (1 + exp(-0.00368208 * 600)) - 1` = 0.80), the 6 pawns of lichess's `crushing`.
pub const CRUSHING_GAIN: f64 = 0.8;

/// lila's `Divider`: the endgame starts when both sides together have this many queens, rooks,
/// bishops and knights or fewer.
const ENDGAME_PIECES: u32 = 6;

/// lila's `Divider`: the middlegame starts when they are this many or fewer.
const MIDDLEGAME_PIECES: u32 = 10;

/// The opening ends after this full move at the latest.
const OPENING_LAST_FULLMOVE: u32 = 10;

/// The kind's theme, the phase and the length.
pub fn themes(line: &PuzzleLine, kind: PuzzleKind, win_chance_gain: f64) -> Vec<Theme> {
    let mut themes = Vec::new();
    match kind {
        PuzzleKind::Mate => {}
        PuzzleKind::Defence => themes.push(Theme::Defence),
        PuzzleKind::Advantage if win_chance_gain >= CRUSHING_GAIN => themes.push(Theme::Crushing),
        PuzzleKind::Advantage => themes.push(Theme::Advantage),
    }
    themes.push(phase(line.solver_start()));
    match line.solver_turns() {
        1 => themes.push(Theme::Short),
        turns if turns >= 3 => themes.push(Theme::Long),
        _ => {}
    }
    themes
}

/// The game's phase in a position.
pub fn phase(position: &Position) -> Theme {
    let board = position.board();
    let pieces: u32 = [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen]
        .into_iter()
        .map(|piece| board.pieces(piece).len())
        .sum();
    if pieces <= ENDGAME_PIECES {
        Theme::Endgame
    } else if pieces > MIDDLEGAME_PIECES && position.fullmove_number() <= OPENING_LAST_FULLMOVE {
        Theme::Opening
    } else {
        Theme::Middlegame
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    const DOUBLE: &str = "6k1/5pp1/1n5p/4b3/8/8/4QPPP/R2R2K1 b - - 0 20";

    fn position(fen: &str) -> Position {
        Position::from_fen(fen, Rules::Marseillais).unwrap()
    }

    #[test]
    fn the_phase_is_opening_early_with_most_pieces_endgame_with_six_pieces_or_fewer() {
        // After 1. e4 e5,Nc6: all 14 pieces, fullmove 2.
        let opening = position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2 2");
        assert_eq!(phase(&opening), Theme::Opening);
        // The same pieces at move 11: a middlegame.
        let late = position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2 11");
        assert_eq!(phase(&late), Theme::Middlegame);
        // Queens, two rooks a side and a knight: 7 pieces, still a middlegame.
        let seven = position("r2q1rk1/5ppp/8/8/8/2N5/5PPP/R2Q1RK1 w - - 0 5");
        assert_eq!(phase(&seven), Theme::Middlegame);
        // Without the knight: 6, an endgame (early as it is).
        let six = position("r2q1rk1/5ppp/8/8/8/8/5PPP/R2Q1RK1 w - - 0 5");
        assert_eq!(phase(&six), Theme::Endgame);
    }

    #[test]
    fn an_advantage_is_crushing_from_a_gain_of_point_eight() {
        let line = PuzzleLine::parse(DOUBLE, "b6a4,e5d4 a1a4,d1d4").unwrap();
        let kind = |gain| themes(&line, PuzzleKind::Advantage, gain);
        assert!(kind(0.79).contains(&Theme::Advantage));
        assert!(!kind(0.79).contains(&Theme::Crushing));
        assert!(kind(0.8).contains(&Theme::Crushing));
        assert!(!kind(0.8).contains(&Theme::Advantage));
        let defence = themes(&line, PuzzleKind::Defence, 1.5);
        assert!(defence.contains(&Theme::Defence));
        assert!(!defence.contains(&Theme::Crushing));
        assert!(!themes(&line, PuzzleKind::Mate, 2.0).contains(&Theme::Crushing));
    }

    #[test]
    fn one_solver_turn_is_short_three_are_long_two_neither() {
        let short = PuzzleLine::parse(DOUBLE, "b6a4,e5d4 a1a4,d1d4").unwrap();
        assert!(themes(&short, PuzzleKind::Advantage, 0.7).contains(&Theme::Short));
        let two = PuzzleLine::parse(DOUBLE, "b6a4,e5d4 a1a4,d1d4 g8h7,h7g8 h2h3,g1h2").unwrap();
        let found = themes(&two, PuzzleKind::Advantage, 0.7);
        assert!(!found.contains(&Theme::Short) && !found.contains(&Theme::Long));
        let three = PuzzleLine::parse(
            DOUBLE,
            "b6a4,e5d4 a1a4,d1d4 g8h7,h7g8 h2h3,g1h2 g8h7,h7g8 h2g1,g1h2",
        )
        .unwrap();
        assert!(themes(&three, PuzzleKind::Advantage, 0.7).contains(&Theme::Long));
    }
}
