//! A puzzle's line: the position before the opponent's last turn and the turns from there, the
//! opponent's first, then the solver's and the opponent's replies, ending with a solver's turn.
//! Checked whole by the rules core when read, so that everything after (the judge, the themes,
//! the routes) works on legal turns only.
//!
//! Its text is the store's and the CSV's: turns separated by one space, the sub-moves of a turn
//! by a comma, each in UCI (`e2e4,d2d4 e7e5,d8h4`).

use crate::rules::{Color, FenError, Game, GameError, Position, Rules, SubMove, UciError};

/// The most turns a line may hold: the opponent's turn, then at most 4 turns of the solver and
/// their 3 replies (the issue: "the solution is 1 to 4 turns of the solver").
pub const MAX_TURNS: usize = 8;

/// Why a puzzle's text is not a puzzle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error("the FEN is not a position: {0}")]
    Fen(#[from] FenError),
    #[error("a puzzle starts at a turn start")]
    NotTurnStart,
    #[error("turn {turn}: '{text}' is not a sub-move: {error}")]
    Uci {
        turn: usize,
        text: String,
        error: UciError,
    },
    #[error("turn {turn}: {error}")]
    Illegal { turn: usize, error: GameError },
    #[error("turn {turn} has {got} sub-moves where the rules make it {expected}")]
    TurnLength {
        turn: usize,
        got: usize,
        expected: usize,
    },
    #[error("turn {turn} goes on after the game ended")]
    AfterEnd { turn: usize },
    #[error("a line is the opponent's turn and 1 to 4 of the solver's, got {0} turns")]
    Length(usize),
}

/// A checked puzzle line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PuzzleLine {
    start: Position,
    turns: Vec<Vec<SubMove>>,
    /// The position at the start of each turn, and after the last one (`turns.len() + 1`).
    turn_starts: Vec<Position>,
}

