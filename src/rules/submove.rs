//! A sub-move: one orthodox chess move inside a Marseillais turn, and its
//! UCI text form (`e2e4`, `a7a8q`, castling as the king's two-square step `e1g1`).

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayString;

use super::{Piece, Square};

/// One orthodox move. Whether it is legal depends on a [`super::Position`];
/// this type only guarantees that it names two real squares and, if any, a
/// piece a pawn may promote to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SubMove {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Piece>,
}

/// An upper bound on the legal sub-moves of ANY position the FEN reader
/// accepts, which places any number of pieces (only one king each and no
/// pawn on a back rank): 486. Reachable chess positions have at most 218
/// legal moves, but the reader does not limit material, and crowded FENs
/// from hostile clients have 263 (`tests/rules/move_list.rs`), which
/// overflowed the 256 this list once held and panicked the server.
///
/// The argument, one square at a time:
/// - A non-knight sub-move (king step, castling, pawn push, double step or
///   capture, en passant, bishop, rook or queen move) goes from `from` to
///   `to` along one of the 8 directions with every square between them
///   empty. So `from` is the first piece met looking from `to` back along
///   that direction: each `to` is reached by at most one piece per direction
///   in which it has a neighbour, `rays(to)` (3 in a corner, 5 on an edge,
///   8 inside), and only if `to` does not hold a piece of the mover.
/// - A knight sub-move starts on a square that holds a knight of the
///   mover, and each knight has `knight(from)` targets (2 to 8).
/// - So every square counts either as a target of non-knight moves (not the
///   mover's) or as the start of knight moves (the mover's), never both, and
///   the (from, to) pairs number at most the sum over the 64 squares of
///   `max(rays, knight)` = 420.
/// - A promotion turns one (from, to) pair into four sub-moves. Such pairs
///   reach the last rank from the rank before it, at most 3 per target
///   square (2 in a corner): 22 pairs, 3 × 22 = 66 extra sub-moves.
///
/// 420 + 66 = 486, computed below from the board's geometry so that the
/// number and the argument cannot drift apart.
pub const MAX_LEGAL_SUBMOVES: usize = max_legal_submoves();

const fn max_legal_submoves() -> usize {
    const KNIGHT: [(i32, i32); 8] = [
        (1, 2),
        (2, 1),
        (2, -1),
        (1, -2),
        (-1, -2),
        (-2, -1),
        (-2, 1),
        (-1, 2),
    ];
    const RAYS: [(i32, i32); 8] = [
        (0, 1),
        (1, 1),
        (1, 0),
        (1, -1),
        (0, -1),
        (-1, -1),
        (-1, 0),
        (-1, 1),
    ];
    const fn on_board(file: i32, rank: i32) -> bool {
        file >= 0 && file < 8 && rank >= 0 && rank < 8
    }
    const fn count(file: i32, rank: i32, steps: &[(i32, i32); 8]) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < 8 {
            if on_board(file + steps[i].0, rank + steps[i].1) {
                n += 1;
            }
            i += 1;
        }
        n
    }
    let mut pairs = 0;
    let mut promotion_pairs = 0;
    let mut square = 0;
    while square < 64 {
        let (file, rank) = (square % 8, square / 8);
        let rays = count(file, rank, &RAYS);
        let knight = count(file, rank, &KNIGHT);
        pairs += if rays > knight { rays } else { knight };
        if rank == 7 {
            // From the seventh rank: straight down and both diagonals.
            promotion_pairs += 1 + on_board(file - 1, 6) as usize + on_board(file + 1, 6) as usize;
        }
        square += 1;
    }
    // The same pairs exist for Black on the first rank, but only one side
    // moves at a time.
    pairs + 3 * promotion_pairs
}

/// The legal sub-moves of one position. A fixed-capacity list (no
/// allocation on the perft hot path) sized by [`MAX_LEGAL_SUBMOVES`], so
/// that no accepted position can overflow it.
pub type SubMoveList = arrayvec::ArrayVec<SubMove, MAX_LEGAL_SUBMOVES>;

