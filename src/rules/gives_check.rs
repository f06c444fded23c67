//! Whether a sub-move gives check, asked before it is played: the engine's pruning skips late
//! quiet sub-moves except those that give check, and making each one to find out was most of
//! what late-move pruning cost in nodes per second.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves,
};

use super::position::Position;
use super::{Piece, SubMove};

impl Position {
    /// Whether the opponent's king stands attacked after the legal sub-move `mv`: the same
    /// answer as `self.play_unchecked(mv).is_check()`. Castling and en passant (each moves a
    /// second piece) are played to find out; any other sub-move is read off the board: the
    /// piece placed on `to` attacks the king itself, or a slider of ours sees the king through
    /// the square `mv` left.
    pub fn gives_check(&self, mv: SubMove) -> bool {
        let board = self.board();
        let us = self.side_to_move();
        let Some(king) = board.king(!us) else {
            return false;
        };
        let Some(moved) = board.piece_on(mv.from) else {
            return false;
        };
        if self.is_castling(mv) || self.is_en_passant(mv) {
            return self.play_unchecked(mv).is_check();
        }
        let occupied = (board.occupied() ^ mv.from.bitboard()) | mv.to.bitboard();
        let direct = match mv.promotion.unwrap_or(moved) {
            Piece::Pawn => get_pawn_attacks(king, !us),
            Piece::Knight => get_knight_moves(king),
            Piece::Bishop => get_bishop_moves(king, occupied),
            Piece::Rook => get_rook_moves(king, occupied),
            Piece::Queen => get_bishop_moves(king, occupied) | get_rook_moves(king, occupied),
            Piece::King => get_king_moves(king),
        };
        if direct.has(mv.to) {
            return true;
        }
        let others = board.colored(us) ^ mv.from.bitboard();
        let diagonal = (board.pieces(Piece::Bishop) | board.pieces(Piece::Queen)) & others;
        let straight = (board.pieces(Piece::Rook) | board.pieces(Piece::Queen)) & others;
        !(get_bishop_moves(king, occupied) & diagonal).is_empty()
            || !(get_rook_moves(king, occupied) & straight).is_empty()
    }
}
