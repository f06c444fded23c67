//! Replaying comma-PGN movetext on the rules engine: the one walk through a
//! record that both the tolerant import ([`super::read`]) and strict
//! validation ([`super::check`]) are built on.
//!
//! It stops at the first problem that makes the record unreadable (an
//! illegal sub-move, a broken turn structure, a variation) and notes,
//! without stopping, what only strict validation cares about
//! (over-disambiguation, check marks, move numbers, comma spacing). Import
//! ignores the notes; `pgn check` reports them.

use cozy_chess::Color;

use super::super::game::Game;
use super::super::position::{Phase, Position, Rules};
use super::super::san::{self, SanError};
use super::lex::{RawGame, Token};
use super::problem::{CheckReason, Problem};
use super::{Location, MoveError, PgnError};

/// What replaying one game's movetext gave.
pub(super) struct Replay {
    pub game: Game,
    /// Strict-only problems found on the way, in order.
    pub notes: Vec<Problem>,
    /// The problem that stopped the replay, if any.
    pub fatal: Option<PgnError>,
    /// Where the last sub-move stood (or the first one would, if none).
    pub last: Location,
}

/// A move number as written before a turn.
struct Number {
    number: u32,
    black: bool,
    bare: bool,
    text: String,
}

struct Replayer {
    game: Game,
    notes: Vec<Problem>,
    last: Location,
    /// The text of the previous turn, and whether it was White's.
    previous: Option<(String, Color)>,
}

pub(super) fn replay(raw: &RawGame) -> Replay {
    let start = match raw.tag("FEN") {
        Some(fen) => Position::from_fen(fen, Rules::Marseillais),
        None => Ok(Position::initial()),
    };
    let (start, header_error) = match (start, raw.header_error.clone()) {
        (_, Some(err)) => (Position::initial(), Some(err)),
        (Ok(position), None) => (position, None),
        (Err(err), None) => (Position::initial(), Some(PgnError::Fen(err))),
    };
    let mut replayer = Replayer {
        last: next_location(&start, raw.result_line.unwrap_or(1)),
        game: Game::new(start),
        notes: Vec::new(),
        previous: None,
    };
    let fatal = header_error.or_else(|| replayer.run(&raw.moves).err());
    Replay {
        game: replayer.game,
        notes: replayer.notes,
        fatal,
        last: replayer.last,
    }
}

/// Where the next sub-move of `position` stands.
fn next_location(position: &Position, line: usize) -> Location {
    Location {
        turn: position.fullmove_number(),
        side: position.side_to_move(),
        submove: if position.phase() == Phase::Second {
            2
        } else {
            1
        },
        line,
    }
}

impl Replayer {
    fn run(&mut self, tokens: &[Token]) -> Result<(), PgnError> {
        let mut number: Option<Number> = None;
        for token in tokens {
            match token {
                Token::MoveNumber {
                    number: n,
                    black,
                    bare,
                    text,
                    ..
                } => {
                    number = Some(Number {
                        number: *n,
                        black: *black,
                        bare: *bare,
                        text: text.clone(),
                    })
                }
                Token::Word { text, line, spaced } => {
                    let number = number.take();
                    self.notes_only_if_played(|r| r.play_turn(text, *line, *spaced, number))?;
                }
                Token::Variation { line } | Token::OpenParen { line } => {
                    return Err(self.error_here(*line, "(", MoveError::Variation));
                }
                Token::CloseParen { line } => {
                    return Err(self.error_here(*line, ")", MoveError::UnexpectedCloseParen));
                }
                Token::Error(err) | Token::TagError(err) => return Err(err.clone()),
                Token::Tag { .. } | Token::Result(..) | Token::Comment { .. } => {}
            }
        }
        Ok(())
    }

    fn error_here(&self, line: usize, token: &str, reason: MoveError) -> PgnError {
        PgnError::Move {
            at: next_location(self.game.position(), line),
            token: token.to_string(),
            reason,
        }
    }

    fn note(&mut self, at: Location, reason: CheckReason) {
        self.notes.push(Problem {
            at: Some(at),
            reason,
        });
    }

