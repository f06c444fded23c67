//! Rules sections 1 and 3 beyond the worked cases: how the turn state moves
//! (phases, counters, castling rights), what `Position::play` and
//! `Game::play` promise on success and on refusal, and taking back S1.

use crate::support::rules_util;

use marseillais::rules::{
    Color, Game, GameError, Outcome, Phase, PlayError, Position, Rules, Square, Termination,
};
use rules_util::{mv, play, play_game, pos};

#[test]
fn balanced_game_goes_single_then_first_and_second_for_each_side() {
    let mut position = Position::initial();
    let expected = [
        (Color::White, Phase::Single),
        (Color::Black, Phase::First),
        (Color::Black, Phase::Second),
        (Color::White, Phase::First),
        (Color::White, Phase::Second),
        (Color::Black, Phase::First),
        (Color::Black, Phase::Second),
        (Color::White, Phase::First),
    ];
    let moves = ["g1f3", "g8f6", "b8c6", "b1c3", "f3g1", "f6g8", "c6b8"];
    assert_eq!((position.side_to_move(), position.phase()), expected[0]);
    for (uci, &want) in moves.iter().zip(&expected[1..]) {
        position = play(&position, uci);
        assert_eq!(
            (position.side_to_move(), position.phase()),
            want,
            "after {uci}"
        );
    }
}

#[test]
fn orthodox_turns_stay_single_and_alternate_sides() {
    let mut position = Position::initial_orthodox();
    for (uci, side) in [
        ("e2e4", Color::Black),
        ("e7e5", Color::White),
        ("g1f3", Color::Black),
        ("b8c6", Color::White),
    ] {
        position = play(&position, uci);
        assert_eq!(position.phase(), Phase::Single, "after {uci}");
        assert_eq!(position.side_to_move(), side, "after {uci}");
    }
    assert_eq!(
        position.fen(),
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    );
}

#[test]
fn orthodox_double_step_gives_one_ordinary_en_passant_right() {
    let start = Position::from_fen("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 5", Rules::Orthodox)
        .unwrap_or_else(|e| panic!("{e}"));
    let after = play(&start, "d7d5");
    assert_eq!(after.side_to_move(), Color::White);
    assert_eq!(after.ep_targets(), Square::D6.bitboard());
    assert!(after.legal_submoves().contains(&mv("e5d6")));
    // Not taken at once: gone.
    let later = play(&after, "e1e2 e8e7");
    assert!(!later.legal_submoves().contains(&mv("e5d6")));
}

#[test]
fn fullmove_number_increases_after_each_black_turn() {
    let mut position = Position::initial();
    let steps = [
        ("e2e4", 1),
        ("e7e5", 1),
        ("g8f6", 2),
        ("g1f3", 2),
        ("b1c3", 2),
        ("b8c6", 2),
        ("f8c5", 3),
    ];
    for (uci, fullmove) in steps {
        position = play(&position, uci);
        assert_eq!(position.fullmove_number(), fullmove, "after {uci}");
    }
    // A single-sub-move Black turn (FEN phase `s`) also ends a move pair.
    let black_single = play(&pos("4k3/8/8/8/8/8/8/R3K3 b - - 0 7 s"), "e8d8");
    assert_eq!(black_single.fullmove_number(), 8);
}

#[test]
fn halfmove_clock_counts_every_submove_and_resets_on_pawn_moves_and_captures() {
    let start = pos("r3k3/8/8/8/8/8/4P3/R3K3 w - - 7 20");
    let steps = [
        ("a1a2", 8),  // White S1, quiet
        ("a2a3", 9),  // White S2, quiet
        ("e8d8", 10), // Black S1
        ("d8e8", 11), // Black S2
        ("e2e4", 0),  // pawn move
        ("a3a6", 1),  // quiet
        ("a8a6", 0),  // capture
        ("e8d8", 1),  // quiet S2
    ];
    let mut position = start;
    for (uci, clock) in steps {
        position = play(&position, uci);
        assert_eq!(position.halfmove_clock(), clock, "after {uci}");
    }
}

