//! Game creation: the `POST /api/games` request and its validation, the first events of a new
//! game (created; a rematch's created and joined, colours swapped), and the new game's state
//! and commit, ready for the store. Pure: the registry ([`crate::server::play::rooms`]) commits and starts
//! the room; a finished game's room commits its rematch together with its own `rematch` event.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::engine::Level;
use crate::rules::{Color, Position, Rules};
use crate::server::config::Config;
use crate::server::game::{COMPUTER_SEAT_HASH, Event, GameState, SeatUser, TimeControl, Variant};
use crate::server::ids;
use crate::server::play::project;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::play::room::replay_history;
use crate::server::players::rating::Rating;
use crate::server::store::{Commit, codec};

/// A `POST /api/games` body; every field optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    pub color: Option<ColorChoice>,
    /// A live clock `{"base_secs", "increment_secs"}`, or `{"days_per_turn"}` (correspondence).
    pub clock: Option<TimeControl>,
    pub fen: Option<String>,
    pub variant: Option<Variant>,
    /// `false`: a private game, in no listing, reachable by its id (invite link) only.
    /// Defaults to `true`, and to `false` for a game against the computer.
    pub listed: Option<bool>,
    /// Play against the server's computer player, which takes the other seat at once.
    pub computer: Option<ComputerChoice>,
    /// Counts for both players' ratings: only signed in, only with a clock, never against the
    /// computer. Defaults to `false`.
    pub rated: Option<bool>,
}

/// The `computer` of a `POST /api/games` body.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputerChoice {
    /// 1 (weakest) to 8 (full strength); anything else is refused, not clamped.
    pub level: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

/// The initial position with White's first turn of two sub-moves.
const MARSEILLAIS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1";

/// Longest accepted base time and increment.
const MAX_BASE_SECS: u32 = 10_800;
const MAX_INCREMENT_SECS: u32 = 180;

/// A new game, built and checked but not yet stored: commit `commit`, then start a room for
/// `state` (with `recent`, its public messages so far).
pub struct Prepared {
    pub state: GameState,
    pub recent: Vec<(u64, String)>,
    pub commit: Commit,
}

/// Whether the request asks for a rated game, or why it cannot have one: `user` is the signed-in
/// creator.
pub fn rated(request: &NewGame, user: Option<&SeatUser>) -> Result<bool, Refusal> {
    if request.rated != Some(true) {
        return Ok(false);
    }
    if user.is_none() {
        return Err(Refusal::new(
            ErrorCode::NotLoggedIn,
            "sign in to create a rated game",
        ));
    }
    if request.clock.is_none() {
        return Err(Refusal::new(
            ErrorCode::RatedNeedsClock,
            "a rated game needs a clock",
        ));
    }
    if request.computer.is_some() {
        return Err(Refusal::new(
            ErrorCode::BadRequest,
            "games against the computer are not rated",
        ));
    }
    Ok(true)
}

/// The `created` event a request asks for, with the creator's colour, or why it is refused.
/// `user`: the signed-in creator (its rating already set for a game with a clock).
pub fn created_event(
    request: &NewGame,
    seat_hash: String,
    user: Option<SeatUser>,
    at_ms: i64,
) -> Result<(Event, Color), Refusal> {
    let bad = |message: String| Refusal::new(ErrorCode::BadRequest, message);
    let rated = rated(request, user.as_ref())?;
    if let Some(clock) = request.clock.and_then(TimeControl::live) {
        if clock.base_secs > MAX_BASE_SECS || clock.increment_secs > MAX_INCREMENT_SECS {
            return Err(bad(format!(
                "clock: base_secs at most {MAX_BASE_SECS}, increment_secs at most {MAX_INCREMENT_SECS}"
            )));
        }
        if clock.base_secs == 0 && clock.increment_secs == 0 {
            return Err(bad(
                "clock: base_secs and increment_secs cannot both be 0".into()
            ));
        }
    }
    let variant = request.variant.unwrap_or(Variant::Balanced);
    let start = match &request.fen {
        Some(fen) => {
            Position::from_fen(fen, Rules::Marseillais).map_err(|e| bad(format!("fen: {e}")))?
        }
        None => match variant {
            Variant::Balanced => Position::initial(),
            Variant::Marseillais => Position::from_fen(MARSEILLAIS_FEN, Rules::Marseillais)
                .map_err(|e| bad(format!("fen: {e}")))?,
        },
    };
    if let Some(outcome) = start.board_outcome() {
        return Err(bad(format!("fen: the game is already over ({outcome})")));
    }
    if !start.has_legal_submove() {
        return Err(bad("fen: the side to move has no legal sub-move".into()));
    }
    let color = match request.color.unwrap_or(ColorChoice::Random) {
        ColorChoice::White => Color::White,
        ColorChoice::Black => Color::Black,
        ColorChoice::Random => {
            if ids::coin_flip() {
                Color::White
            } else {
                Color::Black
            }
        }
    };
    computer_level(request)?;
    let created = Event::Created {
        at_ms,
        variant,
        start,
        clock: request.clock,
        creator: color,
        seat_hash,
        listed: request.listed.unwrap_or(request.computer.is_none()),
        rated,
        user,
    };
    Ok((created, color))
}