    /// Runs `play` (one turn's text); when it fails before even its first
    /// sub-move is played, the notes it made about the move number and
    /// commas are dropped: the text was probably not a turn at all, and the
    /// error says more.
    fn notes_only_if_played(
        &mut self,
        play: impl FnOnce(&mut Self) -> Result<(), PgnError>,
    ) -> Result<(), PgnError> {
        let notes_before = self.notes.len();
        let played_before = self.game.submove_count();
        let result = play(self);
        if result.is_err() && self.game.submove_count() == played_before {
            self.notes.truncate(notes_before);
        }
        result
    }

    /// Plays one turn's text (`e5,Nc6`, `e4`, `,gxf6`).
    fn play_turn(
        &mut self,
        text: &str,
        line: usize,
        spaced: bool,
        number: Option<Number>,
    ) -> Result<(), PgnError> {
        let start = *self.game.position();
        let side = start.side_to_move();
        let turn = start.fullmove_number();
        let first_index: u8 = if start.phase() == Phase::Second { 2 } else { 1 };
        let at = |submove: u8| Location {
            turn,
            side,
            submove,
            line,
        };
        let error = |submove: u8, token: &str, reason: MoveError| PgnError::Move {
            at: at(submove),
            token: token.to_string(),
            reason,
        };

        // The previous turn stopped after S1 although the game goes on.
        if let Some((previous, _)) = &self.previous
            && start.phase() == Phase::Second
            && self.game.outcome().is_none()
        {
            return Err(error(2, previous, MoveError::TurnIncomplete));
        }
        self.check_number(number, &start, at(first_index));
        if spaced {
            self.note(
                at(first_index),
                CheckReason::SpacedComma {
                    token: text.to_string(),
                },
            );
        }

        let mut parts: Vec<&str> = text.split(',').collect();
        if parts.len() > 1 && parts[0].is_empty() {
            if start.phase() != Phase::Second {
                return Err(error(first_index, text, MoveError::UnexpectedLeadingComma));
            }
            parts.remove(0);
        } else if start.phase() == Phase::Second {
            self.note(
                at(first_index),
                CheckReason::MissingLeadingComma {
                    token: text.to_string(),
                },
            );
        }

        // The position the previous sub-move of this turn was played from.
        let mut played_from: Option<Position> = None;
        for (offset, part) in parts.iter().enumerate() {
            let index = first_index.saturating_add(u8::try_from(offset).unwrap_or(u8::MAX));
            let before = *self.game.position();
            if let Some(outcome) = self.game.outcome() {
                return Err(error(index, part, MoveError::GameOver(outcome)));
            }
            if offset > 0 && before.phase() != Phase::Second {
                let reason = match played_from.map(|p| p.phase()) {
                    Some(Phase::Single) => MoveError::SingleSubMoveTurn,
                    Some(Phase::First) => MoveError::CheckEndsTurn,
                    _ => MoveError::TooManySubMoves,
                };
                return Err(error(index, part, reason));
            }
            if part.is_empty() {
                return Err(error(index, part, MoveError::EmptySubMove));
            }
            let (mv, issues) = san::parse_checked(&before, part)
                .map_err(|err| error(index, part, MoveError::San(err)))?;
            for issue in issues {
                self.note(at(index), CheckReason::San(issue));
            }
            self.game.play(mv).map_err(|_| {
                error(
                    index,
                    part,
                    MoveError::San(SanError::Illegal(part.to_string())),
                )
            })?;
            self.last = at(index);
            played_from = Some(before);
        }
        self.previous = Some((text.to_string(), side));
        Ok(())
    }

    /// Notes a move number that is missing or does not match the turn:
    /// `N.` before White's turn, `N...` before Black's. Black may omit it
    /// right after White's turn.
    fn check_number(&mut self, number: Option<Number>, start: &Position, at: Location) {
        let side = start.side_to_move();
        let expected = match side {
            Color::White => format!("{}.", start.fullmove_number()),
            Color::Black => format!("{}...", start.fullmove_number()),
        };
        match number {
            Some(n) => {
                if n.bare
                    || n.number != start.fullmove_number()
                    || n.black != (side == Color::Black)
                {
                    self.note(
                        at,
                        CheckReason::MoveNumber {
                            written: n.text,
                            expected,
                        },
                    );
                }
            }
            None => {
                let follows_white = matches!(self.previous, Some((_, Color::White)));
                if side == Color::White || !follows_white {
                    self.note(at, CheckReason::MissingMoveNumber { expected });
                }
            }
        }
    }
}
