//! Zobrist keys, generated at compile time from a fixed seed so that hashes
//! are the same in every build (repetition keys may be stored).

use super::{Color, Piece, Square};

const fn splitmix(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn table<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut i = 0;
    while i < N {
        out[i] = splitmix(seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
        i += 1;
    }
    out
}

/// The piece keys by colour, piece and square: the same values, in the same
/// order, as the flat table of 768 they are made from (hashes must not
/// change), but indexed by the three enums, so that no index needs a bounds
/// check on the make-move path.
static PIECES: [[[u64; 64]; 6]; 2] = by_color_piece_square(table(1));

const fn by_color_piece_square(flat: [u64; 2 * 6 * 64]) -> [[[u64; 64]; 6]; 2] {
    let mut out = [[[0u64; 64]; 6]; 2];
    let mut i = 0;
    while i < 2 * 6 * 64 {
        out[i / (6 * 64)][i / 64 % 6][i % 64] = flat[i];
        i += 1;
    }
    out
}
static CASTLING: [u64; 16] = table(2);
static EP: [u64; 64] = table(3);
static PHASE: [u64; 3] = table(4);
const SIDE: u64 = splitmix(5);

#[inline]
pub fn piece(color: Color, piece: Piece, square: Square) -> u64 {
    PIECES[color as usize][piece as usize][square as usize]
}

#[inline]
pub fn castling(rights: u8) -> u64 {
    CASTLING[rights as usize & 15]
}

#[inline]
pub fn ep(square: Square) -> u64 {
    EP[square as usize]
}

#[inline]
pub fn phase(index: usize) -> u64 {
    PHASE[index]
}

#[inline]
pub fn side(color: Color) -> u64 {
    match color {
        Color::White => 0,
        Color::Black => SIDE,
    }
}
