//! Comma PGN: writing, tolerant reading, strict checking and the
//! `pgn check` command (`docs/rules.md` section 4).

use crate::support;

use std::ffi::OsStr;
use std::path::PathBuf;

use marseillais::rules::pgn::{
    self, CheckReason, GameResult, MoveError, PgnError, PgnTags, check_games, read_games,
};
use marseillais::rules::san::{SanError, SanIssue};
use marseillais::rules::{Color, Game, Outcome, Position, SubMove, Termination};
use support::process::run;

fn game_from(fen: Option<&str>, uci: &str) -> Game {
    let start = match fen {
        Some(fen) => fen.parse().expect("test FEN parses"),
        None => Position::initial(),
    };
    let mut game = Game::new(start);
    for text in uci.split_whitespace() {
        let mv: SubMove = text.parse().expect("test UCI parses");
        game.play(mv).expect("test sub-move is legal");
    }
    game
}

fn uci(game: &Game) -> Vec<String> {
    game.submoves().iter().map(|m| m.to_string()).collect()
}

fn read_one(text: &str) -> pgn::ImportedGame {
    let mut games = read_games(text);
    assert_eq!(games.len(), 1, "expected one game in {text}");
    games.remove(0).expect("game reads")
}

fn read_error(text: &str) -> PgnError {
    let mut games = read_games(text);
    assert_eq!(games.len(), 1, "expected one game in {text}");
    games.remove(0).expect_err("game must not read")
}

const SPEC_CASE_1: &str = "e2e4 e7e5 b8c6 d1h5 g1f3 g7g6 g6h5";

// ---- writing ---------------------------------------------------------------

#[test]
fn spec_case_1_is_written_with_comma_joined_turns() {
    let game = game_from(None, SPEC_CASE_1);
    assert_eq!(pgn::movetext(&game), "1. e4 e5,Nc6 2. Qh5,Nf3 g6,gxh5 *");
}

#[test]
fn the_header_has_the_seven_tags_variant_and_termination_in_order() {
    let game = game_from(None, SPEC_CASE_1);
    let tags = PgnTags {
        event: "Casual \"blitz\"".into(),
        white: "Alice".into(),
        time_control: Some("300+3".into()),
        ..PgnTags::default()
    };
    let text = pgn::write_game(&game, &tags);
    let expected_start = "[Event \"Casual \\\"blitz\\\"\"]\n\
        [Site \"?\"]\n\
        [Date \"????.??.??\"]\n\
        [Round \"?\"]\n\
        [White \"Alice\"]\n\
        [Black \"?\"]\n\
        [Result \"*\"]\n\
        [Variant \"Marseillais\"]\n\
        [TimeControl \"300+3\"]\n\
        [Termination \"unterminated\"]\n\
        \n\
        1. e4 e5,Nc6 2. Qh5,Nf3 g6,gxh5 *\n";
    assert_eq!(text, expected_start);
    assert!(
        !text.contains("FEN"),
        "the initial position needs no FEN tag"
    );
    // The escaped name reads back.
    let back = read_one(&text);
    assert_eq!(back.header(), tags);
}

#[test]
fn a_record_starting_with_black_uses_three_dots() {
    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    let game = game_from(Some(fen), "e7e5 b8c6 d1h5 g1f3");
    assert_eq!(pgn::movetext(&game), "1... e5,Nc6 2. Qh5,Nf3 *");
    let text = pgn::write_game(&game, &PgnTags::default());
    assert!(text.contains("[SetUp \"1\"]\n[FEN \""), "{text}");
}

#[test]
fn a_record_starting_at_a_second_sub_move_begins_with_a_comma() {
    let black = game_from(None, "e2e4 e7e5").position().fen();
    assert!(black.ends_with(" 2"), "{black}");
    let game = game_from(Some(&black), "b8c6 d1h5 g1f3");
    assert_eq!(pgn::movetext(&game), "1... ,Nc6 2. Qh5,Nf3 *");

    let white = game_from(None, "e2e4 e7e5 b8c6 d1h5").position().fen();
    let game = game_from(Some(&white), "g1f3 g7g6 g6h5");
    assert_eq!(pgn::movetext(&game), "2. ,Nf3 g6,gxh5 *");
}