impl SubMove {
    pub const fn new(from: Square, to: Square) -> Self {
        SubMove {
            from,
            to,
            promotion: None,
        }
    }

    pub const fn promoting(from: Square, to: Square, piece: Piece) -> Self {
        SubMove {
            from,
            to,
            promotion: Some(piece),
        }
    }
}

/// Why a string is not a UCI sub-move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UciError {
    #[error("a sub-move is 4 or 5 characters such as e2e4 or a7a8q, got {0} characters")]
    Length(usize),
    #[error("'{0}' is not a square")]
    Square(String),
    #[error("'{0}' is not a promotion piece (q, r, b or n)")]
    Promotion(char),
}

impl FromStr for SubMove {
    type Err = UciError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let chars: Vec<char> = s.chars().collect();
        if chars.len() != 4 && chars.len() != 5 {
            return Err(UciError::Length(chars.len()));
        }
        let square = |a: char, b: char| -> Result<Square, UciError> {
            let text: String = [a, b].iter().collect();
            text.parse().map_err(|_| UciError::Square(text))
        };
        let from = square(chars[0], chars[1])?;
        let to = square(chars[2], chars[3])?;
        let promotion = match chars.get(4) {
            None => None,
            Some(&c) => Some(match c.to_ascii_lowercase() {
                'q' => Piece::Queen,
                'r' => Piece::Rook,
                'b' => Piece::Bishop,
                'n' => Piece::Knight,
                _ => return Err(UciError::Promotion(c)),
            }),
        };
        Ok(SubMove {
            from,
            to,
            promotion,
        })
    }
}

impl SubMove {
    /// The UCI text (`e2e4`, `a7a8q`), built without the formatting machinery: the server
    /// writes the legal list of each position it sends, some thirty sub-moves a message, and
    /// `write!` through serde's `collect_str` cost about 2 % of its CPU at saturation.
    pub fn uci(&self) -> ArrayString<5> {
        let mut text = ArrayString::new();
        for square in [self.from, self.to] {
            text.push(char::from(b'a' + square.file() as u8));
            text.push(char::from(b'1' + square.rank() as u8));
        }
        if let Some(piece) = self.promotion {
            text.push(char::from(piece));
        }
        text
    }
}

impl fmt::Display for SubMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.uci())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_move_list_bound_is_420_pairs_plus_66_promotion_extras() {
        assert_eq!(MAX_LEGAL_SUBMOVES, 420 + 66);
    }

    #[test]
    fn the_uci_text_names_every_square_and_each_promotion_piece() {
        for from in Square::ALL {
            for to in [Square::A1, Square::H8, Square::E4] {
                let mv = SubMove {
                    from,
                    to,
                    promotion: None,
                };
                assert_eq!(mv.uci().as_str(), format!("{from}{to}"));
            }
        }
        for (piece, letter) in [
            (Piece::Queen, 'q'),
            (Piece::Rook, 'r'),
            (Piece::Bishop, 'b'),
            (Piece::Knight, 'n'),
        ] {
            let mv = SubMove {
                from: Square::A7,
                to: Square::A8,
                promotion: Some(piece),
            };
            assert_eq!(mv.uci().as_str(), format!("a7a8{letter}"));
        }
    }

    #[test]
    fn uci_round_trips_plain_and_promotion_moves() {
        for text in ["e2e4", "a7a8q", "h2h1n", "e1g1"] {
            let mv: SubMove = text.parse().unwrap();
            assert_eq!(mv.to_string(), text);
        }
    }

    #[test]
    fn uci_rejects_bad_text_with_a_reason() {
        assert_eq!("e2e".parse::<SubMove>(), Err(UciError::Length(3)));
        assert_eq!(
            "i2e4".parse::<SubMove>(),
            Err(UciError::Square("i2".into()))
        );
        assert_eq!("a7a8k".parse::<SubMove>(), Err(UciError::Promotion('k')));
        assert!("é2e4".parse::<SubMove>().is_err());
    }
}