#[test]
fn en_passant_capture_resets_the_halfmove_clock() {
    let after = play(&pos("4k3/3p4/8/4P3/8/8/8/4K3 b - - 30 5"), "e8f8 d7d5");
    assert_eq!(after.halfmove_clock(), 0);
    let moved = play(&after, "e1e2");
    assert_eq!(moved.halfmove_clock(), 1);
    let before_ep = play(&pos("4k3/3p4/8/4P3/8/8/8/4K3 b - - 30 5"), "d7d5 e8f8 e1e2");
    assert_eq!(before_ep.halfmove_clock(), 2);
    let taken = play(&pos("4k3/3p4/8/4P3/8/8/8/4K3 b - - 30 5"), "d7d5 e8f8 e5d6");
    assert_eq!(taken.halfmove_clock(), 0);
}

#[test]
fn capturing_a_rook_on_its_home_square_removes_that_castling_right() {
    let start = pos("r3k2r/8/8/8/8/8/6B1/R3K2R w KQkq - 0 5");
    let after = play(&start, "g2a8");
    assert_eq!(after.fen(), "B3k2r/8/8/8/8/8/8/R3K2R w KQk - 0 5 2");
    // And Black loses queen-side castling for good: its S1 cannot castle there.
    let black = play(&after, "e1d1");
    assert!(!black.legal_submoves().contains(&mv("e8c8")));
    assert!(black.legal_submoves().contains(&mv("e8g8")));
}

#[test]
fn own_rook_captured_on_s1_of_the_opponent_loses_the_right_at_once() {
    let start = pos("r3k2r/8/8/8/8/8/1b6/R3K2R b KQkq - 0 5");
    let after = play(&start, "b2a1");
    assert_eq!(after.fen(), "r3k2r/8/8/8/8/8/8/b3K2R b Kkq - 0 5 2");
}

