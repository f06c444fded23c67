//! An arena read whole from the store (its terms, its players in the order they joined, its
//! games in the order they were paired) and turned into what the pure rules read. Everything
//! an arena decides is decided again from this at every step, so a restart, or another node
//! taking the arena over, decides the same.

use std::collections::HashMap;

use crate::rules::Color;
use crate::server::domain::user::UserId;
use crate::server::play::protocol::{GameResult, GameSummary, Reason};
use crate::server::store::{ArenaPlayer, GameListing, GameStatus, Store, StoreError};

use super::record;
use super::standings::{self, ArenaGame, Ending, Entrant, Standing};
use super::tournament::Tournament;

/// One game of the arena with what its pages show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub id: String,
    pub game: ArenaGame,
}

/// An arena as the store holds it at one instant.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub tournament: Tournament,
    pub creator_name: Option<String>,
    pub players: Vec<ArenaPlayer>,
    /// Its games that count (an aborted game is none: the pair goes back to waiting), in the
    /// order they were paired.
    pub games: Vec<GameRow>,
    /// The standings, computed once per read (every page of the arena shows them).
    pub lines: Vec<Standing>,
}

impl Snapshot {
    pub fn entrants(&self) -> Vec<Entrant> {
        self.players
            .iter()
            .map(|p| Entrant {
                user: p.user,
                rating: p.rating,
                withdrawn: p.withdrawn,
            })
            .collect()
    }

    pub fn arena_games(&self) -> Vec<ArenaGame> {
        self.games.iter().map(|row| row.game).collect()
    }

    pub fn player(&self, user: UserId) -> Option<&ArenaPlayer> {
        self.players.iter().find(|p| p.user == user)
    }
}

/// Reads arena `id` whole; `None` if there is no such arena (or its terms do not read).
pub async fn load(store: &dyn Store, id: &str) -> Result<Option<Snapshot>, StoreError> {
    let Some(record) = store.arena(id).await? else {
        return Ok(None);
    };
    let Some((tournament, creator_name)) = record::read_record(&record) else {
        return Ok(None);
    };
    let (players, listings) =
        futures_util::future::try_join(store.arena_players(id), store.arena_games(id)).await?;
    let ratings: HashMap<UserId, i32> = players.iter().map(|p| (p.user, p.rating)).collect();
    let games: Vec<GameRow> = listings
        .iter()
        .filter_map(|listing| game_of(listing, &ratings))
        .collect();
    let mut snapshot = Snapshot {
        tournament,
        creator_name,
        players,
        games,
        lines: Vec::new(),
    };
    snapshot.lines = standings::standings(&snapshot.entrants(), &snapshot.arena_games());
    Ok(Some(snapshot))
}

/// An arena game as its standings read it, from its listing row; `None` for a game that does
/// not count (aborted, or a row without both accounts or a readable summary).
pub fn game_of(listing: &GameListing, ratings: &HashMap<UserId, i32>) -> Option<GameRow> {
    let white = listing.white_user?;
    let black = listing.black_user?;
    let summary: GameSummary = serde_json::from_str(&listing.summary).ok()?;
    let turns = summary.arena.as_ref().map_or(0, |mark| mark.turns);
    let end = match listing.status {
        GameStatus::Finished => {
            if summary.reason == Some(Reason::Aborted) {
                return None;
            }
            let winner = match summary.result? {
                GameResult::WhiteWins => Some(Color::White),
                GameResult::BlackWins => Some(Color::Black),
                GameResult::Draw => None,
                GameResult::NoResult => return None,
            };
            Some(Ending {
                winner,
                turns,
                berserk: summary.arena.map_or([false; 2], |mark| mark.berserk),
            })
        }
        _ => None,
    };
    let rating = |user| ratings.get(&user).copied().unwrap_or(1500);
    Some(GameRow {
        id: listing.id.clone(),
        game: ArenaGame {
            white,
            black,
            ratings: [rating(white), rating(black)],
            end,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(status: GameStatus, summary: serde_json::Value) -> GameListing {
        GameListing {
            id: "g".into(),
            status,
            created_ms: 0,
            updated_ms: 0,
            summary: summary.to_string(),
            listed: false,
            white_user: Some(UserId(1)),
            black_user: Some(UserId(2)),
            arena: Some("a".into()),
        }
    }

    fn summary(result: Option<&str>, reason: Option<&str>, turns: u32) -> serde_json::Value {
        serde_json::json!({
            "arena": {"id": "a", "turns": turns, "berserk": [true, false]},
            "clock": {"base_secs": 180, "increment_secs": 2},
            "created_ms": 0, "id": "g", "reason": reason, "result": result,
            "seats": {"black": true, "white": true},
            "status": if result.is_some() { "finished" } else { "playing" },
            "sub_moves": 4, "updated_ms": 0, "variant": "balanced"
        })
    }

    #[test]
    fn a_finished_arena_game_reads_its_winner_turns_and_berserks() {
        let ratings = HashMap::from([(UserId(1), 1600), (UserId(2), 1400)]);
        let row = game_of(
            &listing(
                GameStatus::Finished,
                summary(Some("0-1"), Some("checkmate"), 9),
            ),
            &ratings,
        )
        .expect("a game that counts");
        assert_eq!(row.game.ratings, [1600, 1400]);
        assert_eq!(
            row.game.end,
            Some(Ending {
                winner: Some(Color::Black),
                turns: 9,
                berserk: [true, false]
            })
        );
    }

    #[test]
    fn a_game_being_played_has_no_end_and_an_aborted_one_does_not_count() {
        let ratings = HashMap::new();
        let playing = game_of(
            &listing(GameStatus::Playing, summary(None, None, 1)),
            &ratings,
        );
        assert_eq!(playing.map(|row| row.game.end), Some(None));
        let aborted = listing(GameStatus::Finished, summary(Some("*"), Some("aborted"), 0));
        assert_eq!(game_of(&aborted, &ratings), None);
    }
}
