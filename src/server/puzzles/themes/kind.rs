//! What the generator was looking for when it found a puzzle: the detectors of the puzzle's
//! shape read it.

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
