//! The themes of a puzzle, found by detectors on its line.

use super::line::PuzzleLine;
use super::theme::Theme;

/// What the generator was looking for when it found the puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PuzzleKind {
    /// The line ends in checkmate.
    Mate,
    /// The solver's turn wins an advantage.
    Advantage,
    /// The solver's turn is the only one that saves the game.
    Defence,
}

/// Every theme of a puzzle, sorted and deduplicated. `win_chance_gain` is the gain in the
/// solver's winning chances (0 to 1) that the generator measured for the line.
pub fn tag(line: &PuzzleLine, kind: PuzzleKind, win_chance_gain: f64) -> Vec<Theme> {
    let _ = (line, kind, win_chance_gain);
    Vec::new()
}
