//! A new game made ready to store: the core decides its first events
//! ([`crate::server::game::creation`]); this builds the state they make and the first commit
//! ([`commit::of_new_game`]), and gives a refusal its wire form. The registry
//! ([`crate::server::play::rooms`]) commits and starts the room; a finished game's room commits
//! its rematch together with its own `rematch` event.

use std::time::Instant;

use crate::rules::Color;
use crate::server::config::Config;
use crate::server::game::creation::{self as rules, CreationRefused, PairedSeat};
use crate::server::game::{Event, GameState, SeatUser, TimeControl};
use crate::server::ids;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::play::room::replay_history;
use crate::server::play::{commit, project};
use crate::server::players::rating::Rating;
use crate::server::store::Commit;

pub use crate::server::game::creation::{ColorChoice, ComputerChoice, NewGame};

/// A new game, built and checked but not yet stored: commit `commit`, then start a room for
/// `state` (with `recent`, its public messages so far).
pub struct Prepared {
    pub state: GameState,
    pub recent: Vec<(u64, String)>,
    pub commit: Commit,
}

/// The wire form of a refused new game.
pub fn refusal(refused: CreationRefused) -> Refusal {
    match refused {
        CreationRefused::Rated(rated) => project::rated_refusal(rated),
        other => Refusal::new(ErrorCode::BadRequest, other.to_string()),
    }
}

/// The `created` event a request asks for, with the creator's colour
/// ([`rules::created_event`]).
pub fn created_event(
    request: &NewGame,
    seat_hash: String,
    user: Option<SeatUser>,
    at_ms: i64,
) -> Result<(Event, Color), Refusal> {
    rules::created_event(request, seat_hash, user, at_ms).map_err(refusal)
}

/// The first events of a new game ([`rules::first_events`]).
pub fn first_events(
    request: &NewGame,
    seat_hash: String,
    user: Option<SeatUser>,
    at_ms: i64,
) -> Result<(Vec<Event>, Color), Refusal> {
    rules::first_events(request, seat_hash, user, at_ms).map_err(refusal)
}

/// The first events of a game made for two players at once ([`rules::paired_events`]).
pub fn paired_events(
    clock: TimeControl,
    rated: bool,
    seats: [PairedSeat; 2],
    arena: Option<String>,
    at_ms: i64,
) -> Result<Vec<Event>, Refusal> {
    rules::paired_events(clock, rated, seats, arena, at_ms).map_err(refusal)
}

/// The rematch of the finished game `old`, ready to commit ([`rules::rematch_events`]).
pub fn rematch(
    old: &GameState,
    seats: [String; 2],
    ratings: [Option<Rating>; 2],
    at_ms: i64,
    config: &Config,
) -> Result<Prepared, Refusal> {
    prepare(rules::rematch_events(old, seats, ratings, at_ms), config)
}

/// The state and first commit of a new game made of `events`, under a fresh id.
pub fn prepare(events: Vec<Event>, config: &Config) -> Result<Prepared, Refusal> {
    let id = ids::new_game_id();
    let (state, recent) = replay_history(&id, &events, config.first_move, Instant::now())
        .map_err(|e| Refusal::new(ErrorCode::BadRequest, e.to_string()))?;
    let commit = commit::of_new_game(&state, &events);
    Ok(Prepared {
        state,
        recent,
        commit,
    })
}
