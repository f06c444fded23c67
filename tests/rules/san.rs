//! SAN for sub-moves: the canonical writer, the tolerant reader and the
//! strict comparison (`docs/rules.md` section 4).

use marseillais::rules::san::{self, SanError, SanIssue, StrictSanError};
use marseillais::rules::{Position, SubMove};

fn pos(fen: &str) -> Position {
    fen.parse().expect("test FEN parses")
}

fn mv(uci: &str) -> SubMove {
    uci.parse().expect("test UCI parses")
}

/// Plays UCI sub-moves one after another.
fn after(fen: &str, moves: &[&str]) -> Position {
    let mut position = pos(fen);
    for m in moves {
        position = position.play(mv(m)).expect("test sub-move is legal");
    }
    position
}

const TWO_ROOKS_ON_A_RANK: &str = "4k3/8/8/8/8/8/4K3/R6R w - - 0 5";
const TWO_ROOKS_ON_A_FILE: &str = "7k/8/8/R7/8/8/4K3/R7 w - - 0 5";
const THREE_QUEENS: &str = "8/7k/8/8/8/Q7/8/Q1Q1K3 w - - 0 5";
const EP_AFTER_D5: &str = "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5";

#[test]
fn two_pieces_on_one_rank_are_told_apart_by_file() {
    let p = pos(TWO_ROOKS_ON_A_RANK);
    assert_eq!(p.san(mv("a1d1")), "Rad1");
    assert_eq!(p.san(mv("h1d1")), "Rhd1");
    // Only one rook reaches a2 (the king blocks nothing there, but h1 cannot).
    assert_eq!(p.san(mv("a1a2")), "Ra2");
}

#[test]
fn two_pieces_on_one_file_are_told_apart_by_rank() {
    let p = pos(TWO_ROOKS_ON_A_FILE);
    assert_eq!(p.san(mv("a1a3")), "R1a3");
    assert_eq!(p.san(mv("a5a3")), "R5a3");
}

#[test]
fn a_piece_sharing_file_and_rank_with_rivals_gets_both() {
    let p = pos(THREE_QUEENS);
    assert_eq!(p.san(mv("a1b2")), "Qa1b2");
    assert_eq!(p.san(mv("c1b2")), "Qcb2");
    assert_eq!(p.san(mv("a3b2")), "Q3b2");
    for (text, uci) in [("Qa1b2", "a1b2"), ("Qcb2", "c1b2"), ("Q3b2", "a3b2")] {
        assert_eq!(san::parse(&p, text), Ok(mv(uci)), "{text}");
    }
}

#[test]
fn disambiguation_counts_only_legal_sub_moves() {
    // The knight on e2 is pinned against the king by the rook on e8, so
    // Nc3 needs no disambiguation although two knights "see" c3.
    let p = pos("4r1k1/8/8/8/8/8/4N3/1N2K3 w - - 0 5");
    assert_eq!(p.san(mv("b1c3")), "Nc3");
}

#[test]
fn castling_is_written_with_letter_o_and_read_with_zeros() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQ - 0 5");
    assert_eq!(p.san(mv("e1g1")), "O-O");
    assert_eq!(p.san(mv("e1c1")), "O-O-O");
    for text in ["O-O", "0-0", "o-o", "O-O!"] {
        assert_eq!(san::parse(&p, text), Ok(mv("e1g1")), "{text}");
    }
    for text in ["O-O-O", "0-0-0"] {
        assert_eq!(san::parse(&p, text), Ok(mv("e1c1")), "{text}");
    }
}

#[test]
fn castling_into_an_attacked_square_is_illegal_text() {
    // Spec case 18: f1 attacked, so O-O is illegal while O-O-O is legal.
    let p = pos("r3k2r/8/8/8/8/8/5r2/R3K2R w KQ - 0 5");
    assert_eq!(san::parse(&p, "O-O"), Err(SanError::Illegal("O-O".into())));
    assert_eq!(san::parse(&p, "O-O-O"), Ok(mv("e1c1")));
}

#[test]
fn castling_that_gives_check_is_marked() {
    // Spec case 19.
    let p = pos("5k2/8/8/8/8/8/8/4K2R w K - 0 5");
    assert_eq!(p.san(mv("e1g1")), "O-O+");
}

