//! Rules section 2 beyond the worked cases: en passant across sub-moves,
//! how rights lapse, orthodox legality of the capture, how the extended FEN
//! writes and reads targets, and how targets enter repetition.

use crate::support::rules_util;

use marseillais::rules::{Color, FenError, Phase, Position, Rules, Square};
use rules_util::{is_legal, legal, mv, play, pos, set};

const TWO_PAWNS: &str = "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5";

#[test]
fn black_takes_two_white_double_steps_in_either_order() {
    let start = pos("4k3/8/8/8/1p3p2/8/2P1P3/4K3 w - - 0 5");
    let black = play(&start, "c2c4 e2e4");
    assert_eq!(black.fen(), "4k3/8/8/8/1pP1Pp2/8/8/4K3 b - c3,e3 0 5");
    let end = "4k3/8/8/8/8/2p1p3/8/4K3 w - - 0 6";
    for order in ["b4c3 f4e3", "f4e3 b4c3"] {
        let after = play(&black, order);
        assert_eq!(after.fen(), end, "{order}");
    }
}

#[test]
fn unused_en_passant_rights_lapse_at_the_end_of_the_capturing_sides_turn() {
    let targets = play(&pos(TWO_PAWNS), "d7d5 f7f5");
    // Neither right used: both gone by White's next turn.
    let unused = play(&targets, "e1d1 d1e1 e8f8 f8e8");
    assert_eq!(unused.side_to_move(), Color::White);
    assert!(unused.ep_targets().is_empty());
    assert!(!is_legal(&unused, "e5d6"));
    assert!(!is_legal(&unused, "g5f6"));
    // One used on S1, the other left on S2: it lapses too.
    let half = play(&targets, "e5d6 e1d1");
    assert_eq!(half.side_to_move(), Color::Black);
    assert!(half.ep_targets().is_empty());
    let white_again = play(&half, "e8f8 f8g8");
    assert!(white_again.ep_targets().is_empty());
    assert!(!is_legal(&white_again, "g5f6"));
}

#[test]
fn en_passant_that_gives_check_ends_the_turn() {
    // Direct check by the capturing pawn.
    let direct = play(&pos("8/4k3/8/3pP3/8/8/8/4K3 w - d6 0 6"), "e5d6");
    assert_eq!(direct.side_to_move(), Color::Black);
    assert_eq!(direct.phase(), Phase::First);
    assert_eq!(direct.checkers(), Square::D6.bitboard());
    // Discovered check: the captured pawn was blocking a bishop.
    let discovered = play(&pos("8/6bb/8/8/2pP2k1/4P3/P7/K7 b - d3 0 5"), "c4d3");
    assert_eq!(discovered.side_to_move(), Color::White);
    assert_eq!(discovered.phase(), Phase::First);
    assert_eq!(discovered.checkers(), Square::G7.bitboard());
}

#[test]
fn en_passant_that_gives_check_on_s1_forfeits_the_second_right() {
    // Black king on e7 is checked by the pawn arriving on d6; the f6 right
    // cannot be used since the turn is over.
    let start = pos("8/4k3/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6");
    let after = play(&start, "e5d6");
    assert_eq!(after.side_to_move(), Color::Black);
    assert!(after.ep_targets().is_empty());
}

#[test]
fn en_passant_that_opens_the_rank_onto_the_own_king_is_illegal() {
    let pinned = pos("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 6");
    assert!(!is_legal(&pinned, "e5d6"));
    let free = pos("8/8/8/K2pP3/8/8/8/4k3 w - d6 0 6");
    assert!(is_legal(&free, "e5d6"));
}

#[test]
fn en_passant_may_capture_the_double_stepped_pawn_that_gives_check() {
    let checked = play(&pos("4k3/3p4/8/4P3/4K3/8/8/8 b - - 0 5"), "d7d5");
    assert_eq!(
        checked.side_to_move(),
        Color::White,
        "check ended Black's turn"
    );
    assert_eq!(checked.checkers(), Square::D5.bitboard());
    assert!(is_legal(&checked, "e5d6"));
    let after = play(&checked, "e5d6");
    assert_eq!(after.phase(), Phase::Second);
    assert!(!after.is_check());
}