#[test]
fn a_game_decided_on_the_board_carries_its_result_and_termination() {
    let game = game_from(Some("7k/1n4pp/8/8/8/8/8/1R4K1 w - - 0 5"), "b1b7 b7b8");
    assert_eq!(pgn::movetext(&game), "5. Rxb7,Rb8# 1-0");
    let text = pgn::write_game(&game, &PgnTags::default());
    assert!(text.contains("[Result \"1-0\"]"), "{text}");
    assert!(text.contains("[Termination \"checkmate\"]"), "{text}");
}

#[test]
fn a_declared_ending_is_written_with_its_termination() {
    let mut game = game_from(None, "e2e4 e7e5 b8c6 d1h5");
    game.declare(Outcome::Win {
        winner: Color::Black,
        reason: Termination::Resignation,
    })
    .unwrap();
    let text = pgn::write_game(&game, &PgnTags::default());
    assert!(text.contains("[Result \"0-1\"]"), "{text}");
    assert!(text.contains("[Termination \"resignation\"]"), "{text}");
    assert!(text.ends_with("2. Qh5 0-1\n"), "{text}");
    let back = read_one(&text);
    assert_eq!(back.game.outcome(), game.outcome());
    assert_eq!(back.result, Some(GameResult::BlackWins));
}

#[test]
fn long_movetext_is_wrapped_below_80_columns_between_tokens() {
    // A long legal game: a fixed walk through the legal sub-moves.
    let mut game = Game::new(Position::initial());
    for step in 0..120usize {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.position().legal_submoves();
        let mv = legal[(step * 7 + 3) % legal.len()];
        game.play(mv).unwrap();
    }
    assert!(game.submove_count() > 40);
    let text = pgn::movetext(&game);
    assert!(text.lines().count() > 3, "{text}");
    for line in text.lines() {
        assert!(line.len() < 80, "line too long: {line}");
        assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
    }
    let back = read_one(&pgn::write_game(&game, &PgnTags::default()));
    assert_eq!(uci(&back.game), uci(&game));
}

/// A small deterministic generator (xorshift64*), so that the test below
/// plays the same games on every run.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

#[test]
fn every_exported_movetext_line_is_shorter_than_80_and_reads_back() {
    // PGN export format (8.2.1): movetext lines of less than 80 characters.
    // 300 random games of up to 240 sub-moves from three starts; lines of
    // exactly 80 came up in such games before the wrap was fixed.
    let starts = [
        Position::initial(),
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5"
            .parse()
            .unwrap(),
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 5".parse().unwrap(),
    ];
    let mut random = Seeded(0x9E37_79B9_7F4A_7C15);
    let mut lines_checked = 0;
    for index in 0..300 {
        let mut game = Game::new(starts[index % starts.len()]);
        for _ in 0..240 {
            if game.outcome().is_some() {
                break;
            }
            let legal = game.position().legal_submoves();
            let mv = legal[random.below(legal.len())];
            game.play(mv).unwrap();
        }
        let text = pgn::write_game(&game, &PgnTags::default());
        let movetext = text.split_once("\n\n").map_or("", |(_, m)| m);
        for line in movetext.lines() {
            assert!(line.len() < 80, "{} characters: {line}", line.len());
            lines_checked += 1;
        }
        let back = read_one(&text);
        assert_eq!(uci(&back.game), uci(&game), "{text}");
        assert_eq!(back.game.outcome(), game.outcome(), "{text}");
        assert!(check_games(&text)[0].is_good(), "{text}");
    }
    assert!(lines_checked > 1000, "{lines_checked}");
}

// ---- reading ---------------------------------------------------------------

#[test]
fn written_games_read_back_to_the_same_sub_moves() {
    let game = game_from(None, SPEC_CASE_1);
    let back = read_one(&pgn::write_game(&game, &PgnTags::default()));
    assert_eq!(uci(&back.game), uci(&game));
    assert_eq!(back.game.position().fen(), game.position().fen());
    assert_eq!(back.result, Some(GameResult::Ongoing));
    assert_eq!(back.tag("Variant"), Some("Marseillais"));
}

#[test]
fn compact_move_numbers_are_read() {
    let expected = uci(&game_from(None, SPEC_CASE_1));
    let back = read_one("1.e4 e5,Nc6 2.Qh5,Nf3 g6,gxh5 *");
    assert_eq!(uci(&back.game), expected);

    let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    let back = read_one(&format!("[FEN \"{fen}\"]\n\n1...e5,Nc6 2.Qh5 *"));
    assert_eq!(uci(&back.game), ["e7e5", "b8c6", "d1h5"]);

    let white = game_from(None, "e2e4 e7e5 b8c6 d1h5").position().fen();
    let back = read_one(&format!("[FEN \"{white}\"]\n2.,Nf3 g6,gxh5 *"));
    assert_eq!(uci(&back.game), ["g1f3", "g7g6", "g6h5"]);
}

