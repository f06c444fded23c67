//! The legal-move list holds every legal sub-move of every position the FEN
//! reader accepts, however crowded (`docs/rules.md` section 5.1):
//! the two positions below were found by hostile clients and have 263 legal
//! sub-moves, more than the 256 the list once held, which panicked the
//! server on `POST /api/games`, `POST /api/replay` and a PGN `FEN` tag.

use std::collections::BTreeSet;

use marseillais::rules::pgn::{self, PgnTags, check_games, read_games};
use marseillais::rules::san;
use marseillais::rules::submove::MAX_LEGAL_SUBMOVES;
use marseillais::rules::{Game, Position, SubMove};

/// White at its single first sub-move, 263 legal sub-moves.
const CROWDED: &str = "QQQQQQQ1/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/rR5Q/kBQQQKQB w - - 0 1";
/// White at S1 with 244 legal sub-moves; `b7b8q` leaves 263 for S2.
const BEFORE_PROMOTION: &str = "Q1QQQQQ1/QP5Q/Q6Q/Q6Q/Q6Q/Q6Q/rR5Q/kBQQQKQB w - - 0 5";

fn pos(fen: &str) -> Position {
    fen.parse()
        .unwrap_or_else(|err| panic!("{fen} must be accepted: {err}"))
}

/// Every legal sub-move once: no duplicates, each one playable, and its SAN
/// names it again strictly.
fn assert_every_submove_has_san_and_plays(position: &Position) {
    let legal = position.legal_submoves();
    let distinct: BTreeSet<String> = legal.iter().map(SubMove::to_string).collect();
    assert_eq!(
        distinct.len(),
        legal.len(),
        "duplicates in {}",
        position.fen()
    );
    for &mv in &legal {
        let text = san::san(position, mv);
        assert_eq!(
            san::parse_strict(position, &text),
            Ok(mv),
            "{} {mv} {text}",
            position.fen()
        );
        let next = position.play(mv).expect("a listed sub-move is legal");
        assert_eq!(next.fen().parse::<Position>().ok(), Some(next));
        // The position after it lists its own sub-moves without panicking.
        assert!(next.legal_submoves().len() <= MAX_LEGAL_SUBMOVES);
    }
}

#[test]
fn a_position_with_263_legal_submoves_lists_them_all() {
    let position = pos(CROWDED);
    assert_eq!(position.legal_submoves().len(), 263);
    assert_every_submove_has_san_and_plays(&position);
}

#[test]
fn promoting_into_a_position_with_263_legal_submoves_is_playable() {
    let position = pos(BEFORE_PROMOTION);
    assert_eq!(position.legal_submoves().len(), 244);
    let promotion: SubMove = "b7b8q".parse().unwrap();
    let after = position.play(promotion).expect("b7b8q is legal");
    assert!(!after.is_check());
    assert_eq!(after.legal_submoves().len(), 263);
    assert_eq!(san::san(&position, promotion), "b8=Q");
    assert_every_submove_has_san_and_plays(&after);
}

#[test]
fn a_pgn_fen_tag_with_263_legal_submoves_imports_checks_and_writes_back() {
    let crowded = pos(CROWDED);
    let last = crowded.legal_submoves()[262];
    let after_promotion = pos(BEFORE_PROMOTION)
        .play("b7b8q".parse().unwrap())
        .expect("b7b8q");
    let second = after_promotion.legal_submoves()[262];
    for (fen, movetext) in [
        (CROWDED, format!("1. {} *", san::san(&crowded, last))),
        (
            BEFORE_PROMOTION,
            format!("5. b8=Q,{} *", san::san(&after_promotion, second)),
        ),
    ] {
        let text = format!("[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{movetext}\n");
        let mut games = read_games(&text);
        assert_eq!(games.len(), 1);
        let imported = games
            .remove(0)
            .unwrap_or_else(|err| panic!("{text}: {err}"));
        assert_eq!(imported.game.start().fen(), fen);
        assert!(imported.game.submove_count() > 0);
        let reports = check_games(&text);
        assert!(reports[0].is_good(), "{text}: {:?}", reports[0].problems);

        let written = pgn::write_game(&imported.game, &PgnTags::default());
        let again = read_games(&written).remove(0).expect("written game reads");
        assert_eq!(again.game.submoves(), imported.game.submoves());
        assert!(check_games(&written)[0].is_good(), "{written}");
    }
}

#[test]
fn a_game_through_the_crowded_positions_writes_and_reads_back() {
    let mut game = Game::new(pos(BEFORE_PROMOTION));
    // b8=Q, then S2 and a few more sub-moves, each time the last listed one.
    game.play("b7b8q".parse().unwrap()).expect("b7b8q");
    for _ in 0..6 {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.position().legal_submoves();
        let Some(&mv) = legal.last() else { break };
        game.play(mv).expect("a listed sub-move");
    }
    let written = pgn::write_game(&game, &PgnTags::default());
    let again = read_games(&written).remove(0).expect("written game reads");
    assert_eq!(again.game.submoves(), game.submoves(), "{written}");
}
