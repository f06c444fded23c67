//! Small helpers shared by the `rules_*` integration tests: read a FEN, play
//! sub-moves written in UCI, and compare legal-move sets as sorted text.
//! Every helper panics with the FEN and the move in the message, so a failing
//! test says where it went wrong.

#![allow(dead_code)]

use std::collections::BTreeSet;

use marseillais::rules::{Game, Position, SubMove};

/// A position from an extended FEN that the test knows to be valid.
pub fn pos(fen: &str) -> Position {
    fen.parse()
        .unwrap_or_else(|e| panic!("test FEN {fen} rejected: {e}"))
}

/// A sub-move from UCI text that the test knows to be well formed.
pub fn mv(uci: &str) -> SubMove {
    uci.parse()
        .unwrap_or_else(|e| panic!("test move {uci} unparsable: {e}"))
}

/// Plays sub-moves separated by spaces, commas or slashes, each of which
/// must be legal.
pub fn play(position: &Position, moves: &str) -> Position {
    let mut current = *position;
    for uci in moves.split([' ', ',', '/']).filter(|text| !text.is_empty()) {
        current = current
            .play(mv(uci))
            .unwrap_or_else(|e| panic!("{uci} on {}: {e}", current.fen()));
    }
    current
}

/// Plays sub-moves in a game, each of which must be accepted.
pub fn play_game(game: &mut Game, moves: &str) {
    for uci in moves.split([' ', ',', '/']).filter(|text| !text.is_empty()) {
        let fen = game.position().fen();
        if let Err(e) = game.play(mv(uci)) {
            panic!("{uci} on {fen}: {e}");
        }
    }
}

/// The legal sub-moves as sorted UCI text.
pub fn legal(position: &Position) -> BTreeSet<String> {
    position
        .legal_submoves()
        .iter()
        .map(|m| m.to_string())
        .collect()
}

/// A set of UCI moves written as one space-separated string.
pub fn set(moves: &str) -> BTreeSet<String> {
    moves.split_whitespace().map(str::to_string).collect()
}

/// Whether `uci` is among the legal sub-moves.
pub fn is_legal(position: &Position, uci: &str) -> bool {
    position.legal_submoves().contains(&mv(uci))
}
