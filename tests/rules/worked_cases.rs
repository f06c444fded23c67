//! The worked cases of `rules.md` section 7, one test each, named after the
//! rule the case proves. Moves are played in UCI through `Position::play` or
//! `Game::play`; the assertions are exact legal-move sets, phases, sides,
//! FENs and outcomes. Where the spec's expectation is SAN or comma PGN
//! (cases 1, 2, 5, 6, 19, 22) the test also checks the notation, and the PGN
//! is read back to the same game.

use crate::support::rules_util;

use marseillais::rules::pgn::{movetext, read_game};
use marseillais::rules::{
    Claim, Color, Game, GameError, Outcome, Phase, PlayError, Position, Square, Termination,
};
use rules_util::{is_legal, legal, mv, play, play_game, pos, set};

fn win(winner: Color, reason: Termination) -> Outcome {
    Outcome::Win { winner, reason }
}

fn draw(reason: Termination) -> Outcome {
    Outcome::Draw { reason }
}

/// Case 1.
#[test]
fn first_turn_is_one_submove_and_every_later_turn_two() {
    let mut game = Game::new(Position::initial());
    let steps = [
        ("e2e4", Color::Black, Phase::First),
        ("e7e5", Color::Black, Phase::Second),
        ("b8c6", Color::White, Phase::First),
        ("d1h5", Color::White, Phase::Second),
        ("g1f3", Color::Black, Phase::First),
        ("g7g6", Color::Black, Phase::Second),
        ("g6h5", Color::White, Phase::First),
    ];
    for (uci, side, phase) in steps {
        game.play(mv(uci))
            .unwrap_or_else(|e| panic!("{uci} refused: {e}"));
        assert_eq!(game.position().side_to_move(), side, "after {uci}");
        assert_eq!(game.position().phase(), phase, "after {uci}");
    }
    assert_eq!(
        game.position().fen(),
        "r1bqkbnr/pppp1p1p/2n5/4p2p/4P3/5N2/PPPP1PPP/RNB1KB1R w KQkq - 0 3"
    );
    let turns = game.turns();
    let shape: Vec<(Color, u32, usize)> = turns
        .iter()
        .map(|t| (t.side, t.number, t.submoves.len()))
        .collect();
    assert_eq!(
        shape,
        vec![
            (Color::White, 1, 1),
            (Color::Black, 1, 2),
            (Color::White, 2, 2),
            (Color::Black, 2, 2),
        ]
    );
    assert_eq!(movetext(&game), "1. e4 e5,Nc6 2. Qh5,Nf3 g6,gxh5 *");
    let imported = read_game("1. e4 e5,Nc6 2. Qh5,Nf3 g6,gxh5 *")
        .and_then(Result::ok)
        .map(|imported| imported.game);
    assert_eq!(imported.map(|g| g.submoves()), Some(game.submoves()));
}

/// The SAN of each sub-move of `moves` played from `start`, comma-joined.
fn san_line(start: &Position, moves: &str) -> String {
    let mut position = *start;
    let mut sans = Vec::new();
    for uci in moves.split(' ') {
        sans.push(position.san(mv(uci)));
        position = play(&position, uci);
    }
    sans.join(",")
}

