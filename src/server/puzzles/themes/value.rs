//! What the detectors ask of a board: piece values, what a piece attacks, whether a piece is
//! defended or stands where it can be taken for less, the material balance. lichess-puzzler's
//! `util.py` (cook.py's helpers), on our rules core.

use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves,
};

use crate::rules::{BitBoard, Board, Color, Piece, Position, Square};

/// lichess-puzzler's `king_values`: the usual values, the king above everything (so that a
/// piece attacking the king and another attacks two pieces worth more than itself).
pub fn value(piece: Piece) -> u32 {
    match piece {
        Piece::Pawn => 1,
        Piece::Knight | Piece::Bishop => 3,
        Piece::Rook => 5,
        Piece::Queen => 9,
        Piece::King => 99,
    }
}

/// The squares the piece on `square` attacks, on the board as it stands.
pub fn attacks(board: &Board, square: Square) -> BitBoard {
    let (Some(piece), Some(color)) = (board.piece_on(square), board.color_on(square)) else {
        return BitBoard::EMPTY;
    };
    let occupied = board.occupied();
    match piece {
        Piece::Pawn => get_pawn_attacks(square, color),
        Piece::Knight => get_knight_moves(square),
        Piece::Bishop => get_bishop_moves(square, occupied),
        Piece::Rook => get_rook_moves(square, occupied),
        Piece::Queen => get_bishop_moves(square, occupied) | get_rook_moves(square, occupied),
        Piece::King => get_king_moves(square),
    }
}

/// The pieces of `by` that attack `square`.
pub fn attackers(position: &Position, square: Square, by: Color) -> BitBoard {
    position.attackers(square, by, position.board().occupied())
}

/// Whether the piece on `square` is defended by its own side, directly or behind an enemy
/// slider that attacks it (cook.py's "ray defence": the slider takes, the defender retakes).
pub fn is_defended(position: &Position, square: Square) -> bool {
    let board = position.board();
    let Some(color) = board.color_on(square) else {
        return false;
    };
    if !attackers(position, square, color).is_empty() {
        return true;
    }
    let sliders =
        board.pieces(Piece::Bishop) | board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
    (attackers(position, square, !color) & sliders)
        .into_iter()
        .any(|slider| {
            !position
                .attackers(square, color, board.occupied() - slider.bitboard())
                .is_empty()
        })
}

/// cook.py's `is_in_bad_spot`: the piece on `square` is attacked, and undefended or attacked by
/// a piece worth less.
pub fn is_in_bad_spot(position: &Position, square: Square) -> bool {
    let board = position.board();
    let (Some(piece), Some(color)) = (board.piece_on(square), board.color_on(square)) else {
        return false;
    };
    let enemies = attackers(position, square, !color);
    !enemies.is_empty()
        && (!is_defended(position, square)
            || enemies.into_iter().any(|enemy| {
                board
                    .piece_on(enemy)
                    .is_some_and(|enemy| value(enemy) < value(piece))
            }))
}

/// The value of what `color` has on the board (kings left out).
pub fn material(board: &Board, color: Color) -> u32 {
    [
        Piece::Pawn,
        Piece::Knight,
        Piece::Bishop,
        Piece::Rook,
        Piece::Queen,
    ]
    .into_iter()
    .map(|piece| board.colored_pieces(color, piece).len() * value(piece))
    .sum()
}

/// `color`'s material less its opponent's.
pub fn balance(board: &Board, color: Color) -> i64 {
    i64::from(material(board, color)) - i64::from(material(board, !color))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn position(fen: &str) -> Position {
        Position::from_fen(fen, Rules::Marseillais).unwrap()
    }

    #[test]
    fn a_piece_behind_an_enemy_slider_counts_as_defended() {
        // The white rook on d3 attacks the black knight on d5; the black rook on d1 behind it
        // retakes on d5.
        let pos = position("6k1/8/8/3n4/8/3R4/7K/3r4 w - - 0 20");
        assert!(is_defended(&pos, Square::D5));
        // Without the black rook, the knight hangs.
        let pos = position("6k1/8/8/3n4/8/3R4/7K/8 w - - 0 20");
        assert!(!is_defended(&pos, Square::D5));
        // A direct defender: the queen on d8.
        let pos = position("3q2k1/8/8/3n4/8/3R4/7K/8 w - - 0 20");
        assert!(is_defended(&pos, Square::D5));
    }

    #[test]
    fn a_piece_attacked_by_a_cheaper_one_is_in_a_bad_spot_even_defended() {
        // The white rook on e5 is defended by the d4 pawn and attacked by the f6 pawn.
        let pos = position("6k1/8/5p2/4R3/3P4/8/8/6K1 b - - 0 20");
        assert!(is_in_bad_spot(&pos, Square::E5));
        // A knight on e5 defended by d4 and attacked by a rook on e8 is fine.
        let pos = position("4r1k1/8/8/4N3/3P4/8/8/6K1 b - - 0 20");
        assert!(!is_in_bad_spot(&pos, Square::E5));
    }

    #[test]
    fn the_balance_counts_values_without_kings() {
        let pos = position("3q2k1/8/8/3n4/8/8/P7/3R2K1 w - - 0 20");
        assert_eq!(material(pos.board(), Color::White), 6);
        assert_eq!(material(pos.board(), Color::Black), 12);
        assert_eq!(balance(pos.board(), Color::Black), 6);
    }
}
