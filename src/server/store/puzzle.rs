//! What the store keeps of puzzles (SQLite schema v8, Postgres v5; issue 30): the puzzles
//! themselves with their ratings, each signed-in player's puzzle rating, and every first try
//! of a player at a puzzle (a round). Themes are opaque keys here: the puzzle room
//! (`crate::server::puzzles::theme`) owns what they mean; the store only finds puzzles by
//! them and counts them.
//!
//! A round rates the player and the puzzle against each other as one rated game
//! ([`rate_round`]): the player is "white", scoring 1 when they solved it, so a puzzle that
//! beats many players climbs and one everybody solves sinks. A player's second try at a puzzle
//! is no round ([`RoundOutcome::Repeated`]): it changes nothing.

use crate::server::domain::rating::Rating;
use crate::server::domain::user::UserId;

/// A puzzle as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PuzzleRecord {
    pub id: String,
    /// The position at the start of the opponent's last turn (extended FEN).
    pub fen: String,
    /// The line: the opponent's turn, then the solver's, ... (`puzzles/line.rs`'s text).
    pub moves: String,
    /// The puzzle's rating; `games` counts its rated plays (the rounds that rated it).
    pub rating: Rating,
    /// Every first try counted, rated or not (an imported puzzle brings its own count).
    pub plays: u32,
    /// Theme keys, sorted, each once (the store sorts and dedups them on import).
    pub themes: Vec<String>,
    /// Where it came from: `/game/{id}`, or `selfplay:{seed}:{n}`.
    pub source: String,
    /// Unix milliseconds.
    pub created_ms: i64,
}

/// A player's puzzle rating and their first tries counted (`rating.games` is the rounds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuzzlePlayer {
    pub rating: Rating,
    pub solved: u32,
    pub failed: u32,
}

/// A signed-in player's first try at a puzzle, as the room hands it to the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PuzzleRound {
    pub user: UserId,
    pub puzzle: String,
    pub solved: bool,
    /// Unix milliseconds.
    pub at_ms: i64,
}

/// What [`super::Store::record_puzzle_round`] did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RoundOutcome {
    /// The round is stored and both ratings moved.
    Rated {
        player_before: Rating,
        player_after: Rating,
        puzzle_before: Rating,
        puzzle_after: Rating,
    },
    /// The player had a round of this puzzle already: nothing changed.
    Repeated,
}

/// One of a player's rounds as [`super::Store::puzzle_attempts`] lists them: with the
/// player's puzzle rating after it and the puzzle's themes, so that a profile draws its
/// graphs (all rounds, and per theme) from one read.
#[derive(Clone, Debug, PartialEq)]
pub struct PuzzleAttempt {
    pub puzzle: String,
    pub solved: bool,
    pub at_ms: i64,
    pub rating_after: f64,
    pub themes: Vec<String>,
}

/// The rating update of a round, shared by every backend so they cannot disagree: the player
/// and the puzzle as the two sides of one rated game (`domain::glicko2::rate`), the player
/// White, scoring 1 when they solved it and 0 otherwise. Returns (player after, puzzle after).
pub fn rate_round(player: Rating, puzzle: Rating, solved: bool) -> (Rating, Rating) {
    let score = if solved { 1.0 } else { 0.0 };
    crate::server::domain::glicko2::rate(player, puzzle, score)
}

/// The whole-number rating a puzzle is found by ([`super::Store::puzzle_near`]): the rating
/// rounded to the nearest integer, as shown. Stored beside the rating (`rating_key`) and kept
/// in step with it, so that the search is one index range over integers. Saturates (`as`); a
/// NaN, which the store never holds, is 0.
pub fn rating_key(rating: f64) -> i64 {
    rating.round() as i64
}

/// The themes of a record as the store keeps them: sorted, each once. A key must be a
/// non-empty word (the backends keep a puzzle's themes space separated): anything else is
/// refused with the key.
pub fn stored_themes(themes: &[String]) -> Result<Vec<String>, String> {
    if let Some(bad) = themes
        .iter()
        .find(|t| t.is_empty() || t.chars().any(char::is_whitespace))
    {
        return Err(bad.clone());
    }
    let mut themes = themes.to_vec();
    themes.sort();
    themes.dedup();
    Ok(themes)
}

/// A record's themes from the stored text (space separated).
pub fn themes_from_text(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// Puzzles [`super::Store::import_puzzles`] writes per transaction: a large import (the shipped
/// set, 100,000 puzzles) goes in slices so that the writer, which the games' moves share,
/// is never held by one long transaction. Each slice is durable on its own; an import that
/// failed half-way is simply run again (an id already stored is left alone).
pub const IMPORT_SLICE: usize = 500;

/// The records of an import made ready to store: every record's themes as stored, an id given
/// twice kept at its first record (as a stored id is), or the first bad theme key refused (then
/// nothing of the import is written).
pub fn prepared_import(puzzles: Vec<PuzzleRecord>) -> Result<Vec<PuzzleRecord>, super::StoreError> {
    let mut seen = std::collections::HashSet::with_capacity(puzzles.len());
    let mut prepared = Vec::with_capacity(puzzles.len());
    for mut puzzle in puzzles {
        puzzle.themes = stored_themes(&puzzle.themes).map_err(|bad| {
            super::StoreError::Io(format!("puzzle {}: {bad:?} is not a theme key", puzzle.id))
        })?;
        if seen.insert(puzzle.id.clone()) {
            prepared.push(puzzle);
        }
    }
    Ok(prepared)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_solved_round_raises_the_player_and_lowers_the_puzzle() {
        let (player, puzzle) = rate_round(Rating::INITIAL, Rating::INITIAL, true);
        assert!(player.rating > 1500.0 && puzzle.rating < 1500.0);
        assert_eq!((player.games, puzzle.games), (1, 1));
    }

    #[test]
    fn a_failed_round_is_the_puzzle_winning_the_game() {
        let player = Rating {
            rating: 1700.0,
            deviation: 80.0,
            volatility: 0.06,
            games: 30,
        };
        let puzzle = Rating {
            rating: 1600.0,
            deviation: 120.0,
            volatility: 0.06,
            games: 9,
        };
        let (p, z) = rate_round(player, puzzle, false);
        let (black, white) = crate::server::domain::glicko2::rate(puzzle, player, 1.0);
        assert_eq!((p, z), (white, black));
        assert!(p.rating < 1700.0 && z.rating > 1600.0);
    }

    #[test]
    fn the_rating_key_is_the_rating_as_shown() {
        assert_eq!(rating_key(1499.5), 1500);
        assert_eq!(rating_key(1499.49), 1499);
        assert_eq!(rating_key(-3.6), -4);
        assert_eq!(rating_key(f64::NAN), 0);
    }

    #[test]
    fn themes_are_stored_sorted_once_and_a_key_with_a_space_is_refused() {
        let given = ["fork", "mateIn1", "fork", "endgame"].map(str::to_owned);
        assert_eq!(
            stored_themes(&given),
            Ok(["endgame", "fork", "mateIn1"].map(str::to_owned).to_vec())
        );
        assert_eq!(
            stored_themes(&["mate in 1".to_owned()]),
            Err("mate in 1".to_owned())
        );
        assert_eq!(stored_themes(&[String::new()]), Err(String::new()));
        assert_eq!(themes_from_text("endgame fork"), ["endgame", "fork"]);
        assert!(themes_from_text("").is_empty());
    }
}
