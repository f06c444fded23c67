//! The endings that can be judged from one position alone (`docs/rules.md` section 3):
//! checkmate, the two stalemates, insufficient material and the 75-move rule. Endings that need
//! the game's history (repetition, claims) are in [`super::game`]; what an ending is, in
//! [`super::outcome`].

use cozy_chess::{BitBoard, Color, Piece};

use super::outcome::{Outcome, Termination};
use super::position::{Phase, Position};
use super::submove::SubMove;

impl Position {
    /// The ending this position shows on its own, if any: checkmate and the
    /// two stalemates first, then (only at the start of a turn) insufficient
    /// material and the 75-move rule. Fivefold repetition needs the history.
    pub fn board_outcome(&self) -> Option<Outcome> {
        self.board_outcome_given(&self.legal_submoves())
    }

    /// [`Position::board_outcome`] given this position's own legal sub-moves,
    /// so that a caller that needs the list anyway (`Position::play`)
    /// generates it once.
    pub(crate) fn board_outcome_given(&self, legal: &[SubMove]) -> Option<Outcome> {
        if legal.is_empty() {
            return Some(if self.phase == Phase::Second {
                Outcome::Draw {
                    reason: Termination::SecondMoveStalemate,
                }
            } else if self.is_check() {
                Outcome::Win {
                    winner: !self.side,
                    reason: Termination::Checkmate,
                }
            } else {
                Outcome::Draw {
                    reason: Termination::Stalemate,
                }
            });
        }
        if !self.is_turn_start() {
            return None;
        }
        if self.is_insufficient_material() {
            return Some(Outcome::Draw {
                reason: Termination::InsufficientMaterial,
            });
        }
        if self.halfmove >= 150 {
            return Some(Outcome::Draw {
                reason: Termination::SeventyFiveMoveRule,
            });
        }
        None
    }

    /// The automatic draw of rules section 3: only kings; K+N v K; K+B v K;
    /// any number of bishops all on one colour and nothing else.
    pub fn is_insufficient_material(&self) -> bool {
        let board = &self.board;
        let kings = board.pieces(Piece::King);
        let bishops = board.pieces(Piece::Bishop);
        let knights = board.pieces(Piece::Knight);
        let others = board.occupied() - kings;
        if others.is_empty() {
            return true;
        }
        if others == knights && knights.len() == 1 {
            return true;
        }
        others == bishops && on_one_colour(bishops)
    }

    /// Whether `color` could still checkmate by some series of legal moves,
    /// for a flag fall (rules 3: a time-out against a side that cannot mate
    /// is a draw). Conservative: it says "cannot" only when that is certain.
    pub fn can_checkmate(&self, color: Color) -> bool {
        let board = &self.board;
        let mine = board.colored(color) - board.pieces(Piece::King);
        let theirs = board.colored(!color) - board.pieces(Piece::King);
        if mine.is_empty() {
            return false;
        }
        let knights = board.pieces(Piece::Knight) & mine;
        let bishops = board.pieces(Piece::Bishop) & mine;
        // A lone knight mates only when an enemy piece other than a queen
        // can block the king's last flight square (the rule lichess uses).
        if mine == knights && knights.len() == 1 {
            return !(theirs - board.pieces(Piece::Queen)).is_empty();
        }
        // Bishops all on one colour need an enemy piece that can stand on
        // the other colour to block a flight square (a pawn, a knight or a
        // bishop of the other colour).
        if mine == bishops && on_one_colour(bishops) {
            let blockers = theirs
                & (board.pieces(Piece::Pawn)
                    | board.pieces(Piece::Knight)
                    | board.pieces(Piece::Bishop));
            let other_colour = if (bishops & BitBoard::DARK_SQUARES).is_empty() {
                BitBoard::DARK_SQUARES
            } else {
                BitBoard::LIGHT_SQUARES
            };
            let opposite_bishops = theirs & board.pieces(Piece::Bishop) & other_colour;
            return !(blockers & (board.pieces(Piece::Pawn) | board.pieces(Piece::Knight)))
                .is_empty()
                || !opposite_bishops.is_empty();
        }
        true
    }
}

fn on_one_colour(squares: BitBoard) -> bool {
    (squares & BitBoard::DARK_SQUARES).is_empty() || (squares & BitBoard::LIGHT_SQUARES).is_empty()
}