#[test]
fn comments_nags_and_annotations_are_skipped() {
    let text = "% an escape line\n\
        [Event \"x\"]\n\
        1. e4 {a comment, with commas} e5!?,Nc6?! $14 ; to the end of the line 1-0\n\
        2. Qh5 $1 ! ,Nf3 g6,gxh5 *";
    let back = read_one(text);
    assert_eq!(uci(&back.game), uci(&game_from(None, SPEC_CASE_1)));
    assert_eq!(back.result, Some(GameResult::Ongoing));
}

#[test]
fn windows_line_endings_and_a_byte_order_mark_are_accepted() {
    let text =
        "\u{feff}[Event \"crlf\"]\r\n[Result \"*\"]\r\n\r\n1. e4 e5,Nc6 ; note\r\n2. Qh5,Nf3 *\r\n";
    let back = read_one(text);
    assert_eq!(back.tag("Event"), Some("crlf"));
    assert_eq!(uci(&back.game), ["e2e4", "e7e5", "b8c6", "d1h5", "g1f3"]);
    assert!(check_games(text)[0].is_good(), "{:?}", check_games(text));
}

#[test]
fn several_games_are_read_one_by_one() {
    let text = "[Event \"one\"]\n1. e4 *\n\n\
        [Event \"two\"]\n1. d4 d5,Nf6 1/2-1/2\n\n\
        1. Nf3 Nc6,Nf6 *\n\
        [Event \"four\"]\n1. e4 e5,Nf4 *\n";
    let games = read_games(text);
    assert_eq!(games.len(), 4);
    let first = games[0].as_ref().unwrap();
    assert_eq!(first.tag("Event"), Some("one"));
    assert_eq!(uci(&first.game), ["e2e4"]);
    let second = games[1].as_ref().unwrap();
    assert_eq!(second.tag("Event"), Some("two"));
    assert_eq!(second.result, Some(GameResult::Draw));
    let third = games[2].as_ref().unwrap();
    assert!(third.tags.is_empty());
    assert_eq!(uci(&third.game), ["g1f3", "b8c6", "g8f6"]);
    assert!(games[3].is_err(), "the fourth game has an illegal sub-move");
}

#[test]
fn a_fen_tag_starts_the_game_there_even_at_phase_2() {
    let fen = "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5";
    let back = read_one(&format!(
        "[SetUp \"1\"]\n[FEN \"{fen}\"]\n5... d5,Kf8 6. exd6 e.p.,Ke2 *"
    ));
    assert_eq!(uci(&back.game), ["d7d5", "e8f8", "e5d6", "e1e2"]);
    assert_eq!(back.game.start().fen(), fen);

    let phase2 = game_from(Some(fen), "d7d5").position().fen();
    let back = read_one(&format!("[FEN \"{phase2}\"]\n5... ,Kf8 *"));
    assert_eq!(uci(&back.game), ["e8f8"]);
}

#[test]
fn import_repairs_check_marks_and_accepts_over_disambiguation() {
    let back = read_one("1. Ng1f3 e5,Nc6+ 2. Nxe5,Nxc6 dxc6,Qd5+ *");
    // Nxc6 attacks nothing; Qd5 is quiet too: the marks are wrong but repaired.
    assert_eq!(back.game.submove_count(), 7);
    let fen = "k7/8/1K6/8/8/8/7Q/8 w - - 0 5";
    let back = read_one(&format!("[FEN \"{fen}\"]\n5. Qh8 1-0"));
    assert_eq!(
        back.game.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: Termination::Checkmate
        })
    );
}

#[test]
fn import_declares_the_ending_the_tags_state() {
    let back = read_one("[Result \"1/2-1/2\"]\n[Termination \"agreement\"]\n1. d4 d5,Nf6 1/2-1/2");
    assert_eq!(
        back.game.outcome(),
        Some(Outcome::Draw {
            reason: Termination::Agreement
        })
    );
    let back = read_one(
        "[Termination \"threefold repetition\"]\n\
         1. Nf3 Nf6,Ng8 2. Ng1,Nf3 Nf6,Ng8 3. Ng1,Nf3 1/2-1/2",
    );
    assert_eq!(
        back.game.outcome(),
        Some(Outcome::Draw {
            reason: Termination::ThreefoldRepetition
        })
    );
    // A claim that is not available is not granted.
    let back = read_one("[Termination \"threefold repetition\"]\n1. Nf3 Nf6,Ng8 1/2-1/2");
    assert_eq!(back.game.outcome(), None);
    assert_eq!(back.result, Some(GameResult::Draw));
}

