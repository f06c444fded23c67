//! What the server's move path costs in legal-move generations, counted by
//! the rules' per-thread counter (`src/rules/generations.rs`). Run with
//! `cargo test --release --test rules generations::`.
//!
//! Before `Game::preview` and the cached legal list, the server spent 8 to 11
//! generations per accepted sub-move (`Game::outcome()` regenerated the list
//! each time it was asked); the path below is the one it is moving to.

use crate::support::rules_util;

use marseillais::rules::{Game, Generations, Position, generations, reset_generations};
use rules_util::{mv, pos};

/// The generations `f` runs, on this thread.
fn counted<T>(f: impl FnOnce() -> T) -> (T, Generations) {
    reset_generations();
    let out = f();
    (out, generations())
}

/// One accepted sub-move as the server decides and applies it: preview it
/// on the live game, write its SAN, apply it, then read what the outgoing
/// message and the listing need (outcome, the new legal list, the claims).
fn server_move_path(game: &mut Game, uci: &str) -> (String, Generations) {
    counted(|| {
        let preview = game.preview(mv(uci)).expect("a legal sub-move");
        let san = game.san(&preview);
        let _ends = preview.outcome().is_some() || preview.ends_turn();
        game.play_previewed(preview).expect("a fresh preview");
        let _outcome = game.outcome();
        let _legal: Vec<String> = game
            .legal_submoves()
            .iter()
            .map(ToString::to_string)
            .collect();
        let _claims = game.available_claims();
        let _repetitions = game.repetition_count();
        san
    })
}

#[test]
fn a_full_list_counts_one_generation_and_an_existence_check_counts_apart() {
    let start = Position::initial();
    let (_, full) = counted(|| start.legal_submoves());
    assert_eq!(full, Generations { full: 1, any: 0 });
    let (has, any) = counted(|| start.has_legal_submove());
    assert!(has);
    assert_eq!(any, Generations { full: 0, any: 1 });
}

#[test]
fn the_servers_move_path_costs_one_generation_per_sub_move() {
    let mut game = Game::new(Position::initial());
    // Quiet sub-moves, S1 and S2, a capture, castling, a check on S1 that
    // ends the turn, and checkmate.
    let moves = [
        ("e2e4", "e4"),
        ("e7e5", "e5"),
        ("g8f6", "Nf6"),
        ("f1c4", "Bc4"),
        ("d1h5", "Qh5"),
        ("b8c6", "Nc6"),
        ("f6h5", "Nxh5"),
        ("c4f7", "Bxf7+"),
        ("e8f7", "Kxf7"),
        ("d7d6", "d6"),
    ];
    for (uci, expected_san) in moves {
        let (san, count) = server_move_path(&mut game, uci);
        assert_eq!(san, expected_san);
        assert_eq!(count, Generations { full: 1, any: 0 }, "{uci}");
    }
}

#[test]
fn a_mating_sub_move_is_decided_with_its_ending_in_one_generation() {
    // Fool's mate shape at Marseillais: Black's S2 Qh4 mates.
    let mut game = Game::new(pos(
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2 2",
    ));
    let (san, count) = server_move_path(&mut game, "d8h4");
    assert_eq!(san, "Qh4#");
    assert_eq!(count, Generations { full: 1, any: 0 });
    assert!(game.outcome().is_some());
}

#[test]
fn playing_through_the_compatible_game_api_costs_one_generation() {
    // `Game::play` then what the server reads today: it was 4 (play 2,
    // outcome 1, claims 1) before the cache.
    let mut game = Game::new(Position::initial());
    for uci in ["e2e4", "e7e5", "g8f6", "g1f3", "b1c3"] {
        let (_, count) = counted(|| {
            game.play(mv(uci)).expect("legal");
            let _ = game.outcome();
            let _ = game.available_claims();
            let _ = game.repetition_count();
        });
        assert_eq!(count, Generations { full: 1, any: 0 }, "{uci}");
    }
}
