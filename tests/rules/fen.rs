//! Rules section 5, the extended FEN: the seventh field and its default, a
//! canonical writer, and a reader that refuses positions no game reaches.
//! (The en-passant field has its own tests in `rules_en_passant.rs`.)

use crate::support::rules_util;

use marseillais::rules::{Color, FenError, Phase, Position, Rules, Square};
use rules_util::{play, pos};

#[test]
fn absent_phase_is_single_for_white_at_move_one_and_first_otherwise() {
    let cases = [
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", Phase::Single),
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 2", Phase::First),
        ("4k3/8/8/8/8/8/8/R3K3 b - - 0 1", Phase::First),
        ("4k3/8/8/8/8/8/8/R3K3 b - - 0 9", Phase::First),
    ];
    for (fen, phase) in cases {
        assert_eq!(pos(fen).phase(), phase, "{fen}");
    }
}

#[test]
fn fen_writer_omits_the_phase_only_when_it_is_the_default() {
    let cases = [
        // (written, canonical)
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 s",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 1",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 2",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1 2",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 7 1",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 7",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 7 s",
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 7 s",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 1",
            "4k3/8/8/8/8/8/8/R3K3 b - - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 s",
            "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 s",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 b - - 3 4 2",
            "4k3/8/8/8/8/8/8/R3K3 b - - 3 4 2",
        ),
    ];
    for (written, canonical) in cases {
        let position = pos(written);
        assert_eq!(position.fen(), canonical, "{written}");
        assert_eq!(pos(canonical), position, "{canonical} reads back");
    }
}

#[test]
fn initial_position_writes_as_the_ordinary_six_field_fen() {
    let fen = Position::initial().fen();
    assert_eq!(
        fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(fen.split(' ').count(), 6);
    assert_eq!(Position::initial().to_string(), fen);
}

#[test]
fn orthodox_fen_never_writes_a_phase_and_refuses_one() {
    let orthodox = Position::initial_orthodox();
    let after = play(&orthodox, "e2e4");
    assert_eq!(
        after.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
    assert_eq!(
        Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 5 1", Rules::Orthodox),
        Err(FenError::OrthodoxPhase)
    );
    let single = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 5 s", Rules::Orthodox);
    assert_eq!(single.map(|p| p.phase()), Ok(Phase::Single));
}

#[test]
fn fen_reader_refuses_positions_no_game_reaches() {
    let rejected = [
        // The side not to move is in check: no legal sub-move leaves that.
        ("4k3/4R3/8/8/8/8/8/4K3 w - - 0 5", FenError::OpponentInCheck),
        // Check ends the turn, so the mover is never in check at its S2.
        (
            "4k3/4r3/8/8/8/8/8/4K3 w - - 0 5 2",
            FenError::CheckAtSecondSubMove,
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 5 3",
            FenError::Phase("3".into()),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 0",
            FenError::Fullmove("0".into()),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - -1 5",
            FenError::Halfmove("-1".into()),
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w K - 0 5",
            FenError::CastlingPieces('K'),
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w QK - 0 5",
            FenError::CastlingText("QK".into()),
        ),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0", FenError::FieldCount(5)),
        (
            "P3k3/8/8/8/8/8/8/4K3 w - - 0 5",
            FenError::PawnOnBackRank(Square::A8),
        ),
    ];
    for (fen, error) in rejected {
        assert_eq!(fen.parse::<Position>(), Err(error), "{fen}");
    }
    // Kings: exactly one each.
    assert!(matches!(
        "8/8/8/8/8/8/8/4K3 w - - 0 5".parse::<Position>(),
        Err(FenError::KingCount {
            color: Color::Black,
            count: 0
        })
    ));
}

#[test]
fn fen_reader_never_panics_on_garbage() {
    let garbage = [
        "",
        " ",
        "////////",
        "9/8/8/8/8/8/8/8 w - - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - ,, 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - d6, 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 99999999999 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 é",
        "4k3/8/8/8/8/8/8/4K3 é - - 0 1",
        "4k3/8/8/8/8/8/8/4K3x w - - 0 1",
    ];
    for text in garbage {
        assert!(text.parse::<Position>().is_err(), "{text:?}");
    }
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    /// FEN-like text: the characters a FEN uses, in any order and length.
    fn fen_like() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(
                "pnbrqkPNBRQK12345678/ wb-KQkqacdefgh036,s9x"
                    .chars()
                    .collect::<Vec<_>>(),
            ),
            0..90,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// A valid placement with random extra fields, so the reader's later
    /// checks (castling, en passant, phase, counters) see many combinations.
    fn fen_with_random_fields() -> impl Strategy<Value = String> {
        (
            proptest::sample::select(vec![
                "4k3/3p1p2/8/4P1P1/8/8/8/4K3",
                "4k3/8/8/3pPpP1/8/8/8/4K3",
                "r3k2r/8/8/8/8/8/8/R3K2R",
                "4k3/8/3P4/5pP1/8/8/8/4K3",
                "4k3/8/8/8/3pP3/8/8/4K3",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            ]),
            proptest::sample::select(vec!["w", "b"]),
            proptest::sample::select(vec!["-", "KQkq", "K", "q", "Kk"]),
            proptest::sample::select(vec!["-", "d6", "f6", "d6,f6", "e3", "d3,e3", "e3,d6"]),
            0u32..200,
            1u32..100,
            proptest::sample::select(vec!["", " 1", " 2", " s"]),
        )
            .prop_map(|(placement, side, castling, ep, half, full, phase)| {
                format!("{placement} {side} {castling} {ep} {half} {full}{phase}")
            })
    }

    proptest! {
        #[test]
        fn reader_never_panics_on_fen_like_text(text in fen_like()) {
            let _ = text.parse::<Position>();
        }

        #[test]
        fn every_accepted_fen_writes_back_to_an_equal_position_and_plays(fen in fen_with_random_fields()) {
            if let Ok(position) = fen.parse::<Position>() {
                let written = position.fen();
                prop_assert_eq!(written.parse::<Position>(), Ok(position), "{}", fen);
                // Draw rules do not stop move generation (perft needs it),
                // but they do stop play.
                let moves = if position.board_outcome().is_some() {
                    Default::default()
                } else {
                    position.legal_submoves()
                };
                for mv in moves {
                    let next = position.play(mv);
                    prop_assert!(next.is_ok(), "{} {}", fen, mv);
                    if let Ok(next) = next {
                        prop_assert_eq!(next.fen().parse::<Position>(), Ok(next), "{} {}", fen, mv);
                    }
                }
            }
        }
    }
}