#[test]
fn promotions_are_written_with_equals_and_read_with_or_without() {
    let p = pos("1n5k/P7/8/8/8/8/8/K7 w - - 0 5");
    assert_eq!(p.san(mv("a7a8q")), "a8=Q");
    assert_eq!(p.san(mv("a7a8n")), "a8=N");
    assert_eq!(p.san(mv("a7b8q")), "axb8=Q+");
    assert_eq!(p.san(mv("a7b8r")), "axb8=R+");
    for (text, uci) in [
        ("a8=Q", "a7a8q"),
        ("a8Q", "a7a8q"),
        ("a8=q", "a7a8q"),
        ("a8=N", "a7a8n"),
        ("axb8=B", "a7b8b"),
        ("ab8N", "a7b8n"),
    ] {
        assert_eq!(san::parse(&p, text), Ok(mv(uci)), "{text}");
    }
}

#[test]
fn a_promotion_without_its_piece_is_ambiguous() {
    let p = pos("1n5k/P7/8/8/8/8/8/K7 w - - 0 5");
    match san::parse(&p, "a8") {
        Err(SanError::Ambiguous(text, candidates)) => {
            assert_eq!(text, "a8");
            assert_eq!(candidates.len(), 4);
        }
        other => panic!("expected ambiguity, got {other:?}"),
    }
}

#[test]
fn en_passant_is_written_as_a_plain_pawn_capture() {
    // Spec case 9: the target was made on Black's S1.
    let p = after(EP_AFTER_D5, &["d7d5", "e8f8"]);
    assert!(p.is_en_passant(mv("e5d6")));
    assert_eq!(p.san(mv("e5d6")), "exd6");
    for text in ["exd6", "exd6e.p.", "exd6 e.p.", "ed6", "exd6!"] {
        assert_eq!(san::parse(&p, text), Ok(mv("e5d6")), "{text}");
    }
    assert_eq!(san::parse_strict(&p, "exd6 e.p."), Ok(mv("e5d6")));
}

