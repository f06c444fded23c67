//! Marseillais perft (`docs/rules.md` section 6): the initial position, the
//! positions of `tests/data/marseillais_perft.tsv` (en passant across
//! sub-moves, check ending the turn, castling and promotion at either
//! sub-move, stalemate after S1, phase `2` and `s` FENs), hand-counted divides,
//! an independent reference implementation, and the CLI's `perft` output.

use crate::reference;
use crate::support;

use marseillais::rules::perft::{divide, perft, perft_bulk};
use marseillais::rules::{Position, Rules};
use support::process::run;

const DATA: &str = include_str!("../data/marseillais_perft.tsv");

/// One row of the data file.
struct Row {
    fen: &'static str,
    depth: u32,
    nodes: u64,
    slow: bool,
}

fn rows() -> Vec<Row> {
    DATA.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|(i, line)| {
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() != 3 && fields.len() != 4 {
                bad_line(i, line);
            }
            Row {
                fen: fields[0],
                depth: fields[1].parse().unwrap_or_else(|_| bad_line(i, line)),
                nodes: fields[2].parse().unwrap_or_else(|_| bad_line(i, line)),
                slow: match fields.get(3) {
                    None => false,
                    Some(&"slow") => true,
                    Some(_) => bad_line(i, line),
                },
            }
        })
        .collect()
}

fn bad_line(index: usize, line: &str) -> ! {
    panic!(
        "tests/data/marseillais_perft.tsv line {}: expected FEN<TAB>depth<TAB>nodes[<TAB>slow], got {line:?}",
        index + 1
    )
}

fn position(fen: &str) -> Position {
    fen.parse()
        .unwrap_or_else(|err| panic!("data FEN {fen} parses: {err}"))
}

fn check_rows(slow: bool) {
    let rows: Vec<Row> = rows().into_iter().filter(|row| row.slow == slow).collect();
    assert!(!rows.is_empty());
    for row in rows {
        let start = position(row.fen);
        assert_eq!(
            perft_bulk(&start, row.depth),
            row.nodes,
            "{} depth {}",
            row.fen,
            row.depth
        );
    }
}

#[test]
fn initial_position_matches_orthodox_perft_to_depth_4() {
    // Up to depth 4 (W, BB, W) no S1 can give check early enough to end a
    // turn and no en-passant capture is possible, so the counts are those of
    // the orthodox tree (W, B, W, B), as the task states; depth 5 differs.
    let start = Position::initial();
    for (depth, nodes) in [(1, 20), (2, 400), (3, 8_902), (4, 197_281)] {
        assert_eq!(perft(&start, depth), nodes, "depth {depth}");
    }
}

#[test]
fn initial_position_has_4_868_376_sequences_at_depth_5() {
    // Bulk counting at the last ply keeps this fast enough for debug
    // builds; the full make-move count is checked below (ignored).
    assert_eq!(perft_bulk(&Position::initial(), 5), 4_868_376);
}

#[test]
#[ignore = "slow in debug builds; run in release"]
fn initial_position_has_4_868_376_sequences_at_depth_5_with_full_make_move() {
    assert_eq!(perft(&Position::initial(), 5), 4_868_376);
}

#[test]
fn every_fast_row_of_the_data_file_has_its_recorded_perft() {
    check_rows(false);
}

#[test]
#[ignore = "slow in debug builds; run in release"]
fn every_slow_row_of_the_data_file_has_its_recorded_perft() {
    check_rows(true);
}

#[test]
fn full_make_move_perft_equals_bulk_counting_on_the_data_positions() {
    for row in rows().iter().filter(|row| row.nodes <= 50_000) {
        let start = position(row.fen);
        assert_eq!(
            perft(&start, row.depth),
            perft_bulk(&start, row.depth),
            "{} depth {}",
            row.fen,
            row.depth
        );
    }
}

