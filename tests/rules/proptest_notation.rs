//! Properties of the notation: SAN and comma PGN round-trip for random legal
//! games from several starts, and the readers survive any text.

use marseillais::rules::pgn::{self, GameResult, PgnTags, check_games, read_games};
use marseillais::rules::san;
use marseillais::rules::{Game, Outcome, Position, Termination};
use proptest::prelude::*;

/// Starts with castling, promotions, en passant across sub-moves, a phase-2
/// start, a Black start and a pawn endgame.
const STARTS: [Option<&str>; 7] = [
    None,
    Some("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5"),
    Some("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 5"),
    Some("4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5"),
    Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1 2"),
    Some("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 10"),
    Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1"),
];

fn start(index: usize) -> Position {
    match STARTS[index % STARTS.len()] {
        None => Position::initial(),
        Some(fen) => fen.parse().expect("start FEN parses"),
    }
}

/// Plays up to `choices.len()` sub-moves, each chosen among the legal ones.
fn playout(index: usize, choices: &[u16]) -> Game {
    let mut game = Game::new(start(index));
    for &choice in choices {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.position().legal_submoves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[usize::from(choice) % legal.len()];
        if game.play(mv).is_err() {
            break;
        }
    }
    game
}

/// Ends a game that is still going in one of the ways a server can.
fn declare(game: &mut Game, how: u8) {
    if game.outcome().is_some() {
        return;
    }
    let loser = game.position().side_to_move();
    let outcome = match how % 4 {
        0 => return,
        1 => Outcome::Win {
            winner: !loser,
            reason: Termination::Resignation,
        },
        2 => Outcome::Draw {
            reason: Termination::Agreement,
        },
        _ => Outcome::Draw {
            reason: Termination::Aborted,
        },
    };
    let _ = game.declare(outcome);
}

/// `e5,Nc6` becomes `e5!?, Nc6`; a record's leading comma (`1... ,Nc6`)
/// stays as it is.
fn annotate_and_space_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut previous = ' ';
    for c in text.chars() {
        if c == ',' && !previous.is_whitespace() && previous != '.' {
            out.push_str("!?, ");
        } else {
            out.push(c);
        }
        previous = c;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, ..ProptestConfig::default() })]

    #[test]
    fn every_legal_sub_move_round_trips_through_san(
        index in 0..STARTS.len(),
        choices in prop::collection::vec(any::<u16>(), 0..80),
    ) {
        let game = playout(index, &choices);
        for position in &game.positions() {
            for mv in position.legal_submoves() {
                let text = san::san(position, mv);
                prop_assert_eq!(san::parse(position, &text), Ok(mv), "{} in {}", text, position.fen());
                prop_assert_eq!(
                    san::parse_strict(position, &text),
                    Ok(mv),
                    "{} in {}",
                    text,
                    position.fen()
                );
            }
        }
    }

    #[test]
    fn whole_games_round_trip_through_comma_pgn(
        index in 0..STARTS.len(),
        choices in prop::collection::vec(any::<u16>(), 0..80),
        how in any::<u8>(),
    ) {
        let mut game = playout(index, &choices);
        declare(&mut game, how);
        let text = pgn::write_game(&game, &PgnTags::default());
        let mut games = read_games(&text);
        prop_assert_eq!(games.len(), 1, "{}", text);
        let back = match games.remove(0) {
            Ok(back) => back,
            Err(err) => return Err(TestCaseError::fail(format!("{err}\n{text}"))),
        };
        prop_assert_eq!(back.game.submoves(), game.submoves(), "{}", text);
        prop_assert_eq!(back.game.position().fen(), game.position().fen());
        prop_assert_eq!(back.game.start().fen(), game.start().fen());
        prop_assert_eq!(back.result, Some(GameResult::of(game.outcome())));
        prop_assert_eq!(back.game.outcome(), game.outcome(), "{}", text);
        // What the writer produces is also strictly valid.
        let reports = check_games(&text);
        prop_assert_eq!(reports.len(), 1);
        prop_assert!(
            reports[0].problems.is_empty(),
            "{}\n{}",
            reports[0].problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"),
            text
        );
    }

    #[test]
    fn loosely_written_games_import_as_the_same_game_and_rewrite_cleanly(
        index in 0..STARTS.len(),
        choices in prop::collection::vec(any::<u16>(), 0..60),
        how in any::<u8>(),
        loosen in 0u8..16,
    ) {
        let mut game = playout(index, &choices);
        declare(&mut game, how);
        let written = pgn::write_game(&game, &PgnTags::default());
        let (header, movetext) = written.split_once("\n\n").unwrap_or(("", &written));
        let mut text = movetext.to_string();
        // What other programs write and the importer must accept.
        if loosen & 1 != 0 {
            text = text.replace(['+', '#'], "");
        }
        if loosen & 2 != 0 {
            text = text.replace("O-O-O", "0-0-0").replace("O-O", "0-0");
        }
        if loosen & 4 != 0 {
            text = text.replace(". ", ".");
        }
        if loosen & 8 != 0 {
            text = annotate_and_space_commas(&text).replace(" 1", " {a comment} 1");
        }
        let text = format!("{header}\n\n{text}");
        let back = match read_games(&text).into_iter().next() {
            Some(Ok(back)) => back,
            other => return Err(TestCaseError::fail(format!("{other:?}\n{text}"))),
        };
        prop_assert_eq!(back.game.submoves(), game.submoves(), "{}", text);
        prop_assert_eq!(back.game.outcome(), game.outcome(), "{}", text);
        let rewritten = pgn::write_game(&back.game, &back.header());
        let again = match pgn::read_game(&rewritten) {
            Some(Ok(again)) => again,
            other => return Err(TestCaseError::fail(format!("{other:?}\n{rewritten}"))),
        };
        prop_assert_eq!(again.game.positions(), back.game.positions());
        prop_assert!(check_games(&rewritten).iter().all(|r| r.is_good()), "{}", rewritten);
    }

    #[test]
    fn the_san_reader_survives_any_text(
        index in 0..STARTS.len(),
        text in prop_oneof![".{0,16}", "[a-hKQRBNPOox0-9=+#!?.:, -]{0,12}"],
    ) {
        let position = start(index);
        if let Ok(mv) = san::parse(&position, &text) {
            prop_assert!(position.legal_submoves().contains(&mv));
        }
        let _ = san::parse_checked(&position, &text);
    }

    #[test]
    fn the_pgn_readers_survive_any_text(
        text in prop_oneof![
            ".{0,200}",
            prop::collection::vec(
                prop_oneof![
                    Just("1.".to_string()), Just("1...".to_string()), Just("2.".to_string()),
                    Just("e4".to_string()), Just("e5,Nc6".to_string()), Just(",Nf3".to_string()),
                    Just("Qh5,Nf3".to_string()), Just("{c}".to_string()), Just("{".to_string()),
                    Just("(".to_string()), Just(")".to_string()), Just("$1".to_string()),
                    Just("*".to_string()), Just("1-0".to_string()), Just("[Event \"e\"]".to_string()),
                    Just("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]".to_string()), Just(";".to_string()),
                    Just("\n".to_string()), Just("[Result \"".to_string()), Just("e.p.".to_string()),
                    "[a-zA-Z0-9,.+#=-]{1,6}",
                ],
                0..40,
            ).prop_map(|tokens| tokens.join(" ")),
        ],
    ) {
        let _ = read_games(&text);
        let _ = pgn::read_game(&text);
        let _ = check_games(&text);
    }
}
