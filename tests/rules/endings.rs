//! Rules section 3 beyond the worked cases: insufficient material, the
//! flag-fall helper `can_checkmate`, checkmate and stalemate before draws,
//! draws judged only at a turn start, and what makes two positions the same
//! for repetition.

use crate::support::rules_util;

use marseillais::rules::{Claim, Color, Game, Outcome, Phase, Position, Termination};
use rules_util::{play, play_game, pos};

fn draw(reason: Termination) -> Outcome {
    Outcome::Draw { reason }
}

#[test]
fn insufficient_material_is_an_automatic_draw() {
    let dead = [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 5", "kings only"),
        ("4k3/8/8/8/8/8/8/4KN2 w - - 0 5", "K+N v K"),
        ("4k3/8/8/8/8/8/8/4Kn2 w - - 0 5", "K v K+N"),
        ("4k3/8/8/8/8/8/8/4KB2 w - - 0 5", "K+B v K, light"),
        ("4k3/8/8/8/8/8/8/2B1K3 w - - 0 5", "K+B v K, dark"),
        (
            "4kb2/8/8/8/8/8/8/2B1K3 w - - 0 5",
            "bishops of both sides, one colour",
        ),
        (
            "4k3/8/8/8/8/8/1B6/B1B1K3 w - - 0 5",
            "three bishops on dark squares",
        ),
        (
            "b3k3/1b6/8/8/8/8/8/3BKB2 w - - 0 5",
            "four bishops, one colour",
        ),
    ];
    for (fen, what) in dead {
        let position = pos(fen);
        assert!(position.is_insufficient_material(), "{what}");
        assert_eq!(
            position.board_outcome(),
            Some(draw(Termination::InsufficientMaterial)),
            "{what}"
        );
    }
}

#[test]
fn material_that_could_mate_is_not_insufficient() {
    let alive = [
        (
            "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 5",
            "bishops on both colours",
        ),
        (
            "4kb2/8/8/8/8/8/8/3BK3 w - - 0 5",
            "one bishop each, opposite colours",
        ),
        ("4k3/8/8/8/8/8/8/3NKN2 w - - 0 5", "two knights"),
        ("4kn2/8/8/8/8/8/8/4KN2 w - - 0 5", "a knight each"),
        ("4kn2/8/8/8/8/8/8/4KB2 w - - 0 5", "bishop against knight"),
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 5", "a pawn"),
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 5", "a rook"),
        ("4k3/8/8/8/8/8/8/3QK3 w - - 0 5", "a queen"),
    ];
    for (fen, what) in alive {
        let position = pos(fen);
        assert!(!position.is_insufficient_material(), "{what}");
        assert_eq!(position.board_outcome(), None, "{what}");
    }
}

#[test]
fn insufficient_material_is_judged_only_at_a_turn_start() {
    // White's S1 takes the last rook: K+B v K, but White still plays S2.
    let mut game = Game::new(pos("4k3/8/8/8/8/8/1r6/K1B5 w - - 0 5"));
    play_game(&mut game, "c1b2");
    assert_eq!(game.position().phase(), Phase::Second);
    assert!(game.position().is_insufficient_material());
    assert_eq!(game.outcome(), None);
    play_game(&mut game, "a1a2");
    assert_eq!(
        game.outcome(),
        Some(draw(Termination::InsufficientMaterial))
    );
}

#[test]
fn can_checkmate_says_no_only_when_no_series_of_moves_mates() {
    // (FEN, White can mate, Black can mate)
    let cases = [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 5", false, false),
        ("4k3/8/8/8/8/8/8/4KN2 w - - 0 5", false, false),
        ("4k3/8/8/8/8/8/8/4KB2 w - - 0 5", false, false),
        ("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 5", true, false),
        ("4k3/8/8/8/8/8/1B6/B1B1K3 w - - 0 5", false, false),
        ("4k3/8/8/8/8/8/8/3NKN2 w - - 0 5", true, false),
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 5", true, false),
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 5", true, false),
        // A lone knight mates only with an enemy piece to block the king's
        // flight; a queen cannot be that piece (it would take the knight).
        ("4k3/4p3/8/8/8/8/8/4KN2 w - - 0 5", true, true),
        ("4k3/8/8/8/8/8/8/q3KN2 w - - 0 5", false, true),
        // A lone bishop needs a blocker able to stand on the other colour;
        // a knight mates with the enemy bishop as the blocker.
        ("4kn2/8/8/8/8/8/8/4KB2 w - - 0 5", true, true),
        ("4kb2/8/8/8/8/8/8/3BK3 w - - 0 5", true, true),
        ("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 5", false, false),
        ("4kr2/8/8/8/8/8/8/4KB2 w - - 0 5", false, true),
    ];
    for (fen, white, black) in cases {
        let position = pos(fen);
        assert_eq!(
            position.can_checkmate(Color::White),
            white,
            "White in {fen}"
        );
        assert_eq!(
            position.can_checkmate(Color::Black),
            black,
            "Black in {fen}"
        );
    }
}