/// Compares the engine's divide with the reference's for every data row of
/// at most `budget` nodes, so that a disagreement names the first sub-move.
fn agree_with_reference(budget: u64) {
    let mut compared = 0;
    for row in rows().iter().filter(|row| row.nodes <= budget) {
        let start = position(row.fen);
        let ours: Vec<(String, u64)> = divide(&start, row.depth)
            .into_iter()
            .map(|(mv, nodes)| (mv.to_string(), nodes))
            .collect();
        let theirs = reference::divide(&reference::State::from_fen(row.fen, false), row.depth);
        assert_eq!(ours, theirs, "{} depth {}", row.fen, row.depth);
        compared += 1;
    }
    assert!(compared > 0);
}

#[test]
fn engine_agrees_with_the_reference_implementation_on_small_rows() {
    agree_with_reference(20_000);
}

#[test]
#[ignore = "slow in debug builds; run in release"]
fn engine_agrees_with_the_reference_implementation_on_every_row() {
    agree_with_reference(u64::MAX);
}

#[test]
fn reference_implementation_reproduces_published_orthodox_perft() {
    // Proves the reference itself on known numbers before trusting it.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let position_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
    for (fen, depth, nodes) in [(kiwipete, 2, 2_039), (position_3, 4, 43_238)] {
        let state = reference::State::from_fen(fen, true);
        assert_eq!(reference::perft(&state, depth), nodes, "{fen}");
    }
    let start = reference::State::from_fen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        false,
    );
    assert_eq!(reference::perft(&start, 3), 8_902);
}

#[test]
fn orthodox_rules_from_the_same_fen_give_orthodox_numbers() {
    // The data's Kiwipete row is at fullmove 5; under orthodox rules the
    // same FEN must give the published numbers, so the difference in the
    // data file comes from the Marseillais turn rules alone.
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5";
    let orthodox = Position::from_fen(fen, Rules::Orthodox).expect("FEN parses");
    assert_eq!(perft_bulk(&orthodox, 2), 2_039);
    assert_eq!(perft_bulk(&position(fen), 2), 2_326);
}

/// `uci: count` rows of a divide, sorted by sub-move.
type DivideRows = &'static [(&'static str, u64)];

/// Divides counted by hand; the reasons are in the data file's comments.
const HAND_DIVIDES: &[(&str, u32, DivideRows)] = &[
    (
        // Two targets at S1: three e.p. captures; a second one on S2 only
        // after an e.p. S1 and only where a pawn still attacks the target.
        "4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6",
        2,
        &[
            ("e1d1", 7),
            ("e1d2", 10),
            ("e1e2", 10),
            ("e1f1", 7),
            ("e1f2", 10),
            ("e5d6", 8),
            ("e5e6", 7),
            ("e5f6", 7),
            ("g5f6", 8),
            ("g5g6", 7),
        ],
    ),
    (
        // The target Black made on its S1 (d7d5,e8f8) is usable on White's S1.
        "5k2/5p2/8/3pP1P1/8/8/8/4K3 w - d6 0 6",
        2,
        &[
            ("e1d1", 7),
            ("e1d2", 10),
            ("e1e2", 10),
            ("e1f1", 7),
            ("e1f2", 10),
            ("e5d6", 7),
            ("e5e6", 8),
            ("g5g6", 8),
        ],
    ),
    (
        // An e.p. capture that gives check ends the turn.
        "8/2k5/8/3pP3/8/8/8/4K3 w - d6 0 6",
        2,
        &[
            ("e1d1", 6),
            ("e1d2", 9),
            ("e1e2", 9),
            ("e1f1", 6),
            ("e1f2", 9),
            ("e5d6", 8),
            ("e5e6", 6),
        ],
    ),
    (
        // Black's turn: either sub-move may double-step.
        "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 5",
        2,
        &[
            ("d7d5", 6),
            ("d7d6", 7),
            ("e8d8", 6),
            ("e8e7", 7),
            ("e8f7", 9),
            ("e8f8", 7),
        ],
    ),
    (
        "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 5",
        2,
        &[
            ("e1d1", 6),
            ("e1d2", 7),
            ("e1f1", 6),
            ("e1f2", 8),
            ("e2e3", 7),
            ("e2e4", 6),
        ],
    ),
    (
        // Bf7+ ends Black's turn; White's five replies.
        "4b2k/3p4/8/4P3/8/8/K7/8 b - - 0 30",
        2,
        &[
            ("d7d5", 11),
            ("d7d6", 12),
            ("e8f7", 5),
            ("e8g6", 14),
            ("e8h5", 12),
            ("h8g7", 12),
            ("h8g8", 10),
            ("h8h7", 10),
        ],
    ),
    (
        // Phase 2: the e.p. S1 kept the f6 target for S2.
        "4k3/8/3P4/5pP1/8/8/8/4K3 w - f6 0 6 2",
        2,
        &[
            ("d6d7", 5),
            ("e1d1", 5),
            ("e1d2", 5),
            ("e1e2", 5),
            ("e1f1", 5),
            ("e1f2", 5),
            ("g5f6", 4),
            ("g5g6", 4),
        ],
    ),
    (
        // A king may not step into check on S1 even with an S2 to follow.
        "4k3/8/8/8/8/8/3r4/4K3 w - - 0 5",
        2,
        &[("e1d2", 8), ("e1f1", 2)],
    ),
    (
        // Stalemate after S1: g3 has no S2.
        "1r5k/8/8/8/6p1/p7/P5P1/K7 w - - 0 5",
        2,
        &[("g2g3", 0)],
    ),
];