#[test]
fn en_passant_does_not_answer_a_check_by_another_piece() {
    let checked = play(&pos("r6k/3p4/8/4P3/8/8/8/1K6 b - - 0 5"), "d7d5 a8b8");
    assert_eq!(checked.checkers(), Square::B8.bitboard());
    assert_eq!(checked.ep_targets(), Square::D6.bitboard());
    assert_eq!(legal(&checked), set("b1a1 b1a2 b1c1 b1c2"));
}

#[test]
fn fen_at_s2_lists_the_target_the_mover_made_on_its_s1() {
    let after = play(&pos("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 5"), "e2e4");
    assert_eq!(after.fen(), "4k3/8/8/8/3pP3/8/8/4K3 w - e3 0 5 2");
    assert_eq!(pos(&after.fen()), after);
    // The mover cannot take its own target.
    assert!(
        after
            .legal_submoves()
            .iter()
            .all(|m| !after.is_en_passant(*m))
    );
}

#[test]
fn fen_at_s2_after_an_en_passant_s1_lists_the_remaining_target() {
    let after = play(&pos(TWO_PAWNS), "d7d5 f7f5 e5d6");
    assert_eq!(after.fen(), "4k3/8/3P4/5pP1/8/8/8/4K3 w - f6 0 6 2");
    assert_eq!(pos(&after.fen()), after);
    assert!(is_legal(&pos(&after.fen()), "g5f6"));
}

#[test]
fn fen_writer_lists_a_target_no_enemy_pawn_can_take() {
    let after = play(&pos("4k3/3p4/8/8/8/8/8/4K3 b - - 0 5"), "d7d5 e8f8");
    assert_eq!(after.fen(), "5k2/8/8/3p4/8/8/8/4K3 w - d6 1 6");
}

#[test]
fn fen_reader_rejects_en_passant_fields_no_game_can_reach() {
    let rejected = [
        (
            "4k3/8/8/3pP3/8/8/8/4K3 w - d5 0 6",
            FenError::EpRank(Square::D5),
        ),
        (
            "4k3/8/8/3pP3/8/8/8/4K3 w - x9 0 6",
            FenError::EpSquare("x9".into()),
        ),
        (
            "4k3/8/8/p1p1p3/8/8/8/4K3 w - a6,c6,e6 0 6",
            FenError::EpCount(3, 2),
        ),
        ("4k3/8/8/p1p5/8/8/8/4K3 w - c6,a6 0 6", FenError::EpOrder),
        ("4k3/8/8/p1p5/8/8/8/4K3 w - a6,a6 0 6", FenError::EpOrder),
        // Own target at S1: the mover's double step is a whole turn old.
        (
            "4k3/8/8/8/4P3/8/8/4K3 w - e3 0 6",
            FenError::EpOwnTarget(Square::E3),
        ),
        // At S2 only one target can exist (2.3 and section 5).
        (
            "4k3/8/8/p1p5/8/8/8/4K3 w - a6,c6 0 6 2",
            FenError::EpCount(2, 1),
        ),
        (
            "4k3/8/8/3pP3/4P3/8/8/4K3 w - e3,d6 0 6 2",
            FenError::EpCount(2, 1),
        ),
        // At S2 the opponent's target is usable only after an en-passant S1,
        // which leaves the capturing pawn on the sixth rank with the squares
        // in front of and behind it empty; here no pawn did that.
        (
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 6 2",
            FenError::EpWithoutEnPassantFirstSubMove(Square::D6),
        ),
        // Two targets at S1 are the opponent's whole turn: both start squares
        // were left empty.
        (
            "4k3/3b4/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6",
            FenError::EpOriginOccupied {
                target: Square::D6,
                origin: Square::D7,
            },
        ),
        // The mover's own target at S2 comes from its S1, which left e2 empty.
        (
            "4k3/8/8/8/3pP3/8/4B3/4K3 w - e3 0 6 2",
            FenError::EpOriginOccupied {
                target: Square::E3,
                origin: Square::E2,
            },
        ),
    ];
    for (fen, error) in rejected {
        assert_eq!(fen.parse::<Position>(), Err(error), "{fen}");
    }
    // Orthodox chess has one target at most.
    assert_eq!(
        Position::from_fen("4k3/8/8/p1p5/8/8/8/4K3 w - a6,c6 0 6", Rules::Orthodox),
        Err(FenError::EpCount(2, 1))
    );
}