#[test]
fn check_and_mate_marks_follow_the_position_after_the_sub_move() {
    // Spec case 2: Bb5+ ends the turn.
    let p = pos("rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    assert_eq!(p.san(mv("f1b5")), "Bb5+");
    // Spec case 5: mate on S1.
    let p = pos("k7/8/1K6/8/8/8/7Q/8 w - - 0 5");
    assert_eq!(p.san(mv("h2h8")), "Qh8#");
    // Spec case 6: Rxb7 (quiet S1), then Rb8# on S2.
    let p = pos("7k/1n4pp/8/8/8/8/8/1R4K1 w - - 0 5");
    assert_eq!(p.san(mv("b1b7")), "Rxb7");
    let p = p.play(mv("b1b7")).unwrap();
    assert_eq!(p.san(mv("b7b8")), "Rb8#");
}

#[test]
fn a_quiet_first_sub_move_that_leaves_no_reply_carries_no_mark() {
    // Spec case 7: Black has no move after Qc7 but is not in check.
    let p = pos("k7/8/1K6/8/8/8/8/2Q5 w - - 0 5");
    assert_eq!(p.san(mv("c1c7")), "Qc7");
}

#[test]
fn tolerant_reading_accepts_every_common_variant() {
    let start = Position::initial();
    let nf3 = mv("g1f3");
    for text in [
        "Nf3", "Ng1f3", "Ngf3", "N1f3", "Ng1-f3", "Nf3+", "Nf3#", "Nf3!?", "Nf3?!", "Nf3!!",
        "Nxf3", " Nf3 ",
    ] {
        assert_eq!(san::parse(&start, text), Ok(nf3), "{text}");
    }
    for text in ["e4", "e2e4", "e2-e4", "Pe4", "e4!"] {
        assert_eq!(san::parse(&start, text), Ok(mv("e2e4")), "{text}");
    }
    // Missing mark on a mate.
    let p = pos("k7/8/1K6/8/8/8/7Q/8 w - - 0 5");
    assert_eq!(san::parse(&p, "Qh8"), Ok(mv("h2h8")));
    assert_eq!(san::parse(&p, "Qh8+"), Ok(mv("h2h8")));
}

#[test]
fn reader_errors_say_unparsable_illegal_or_ambiguous() {
    let start = Position::initial();
    for text in [
        "", "Zz9", "N", "e9", "Nf3x", "O-O-O-O", "ä", "e4 e5", "Nf3=Q=",
    ] {
        assert_eq!(
            san::parse(&start, text),
            Err(SanError::Unparsable(text.to_string())),
            "{text}"
        );
    }
    for text in ["e5", "Nf4", "O-O", "Ke2", "Bc4"] {
        assert_eq!(
            san::parse(&start, text),
            Err(SanError::Illegal(text.to_string())),
            "{text}"
        );
    }
    let p = pos(TWO_ROOKS_ON_A_RANK);
    match san::parse(&p, "Rd1") {
        Err(SanError::Ambiguous(text, mut candidates)) => {
            assert_eq!(text, "Rd1");
            candidates.sort_by_key(|m| m.to_string());
            assert_eq!(candidates, vec![mv("a1d1"), mv("h1d1")]);
        }
        other => panic!("expected ambiguity, got {other:?}"),
    }
    let message = san::parse(&p, "Rd1").unwrap_err().to_string();
    assert!(
        message.contains("a1d1") && message.contains("h1d1"),
        "{message}"
    );
}

#[test]
fn strict_reading_reports_over_disambiguation() {
    let start = Position::initial();
    for text in ["Ng1f3", "Ngf3", "N1f3", "e2e4"] {
        assert!(
            matches!(
                san::parse_strict(&start, text),
                Err(StrictSanError::Issue(SanIssue::OverDisambiguated { .. }))
            ),
            "{text}"
        );
    }
    assert_eq!(san::parse_strict(&start, "Nf3"), Ok(mv("g1f3")));
    assert_eq!(san::parse_strict(&start, "Nf3!?"), Ok(mv("g1f3")));
}

#[test]
fn strict_reading_reports_missing_and_wrong_check_marks() {
    let p = pos("k7/8/1K6/8/8/8/7Q/8 w - - 0 5");
    let issue = |text: &str| san::parse_strict(&p, text);
    assert!(matches!(
        issue("Qh8"),
        Err(StrictSanError::Issue(SanIssue::MissingCheckMark { .. }))
    ));
    assert!(matches!(
        issue("Qh8+"),
        Err(StrictSanError::Issue(SanIssue::WrongCheckMark { .. }))
    ));
    assert_eq!(issue("Qh8#"), Ok(mv("h2h8")));
    // A mark on a quiet sub-move is wrong too.
    assert!(matches!(
        issue("Qh3+"),
        Err(StrictSanError::Issue(SanIssue::WrongCheckMark { .. }))
    ));
    let message = issue("Qh8").unwrap_err().to_string();
    assert!(message.contains("Qh8#"), "{message}");
}

#[test]
fn strict_reading_reports_other_non_standard_forms_but_accepts_zeros() {
    let start = Position::initial();
    for text in ["Nxf3", "Pe4", "e2-e4", "Ng1-f3"] {
        assert!(
            matches!(
                san::parse_strict(&start, text),
                Err(StrictSanError::Issue(SanIssue::NonStandard { .. }))
            ),
            "{text}"
        );
    }
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQ - 0 5");
    assert_eq!(san::parse_strict(&p, "0-0"), Ok(mv("e1g1")));
    assert!(san::parse_strict(&p, "Kg1").is_err());
    let p = pos("1n5k/P7/8/8/8/8/8/K7 w - - 0 5");
    assert!(matches!(
        san::parse_strict(&p, "a8Q+"),
        Err(StrictSanError::Issue(SanIssue::NonStandard { .. }))
    ));
    assert!(matches!(
        san::parse_strict(&p, "a8=q"),
        Err(StrictSanError::Issue(SanIssue::NonStandard { .. }))
    ));
    assert!(matches!(
        san::parse_strict(&p, "b8=Q+"),
        Err(StrictSanError::Issue(SanIssue::NonStandard { .. }))
    ));
    // A disambiguation by rank where the file is the standard choice.
    let p = pos(TWO_ROOKS_ON_A_RANK);
    assert_eq!(san::parse(&p, "R1d1").ok(), None);
    let p = pos("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 5");
    assert_eq!(p.san(mv("b1d2")), "Nbd2");
    assert!(matches!(
        san::parse_strict(&p, "N1d2"),
        Err(StrictSanError::Issue(SanIssue::NonStandard { .. }))
    ));
}

#[test]
fn every_legal_sub_move_of_the_spec_positions_round_trips_strictly() {
    for fen in [
        TWO_ROOKS_ON_A_RANK,
        TWO_ROOKS_ON_A_FILE,
        THREE_QUEENS,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "1n5k/P7/8/8/8/8/8/K7 w - - 0 5",
    ] {
        let p = pos(fen);
        for m in p.legal_submoves() {
            let text = p.san(m);
            assert_eq!(san::parse_strict(&p, &text), Ok(m), "{fen}: {text}");
        }
    }
}
