//! Orthodox perft against the published values (chessprogramming.org "Perft
//! Results"). The move generator is shared with Marseillais, so these prove
//! the orthodox core: pins, checks, castling, promotion, en passant.

use marseillais::rules::perft::{perft, perft_bulk};
use marseillais::rules::{Position, Rules};

fn orthodox(fen: &str) -> Position {
    Position::from_fen(fen, Rules::Orthodox).expect("published FEN parses")
}

fn check(fen: &str, expected: &[u64]) {
    let position = orthodox(fen);
    for (depth, &nodes) in expected.iter().enumerate() {
        let depth = depth as u32 + 1;
        assert_eq!(perft_bulk(&position, depth), nodes, "{fen} depth {depth}");
    }
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POSITION_3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POSITION_4_MIRRORED: &str =
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1";
const POSITION_5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
const POSITION_6: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

#[test]
fn initial_position_matches_published_perft_to_depth_4() {
    let start = Position::initial_orthodox();
    for (depth, nodes) in [(1, 20), (2, 400), (3, 8_902), (4, 197_281)] {
        assert_eq!(perft(&start, depth), nodes, "depth {depth}");
    }
}

#[test]
#[ignore = "slow in debug builds; run by .ci/run in release"]
fn initial_position_matches_published_perft_at_depth_5() {
    assert_eq!(perft(&Position::initial_orthodox(), 5), 4_865_609);
}

#[test]
fn kiwipete_matches_published_perft_to_depth_3() {
    check(KIWIPETE, &[48, 2_039, 97_862]);
}

#[test]
#[ignore = "slow in debug builds; run by .ci/run in release"]
fn kiwipete_matches_published_perft_at_depth_4() {
    assert_eq!(perft(&orthodox(KIWIPETE), 4), 4_085_603);
}

#[test]
fn position_3_matches_published_perft_to_depth_5() {
    check(POSITION_3, &[14, 191, 2_812, 43_238, 674_624]);
}

#[test]
#[ignore = "slow in debug builds; run by .ci/run in release"]
fn position_3_matches_published_perft_at_depth_6() {
    assert_eq!(perft(&orthodox(POSITION_3), 6), 11_030_083);
}

#[test]
fn position_4_and_its_mirror_match_published_perft_to_depth_3() {
    check(POSITION_4, &[6, 264, 9_467]);
    check(POSITION_4_MIRRORED, &[6, 264, 9_467]);
}

#[test]
#[ignore = "slow in debug builds; run by .ci/run in release"]
fn position_4_matches_published_perft_at_depths_4_and_5() {
    assert_eq!(perft_bulk(&orthodox(POSITION_4), 4), 422_333);
    assert_eq!(perft(&orthodox(POSITION_4), 5), 15_833_292);
}

#[test]
fn position_5_matches_published_perft_to_depth_3() {
    check(POSITION_5, &[44, 1_486, 62_379]);
}

#[test]
#[ignore = "slow in debug builds; run by .ci/run in release"]
fn position_5_matches_published_perft_at_depth_4() {
    assert_eq!(perft(&orthodox(POSITION_5), 4), 2_103_487);
}

#[test]
fn position_6_matches_published_perft_to_depth_3() {
    check(POSITION_6, &[46, 2_079, 89_890]);
}

#[test]
#[ignore = "slow in debug builds; run by .ci/run in release"]
fn position_6_matches_published_perft_at_depth_4() {
    assert_eq!(perft(&orthodox(POSITION_6), 4), 3_894_594);
}

#[test]
fn full_make_move_perft_equals_bulk_counting() {
    let position = orthodox(KIWIPETE);
    assert_eq!(perft(&position, 3), perft_bulk(&position, 3));
}