#[test]
fn checkmate_comes_before_the_seventy_five_move_rule() {
    let mut game = Game::new(pos("7k/6pp/8/8/8/8/8/1R4K1 w - - 149 60 2"));
    play_game(&mut game, "b1b8");
    assert_eq!(game.position().halfmove_clock(), 150);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win {
            winner: Color::White,
            reason: Termination::Checkmate
        })
    );
}

#[test]
fn stalemate_comes_before_the_seventy_five_move_rule() {
    let mut game = Game::new(pos("k7/8/1K6/8/8/8/8/2Q5 w - - 149 60 2"));
    play_game(&mut game, "c1c7");
    assert_eq!(game.position().halfmove_clock(), 150);
    assert_eq!(game.outcome(), Some(draw(Termination::Stalemate)));
}

#[test]
fn stalemate_comes_before_insufficient_material() {
    let position = pos("kB6/2K5/8/8/8/8/8/8 b - - 0 5");
    assert!(position.is_insufficient_material());
    assert_eq!(position.board_outcome(), Some(draw(Termination::Stalemate)));
}

#[test]
fn checkmate_ends_the_game_even_when_the_claim_would_be_available() {
    let mut game = Game::new(pos("7k/6pp/8/8/8/8/8/1R4K1 w - - 120 60 2"));
    play_game(&mut game, "b1b8");
    assert!(game.available_claims().is_empty());
    assert!(game.claim(Claim::FiftyMoveRule).is_err());
}

#[test]
fn repetition_needs_the_same_castling_rights() {
    // The start has both White rights; the first rook shuffle gives up O-O.
    let mut game = Game::new(pos("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 5"));
    play_game(&mut game, "h1h2 h2h1 e8d8 d8e8");
    assert_eq!(game.position().fen(), "4k3/8/8/8/8/8/8/R3K2R w Q - 4 6");
    assert_eq!(
        game.repetition_count(),
        1,
        "lost rights make a new position"
    );
    play_game(&mut game, "h1g1 g1h1 e8d8 d8e8");
    assert_eq!(game.repetition_count(), 2);
    assert!(game.available_claims().is_empty());
    play_game(&mut game, "h1g1 g1h1 e8d8 d8e8");
    assert_eq!(game.repetition_count(), 3);
    assert_eq!(game.available_claims(), vec![Claim::ThreefoldRepetition]);
}

#[test]
fn repetition_needs_the_same_legal_en_passant_captures() {
    // After d7d5 White may take en passant; the same placement later may not.
    let mut game = Game::new(pos("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 5"));
    play_game(&mut game, "d7d5 e8f8");
    assert_eq!(game.repetition_count(), 1);
    let shuffle = "e1e2 e2e1 f8e8 e8f8";
    play_game(&mut game, shuffle);
    assert_eq!(game.position().fen(), "5k2/8/8/3pP3/8/8/8/4K3 w - - 5 7");
    assert_eq!(game.repetition_count(), 1, "no en passant: a new position");
    play_game(&mut game, shuffle);
    assert_eq!(game.repetition_count(), 2);
    assert!(game.available_claims().is_empty());
    play_game(&mut game, shuffle);
    assert_eq!(game.repetition_count(), 3);
    assert_eq!(game.available_claims(), vec![Claim::ThreefoldRepetition]);
}

#[test]
fn repetition_needs_the_same_side_to_move() {
    // Black's king walks a triangle so the same placement recurs with the
    // other side to move; that is not a repetition.
    let start = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 5");
    let mut game = Game::new(start);
    play_game(&mut game, "a1a2 a2a1");
    let black_key = game.position().repetition_key();
    assert_ne!(black_key, start.repetition_key());
    let after = play(game.position(), "e8d8 d8e8");
    assert_eq!(after.repetition_key(), start.repetition_key());
}

#[test]
fn a_single_sub_move_turn_is_not_the_same_position_as_a_two_sub_move_turn() {
    let single: Position = "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 s".parse().unwrap();
    let double: Position = "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 1".parse().unwrap();
    assert_eq!(single.board(), double.board());
    assert_ne!(single.repetition_key(), double.repetition_key());
}
