//! The search's node, tested from inside: what a node lists and what it scores when it returns
//! early (the search's results as a whole are tested in tests/engine/).

use std::sync::atomic::AtomicBool;

use super::*;
use crate::engine::features::Features;
use crate::engine::ordering::Heuristics;
use crate::engine::tt::{Bound, Tt};
use crate::rules::generations::{generations, reset};
use crate::rules::{Position, Rules};

fn position(fen: &str) -> Position {
    Position::from_fen(fen, Rules::Marseillais).expect("a valid FEN")
}

/// Searches `pos` as a node at ply 1 (not the root) with the window `(alpha, beta)` and the
/// default techniques, from `tt`; answers its score and the generations it ran.
fn node(tt: &mut Tt, pos: &Position, depth: i32, alpha: i32, beta: i32) -> (i32, u64, u64) {
    let mut heur = Heuristics::default();
    let stop = AtomicBool::new(false);
    let mut search = Search::new(
        tt,
        &mut heur,
        &stop,
        None,
        None,
        0,
        0,
        Features::default(),
        vec![0],
    );
    reset();
    let score = search.negamax(pos, depth, 1, alpha, beta);
    let counted = generations();
    (score, counted.full, counted.any)
}

#[test]
fn a_node_the_table_cuts_lists_no_submoves() {
    let pos = position("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
    let mut tt = Tt::new(1);
    tt.store(pos.hash(), 1, None, 37, 6, Bound::Exact);
    let (score, full, any) = node(&mut tt, &pos, 4, 0, 1);
    assert_eq!((score, full, any), (37, 0, 0));
}

#[test]
fn a_node_reverse_futility_cuts_asks_only_whether_a_submove_exists() {
    // White a queen up, far above a low beta: cut on the static score.
    let pos = position("4k3/8/8/8/8/8/8/3QK3 w - - 0 40");
    let (score, full, any) = node(&mut Tt::new(1), &pos, 2, -2001, -2000);
    assert!(score >= -2000, "cut at or above beta, got {score}");
    assert_eq!((full, any), (0, 1));
}

#[test]
fn a_stalemate_where_reverse_futility_would_cut_scores_the_draw_not_the_evaluation() {
    // Black to move has no legal sub-move and is not in check: stalemate, 0, though the
    // static score (a queen down) is far above this window's beta.
    let pos = position("k7/8/1Q6/8/8/8/8/K7 b - - 0 40");
    assert!(!pos.has_legal_submove() && !pos.is_check());
    let (score, _, _) = node(&mut Tt::new(1), &pos, 2, -5001, -5000);
    assert_eq!(score, 0);
}

#[test]
fn a_second_move_stalemate_where_reverse_futility_would_cut_scores_the_draw() {
    // White's S2 (the FEN's last field): the king on a1 has no square and nothing else moves,
    // the second-move stalemate, 0, though a queen down is far above this window's beta.
    let pos = position("k7/8/8/8/8/1q6/8/K7 w - - 0 40 2");
    assert!(pos.phase() == Phase::Second && !pos.has_legal_submove() && !pos.is_check());
    let (score, _, _) = node(&mut Tt::new(1), &pos, 2, -5001, -5000);
    assert_eq!(score, 0);
}
