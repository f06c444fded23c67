//! Mate in N: the line ends in checkmate, N the solver's turns.

use super::super::judge::mates;
use super::super::line::PuzzleLine;
use super::super::theme::Theme;

/// `mate` and `mateInN` when the line's last position is the opponent checkmated.
pub fn themes(line: &PuzzleLine) -> Vec<Theme> {
    let Some(end) = line.turn_start(line.turns().len()) else {
        return Vec::new();
    };
    if !mates(end, line.solver()) {
        return Vec::new();
    }
    let mut themes = vec![Theme::Mate];
    themes.extend(Theme::mate_in(line.solver_turns()));
    themes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Black hangs two pieces, White takes them, Black plays b6,b5, White mates on d8.
    const MATE: &str = "6k1/1p3ppp/1n6/4b3/8/8/5PPP/R2R2K1 b - - 0 20";

    #[test]
    fn a_line_that_ends_in_checkmate_is_a_mate_in_its_solver_turns() {
        let line = PuzzleLine::parse(MATE, "b6a4,e5d4 a1a4,d1d4 b7b6,b6b5 d4d8").unwrap();
        assert_eq!(themes(&line), vec![Theme::Mate, Theme::MateIn2]);
    }

    #[test]
    fn a_mate_given_by_the_second_submove_is_a_mate_in_one() {
        // Rook takes the knight on b7, then mates on b8 (rules, worked case 6).
        let line =
            PuzzleLine::parse("7k/1n4pp/8/8/8/8/6K1/1R6 b - - 0 5", "h8g8,g8h8 b1b7,b7b8").unwrap();
        assert_eq!(themes(&line), vec![Theme::Mate, Theme::MateIn1]);
    }

    #[test]
    fn a_line_that_ends_in_check_only_is_no_mate() {
        // The same back rank with luft on h6: Ra8+ Kh7.
        let line = PuzzleLine::parse(
            "6k1/1p3pp1/1n5p/4b3/8/8/5PPP/R2R2K1 b - - 0 20",
            "b6a4,e5d4 a1a4,d1d4 b7b6,b6b5 d4d8",
        )
        .unwrap();
        assert!(themes(&line).is_empty());
    }
}