impl PuzzleLine {
    /// Reads and checks a puzzle: every turn legal and complete, an even number of turns after
    /// the opponent's first (so that the line ends with the solver's turn).
    pub fn parse(fen: &str, moves: &str) -> Result<PuzzleLine, LineError> {
        let start = Position::from_fen(fen, Rules::Marseillais)?;
        let mut turns = Vec::new();
        for (index, text) in moves.split(' ').enumerate() {
            let turn = index + 1;
            let submoves = text
                .split(',')
                .map(|uci| {
                    uci.parse::<SubMove>().map_err(|error| LineError::Uci {
                        turn,
                        text: uci.to_string(),
                        error,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            turns.push(submoves);
        }
        PuzzleLine::new(start, turns)
    }

    /// Checks a line made of values (the generator's).
    pub fn new(start: Position, turns: Vec<Vec<SubMove>>) -> Result<PuzzleLine, LineError> {
        if !start.is_turn_start() {
            return Err(LineError::NotTurnStart);
        }
        if turns.len() < 2 || turns.len() > MAX_TURNS || !turns.len().is_multiple_of(2) {
            return Err(LineError::Length(turns.len()));
        }
        let mut game = Game::new(start);
        let mut turn_starts = vec![start];
        for (index, turn) in turns.iter().enumerate() {
            let number = index + 1;
            if game.outcome().is_some() {
                return Err(LineError::AfterEnd { turn: number });
            }
            let mover = game.position().side_to_move();
            for (at, &mv) in turn.iter().enumerate() {
                if at > 0 && game.position().side_to_move() != mover {
                    return Err(LineError::TurnLength {
                        turn: number,
                        got: turn.len(),
                        expected: at,
                    });
                }
                if game.outcome().is_some() {
                    return Err(LineError::AfterEnd { turn: number });
                }
                game.play(mv).map_err(|error| LineError::Illegal {
                    turn: number,
                    error,
                })?;
            }
            let over = game.outcome().is_some();
            if !over && game.position().side_to_move() == mover {
                return Err(LineError::TurnLength {
                    turn: number,
                    got: turn.len(),
                    expected: turn.len() + 1,
                });
            }
            if over && index + 1 < turns.len() {
                return Err(LineError::AfterEnd { turn: number + 1 });
            }
            turn_starts.push(*game.position());
        }
        Ok(PuzzleLine {
            start,
            turns,
            turn_starts,
        })
    }

    /// The position before the opponent's last turn (the puzzle's FEN).
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// Every turn, the opponent's first.
    pub fn turns(&self) -> &[Vec<SubMove>] {
        &self.turns
    }

    /// The position at the start of turn `index` (0: the puzzle's FEN; `turns().len()`: after
    /// the last turn).
    pub fn turn_start(&self, index: usize) -> Option<&Position> {
        self.turn_starts.get(index)
    }

    /// The side that solves: the one to move after the opponent's turn.
    pub fn solver(&self) -> Color {
        !self.start.side_to_move()
    }

    /// The solver's first position (after the opponent's turn).
    pub fn solver_start(&self) -> &Position {
        &self.turn_starts[1]
    }

    /// How many turns the solver plays (1 to 4).
    pub fn solver_turns(&self) -> usize {
        self.turns.len() / 2
    }

    /// The turns after the opponent's first: the solution, replies included.
    pub fn solution(&self) -> &[Vec<SubMove>] {
        &self.turns[1..]
    }

    /// The line as the store and the CSV keep it.
    pub fn moves_text(&self) -> String {
        self.turns
            .iter()
            .map(|turn| {
                turn.iter()
                    .map(|mv| mv.uci().to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After 1. e4 e5,Nc6: White to move at a turn start.
    const FEN: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2 2";

    fn fen(pos: &Position) -> String {
        pos.fen()
    }

    #[test]
    fn a_line_reads_back_to_the_same_text() {
        let start = Position::from_fen(FEN, Rules::Marseillais).unwrap();
        let text = "d2d4,d4e5 c6e5,e5f3";
        let line = PuzzleLine::parse(&fen(&start), text).unwrap();
        assert_eq!(line.moves_text(), text);
        assert_eq!(line.solver(), Color::Black);
        assert_eq!(line.solver_turns(), 1);
        assert_eq!(line.solution().len(), 1);
        assert_eq!(line.solver_start().side_to_move(), Color::Black);
    }

    #[test]
    fn a_turn_with_one_submove_where_the_rules_want_two_is_refused() {
        let start = Position::from_fen(FEN, Rules::Marseillais).unwrap();
        assert!(matches!(
            PuzzleLine::parse(&fen(&start), "d2d4 c6e5,e5f3"),
            Err(LineError::TurnLength { turn: 1, .. })
        ));
    }

    #[test]
    fn a_second_submove_after_a_check_is_refused() {
        let start = Position::from_fen(
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR w KQkq - 0 3",
            Rules::Marseillais,
        )
        .unwrap();
        // Bxf7+ on S1 ends White's turn; Kxf7 then Nf6 is Black's.
        assert!(PuzzleLine::parse(&fen(&start), "c4f7 e8f7,g8f6").is_ok());
        let err = PuzzleLine::parse(&fen(&start), "c4f7,g1f3 e8f7,g8f6").unwrap_err();
        assert!(
            matches!(err, LineError::TurnLength { turn: 1, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn a_line_must_end_with_the_solvers_turn() {
        let start = Position::from_fen(FEN, Rules::Marseillais).unwrap();
        assert!(matches!(
            PuzzleLine::parse(&fen(&start), "d2d4,d4e5"),
            Err(LineError::Length(1))
        ));
    }

    #[test]
    fn garbage_is_a_typed_error_not_a_panic() {
        let start = Position::from_fen(FEN, Rules::Marseillais).unwrap();
        for moves in [
            "",
            ",",
            "e2e4,,e4e5 a",
            "zz99,e2e4 a7a6,a6a5",
            "e2e4,e4e5 e7e5,d8h4 x",
        ] {
            assert!(PuzzleLine::parse(&fen(&start), moves).is_err(), "{moves}");
        }
        assert!(PuzzleLine::parse("not a fen", "e2e4,e4e5 e7e5,d8h4").is_err());
    }
}
