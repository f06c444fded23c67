//! Projections: the game state (and the event just applied) as what the outside sees: the
//! message each event publishes, the snapshot (`state` message and `GET /api/games/{id}`), the
//! store's listing row, and the wire form of a refusal. Reads [`GameState`]; never changes it.
//! The room serializes each projection once and hands the same text to every recipient.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::game::{Checked, Event, GameState, RecordEntry, Refused, policy};
use super::protocol::{ErrorCode, Refusal, Side, claim_name, server_msg};
use super::store::{GameListing, GameStatus};
use crate::rules::{Color, Outcome, Phase, Termination};

/// Who is connected, supplied by the room for snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Presence {
    pub white: bool,
    pub black: bool,
    pub spectators: usize,
}

/// The public message event `v` publishes, given the state right after it.
pub fn event(state: &GameState, event: &Event, v: u64, now: Instant) -> Option<String> {
    let (t, d) = match event {
        Event::Created { .. } => return None,
        // The position fields too: the game starts, so `legal` is no longer empty.
        Event::Joined { color, .. } => (
            "join",
            with_fields(
                position_json(state, now),
                [("color", json!(Side::from(*color)))],
            ),
        ),
        Event::Move { mv, .. } => {
            let mover = state.last_mover();
            (
                "move",
                with_fields(
                    position_json(state, now),
                    [
                        ("uci", json!(mv.to_string())),
                        ("san", json!(state.last_san())),
                        ("color", json!(mover.map(Side::from))),
                        ("draw_offer", json!(state.draw_offer().map(Side::from))),
                    ],
                ),
            )
        }
        Event::Takeback { .. } => {
            let uci = state.taken_back().map(|mv| mv.to_string());
            (
                "takeback",
                with_fields(position_json(state, now), [("uci", json!(uci))]),
            )
        }
        Event::DrawOffer { by, .. } => ("draw_offer", json!({"by": Side::from(*by)})),
        Event::DrawDecline { by, .. } => ("draw_decline", json!({"by": Side::from(*by)})),
        Event::RematchOffer { by, .. } => ("rematch_offer", json!({"by": Side::from(*by)})),
        Event::Rematch { id, .. } => ("rematch", json!({"id": id})),
        Event::End { outcome, .. } => {
            let outcome = state.game().outcome().unwrap_or(*outcome);
            (
                "end",
                with_fields(outcome_json(outcome), [("clock", clock_json(state, now))]),
            )
        }
    };
    Some(server_msg(t, Some(v), d))
}

/// The fields describing the current position for the side to move.
fn position_json(state: &GameState, now: Instant) -> Value {
    with_fields(
        board_json(state),
        [
            ("clock", clock_json(state, now)),
            ("first_move_ms", json!(first_move_ms(state, now))),
        ],
    )
}

/// The position fields that do not depend on the time.
fn board_json(state: &GameState) -> Value {
    let position = state.position();
    json!({
        "fen": position.fen(),
        "turn": Side::from(position.side_to_move()),
        "phase": phase_name(position.phase()),
        "check": position.is_check(),
        "legal": legal(state),
        "claims": claims(state),
    })
}

fn legal(state: &GameState) -> Vec<String> {
    if state.status() != GameStatus::Playing || state.game().outcome().is_some() {
        return Vec::new();
    }
    state
        .legal_submoves()
        .iter()
        .map(|m| m.to_string())
        .collect()
}

fn claims(state: &GameState) -> Vec<&'static str> {
    if state.is_finished() {
        return Vec::new();
    }
    state
        .game()
        .available_claims()
        .into_iter()
        .map(claim_name)
        .collect()
}

fn clock_json(state: &GameState, now: Instant) -> Value {
    let (Some(clock), Some(spec), Some([white, black])) =
        (state.clock(), state.clock_spec, state.clock_readings(now))
    else {
        return Value::Null;
    };
    json!({
        "white": white,
        "black": black,
        "running": clock.running().map(Side::from),
        "base_secs": spec.base_secs,
        "increment_secs": spec.increment_secs,
    })
}

fn first_move_ms(state: &GameState, now: Instant) -> Option<u64> {
    state.first_move_left(now).map(millis)
}

/// A duration in whole milliseconds, saturating.
pub fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The public state for HTTP `GET /api/games/{id}`: the shared and live fields in one object.
pub fn snapshot(state: &GameState, presence: Presence, you: Option<Color>, now: Instant) -> Value {
    let mut snapshot = snapshot_shared(state, &state.record());
    if let (Some(map), Value::Object(live)) = (
        snapshot.as_object_mut(),
        snapshot_live(state, presence, you, now),
    ) {
        map.extend(live);
    }
    snapshot
}

/// The part of the snapshot that changes only with the version (the record, the position,
/// offers, outcome): the same for every reader, so the room serializes it once per version.
/// Disjoint from [`snapshot_live`].
pub fn snapshot_shared(state: &GameState, record: &[RecordEntry]) -> Value {
    let moves: Vec<Value> = record
        .iter()
        .map(|e| json!({"uci": e.mv.to_string(), "san": e.san, "color": Side::from(e.color)}))
        .collect();
    let outcome = match (state.is_finished(), state.game().outcome()) {
        (true, Some(outcome)) => outcome_json(outcome),
        _ => Value::Null,
    };
    with_fields(
        board_json(state),
        [
            ("id", json!(state.id)),
            ("status", json!(state.status())),
            ("variant", json!(state.variant)),
            ("start_fen", json!(state.game().start().fen())),
            ("moves", Value::Array(moves)),
            ("draw_offer", json!(state.draw_offer().map(Side::from))),
            (
                "rematch_offer",
                json!(state.rematch_offered_by().map(Side::from)),
            ),
            ("outcome", outcome),
            ("rematch", json!(state.rematch_id())),
        ],
    )
}

