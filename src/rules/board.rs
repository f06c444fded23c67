//! Piece placement: which piece of which colour stands on each square.

use super::{BitBoard, Color, Piece, Square};

/// Placement only; the turn state lives in [`super::Position`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    colors: [BitBoard; 2],
    pieces: [BitBoard; 6],
}

impl Board {
    pub const fn empty() -> Self {
        Board {
            colors: [BitBoard::EMPTY; 2],
            pieces: [BitBoard::EMPTY; 6],
        }
    }

    /// The orthodox initial placement.
    pub fn standard() -> Self {
        let mut board = Board::empty();
        let back = [
            Piece::Rook,
            Piece::Knight,
            Piece::Bishop,
            Piece::Queen,
            Piece::King,
            Piece::Bishop,
            Piece::Knight,
            Piece::Rook,
        ];
        for (file, &piece) in back.iter().enumerate() {
            board.put(Square::index(file), Color::White, piece);
            board.put(Square::index(8 + file), Color::White, Piece::Pawn);
            board.put(Square::index(48 + file), Color::Black, Piece::Pawn);
            board.put(Square::index(56 + file), Color::Black, piece);
        }
        board
    }

    #[inline]
    pub fn occupied(&self) -> BitBoard {
        self.colors[0] | self.colors[1]
    }

    #[inline]
    pub fn colored(&self, color: Color) -> BitBoard {
        self.colors[color as usize]
    }

    #[inline]
    pub fn pieces(&self, piece: Piece) -> BitBoard {
        self.pieces[piece as usize]
    }

    #[inline]
    pub fn colored_pieces(&self, color: Color, piece: Piece) -> BitBoard {
        self.colors[color as usize] & self.pieces[piece as usize]
    }

    /// The piece on `square`, read branch-free as the three bits of its
    /// index (`Piece::ALL` order: pawn 0, knight 1, bishop 2, rook 3, queen
    /// 4, king 5) instead of testing up to six bitboards one by one: this
    /// runs twice per sub-move played, on the perft hot path.
    #[inline]
    pub fn piece_on(&self, square: Square) -> Option<Piece> {
        if !self.occupied().has(square) {
            return None;
        }
        let shift = square as u32;
        let bit = |board: BitBoard| ((board.0 >> shift) & 1) as usize;
        let p = &self.pieces;
        let index = bit(p[1] | p[3] | p[5]) | bit(p[2] | p[3]) << 1 | bit(p[4] | p[5]) << 2;
        Piece::try_index(index)
    }

    #[inline]
    pub fn color_on(&self, square: Square) -> Option<Color> {
        if self.colors[0].has(square) {
            Some(Color::White)
        } else if self.colors[1].has(square) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The king of `color`, if there is exactly one.
    pub fn king(&self, color: Color) -> Option<Square> {
        let kings = self.colored_pieces(color, Piece::King);
        if kings.len() == 1 {
            kings.next_square()
        } else {
            None
        }
    }

    /// Puts a piece on an empty square.
    #[inline]
    pub fn put(&mut self, square: Square, color: Color, piece: Piece) {
        self.colors[color as usize] |= square.bitboard();
        self.pieces[piece as usize] |= square.bitboard();
    }

    /// Moves a piece of `color` from `from` to the empty square `to`,
    /// arriving as `placed` (the promotion piece, or `moved` itself).
    #[inline]
    pub fn relocate(
        &mut self,
        from: Square,
        to: Square,
        color: Color,
        moved: Piece,
        placed: Piece,
    ) {
        self.colors[color as usize] ^= from.bitboard() | to.bitboard();
        self.pieces[moved as usize] ^= from.bitboard();
        self.pieces[placed as usize] ^= to.bitboard();
    }

    /// Removes whatever stands on `square`.
    #[inline]
    pub fn remove(&mut self, square: Square, color: Color, piece: Piece) {
        self.colors[color as usize] &= !square.bitboard();
        self.pieces[piece as usize] &= !square.bitboard();
    }
}