#[test]
fn fen_reader_accepts_every_reachable_en_passant_field() {
    // One target at S1: the opponent's other sub-move may have filled the
    // start square behind the pawn (case 17b).
    let one = pos("4k3/3b4/8/3pP3/8/8/8/4K3 w - d6 1 6");
    assert_eq!(one.ep_targets(), Square::D6.bitboard());
    // At S2 after an en-passant S1 (case 11 written out).
    let after_ep = pos("4k3/8/3P4/5pP1/8/8/8/4K3 w - f6 0 6 2");
    assert!(is_legal(&after_ep, "g5f6"));
    // Black at S2 after its own en-passant S1.
    let black = pos("4k3/8/8/8/4Pp2/2p5/8/4K3 b - e3 0 6 2");
    assert!(is_legal(&black, "f4e3"));
}

#[test]
fn fen_reader_ignores_stale_targets() {
    let stale = [
        // No pawn beyond the target.
        (
            "4k3/8/8/4P3/8/8/8/4K3 w - d6 0 6",
            "4k3/8/8/4P3/8/8/8/4K3 w - - 0 6",
        ),
        // The pawn beyond it is White's, not Black's.
        (
            "4k3/8/8/3PP3/8/8/8/4K3 w - d6 0 6",
            "4k3/8/8/3PP3/8/8/8/4K3 w - - 0 6",
        ),
        // A piece stands on the target.
        (
            "4k3/8/3n4/3pP3/8/8/8/4K3 w - d6 0 6",
            "4k3/8/3n4/3pP3/8/8/8/4K3 w - - 0 6",
        ),
        // One of two targets stale, the other kept.
        (
            "4k3/8/5n2/3pPp2/8/8/8/4K3 w - d6,f6 0 6",
            "4k3/8/5n2/3pPp2/8/8/8/4K3 w - d6 0 6",
        ),
    ];
    for (fen, canonical) in stale {
        let position = pos(fen);
        assert_eq!(position.fen(), canonical, "{fen}");
        assert!(!is_legal(&pos(canonical), "e5f6") || fen.contains("f6 "));
    }
    // A stale target never allows a diagonal pawn step onto an empty square.
    assert!(!is_legal(&pos("4k3/8/8/4P3/8/8/8/4K3 w - d6 0 6"), "e5d6"));
}

#[test]
fn fen_of_a_played_position_reads_back_equal() {
    let played = play(&pos(TWO_PAWNS), "d7d5 f7f5");
    let read = pos("4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6");
    assert_eq!(read, played);
    assert_eq!(read.hash(), played.hash());
}

#[test]
fn repetition_ignores_a_target_no_pawn_can_legally_take() {
    // No white pawn near d6: the target does not make a different position.
    let with = pos("4k3/8/8/3p4/8/8/8/4K3 w - d6 0 6");
    let without = pos("4k3/8/8/3p4/8/8/8/4K3 w - - 0 6");
    assert_ne!(with.hash(), without.hash());
    assert_eq!(with.repetition_key(), without.repetition_key());
    // A pawn could take, but the capture is illegal (rank pin, case 17).
    let pinned = pos("8/6bb/8/8/R1pP2k1/4P3/P7/K7 b - d3 0 5");
    let pinned_without = pos("8/6bb/8/8/R1pP2k1/4P3/P7/K7 b - - 0 5");
    assert_eq!(pinned.repetition_key(), pinned_without.repetition_key());
    // A legal capture makes it a different position.
    let takeable = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 6");
    let not_takeable = pos("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 6");
    assert_ne!(takeable.repetition_key(), not_takeable.repetition_key());
}

#[test]
fn two_legal_en_passant_captures_make_a_position_different_from_one() {
    let both = pos("4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6");
    let d_only = pos("4k3/8/8/3pPpP1/8/8/8/4K3 w - d6 0 6");
    let f_only = pos("4k3/8/8/3pPpP1/8/8/8/4K3 w - f6 0 6");
    let keys = [both, d_only, f_only].map(|p| p.repetition_key());
    assert_ne!(keys[0], keys[1]);
    assert_ne!(keys[0], keys[2]);
    assert_ne!(keys[1], keys[2]);
    assert_eq!(mv("e5d6").to_string(), "e5d6");
}
