//! Crowded positions never panic: from boards full of queens, rooks and
//! pawns about to promote (the kind of FEN a hostile client sends), random
//! edits of the placement and then random legal sub-moves. Every position on
//! the way lists at most `MAX_LEGAL_SUBMOVES` distinct sub-moves, each
//! played sub-move's SAN reads back strictly as itself, FENs round-trip, and
//! the game written as PGN reads back as the same sub-moves.

use std::collections::BTreeSet;

use marseillais::rules::pgn::{self, PgnTags, read_games};
use marseillais::rules::san;
use marseillais::rules::submove::MAX_LEGAL_SUBMOVES;
use marseillais::rules::{Game, Position};
use proptest::prelude::*;

/// The placements found by hostile clients (263 legal sub-moves) and others
/// like them: queens on the rim, a pawn row about to promote, Black to move.
const TEMPLATES: &[&str] = &[
    "QQQQQQQ1/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/rR5Q/kBQQQKQB w - - 0 1",
    "Q1QQQQQ1/QP5Q/Q6Q/Q6Q/Q6Q/Q6Q/rR5Q/kBQQQKQB w - - 0 5",
    "1q1q1q1k/PPPPPPpp/8/8/8/8/QQQQQQQQ/K7 w - - 0 5",
    "KbqqqkqB/Rr5q/q6q/q6q/q6q/q6q/q6q/qqqqqqq1 b - - 0 5",
];

/// What an edit may put on a square: mostly queens and other long-range
/// pieces, pawns (which may turn out to stand on a back rank and make the
/// FEN invalid, which is fine), and empty squares.
const PIECES: &[u8] = b"QQQQQRRBBNPPqqrbnp..";

/// Applies edits (square index a8 = 0 .. h1 = 63, piece choice) to the
/// template's placement, never touching a king, and rebuilds the FEN.
fn edited(template: &str, edits: &[(u8, u8)]) -> String {
    let (placement, rest) = template.split_once(' ').expect("template FEN");
    let mut squares: Vec<u8> = Vec::with_capacity(64);
    for c in placement.bytes() {
        match c {
            b'/' => {}
            b'1'..=b'8' => squares.extend(std::iter::repeat_n(b'.', usize::from(c - b'0'))),
            piece => squares.push(piece),
        }
    }
    for &(square, piece) in edits {
        let slot = &mut squares[usize::from(square) % 64];
        if !slot.eq_ignore_ascii_case(&b'k') {
            *slot = PIECES[usize::from(piece) % PIECES.len()];
        }
    }
    let mut out = String::new();
    for (rank, row) in squares.chunks(8).enumerate() {
        if rank > 0 {
            out.push('/');
        }
        let mut empty = 0;
        for &c in row {
            if c == b'.' {
                empty += 1;
                continue;
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
                empty = 0;
            }
            out.push(char::from(c));
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
    }
    format!("{out} {rest}")
}

/// The legal sub-moves, checked for the bound and for duplicates.
fn checked_moves(position: &Position) -> Vec<marseillais::rules::SubMove> {
    let legal = position.legal_submoves();
    assert!(legal.len() <= MAX_LEGAL_SUBMOVES, "{}", position.fen());
    let distinct: BTreeSet<String> = legal.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        distinct.len(),
        legal.len(),
        "duplicates in {}",
        position.fen()
    );
    legal.to_vec()
}

#[test]
fn every_template_is_a_valid_fen() {
    for fen in TEMPLATES {
        if let Err(err) = fen.parse::<Position>() {
            panic!("{fen}: {err}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_sub_moves_from_crowded_positions_never_panic(
        template in 0..TEMPLATES.len(),
        edits in prop::collection::vec((0u8..64, any::<u8>()), 0..10),
        choices in prop::collection::vec(any::<u16>(), 1..10),
    ) {
        let fen = edited(TEMPLATES[template], &edits);
        // Edits may make a FEN the reader refuses (a pawn on a back rank, a
        // king in check by too many pieces); refusing is the right answer.
        let Ok(start) = fen.parse::<Position>() else { return Ok(()) };
        // Every sub-move of the start has a SAN that reads back as itself.
        for mv in checked_moves(&start) {
            let text = san::san(&start, mv);
            prop_assert_eq!(san::parse_strict(&start, &text), Ok(mv), "{} {}", fen, text);
        }
        let mut game = Game::new(start);
        for choice in choices {
            if game.outcome().is_some() {
                break;
            }
            let position = *game.position();
            let legal = checked_moves(&position);
            if legal.is_empty() {
                break;
            }
            let mv = legal[usize::from(choice) % legal.len()];
            let text = san::san(&position, mv);
            prop_assert_eq!(san::parse_strict(&position, &text), Ok(mv), "{} {}", fen, text);
            game.play(mv).expect("a listed sub-move is legal");
            let next = *game.position();
            prop_assert_eq!(next.fen().parse::<Position>().ok(), Some(next));
        }
        checked_moves(game.position());
        let written = pgn::write_game(&game, &PgnTags::default());
        let again = read_games(&written).remove(0);
        prop_assert!(again.is_ok(), "{}: {:?}", written, again.err());
        if let Ok(again) = again {
            prop_assert_eq!(again.game.submoves(), game.submoves());
        }
    }
}