#[test]
fn rook_that_moves_away_and_back_loses_its_castling_right() {
    let after = play(&pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 5"), "h1h2 h2h1");
    assert_eq!(after.fen(), "r3k2r/8/8/8/8/8/8/R3K2R b Qkq - 2 5");
}

#[test]
fn play_leaves_the_old_position_intact() {
    let start = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 5");
    let copy = start;
    let fen = start.fen();
    let after = play(&start, "e1g1");
    assert_ne!(after, start);
    assert_eq!(start, copy);
    assert_eq!(start.fen(), fen);
    assert_eq!(start.incremental_hash(), start.hash_from_scratch());
    assert_eq!(after.incremental_hash(), after.hash_from_scratch());
}

#[test]
fn play_refuses_with_a_typed_error_and_changes_nothing() {
    let start = Position::initial();
    assert_eq!(start.play(mv("e3e4")), Err(PlayError::NoPiece(Square::E3)));
    assert_eq!(
        start.play(mv("e7e5")),
        Err(PlayError::NotYourPiece(Square::E7))
    );
    assert_eq!(start.play(mv("e2e5")), Err(PlayError::Illegal(mv("e2e5"))));
    assert_eq!(start.play(mv("g1g3")), Err(PlayError::Illegal(mv("g1g3"))));
    // A pawn reaching the last rank must name its piece; others must not.
    let promo = pos("7k/P7/8/8/8/8/8/K7 w - - 0 5");
    assert_eq!(promo.play(mv("a7a8")), Err(PlayError::Illegal(mv("a7a8"))));
    assert_eq!(
        promo.play(mv("a1a2q")),
        Err(PlayError::Illegal(mv("a1a2q")))
    );
    let mated = pos("k6Q/8/1K6/8/8/8/8/8 b - - 0 5");
    assert_eq!(
        mated.play(mv("a8a7")),
        Err(PlayError::GameOver(Outcome::Win {
            winner: Color::White,
            reason: Termination::Checkmate
        }))
    );
    assert_eq!(start, Position::initial());
}

#[test]
fn game_refuses_an_illegal_submove_and_keeps_its_record() {
    let mut game = Game::new(Position::initial());
    play_game(&mut game, "e2e4");
    assert_eq!(
        game.play(mv("e7e4")),
        Err(GameError::Play(PlayError::Illegal(mv("e7e4"))))
    );
    assert_eq!(game.submoves(), [mv("e2e4")]);
    assert_eq!(game.positions().len(), 2);
}

#[test]
fn takeback_of_s1_returns_the_turn_to_its_start() {
    let mut game = Game::new(pos("4k3/8/8/8/8/8/P7/R3K3 w Q - 0 5"));
    let start = *game.position();
    play_game(&mut game, "a2a4");
    assert_eq!(game.position().phase(), Phase::Second);
    assert_eq!(game.takeback_first_submove(), Ok(mv("a2a4")));
    assert_eq!(*game.position(), start);
    assert!(game.submove_count() == 0);
    assert!(game.turns().is_empty());
    // A different S1 may follow, and the record shows only that one.
    play_game(&mut game, "e1c1 a2a3");
    assert_eq!(game.submoves(), [mv("e1c1"), mv("a2a3")]);
    assert_eq!(game.position().side_to_move(), Color::Black);
}

#[test]
fn takeback_is_refused_when_there_is_no_s1_in_progress() {
    let mut game = Game::new(Position::initial());
    assert_eq!(
        game.takeback_first_submove(),
        Err(GameError::NothingToTakeBack)
    );
    // White's single-sub-move first turn is complete at once.
    play_game(&mut game, "e2e4");
    assert_eq!(
        game.takeback_first_submove(),
        Err(GameError::NothingToTakeBack)
    );
    // A whole turn is not taken back either.
    play_game(&mut game, "e7e5 g8f6");
    assert_eq!(
        game.takeback_first_submove(),
        Err(GameError::NothingToTakeBack)
    );
    // A check on S1 ended the turn: nothing to take back.
    let mut check = Game::new(pos("5k2/8/8/8/8/8/8/4K2R w K - 0 5"));
    play_game(&mut check, "e1g1");
    assert_eq!(
        check.takeback_first_submove(),
        Err(GameError::NothingToTakeBack)
    );
}

#[test]
fn takeback_is_refused_after_stalemate_after_the_first_submove() {
    let mut game = Game::new(pos("1r5k/8/8/8/6p1/p7/P5P1/K7 w - - 0 5"));
    play_game(&mut game, "g2g3");
    let outcome = Outcome::Draw {
        reason: Termination::SecondMoveStalemate,
    };
    assert_eq!(game.outcome(), Some(outcome));
    assert_eq!(
        game.takeback_first_submove(),
        Err(GameError::GameOver(outcome)),
        "the game ended at once; S1 cannot be withdrawn"
    );
    assert_eq!(game.submoves(), [mv("g2g3")]);
}

#[test]
fn record_starting_at_s2_groups_its_first_turn_as_a_lone_second_submove() {
    let mut game = Game::new(pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 21 2"));
    play_game(&mut game, "a1a2 e8d8 d8e8 a2a1");
    let turns = game.turns();
    assert_eq!(turns.len(), 3);
    assert!(turns[0].starts_at_second);
    assert_eq!(turns[0].submoves.as_slice(), &[mv("a1a2")]);
    assert_eq!((turns[1].side, turns[1].number), (Color::Black, 21));
    assert_eq!(turns[1].submoves.len(), 2);
    assert_eq!((turns[2].side, turns[2].number), (Color::White, 22));
    assert!(!turns[2].starts_at_second);
}

#[test]
fn off_board_endings_are_declared_and_board_endings_are_not() {
    let mut game = Game::new(Position::initial());
    for reason in [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::SecondMoveStalemate,
        Termination::InsufficientMaterial,
        Termination::FivefoldRepetition,
        Termination::SeventyFiveMoveRule,
        Termination::ThreefoldRepetition,
        Termination::FiftyMoveRule,
    ] {
        assert_eq!(
            game.declare(Outcome::Draw { reason }),
            Err(GameError::NotDeclarable(reason))
        );
    }
    let resign = Outcome::Win {
        winner: Color::Black,
        reason: Termination::Resignation,
    };
    assert_eq!(game.declare(resign), Ok(()));
    assert_eq!(game.outcome(), Some(resign));
    assert_eq!(game.play(mv("e2e4")), Err(GameError::GameOver(resign)));
    let agreement = Outcome::Draw {
        reason: Termination::Agreement,
    };
    assert_eq!(game.declare(agreement), Err(GameError::GameOver(resign)));
}

#[test]
fn counters_at_their_largest_value_do_not_overflow() {
    // A FEN may carry any u32; a sub-move must not panic on it.
    let halfmove = pos("4k3/8/8/8/8/8/8/R3K3 w - - 4294967295 5 2");
    let after = play(&halfmove, "a1a2");
    assert_eq!(after.halfmove_clock(), u32::MAX);
    let fullmove = pos("4k3/8/8/8/8/8/8/R3K3 b - - 0 4294967295 2");
    let after = play(&fullmove, "e8d8");
    assert_eq!(after.side_to_move(), Color::White);
    assert_eq!(after.fullmove_number(), u32::MAX);
}