#[test]
fn divides_agree_with_the_hand_counts() {
    for &(fen, depth, expected) in HAND_DIVIDES {
        let ours: Vec<(String, u64)> = divide(&position(fen), depth)
            .into_iter()
            .map(|(mv, nodes)| (mv.to_string(), nodes))
            .collect();
        let expected: Vec<(String, u64)> = expected
            .iter()
            .map(|&(mv, nodes)| (mv.to_string(), nodes))
            .collect();
        assert_eq!(ours, expected, "{fen} depth {depth}");
    }
}

#[test]
fn a_finished_game_has_no_children_but_counts_itself_at_depth_0() {
    // Checkmate (worked case 5 after Qh8#) and stalemate (case 7 after Ka6).
    for fen in [
        "k6Q/8/1K6/8/8/8/8/8 b - - 1 5",
        "k7/2Q5/K7/8/8/8/8/8 b - - 2 5",
    ] {
        let end = position(fen);
        assert!(end.legal_submoves().is_empty(), "{fen}");
        assert_eq!(perft(&end, 0), 1);
        assert_eq!(perft(&end, 3), 0);
    }
}

fn run_cli(args: &[&str]) -> String {
    let output = run(env!("CARGO_BIN_EXE_marseillais"), args);
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

#[test]
fn cli_perft_divide_prints_sorted_rows_a_blank_line_and_the_total() {
    let text = run_cli(&["perft", "2", "--divide"]);
    let (rows, total) = text
        .split_once("\n\n")
        .expect("a blank line separates rows and total");
    let rows: Vec<(&str, u64)> = rows
        .lines()
        .map(|line| {
            let (mv, nodes) = line.split_once(": ").expect("`uci: count`");
            (mv, nodes.parse().expect("a count"))
        })
        .collect();
    let mut sorted = rows.clone();
    sorted.sort();
    assert_eq!(rows, sorted, "rows are sorted by sub-move");
    assert_eq!(rows.len(), 20);
    assert!(rows.iter().all(|&(_, nodes)| nodes == 20));
    assert_eq!(total, "400\n");
    assert_eq!(rows.iter().map(|&(_, n)| n).sum::<u64>(), 400);
}

#[test]
fn cli_perft_reads_an_extended_fen_and_orthodox_rules() {
    let fen = "4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6";
    assert_eq!(run_cli(&["perft", "2", "--fen", fen]), "81\n");
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert_eq!(
        run_cli(&["perft", "2", "--orthodox", "--fen", kiwipete]),
        "2039\n"
    );
}

#[test]
fn cli_perft_rejects_a_bad_fen_with_an_error_and_no_panic() {
    let output = run(
        env!("CARGO_BIN_EXE_marseillais"),
        &["perft", "1", "--fen", "not a fen"],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
