//! A sub-move: one orthodox chess move inside a Marseillais turn, and its
//! UCI text form (`e2e4`, `a7a8q`, castling as the king's two-square step `e1g1`).

use std::fmt;
use std::str::FromStr;

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

/// At most 218 legal moves exist in any chess position; 256 leaves room.
pub type SubMoveList = arrayvec::ArrayVec<SubMove, 256>;

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

impl fmt::Display for SubMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(piece) = self.promotion {
            write!(f, "{}", char::from(piece))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
