//! Game creation, decided by the core like any other change: a `POST /api/games` request (or a
//! challenge's terms, or a finished game's rematch) checked and turned into the new game's
//! first events (`created`; for a game against the computer, or a rematch, also `joined`), or
//! a typed refusal. Nothing here stores or starts anything: `play::creation` builds the new
//! game's state and first commit from these events, and the registry commits and starts it.

use serde::{Deserialize, Serialize};

use super::event::{COMPUTER_SEAT_HASH, Event, SeatUser, TimeControl, Variant};
use super::rated::{self, RatedAsk, RatedRefused};
use super::state::GameState;
use crate::engine::Level;
use crate::rules::{Color, Outcome, Position, Rules};
use crate::server::domain::rating::Rating;
use crate::server::ids;

/// A `POST /api/games` body; every field optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    pub color: Option<ColorChoice>,
    /// A live clock `{"base_secs", "increment_secs"}`, or `{"days_per_turn"}` (correspondence);
    /// a key that is neither is refused, as outside the clock.
    #[serde(default, deserialize_with = "super::event::requested_clock")]
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

/// Why a new game is refused (each is a `bad_request` on the wire but the rated ones).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CreationRefused {
    #[error(transparent)]
    Rated(#[from] RatedRefused),
    #[error(
        "clock: base_secs at most {MAX_BASE_SECS}, increment_secs at most {MAX_INCREMENT_SECS}"
    )]
    ClockTooLong,
    #[error("clock: base_secs and increment_secs cannot both be 0")]
    NoTime,
    #[error("fen: {0}")]
    Fen(String),
    #[error("fen: the game is already over ({0})")]
    AlreadyOver(Outcome),
    #[error("fen: the side to move has no legal sub-move")]
    NoLegalSubMove,
    #[error(
        "computer.level: {0} is not a level; levels are {min} (weakest) to {max} (full strength)",
        min = Level::MIN,
        max = Level::MAX
    )]
    NoSuchLevel(i64),
}

/// Whether the request asks for a rated game ([`rated::may_create`]); `user` is the
/// signed-in creator.
pub fn rated(request: &NewGame, user: Option<&SeatUser>) -> Result<bool, CreationRefused> {
    if request.rated != Some(true) {
        return Ok(false);
    }
    rated::may_create(RatedAsk {
        signed_in: user.is_some(),
        timed: request.clock.is_some(),
        against_computer: request.computer.is_some(),
    })?;
    Ok(true)
}

/// The `created` event a request asks for, with the creator's colour, or why it is refused.
/// `user`: the signed-in creator (its rating already set for a game with a clock).
pub fn created_event(
    request: &NewGame,
    seat_hash: String,
    user: Option<SeatUser>,
    at_ms: i64,
) -> Result<(Event, Color), CreationRefused> {
    let rated = rated(request, user.as_ref())?;
    if let Some(clock) = request.clock.and_then(TimeControl::live) {
        if clock.base_secs > MAX_BASE_SECS || clock.increment_secs > MAX_INCREMENT_SECS {
            return Err(CreationRefused::ClockTooLong);
        }
        if clock.base_secs == 0 && clock.increment_secs == 0 {
            return Err(CreationRefused::NoTime);
        }
    }
    let variant = request.variant.unwrap_or(Variant::Balanced);
    let fen = |text: &str| {
        Position::from_fen(text, Rules::Marseillais)
            .map_err(|e| CreationRefused::Fen(e.to_string()))
    };
    let start = match &request.fen {
        Some(text) => fen(text)?,
        None => match variant {
            Variant::Balanced => Position::initial(),
            Variant::Marseillais => fen(MARSEILLAIS_FEN)?,
        },
    };
    if let Some(outcome) = start.board_outcome() {
        return Err(CreationRefused::AlreadyOver(outcome));
    }
    if !start.has_legal_submove() {
        return Err(CreationRefused::NoLegalSubMove);
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
        arena: None,
    };
    Ok((created, color))
}

/// The computer's level a request asks for (`None`: a game between two people).
fn computer_level(request: &NewGame) -> Result<Option<Level>, CreationRefused> {
    let Some(choice) = request.computer else {
        return Ok(None);
    };
    if !(i64::from(Level::MIN)..=i64::from(Level::MAX)).contains(&choice.level) {
        return Err(CreationRefused::NoSuchLevel(choice.level));
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
) -> Result<(Vec<Event>, Color), CreationRefused> {
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

/// The first events of the rematch of the finished game `old`: same start, variant, clock,
/// listing and rating, colours swapped, each seat belonging to the same account as before.
/// `seats`: the hashes of the players' rematch tokens, indexed by their *old* colour.
/// `ratings`: for a game with a clock, each player's current rating for its speed (indexed the
/// same way). Against the computer, the human creates the rematch and the computer (same
/// level) joins it in the other colour.
pub fn rematch_events(
    old: &GameState,
    seats: [String; 2],
    ratings: [Option<Rating>; 2],
    at_ms: i64,
) -> Vec<Event> {
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
            arena: None,
        };
        let joined = computer_joined(human, computer.level, at_ms);
        return vec![created, joined];
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
        arena: None,
    };
    let joined = Event::Joined {
        at_ms,
        color: Color::White,
        seat_hash: black,
        computer: None,
        user: user(Color::Black),
    };
    vec![created, joined]
}

/// One seat of a game made for two players at once (a pool's pairing): the hash of its seat
/// token, and its account (its rating set for the game's speed) or `None` for an anonymous
/// player.
#[derive(Clone, Debug)]
pub struct PairedSeat {
    pub seat_hash: String,
    pub user: Option<SeatUser>,
}