/// Case 2.
#[test]
fn check_on_first_submove_ends_the_turn() {
    let start = pos("rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    assert_eq!(start.san(mv("f1b5")), "Bb5+");
    let after = play(&start, "f1b5");
    assert_eq!(after.side_to_move(), Color::Black);
    assert_eq!(after.phase(), Phase::First);
    assert!(after.is_check());
    assert_eq!(after.checkers(), Square::B5.bitboard());
    assert_eq!(
        legal(&after),
        set("b8d7 b8c6 c8d7 d8d7 e8e7 c7c6"),
        "Black's S1 must answer the check"
    );
    assert_eq!(
        after.fen(),
        "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3"
    );
}

/// Case 3.
#[test]
fn discovered_check_on_first_submove_ends_the_turn() {
    let start = pos("k7/8/2K5/8/8/8/8/7Q w - - 0 5");
    let after = play(&start, "c6b6");
    assert_eq!(after.side_to_move(), Color::Black);
    assert_eq!(after.phase(), Phase::First);
    assert_eq!(after.checkers(), Square::H1.bitboard());
    // The same king step along the diagonal discovers nothing: S2 follows.
    let quiet = play(&start, "c6d5");
    assert_eq!(quiet.side_to_move(), Color::White);
    assert_eq!(quiet.phase(), Phase::Second);
    assert!(!quiet.is_check());
}

/// Case 4.
#[test]
fn king_cannot_step_into_check_on_s1_and_out_on_s2() {
    let start = pos("4k3/8/8/8/8/8/3r4/4K3 w - - 0 5");
    assert_eq!(legal(&start), set("e1d2 e1f1"));
    for uci in ["e1d1", "e1e2", "e1f2"] {
        assert_eq!(
            start.play(mv(uci)),
            Err(PlayError::Illegal(mv(uci))),
            "{uci} would leave the king attacked after S1"
        );
    }
    // The capture is a real S1 after which White still plays S2.
    let after = play(&start, "e1d2");
    assert_eq!(after.phase(), Phase::Second);
    assert_eq!(after.side_to_move(), Color::White);
}

/// Case 5.
#[test]
fn checkmate_on_first_submove_ends_the_game_without_s2() {
    let mut game = Game::new(pos("k7/8/1K6/8/8/8/7Q/8 w - - 0 5"));
    assert_eq!(game.position().san(mv("h2h8")), "Qh8#");
    play_game(&mut game, "h2h8");
    assert_eq!(movetext(&game), "5. Qh8# 1-0");
    let outcome = win(Color::White, Termination::Checkmate);
    assert_eq!(game.outcome(), Some(outcome));
    assert_eq!(outcome.result_str(), "1-0");
    assert_eq!(game.position().side_to_move(), Color::Black);
    assert_eq!(game.position().phase(), Phase::First);
    assert!(game.position().legal_submoves().is_empty());
    assert_eq!(
        game.play(mv("a8a7")),
        Err(GameError::GameOver(outcome)),
        "nothing may follow a checkmate"
    );
    assert_eq!(
        game.position().play(mv("b6b7")),
        Err(PlayError::GameOver(outcome))
    );
}

/// Case 6.
#[test]
fn checkmate_on_second_submove_wins() {
    let mut game = Game::new(pos("7k/1n4pp/8/8/8/8/8/1R4K1 w - - 0 5"));
    play_game(&mut game, "b1b7");
    assert_eq!(game.position().phase(), Phase::Second, "Rxb7 is not check");
    assert_eq!(game.outcome(), None);
    play_game(&mut game, "b7b8");
    assert_eq!(
        game.outcome(),
        Some(win(Color::White, Termination::Checkmate))
    );
    assert_eq!(game.position().fen(), "1R5k/6pp/8/8/8/8/8/6K1 b - - 1 5");
    assert_eq!(san_line(game.start(), "b1b7 b7b8"), "Rxb7,Rb8#");
    assert_eq!(movetext(&game), "5. Rxb7,Rb8# 1-0");
}

/// Case 7.
#[test]
fn opponent_without_moves_after_s1_is_judged_only_when_its_turn_starts() {
    let mut game = Game::new(pos("k7/8/1K6/8/8/8/8/2Q5 w - - 0 5"));
    play_game(&mut game, "c1c7");
    // Black could not move here, but it is White's S2: nothing is decided.
    assert_eq!(game.position().side_to_move(), Color::White);
    assert_eq!(game.position().phase(), Phase::Second);
    assert_eq!(game.outcome(), None);
    assert!(!game.position().legal_submoves().is_empty());
    play_game(&mut game, "b6a6");
    assert_eq!(game.position().side_to_move(), Color::Black);
    assert_eq!(game.outcome(), Some(draw(Termination::Stalemate)));
}

/// Case 8.
#[test]
fn no_legal_second_submove_after_a_quiet_first_is_a_draw() {
    let start = pos("1r5k/8/8/8/6p1/p7/P5P1/K7 w - - 0 5");
    assert_eq!(legal(&start), set("g2g3"));
    let mut game = Game::new(start);
    play_game(&mut game, "g2g3");
    let p = game.position();
    assert_eq!(p.phase(), Phase::Second);
    assert_eq!(p.fen(), "1r5k/8/8/8/6p1/p5P1/P7/K7 w - - 0 5 2");
    assert!(p.legal_submoves().is_empty());
    let outcome = draw(Termination::SecondMoveStalemate);
    assert_eq!(p.board_outcome(), Some(outcome));
    assert_eq!(game.outcome(), Some(outcome));
    assert_eq!(game.play(mv("a1b1")), Err(GameError::GameOver(outcome)));
}

const TWO_PAWNS: &str = "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5";

/// Case 9.
#[test]
fn en_passant_on_s1_takes_a_pawn_double_stepped_on_the_opponents_s1() {
    let after = play(&pos(TWO_PAWNS), "d7d5 e8f8");
    assert_eq!(after.fen(), "5k2/5p2/8/3pP1P1/8/8/8/4K3 w - d6 1 6");
    assert!(is_legal(&after, "e5d6"));
    assert!(after.is_en_passant(mv("e5d6")));
    let taken = play(&after, "e5d6");
    assert_eq!(taken.fen(), "5k2/5p2/3P4/6P1/8/8/8/4K3 w - - 0 6 2");
}

/// Case 10.
#[test]
fn en_passant_right_not_used_on_s1_is_gone_on_s2() {
    let after = play(&pos(TWO_PAWNS), "d7d5 e8f8 e1e2");
    assert_eq!(after.phase(), Phase::Second);
    assert!(!is_legal(&after, "e5d6"));
    assert_eq!(after.fen(), "5k2/5p2/8/3pP1P1/8/8/4K3/8 w - - 2 6 2");
}

/// Case 11.
#[test]
fn en_passant_on_s2_needs_an_en_passant_s1() {
    let targets = play(&pos(TWO_PAWNS), "d7d5 f7f5");
    assert_eq!(targets.fen(), "4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6");
    let after_s1 = play(&targets, "e5d6");
    assert_eq!(after_s1.fen(), "4k3/8/3P4/5pP1/8/8/8/4K3 w - f6 0 6 2");
    assert!(is_legal(&after_s1, "g5f6"));
    let after_s2 = play(&after_s1, "g5f6");
    assert_eq!(after_s2.fen(), "4k3/8/3P1P2/8/8/8/8/4K3 b - - 0 6");
}

/// Case 12.
#[test]
fn two_en_passant_targets_can_be_taken_in_either_order() {
    let after_s1 = play(&pos(TWO_PAWNS), "d7d5 f7f5 g5f6");
    assert_eq!(after_s1.fen(), "4k3/8/5P2/3pP3/8/8/8/4K3 w - d6 0 6 2");
    assert!(is_legal(&after_s1, "e5d6"));
    let after_s2 = play(&after_s1, "e5d6");
    assert_eq!(after_s2.fen(), "4k3/8/3P1P2/8/8/8/8/4K3 b - - 0 6");
}

/// Case 13.
#[test]
fn non_en_passant_s1_ends_all_en_passant_rights_of_the_turn() {
    let after = play(&pos(TWO_PAWNS), "d7d5 f7f5 e1d1");
    assert_eq!(after.phase(), Phase::Second);
    assert!(!is_legal(&after, "e5d6"));
    assert!(!is_legal(&after, "g5f6"));
    assert_eq!(after.fen(), "4k3/8/8/3pPpP1/8/8/8/3K4 w - - 1 6 2");
}

/// Case 14.
#[test]
fn double_stepped_pawn_that_moves_on_gives_no_en_passant_right() {
    let after = play(&pos("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 5"), "d7d5 d5d4");
    assert!(after.ep_targets().is_empty());
    assert!(!is_legal(&after, "e5d6"));
    assert_eq!(after.fen(), "4k3/8/8/4P3/3p4/8/8/4K3 w - - 0 6");
}

/// Case 15.
#[test]
fn piece_on_the_target_square_is_captured_ordinarily_and_the_pawn_behind_stays() {
    let after = play(&pos("3qk3/3p4/8/4P3/8/8/8/4K3 b - - 0 5"), "d7d5 d8d6");
    assert!(after.ep_targets().is_empty());
    assert!(!after.is_en_passant(mv("e5d6")));
    let taken = play(&after, "e5d6");
    assert_eq!(taken.fen(), "4k3/8/3P4/3p4/8/8/8/4K3 w - - 0 6 2");
}

/// Case 16.
#[test]
fn double_step_on_either_submove_gives_an_en_passant_right() {
    let start = pos("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 5");
    for moves in ["e2e4 e1d1", "e1d1 e2e4"] {
        let after = play(&start, moves);
        assert_eq!(after.side_to_move(), Color::Black, "{moves}");
        assert_eq!(after.ep_targets(), Square::E3.bitboard(), "{moves}");
        assert!(is_legal(&after, "d4e3"), "{moves}");
        let taken = play(&after, "d4e3");
        assert_eq!(taken.fen(), "4k3/8/8/8/8/4p3/8/3K4 b - - 0 5 2", "{moves}");
    }
}

/// Case 17.
#[test]
fn en_passant_that_exposes_the_king_along_the_rank_is_illegal() {
    let pinned = pos("8/6bb/8/8/R1pP2k1/4P3/P7/K7 b - d3 0 5");
    assert_eq!(pinned.ep_targets(), Square::D3.bitboard());
    assert!(!is_legal(&pinned, "c4d3"));
    // Without the rook on a4 the same capture is legal.
    let free = pos("8/6bb/8/8/2pP2k1/4P3/P7/K7 b - d3 0 5");
    assert!(is_legal(&free, "c4d3"));
}

/// Case 17b.
#[test]
fn en_passant_is_illegal_when_a_piece_arrived_behind_the_pawn_in_the_same_turn() {
    let start = pos("4b2k/3p4/8/4P3/8/8/K7/8 b - - 0 30");
    let after = play(&start, "d7d5 e8f7");
    assert_eq!(after.fen(), "7k/5b2/8/3pP3/8/8/K7/8 w - d6 1 31");
    assert_eq!(legal(&after), set("a2a1 a2a3 a2b1 a2b2 a2b3 e5e6"));
    // With the bishop still on e8 the same capture is legal.
    let control = play(&start, "d7d5 h8g8");
    assert!(is_legal(&control, "e5d6"));
}

/// Case 18.
#[test]
fn castling_through_an_attacked_square_is_illegal() {
    let start = pos("r3k2r/8/8/8/8/8/5r2/R3K2R w KQ - 0 5");
    assert!(!is_legal(&start, "e1g1"), "f1 is attacked");
    assert!(is_legal(&start, "e1c1"));
    assert!(start.is_castling(mv("e1c1")));
    let after = play(&start, "e1c1");
    assert_eq!(after.fen(), "r3k2r/8/8/8/8/8/5r2/2KR3R w - - 1 5 2");
}

/// Case 19.
#[test]
fn castling_that_gives_check_ends_the_turn() {
    let start = pos("5k2/8/8/8/8/8/8/4K2R w K - 0 5");
    assert_eq!(start.san(mv("e1g1")), "O-O+");
    let after = play(&start, "e1g1");
    assert_eq!(after.side_to_move(), Color::Black);
    assert_eq!(after.phase(), Phase::First);
    assert_eq!(after.checkers(), Square::F1.bitboard());
    assert_eq!(after.fen(), "5k2/8/8/8/8/8/8/5RK1 b - - 1 5");
}

/// Case 20.
#[test]
fn king_that_leaves_and_returns_loses_its_castling_rights() {
    let after = play(&pos("4k3/8/8/8/8/8/8/4K2R w K - 0 5"), "e1f1 f1e1");
    assert_eq!(after.fen(), "4k3/8/8/8/8/8/8/4K2R b - - 2 5");
    let white_again = play(&after, "e8d8 d8e8");
    assert!(!is_legal(&white_again, "e1g1"));
}

/// Case 21.
#[test]
fn castling_is_legal_as_the_second_submove() {
    let after = play(&pos("4k3/p7/8/8/8/8/P7/4K2R w K - 0 5"), "a2a3");
    assert_eq!(after.phase(), Phase::Second);
    assert!(is_legal(&after, "e1g1"));
    let castled = play(&after, "e1g1");
    assert_eq!(castled.fen(), "4k3/p7/8/8/8/P7/8/5RK1 b - - 1 5");
}

/// Case 22.
#[test]
fn promotion_that_gives_check_ends_the_turn() {
    let start = pos("7k/P7/8/8/8/8/8/K7 w - - 0 5");
    assert_eq!(start.san(mv("a7a8q")), "a8=Q+");
    assert_eq!(start.san(mv("a7a8n")), "a8=N");
    let queen = play(&start, "a7a8q");
    assert_eq!(queen.side_to_move(), Color::Black);
    assert_eq!(queen.phase(), Phase::First);
    assert!(queen.is_check());
    assert_eq!(queen.fen(), "Q6k/8/8/8/8/8/8/K7 b - - 0 5");
    // Promoting to a knight gives no check: S2 follows.
    let knight = play(&start, "a7a8n");
    assert_eq!(knight.side_to_move(), Color::White);
    assert_eq!(knight.phase(), Phase::Second);
}

/// Case 23.
#[test]
fn single_submove_turn_from_fen_phase_s_is_followed_by_a_two_submove_turn() {
    let start = pos("4k3/8/8/8/8/8/8/R3K3 b - - 0 1 s");
    assert_eq!(start.phase(), Phase::Single);
    assert_eq!(start.fen(), "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 s");
    let white = play(&start, "e8d8");
    assert_eq!(white.side_to_move(), Color::White);
    assert_eq!(white.phase(), Phase::First);
    assert_eq!(white.fen(), "3k4/8/8/8/8/8/8/R3K3 w - - 1 2");
    let middle = play(&white, "a1a2");
    assert_eq!(middle.side_to_move(), Color::White);
    assert_eq!(middle.phase(), Phase::Second);
    let black = play(&middle, "a2a1");
    assert_eq!(black.side_to_move(), Color::Black);
    assert_eq!(black.phase(), Phase::First);
}

/// Case 24.
#[test]
fn initial_position_with_phase_1_gives_white_two_submoves() {
    let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1");
    assert_eq!(start.phase(), Phase::First);
    let middle = play(&start, "e2e4");
    assert_eq!(middle.side_to_move(), Color::White);
    assert_eq!(middle.phase(), Phase::Second);
    let black = play(&middle, "d2d4");
    assert_eq!(
        black.fen(),
        "rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq d3,e3 0 1"
    );
    // The ordinary initial position gives White one sub-move.
    let balanced = play(&Position::initial(), "e2e4");
    assert_eq!(balanced.side_to_move(), Color::Black);
}

/// Case 25: the position S (White to move, rooks a1 and h1) stands in the
/// middle of White's turn three times before it recurs at a turn start; only
/// turn starts count, so the third turn-start occurrence is the first claim.
#[test]
fn repetition_counts_only_turn_starts_threefold_claims_fivefold_ends() {
    const S: &str = "4k3/8/8/8/8/8/8/R3K2R w - - 0 10";
    const BLACK_SHUFFLE: &str = "e8d8 d8e8";
    let mut game = Game::new(pos(S));
    let start = *game.position();
    assert_eq!(game.repetition_count(), 1);

    // Three White S1s that recreate S's placement with White to move, mid-turn.
    let mut mid_turn_sightings = 0;
    for white in [
        "a1a3 a3a2",
        "a2a1 h1h2",
        "h2h1 a1a2",
        "a2a1 h1h2",
        "h2h3 h3h1",
    ] {
        for uci in white.split(' ') {
            play_game(&mut game, uci);
            let p = game.position();
            if p.phase() == Phase::Second {
                assert_eq!(game.repetition_count(), 0, "mid-turn positions never count");
                assert!(game.available_claims().is_empty(), "no claim mid-turn");
                if p.board() == start.board() && p.side_to_move() == start.side_to_move() {
                    mid_turn_sightings += 1;
                }
            }
        }
        play_game(&mut game, BLACK_SHUFFLE);
    }
    assert_eq!(mid_turn_sightings, 3);
    assert_eq!(game.position().fen(), "4k3/8/8/8/8/8/8/R3K2R w - - 20 15");
    assert_eq!(game.repetition_count(), 2);
    assert!(game.available_claims().is_empty());

    play_game(&mut game, "a1a2 a2a1");
    play_game(&mut game, BLACK_SHUFFLE);
    assert_eq!(game.repetition_count(), 3);
    assert_eq!(game.available_claims(), vec![Claim::ThreefoldRepetition]);
    assert_eq!(game.outcome(), None, "threefold is claimed, not automatic");

    let mut claimed = game.clone();
    let outcome = draw(Termination::ThreefoldRepetition);
    assert_eq!(claimed.claim(Claim::ThreefoldRepetition), Ok(outcome));
    assert_eq!(claimed.outcome(), Some(outcome));
    assert_eq!(claimed.play(mv("a1a2")), Err(GameError::GameOver(outcome)));

    play_game(&mut game, "a1a2 a2a1");
    play_game(&mut game, BLACK_SHUFFLE);
    assert_eq!(game.repetition_count(), 4);
    assert_eq!(game.outcome(), None);
    play_game(&mut game, "a1a2 a2a1");
    play_game(&mut game, BLACK_SHUFFLE);
    assert_eq!(game.repetition_count(), 5);
    let outcome = draw(Termination::FivefoldRepetition);
    assert_eq!(game.outcome(), Some(outcome));
    assert!(game.available_claims().is_empty());
    assert_eq!(game.play(mv("a1a2")), Err(GameError::GameOver(outcome)));
}

/// Case 26, the claim: 99 -> 100 sub-moves at a turn start.
#[test]
fn fifty_move_claim_is_available_when_the_count_reaches_100_at_a_turn_start() {
    // S2 takes the count from 99 to 100 as Black's turn starts.
    let mut game = Game::new(pos("4k3/8/8/8/8/8/8/R3K3 w - - 99 60 2"));
    play_game(&mut game, "a1a2");
    assert_eq!(game.position().halfmove_clock(), 100);
    assert_eq!(game.available_claims(), vec![Claim::FiftyMoveRule]);
    assert_eq!(game.outcome(), None);
    let outcome = draw(Termination::FiftyMoveRule);
    assert_eq!(game.claim(Claim::FiftyMoveRule), Ok(outcome));
    assert_eq!(game.outcome(), Some(outcome));

    // One short of 100 at a turn start: nothing to claim.
    let mut short = Game::new(pos("4k3/8/8/8/8/8/8/R3K3 w - - 98 60 2"));
    play_game(&mut short, "a1a2");
    assert!(short.available_claims().is_empty());
    assert_eq!(
        short.claim(Claim::FiftyMoveRule),
        Err(GameError::ClaimUnavailable(Claim::FiftyMoveRule))
    );
}

/// Case 26, judged only at a turn start: S1 takes the count to 100 mid-turn.
#[test]
fn fifty_move_claim_is_not_judged_between_s1_and_s2() {
    let mut game = Game::new(pos("4k3/8/8/8/8/8/8/R3K3 w - - 99 60"));
    play_game(&mut game, "a1a2");
    assert_eq!(game.position().halfmove_clock(), 100);
    assert_eq!(game.position().phase(), Phase::Second);
    assert!(game.available_claims().is_empty());
    assert_eq!(
        game.claim(Claim::FiftyMoveRule),
        Err(GameError::ClaimUnavailable(Claim::FiftyMoveRule))
    );
    play_game(&mut game, "a2a3");
    assert_eq!(game.available_claims(), vec![Claim::FiftyMoveRule]);
}

/// Case 26, the automatic draw: 149 -> 150 sub-moves at a turn start.
#[test]
fn seventy_five_move_rule_ends_the_game_at_150_submoves_at_a_turn_start() {
    let outcome = draw(Termination::SeventyFiveMoveRule);
    let mut game = Game::new(pos("4k3/8/8/8/8/8/8/R3K3 w - - 149 60 2"));
    play_game(&mut game, "a1a2");
    assert_eq!(game.position().halfmove_clock(), 150);
    assert_eq!(game.position().board_outcome(), Some(outcome));
    assert_eq!(game.outcome(), Some(outcome));
    assert_eq!(game.play(mv("e8d8")), Err(GameError::GameOver(outcome)));

    let mut short = Game::new(pos("4k3/8/8/8/8/8/8/R3K3 w - - 148 60 2"));
    play_game(&mut short, "a1a2");
    assert_eq!(short.outcome(), None);
}

/// Case 26, judged only at a turn start: S1 takes the count to 150 mid-turn.
#[test]
fn seventy_five_move_rule_is_not_judged_between_s1_and_s2() {
    let mut game = Game::new(pos("4k3/8/8/8/8/8/8/R3K3 w - - 149 60"));
    play_game(&mut game, "a1a2");
    assert_eq!(game.position().halfmove_clock(), 150);
    assert_eq!(game.position().board_outcome(), None);
    assert_eq!(game.outcome(), None);
    play_game(&mut game, "a2a3");
    assert_eq!(game.outcome(), Some(draw(Termination::SeventyFiveMoveRule)));
}
