//! A step's goal and how the rules core checks it: each goal is a condition on the learner's
//! turn (its sub-moves and the position when it ends), never a list of expected sub-moves, so
//! every way of reaching it is right.
//!
//! | goal | right when |
//! |---|---|
//! | [`Goal::Capture`] | every enemy piece on the named squares is gone when the turn ends |
//! | [`Goal::Reach`] | the learner's named pieces stand on the named squares when the turn ends |
//! | [`Goal::CheckFirst`] | the first sub-move gives check (and so ends the turn) |
//! | [`Goal::CaptureThenCheck`] | the named piece is taken and the second sub-move gives check |
//! | [`Goal::EnPassantTwice`] | two en-passant captures, the first on the named target |
//! | [`Goal::Castle`] | one of the sub-moves castles |
//! | [`Goal::Stalemate`] | the game ends by stalemate after the first sub-move |
//! | [`Goal::NoMateReply`] | no turn of the opponent that follows checkmates the learner |
//! | [`Goal::WonEnding`] | the opponent has only its king, and none of its turns takes a pawn of the learner |

use crate::rules::{Color, Outcome, Piece, Position, Square, SubMove, Termination};

use super::reason::Reason;

/// What a step asks of the learner's turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    Capture(&'static [Square]),
    Reach(&'static [(Piece, Square)]),
    CheckFirst,
    CaptureThenCheck(Square),
    /// `first` is the target square (where the capturing pawn lands) of the first capture.
    EnPassantTwice {
        first: Square,
    },
    Castle,
    Stalemate,
    NoMateReply,
    WonEnding,
}

impl Goal {
    /// The wire name of the goal's kind (the page words the goal from the step's own key).
    pub fn kind(self) -> &'static str {
        match self {
            Goal::Capture(_) => "capture",
            Goal::Reach(_) => "reach",
            Goal::CheckFirst => "check_first",
            Goal::CaptureThenCheck(_) => "capture_then_check",
            Goal::EnPassantTwice { .. } => "en_passant_twice",
            Goal::Castle => "castle",
            Goal::Stalemate => "stalemate",
            Goal::NoMateReply => "no_mate_reply",
            Goal::WonEnding => "won_ending",
        }
    }

    /// The squares the page marks on the board: the pieces to take or the squares to reach.
    pub fn marked_squares(self) -> Vec<Square> {
        match self {
            Goal::Capture(squares) => squares.to_vec(),
            Goal::Reach(pieces) => pieces.iter().map(|&(_, square)| square).collect(),
            Goal::CaptureThenCheck(square) => vec![square],
            Goal::EnPassantTwice { first } => vec![first],
            _ => Vec::new(),
        }
    }
}

/// The learner's turn so far: where it started and the sub-moves played, each with the
/// position it was played in.
pub struct Turn<'a> {
    pub start: &'a Position,
    pub played: &'a [(Position, SubMove)],
    /// The position now.
    pub now: &'a Position,
}

impl Turn<'_> {
    fn learner(&self) -> Color {
        self.start.side_to_move()
    }
}

/// A verdict reached before the turn ends (a wrong first sub-move that no second can mend).
pub fn early_wrong(goal: Goal, turn: &Turn<'_>) -> Option<Reason> {
    let [(before, first)] = turn.played else {
        return None;
    };
    match goal {
        Goal::CheckFirst if !turn.now.is_check() => Some(Reason::NoCheckFirst),
        Goal::EnPassantTwice { .. } if !before.is_en_passant(*first) => Some(Reason::RightsLapsed),
        Goal::EnPassantTwice { first: target } if first.to != target => Some(Reason::WrongOrder),
        _ => None,
    }
}

/// The verdict on a finished turn: `Ok` with the step's right reason's place taken by `()`, or
/// the reason it is wrong.
pub fn judge_turn(goal: Goal, turn: &Turn<'_>) -> Result<(), Reason> {
    let ended = turn.now.board_outcome();
    let stalemated = matches!(
        ended,
        Some(Outcome::Draw {
            reason: Termination::SecondMoveStalemate
        })
    );
    if goal == Goal::Stalemate {
        return if stalemated {
            Ok(())
        } else {
            Err(Reason::GameGoesOn)
        };
    }
    if stalemated {
        return Err(Reason::Stalemated);
    }
    let checked_early = turn.played.len() == 1 && turn.now.is_check();
    let missed = |reason: Reason| {
        if checked_early {
            Reason::CheckEndedTurn
        } else {
            reason
        }
    };
    let learner = turn.learner();
    let board = turn.now.board();
    match goal {
        Goal::Capture(squares) => {
            let taken = squares
                .iter()
                .all(|&square| board.color_on(square) != Some(!learner));
            if taken {
                Ok(())
            } else {
                Err(missed(Reason::MissedCapture))
            }
        }
        Goal::Reach(pieces) => {
            let there = pieces.iter().all(|&(piece, square)| {
                board.color_on(square) == Some(learner) && board.piece_on(square) == Some(piece)
            });
            if there {
                Ok(())
            } else {
                Err(missed(Reason::NotReached))
            }
        }
        Goal::CheckFirst => Ok(()),
        Goal::CaptureThenCheck(square) => {
            if board.color_on(square) == Some(!learner) {
                Err(missed(Reason::MissedCapture))
            } else if turn.played.len() == 2 && turn.now.is_check() {
                Ok(())
            } else {
                Err(missed(Reason::NoCheckSecond))
            }
        }
        Goal::EnPassantTwice { .. } => match turn.played {
            [_, (before, second)] if before.is_en_passant(*second) => Ok(()),
            _ => Err(missed(Reason::MissedSecondEnPassant)),
        },
        Goal::Castle => {
            if turn
                .played
                .iter()
                .any(|(before, mv)| before.is_castling(*mv))
            {
                Ok(())
            } else {
                Err(missed(Reason::NotCastled))
            }
        }
        Goal::Stalemate => Ok(()),
        Goal::NoMateReply => {
            if replies(turn.now).iter().any(|after| mates(after, learner)) {
                Err(Reason::MateThreatLeft)
            } else {
                Ok(())
            }
        }
        Goal::WonEnding => {
            let theirs = board.colored(!learner);
            if theirs != board.colored_pieces(!learner, Piece::King) {
                return Err(missed(Reason::TheyKeepPieces));
            }
            let pawns = board.colored_pieces(learner, Piece::Pawn).len();
            if replies(turn.now)
                .iter()
                .any(|after| after.board().colored_pieces(learner, Piece::Pawn).len() < pawns)
            {
                Err(Reason::PawnLost)
            } else {
                Ok(())
            }
        }
    }
}

/// Whether `position` is checkmate of `learner`.
fn mates(position: &Position, learner: Color) -> bool {
    matches!(
        position.board_outcome(),
        Some(Outcome::Win {
            winner,
            reason: Termination::Checkmate
        }) if winner != learner
    )
}

/// Every position the opponent's next turn can reach from `position` (the start of its turn),
/// after its first sub-move and after each second: a few hundred to a few thousand positions,
/// cheap for the rules core. A game already over has none.
fn replies(position: &Position) -> Vec<Position> {
    let mut out = Vec::new();
    if position.board_outcome().is_some() {
        return out;
    }
    let side = position.side_to_move();
    for first in position.legal_submoves() {
        let after = position.play_unchecked(first);
        out.push(after);
        if after.side_to_move() == side && after.board_outcome().is_none() {
            for second in after.legal_submoves() {
                out.push(after.play_unchecked(second));
            }
        }
    }
    out
}
