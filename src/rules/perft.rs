//! Perft: the number of sequences of exactly `depth` legal sub-moves
//! (`docs/rules.md` section 6). A position where the game has ended on the
//! board has no children; draws by rule do not stop perft, and neither does
//! anything else, because the move generator alone decides.

use super::movegen::PieceMoveList;
use super::position::Position;
use super::submove::SubMove;

/// Counts leaf nodes by making every move down to depth 0 (no bulk counting
/// at the last ply, so the figure measures the whole make-move path).
pub fn perft(position: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    // Generated in place and read by reference: returning the list from
    // `legal_submoves` or moving it into an iterator copies all of it.
    let mut list = PieceMoveList::new();
    position.generate_with_pieces(&mut list);
    for &(mv, moved) in &list {
        let mut child = *position;
        child.play_in_place_moved(mv, moved);
        if depth == 1 {
            // A leaf: counted here rather than by a call that only returns
            // 1 (the call's prologue, sized for a move list, cost more than
            // a tenth of the node). `black_box` keeps the leaf's make-move
            // from being optimized away: it is still done at every node.
            std::hint::black_box(&child);
            nodes += 1;
        } else {
            nodes += perft(&child, depth - 1);
        }
    }
    nodes
}

/// The same count using the move list length at the last ply; faster, and a
/// cross-check of [`perft`].
pub fn perft_bulk(position: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => position.legal_submoves().len() as u64,
        _ => position
            .legal_submoves()
            .into_iter()
            .map(|mv| perft_bulk(&position.play_unchecked(mv), depth - 1))
            .sum(),
    }
}

/// Perft split by first sub-move, sorted by the UCI text of the sub-move.
pub fn divide(position: &Position, depth: u32) -> Vec<(SubMove, u64)> {
    let mut rows: Vec<(SubMove, u64)> = position
        .legal_submoves()
        .into_iter()
        .map(|mv| {
            let nodes = perft_bulk(&position.play_unchecked(mv), depth.saturating_sub(1));
            (mv, nodes)
        })
        .collect();
    rows.sort_by_key(|(mv, _)| mv.to_string());
    rows
}