/// The part of the snapshot that depends on the moment and the reader: the clocks, the
/// first-turn timer, who is connected, and `you`.
pub fn snapshot_live(
    state: &GameState,
    presence: Presence,
    you: Option<Color>,
    now: Instant,
) -> Value {
    let seat = |color: Color, connected: bool| json!({"taken": state.seat_taken(color), "connected": connected});
    json!({
        "clock": clock_json(state, now),
        "first_move_ms": first_move_ms(state, now),
        "seats": {"white": seat(Color::White, presence.white), "black": seat(Color::Black, presence.black)},
        "spectators": presence.spectators,
        "you": you.map(Side::from),
    })
}

/// `{"t": "state", "v": version, "d": live ∪ shared}` from two serialized JSON objects with
/// disjoint keys, without parsing them again.
pub fn state_message(version: u64, live: &str, shared: &str) -> String {
    let fields: Vec<&str> = [live, shared]
        .into_iter()
        .map(object_fields)
        .filter(|f| !f.trim().is_empty())
        .collect();
    format!(
        "{{\"t\":\"state\",\"v\":{version},\"d\":{{{}}}}}",
        fields.join(",")
    )
}

/// The text between the braces of a serialized JSON object.
fn object_fields(object: &str) -> &str {
    object
        .trim()
        .strip_prefix('{')
        .and_then(|o| o.strip_suffix('}'))
        .unwrap_or_default()
}

/// The store's listing row (its summary is what `GET /api/games` returns).
pub fn listing(state: &GameState) -> GameListing {
    listing_after(state, &[])
}

/// The listing row the game will have once `pending` (decided, not yet applied) events are
/// applied: committed with them, before they are applied (a failed commit applies nothing).
pub fn listing_after(state: &GameState, pending: &[Checked]) -> GameListing {
    let mut seats = [
        state.seat_taken(Color::White),
        state.seat_taken(Color::Black),
    ];
    let mut sub_moves = state.game().submoves().len();
    let mut outcome = state.game().outcome().filter(|_| state.is_finished());
    let mut updated_ms = state.updated_ms;
    for checked in pending {
        let event = checked.event();
        updated_ms = event.at_ms();
        match event {
            Event::Joined { color, .. } => seats[*color as usize] = true,
            Event::Move { .. } => sub_moves += 1,
            Event::Takeback { .. } => sub_moves = sub_moves.saturating_sub(1),
            Event::End { outcome: end, .. } => outcome = Some(*end),
            _ => {}
        }
    }
    let status = if outcome.is_some() {
        GameStatus::Finished
    } else if seats == [true, true] {
        GameStatus::Playing
    } else {
        GameStatus::Open
    };
    let summary = json!({
        "id": state.id,
        "status": status,
        "variant": state.variant,
        "clock": state.clock_spec,
        "seats": {"white": seats[0], "black": seats[1]},
        "sub_moves": sub_moves,
        "result": outcome.map(policy::result_token),
        "reason": outcome.map(|o| reason_name(o.reason())),
        "created_ms": state.created_ms,
        "updated_ms": updated_ms,
    });
    GameListing {
        id: state.id.clone(),
        status,
        created_ms: state.created_ms,
        updated_ms,
        summary: summary.to_string(),
        listed: state.listed,
    }
}

/// The wire form of a refused request: its code, and its sentence as the message.
pub fn refusal(refused: &Refused) -> Refusal {
    let code = match refused {
        Refused::GameOver => ErrorCode::GameOver,
        Refused::NotStarted => ErrorCode::GameNotStarted,
        Refused::NotYourTurn => ErrorCode::NotYourTurn,
        Refused::Illegal(_) => ErrorCode::IllegalMove,
        Refused::StalePosition { .. } | Refused::AheadOfGame { .. } => ErrorCode::Stale,
        Refused::SeatsTaken => ErrorCode::SeatTaken,
        Refused::Takeback(_)
        | Refused::DrawAlreadyOffered
        | Refused::OneDrawOfferPerTurn
        | Refused::NoDrawOfferToAccept
        | Refused::NoDrawOfferToDecline
        | Refused::NoClaim
        | Refused::AbortWindowOver
        | Refused::NotReallyStarted
        | Refused::OpponentNotAway
        | Refused::Rematch(_)
        | Refused::RematchAlreadyOffered
        | Refused::NoRematchOffer => ErrorCode::NotAvailable,
    };
    Refusal::new(code, refused.to_string())
}

pub fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Single => "single",
        Phase::First => "first",
        Phase::Second => "second",
    }
}

/// The wire name of a termination: its PGN text with underscores.
pub fn reason_name(reason: Termination) -> String {
    reason.as_str().replace(['-', ' '], "_")
}

/// `object` (a JSON object) with these fields added.
fn with_fields<const N: usize>(mut object: Value, fields: [(&str, Value); N]) -> Value {
    if let Some(map) = object.as_object_mut() {
        for (key, value) in fields {
            map.insert(key.into(), value);
        }
    }
    object
}

fn outcome_json(outcome: Outcome) -> Value {
    json!({
        "result": policy::result_token(outcome),
        "winner": outcome.winner().map(Side::from),
        "reason": reason_name(outcome.reason()),
    })
}