#[test]
fn a_variation_is_rejected_with_its_place() {
    match read_error("1. e4 (1. d4 d5,Nf6) e5,Nc6 *") {
        PgnError::Move { at, reason, .. } => {
            assert_eq!(reason, MoveError::Variation);
            assert_eq!((at.turn, at.side, at.submove), (1, Color::Black, 1));
        }
        other => panic!("expected a variation error, got {other:?}"),
    }
    let message = read_error("1. e4 (1. d4) *").to_string();
    assert!(message.contains("variation"), "{message}");
}

#[test]
fn errors_carry_turn_side_sub_move_and_token() {
    match read_error("1. e4 e5,Nc6 2. Qh5,Nf4 *") {
        PgnError::Move { at, token, reason } => {
            assert_eq!((at.turn, at.side, at.submove), (2, Color::White, 2));
            assert_eq!(token, "Nf4");
            assert_eq!(reason, MoveError::San(SanError::Illegal("Nf4".into())));
        }
        other => panic!("unexpected {other:?}"),
    }
    let message = read_error("1. e4 e5,Nc6 2. Qh5,Nf4 *").to_string();
    assert!(
        message.contains("turn 2") && message.contains("sub-move 2") && message.contains("Nf4"),
        "{message}"
    );
}

#[test]
fn a_second_sub_move_after_a_checking_first_is_rejected() {
    let fen = "rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3";
    match read_error(&format!("[FEN \"{fen}\"]\n3. Bb5+,Nc3 *")) {
        PgnError::Move { at, token, reason } => {
            assert_eq!(reason, MoveError::CheckEndsTurn);
            assert_eq!((at.turn, at.side, at.submove), (3, Color::White, 2));
            assert_eq!(token, "Nc3");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn a_turn_missing_its_second_sub_move_is_rejected_unless_it_is_the_last() {
    match read_error("1. e4 e5 2. d4 *") {
        PgnError::Move { at, token, reason } => {
            assert_eq!(reason, MoveError::TurnIncomplete);
            assert_eq!((at.turn, at.side, at.submove), (1, Color::Black, 2));
            assert_eq!(token, "e5");
        }
        other => panic!("unexpected {other:?}"),
    }
    let back = read_one("1. e4 e5 *");
    assert_eq!(uci(&back.game), ["e2e4", "e7e5"]);
}

#[test]
fn bad_tags_and_fens_are_typed_errors() {
    assert!(matches!(
        read_error("[Event \"open\n1. e4 *"),
        PgnError::Tag { line: 1, .. }
    ));
    assert!(matches!(
        read_error("[FEN \"8/8/8/8 w - - 0 1\"]\n*"),
        PgnError::Fen(_)
    ));
    assert!(matches!(
        read_error("1. e4 {never closed"),
        PgnError::UnclosedComment { line: 1 }
    ));
}

#[test]
fn garbage_reads_as_errors_without_panicking() {
    for text in [
        "",
        "   ",
        "]]]",
        "((((",
        "))))",
        "1.",
        "1...",
        "99999999999999999999. e4 *",
        ",,,",
        "e4,",
        "{",
        "[",
        "[A",
        "[A \"",
        "$$$",
        "…",
        "1…e5",
        "é",
        "1-0 1-0",
        "1. e4\u{0}",
    ] {
        let _ = read_games(text);
        let _ = check_games(text);
    }
    assert!(read_games("").is_empty());
}

// ---- strict checking -------------------------------------------------------

/// A short name for the first problem's reason, as the data files say it.
fn reason_name(reason: &CheckReason) -> String {
    let name = match reason {
        CheckReason::Unreadable(_) => "Unreadable",
        CheckReason::Move { reason, .. } => match reason {
            MoveError::San(SanError::Unparsable(_)) => "Unparsable",
            MoveError::San(SanError::Illegal(_)) => "Illegal",
            MoveError::San(SanError::Ambiguous(..)) => "Ambiguous",
            MoveError::CheckEndsTurn => "CheckEndsTurn",
            MoveError::SingleSubMoveTurn => "SingleSubMoveTurn",
            MoveError::TooManySubMoves => "TooManySubMoves",
            MoveError::TurnIncomplete => "TurnIncomplete",
            MoveError::EmptySubMove => "EmptySubMove",
            MoveError::UnexpectedLeadingComma => "UnexpectedLeadingComma",
            MoveError::GameOver(_) => "GameOver",
            MoveError::Variation => "Variation",
            MoveError::UnexpectedCloseParen => "UnexpectedCloseParen",
            MoveError::VariationFirst => "VariationFirst",
            MoveError::VariationTooDeep => "VariationTooDeep",
        },
        CheckReason::San(issue) => match issue {
            SanIssue::OverDisambiguated { .. } => "OverDisambiguated",
            SanIssue::MissingCheckMark { .. } => "MissingCheckMark",
            SanIssue::WrongCheckMark { .. } => "WrongCheckMark",
            SanIssue::NonStandard { .. } => "NonStandard",
            SanIssue::FalseEnPassantMark { .. } => "FalseEnPassantMark",
        },
        CheckReason::MoveNumber { .. } => "MoveNumber",
        CheckReason::MissingMoveNumber { .. } => "MissingMoveNumber",
        CheckReason::SpacedComma { .. } => "SpacedComma",
        CheckReason::MissingLeadingComma { .. } => "MissingLeadingComma",
        CheckReason::MissingResult => "MissingResult",
        CheckReason::BadResultTag(_) => "BadResultTag",
        CheckReason::ResultTagMismatch { .. } => "ResultTagMismatch",
        CheckReason::BoardResult { .. } => "BoardResult",
        CheckReason::TerminationDiffers { .. } => "TerminationDiffers",
        CheckReason::TerminationNotOnBoard(_) => "TerminationNotOnBoard",
        CheckReason::UnknownTermination(_) => "UnknownTermination",
        CheckReason::UnexplainedResult(_) => "UnexplainedResult",
        CheckReason::TerminationResultMismatch { .. } => "TerminationResultMismatch",
        CheckReason::ClaimUnavailable(_) => "ClaimUnavailable",
        CheckReason::IncompleteFinalTurn => "IncompleteFinalTurn",
    };
    name.to_string()
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The `[Expect "..."]` values of a data file, in order.
fn expectations(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("[Expect \""))
        .filter_map(|rest| rest.strip_suffix("\"]"))
        .map(str::to_string)
        .collect()
}

fn first_problems(name: &str) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(data(name)).expect("data file");
    let expected = expectations(&text);
    let reports = check_games(&text);
    assert_eq!(reports.len(), expected.len(), "{name}: one Expect per game");
    reports
        .iter()
        .zip(expected)
        .map(|(report, expect)| {
            let (found, message) = match report.problems.first() {
                None => ("good".to_string(), String::new()),
                Some(problem) => (reason_name(&problem.reason), problem.to_string()),
            };
            (expect, found, message)
        })
        .collect()
}

#[test]
fn every_good_sample_game_passes_the_strict_check() {
    for (index, (expect, found, message)) in first_problems("check_good.pgn").iter().enumerate() {
        assert_eq!(expect, "good");
        assert_eq!(found, "good", "game {}: {message}", index + 1);
    }
}

#[test]
fn every_good_sample_game_also_imports() {
    let text = std::fs::read_to_string(data("check_good.pgn")).unwrap();
    for (index, game) in read_games(&text).into_iter().enumerate() {
        assert!(game.is_ok(), "game {}: {:?}", index + 1, game.err());
    }
}

#[test]
fn every_bad_sample_game_reports_the_expected_first_problem() {
    let results = first_problems("check_bad.pgn");
    assert!(results.len() >= 30);
    for (index, (expect, found, message)) in results.iter().enumerate() {
        assert_eq!(found, expect, "game {}: {message}", index + 1);
    }
}

#[test]
fn problems_in_the_movetext_carry_their_turn_and_sub_move() {
    let text = std::fs::read_to_string(data("check_bad.pgn")).unwrap();
    let reports = check_games(&text);
    // Game 1: `2. Qh5,Nf4`.
    let problem = &reports[0].problems[0];
    let at = problem.at.expect("a located problem");
    assert_eq!((at.turn, at.side, at.submove), (2, Color::White, 2));
    assert!(problem.to_string().contains("Nf4"), "{problem}");
    // Result problems point at the final sub-move: `1. e4 e5,Nc6 1-0`.
    let unexplained = reports
        .iter()
        .find(|r| matches!(r.problems[0].reason, CheckReason::UnexplainedResult(_)))
        .unwrap();
    let at = unexplained.problems[0].at.unwrap();
    assert_eq!((at.turn, at.side, at.submove), (1, Color::Black, 2));
}

#[test]
fn strict_check_lists_every_non_fatal_problem_in_order() {
    let reports = check_games("[Result \"*\"]\n1. Ng1f3 e5,Nc6+ 3. e4,Nc3 *");
    let names: Vec<String> = reports[0]
        .problems
        .iter()
        .map(|p| reason_name(&p.reason))
        .collect();
    assert_eq!(names, ["OverDisambiguated", "WrongCheckMark", "MoveNumber"]);
}

/// The three false `e.p.` marks found by hostile clients: an ordinary
/// capture of a knight standing on the old target square, the same written
/// without a space, and a double step. Each is the game's only problem.
const FALSE_EN_PASSANT: [(&str, &str); 3] = [
    ("1. e4 d5,d4 2. c4,Nc3 dxc3 e.p. *", "'dxc3"),
    (
        "[SetUp \"1\"]\n[FEN \"4k3/8/4n3/3P4/8/8/8/4K3 w - - 0 21\"]\n\n21. dxe6e.p.,Kd2 *",
        "'dxe6e.p.'",
    ),
    ("1. e4 d5,d4 2. c4e.p.,Nf3 *", "'c4e.p.'"),
];

#[test]
fn strict_check_rejects_an_e_p_mark_on_a_sub_move_that_is_not_en_passant() {
    for (text, token) in FALSE_EN_PASSANT {
        let reports = check_games(&format!("[Result \"*\"]\n{text}"));
        assert_eq!(reports.len(), 1, "{text}");
        let problems = &reports[0].problems;
        assert_eq!(problems.len(), 1, "{text}: {problems:?}");
        let message = problems[0].to_string();
        assert!(message.contains(token), "{text}: {message}");
        assert!(
            message.contains("not an en-passant capture"),
            "{text}: {message}"
        );
        assert!(
            matches!(
                problems[0].reason,
                CheckReason::San(SanIssue::FalseEnPassantMark { .. })
            ),
            "{text}: {message}"
        );
    }
}

#[test]
fn import_still_accepts_a_false_e_p_mark_as_the_capture_or_step_it_names() {
    for (text, _) in FALSE_EN_PASSANT {
        let game = read_one(text).game;
        assert!(game.submove_count() > 0, "{text}");
    }
    let back = read_one(FALSE_EN_PASSANT[0].0);
    assert_eq!(
        uci(&back.game),
        ["e2e4", "d7d5", "d5d4", "c2c4", "b1c3", "d4c3"]
    );
}

#[test]
fn strict_check_accepts_a_true_e_p_mark() {
    let fen = "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5";
    for capture in ["exd6 e.p.", "exd6e.p."] {
        let text = format!(
            "[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n5... d5,Kf8 6. {capture},Ke2 *"
        );
        let reports = check_games(&text);
        assert!(reports[0].is_good(), "{text}: {:?}", reports[0].problems);
    }
}

// ---- the command -----------------------------------------------------------

fn run_check(path: &std::path::Path) -> (Option<i32>, String, String) {
    let output = run(
        env!("CARGO_BIN_EXE_marseillais"),
        &[OsStr::new("pgn"), OsStr::new("check"), path.as_os_str()],
    );
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn pgn_check_reports_each_bad_game_and_exits_1() {
    let (code, stdout, _) = run_check(&data("check_mixed.pgn"));
    assert_eq!(code, Some(1), "{stdout}");
    let bad_lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(bad_lines.len(), 2, "{stdout}");
    assert!(
        bad_lines[0].starts_with("game 2: line 13, turn 3 (White), sub-move 2"),
        "{stdout}"
    );
    assert!(bad_lines[0].contains("ends the turn"), "{stdout}");
    assert!(bad_lines[1].starts_with("game 4:"), "{stdout}");
    assert!(bad_lines[1].contains("Result tag"), "{stdout}");
    assert!(
        stdout.contains("4 games checked: 2 good, 2 bad"),
        "{stdout}"
    );
}

#[test]
fn pgn_check_exits_0_when_every_game_is_good() {
    let (code, stdout, _) = run_check(&data("check_good.pgn"));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains(" good, 0 bad"), "{stdout}");
}

#[test]
fn pgn_check_exits_2_on_an_unreadable_file() {
    let (code, _, stderr) = run_check(&data("no-such-file.pgn"));
    assert_eq!(code, Some(2));
    assert!(stderr.contains("cannot read"), "{stderr}");
}