/// The computer's level a request asks for (`None`: a game between two people).
fn computer_level(request: &NewGame) -> Result<Option<Level>, Refusal> {
    let Some(choice) = request.computer else {
        return Ok(None);
    };
    if !(i64::from(Level::MIN)..=i64::from(Level::MAX)).contains(&choice.level) {
        return Err(Refusal::new(
            ErrorCode::BadRequest,
            format!(
                "computer.level: {} is not a level; levels are {} (weakest) to {} (full strength)",
                choice.level,
                Level::MIN,
                Level::MAX
            ),
        ));
    }
    Ok(Some(Level::new(choice.level)))
}

/// The first events of a new game: `created`, and for a game against the computer the
/// computer's `joined` in the other seat (the game starts at once).
pub fn first_events(
    request: &NewGame,
    seat_hash: String,
    user: Option<SeatUser>,
    at_ms: i64,
) -> Result<(Vec<Event>, Color), Refusal> {
    let (created, color) = created_event(request, seat_hash, user, at_ms)?;
    let mut events = vec![created];
    if let Some(level) = computer_level(request)? {
        events.push(computer_joined(!color, level, at_ms));
    }
    Ok((events, color))
}

/// The computer taking the `color` seat.
fn computer_joined(color: Color, level: Level, at_ms: i64) -> Event {
    Event::Joined {
        at_ms,
        color,
        seat_hash: COMPUTER_SEAT_HASH.to_owned(),
        computer: Some(level),
        user: None,
    }
}

/// The rematch of a finished game, ready to commit: same start, variant, clock, listing and
/// rating, colours swapped, each seat belonging to the same account as before. `seats`: the
/// hashes of the players' rematch tokens, indexed by their *old* colour. `ratings`: for a game
/// with a clock, each player's current rating for its speed (indexed the same way). Against the
/// computer, the human creates the rematch and the computer (same level) joins it in the other
/// colour.
pub fn rematch(
    old: &GameState,
    seats: [String; 2],
    ratings: [Option<Rating>; 2],
    at_ms: i64,
    config: &Config,
) -> Result<Prepared, Refusal> {
    let user = |color: Color| {
        old.user(color).map(|u| SeatUser {
            rating: ratings[color as usize],
            ..u.clone()
        })
    };
    if let Some(computer) = old.computer() {
        let human = !computer.color;
        let created = Event::Created {
            at_ms,
            variant: old.variant,
            start: *old.game().start(),
            clock: old.time_control(),
            creator: !human,
            seat_hash: seats[human as usize].clone(),
            listed: old.listed,
            rated: false,
            user: user(human),
        };
        let joined = computer_joined(human, computer.level, at_ms);
        return prepare(vec![created, joined], config);
    }
    let [white, black] = seats;
    // The old white player sits as black in the rematch, and vice versa.
    let created = Event::Created {
        at_ms,
        variant: old.variant,
        start: *old.game().start(),
        clock: old.time_control(),
        creator: Color::Black,
        seat_hash: white,
        listed: old.listed,
        rated: old.rated,
        user: user(Color::White),
    };
    let joined = Event::Joined {
        at_ms,
        color: Color::White,
        seat_hash: black,
        computer: None,
        user: user(Color::Black),
    };
    prepare(vec![created, joined], config)
}

/// The state and first commit of a new game made of `events`, under a fresh id.
pub fn prepare(events: Vec<Event>, config: &Config) -> Result<Prepared, Refusal> {
    let id = ids::new_game_id();
    let (state, recent) = replay_history(&id, &events, config.first_move, Instant::now())
        .map_err(|e| Refusal::new(ErrorCode::BadRequest, e.to_string()))?;
    let commit = Commit {
        game_id: id,
        first_seq: 0,
        events: events.iter().map(codec::encode).collect(),
        listing: project::listing(&state),
        rating: None,
        // A game that starts being played at once (a challenge, a rematch) starts its first
        // timed turn in this commit.
        deadline: crate::server::play::schedule::change_between(None, state.turn_deadline_ms()),
        fence: None,
    };
    Ok(Prepared {
        state,
        recent,
        commit,
    })
}