/// The first events of a game made for two players at once, both seated from its first commit
/// (a pairing is one commit: there is no moment where the game exists with a seat free for a
/// stranger): `created` with `white` as its creator, then `joined` for `black`. Private (in
/// no open-games listing). Rated only between two accounts.
pub fn paired_events(
    clock: TimeControl,
    rated: bool,
    [white, black]: [PairedSeat; 2],
    arena: Option<String>,
    at_ms: i64,
) -> Result<Vec<Event>, CreationRefused> {
    if rated {
        rated::joins_as_account(
            true,
            black.user.as_ref().map(|u| u.id),
            white.user.as_ref().map(|u| u.id),
        )?;
    }
    let request = NewGame {
        color: Some(ColorChoice::White),
        clock: Some(clock),
        listed: Some(false),
        rated: Some(rated),
        ..NewGame::default()
    };
    let (mut created, _) = created_event(&request, white.seat_hash, white.user, at_ms)?;
    if let Event::Created { arena: slot, .. } = &mut created {
        *slot = arena;
    }
    let joined = Event::Joined {
        at_ms,
        color: Color::Black,
        seat_hash: black.seat_hash,
        computer: None,
        user: black.user,
    };
    Ok(vec![created, joined])
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::server::domain::user::{UserId, Username};
    use crate::server::game::ClockSpec;

    fn seat(hash: &str, user: Option<i64>) -> PairedSeat {
        PairedSeat {
            seat_hash: ids::token_hash(hash),
            user: user.map(|id| SeatUser {
                id: UserId(id),
                name: Username::parse(&format!("player{id}")).unwrap(),
                rating: Some(Rating::INITIAL),
            }),
        }
    }

    const BLITZ: TimeControl = TimeControl::Live(ClockSpec {
        base_secs: 180,
        increment_secs: 2,
    });

    /// Why a `POST /api/games` body is refused, as serde_json says it (the route's message).
    fn refusal(body: &str) -> String {
        match serde_json::from_str::<NewGame>(body) {
            Ok(request) => panic!("{body} was read: {request:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_days_per_turn_of_minus_one_one_and_a_half_three_point_zero_or_two_to_the_64_gets_the_clock_message()
     {
        for days in ["-1", "1.5", "3.0", "18446744073709551616"] {
            let message = refusal(&format!(r#"{{"clock":{{"days_per_turn":{days}}}}}"#));
            assert!(
                message
                    .starts_with("clock: days_per_turn must be one of 1, 2, 3, 5, 7 or 14, got "),
                "{days}: {message}"
            );
        }
    }

    #[test]
    fn an_unknown_key_inside_the_clock_is_refused_as_one_outside_it_is() {
        for body in [
            r#"{"clock":{"base_secs":60,"increment_secs":0,"bogus":1}}"#,
            r#"{"clock":{"days_per_turn":3,"x":1}}"#,
        ] {
            let message = refusal(body);
            assert!(
                message.starts_with("clock: unknown field "),
                "{body}: {message}"
            );
        }
        assert!(refusal(r#"{"bogus":1}"#).starts_with("unknown field `bogus`"));
    }

    #[test]
    fn a_key_given_twice_in_a_new_game_or_in_its_clock_is_refused() {
        let message = refusal(r#"{"color":"white","color":"black"}"#);
        assert!(message.starts_with("duplicate field `color`"), "{message}");
        let message = refusal(r#"{"clock":{"days_per_turn":3,"days_per_turn":5}}"#);
        assert!(
            message.starts_with("clock: days_per_turn is given twice"),
            "{message}"
        );
        let message = refusal(r#"{"clock":null,"clock":{"days_per_turn":3}}"#);
        assert!(message.starts_with("duplicate field `clock`"), "{message}");
    }

    #[test]
    fn a_new_game_without_a_clock_or_with_a_null_one_has_none() {
        for body in ["{}", r#"{"clock":null}"#] {
            let request: NewGame = serde_json::from_str(body).expect("a new game");
            assert_eq!(request.clock, None, "{body}");
        }
    }

    #[test]
    fn a_paired_game_starts_with_both_seats_taken_and_in_no_listing() {
        let events = paired_events(
            BLITZ,
            true,
            [seat("w", Some(1)), seat("b", Some(2))],
            None,
            7,
        )
        .expect("two accounts may play rated");
        let state = GameState::replay(
            "g",
            &events,
            Duration::from_secs(30),
            Instant::now(),
            |_, _, _| {},
        )
        .expect("the events replay");
        assert_eq!(state.free_seat(), None);
        assert_eq!(state.seat_of("w"), Some(Color::White));
        assert_eq!(state.seat_of("b"), Some(Color::Black));
        assert_eq!(state.user(Color::Black).map(|u| u.id), Some(UserId(2)));
        assert!(state.rated && !state.listed);
        assert_eq!(state.time_control(), Some(BLITZ));
    }

    #[test]
    fn a_rated_pairing_needs_two_different_accounts() {
        let refused =
            |w, b| paired_events(BLITZ, true, [seat("w", w), seat("b", b)], None, 0).err();
        assert_eq!(
            refused(Some(1), None),
            Some(CreationRefused::Rated(RatedRefused::SignInToJoin))
        );
        assert_eq!(
            refused(None, Some(2)),
            Some(CreationRefused::Rated(RatedRefused::SignInToCreate))
        );
        assert_eq!(
            refused(Some(1), Some(1)),
            Some(CreationRefused::Rated(RatedRefused::SamePlayer))
        );
        assert!(paired_events(BLITZ, false, [seat("w", None), seat("b", None)], None, 0).is_ok());
    }
}
