//! The JSON views of a game's state: the public snapshot (HTTP and the
//! `state` message), the store's listing row, the position fields that
//! public messages carry, and the wire names of phases and endings. Reads
//! [`GameState`] only; never changes it.

use std::time::Instant;

use serde_json::{Value, json};

use super::{GameState, Presence};
use crate::rules::{Color, Outcome, Position};
// The wire names moved to `protocol::names`; re-exported here for the old paths.
pub use crate::server::protocol::names::{phase_name, reason_name, result_str};
use crate::server::protocol::{Side, claim_name};
use crate::server::store::{GameListing, GameStatus};

impl GameState {
    /// The fields describing the current position for the side to move.
    pub(super) fn position_json(&self, now: Instant) -> Value {
        with_fields(
            self.board_json(),
            [
                ("clock", self.clock_json(now)),
                ("first_move_ms", json!(self.first_move_ms(now))),
            ],
        )
    }

    /// The position fields that do not depend on the time.
    fn board_json(&self) -> Value {
        let position = self.game.position();
        json!({
            "fen": position.fen(),
            "turn": Side::from(position.side_to_move()),
            "phase": phase_name(position.phase()),
            "check": position.is_check(),
            "legal": self.legal(),
            "claims": self.claims(),
        })
    }

    fn legal(&self) -> Vec<String> {
        if self.status() != GameStatus::Playing || self.game.outcome().is_some() {
            return Vec::new();
        }
        let position = self.game.position();
        position
            .legal_submoves()
            .iter()
            .map(|m| m.to_string())
            .collect()
    }

    fn claims(&self) -> Vec<&'static str> {
        if self.ended {
            return Vec::new();
        }
        self.game
            .available_claims()
            .into_iter()
            .map(claim_name)
            .collect()
    }

    pub(super) fn clock_json(&self, now: Instant) -> Value {
        let (Some(clock), Some(spec)) = (&self.clock, self.clock_spec) else {
            return Value::Null;
        };
        let [white, black] = self.end_clock.unwrap_or_else(|| clock.readings(now));
        json!({
            "white": white,
            "black": black,
            "running": clock.running().map(Side::from),
            "base_secs": spec.base_secs,
            "increment_secs": spec.increment_secs,
        })
    }

    fn first_move_ms(&self, now: Instant) -> Option<u64> {
        let since = self.first_move_since?;
        let left = self
            .first_move_limit
            .saturating_sub(now.saturating_duration_since(since));
        Some(u64::try_from(left.as_millis()).unwrap_or(u64::MAX))
    }

    /// The public state (HTTP `GET /api/games/{id}` and the `state` message's
    /// `d`): [`Self::snapshot_shared`] with [`Self::snapshot_live`]'s fields.
    pub fn snapshot(&self, presence: Presence, you: Option<Color>, now: Instant) -> Value {
        let mut snapshot = self.snapshot_shared();
        if let (Some(map), Value::Object(live)) = (
            snapshot.as_object_mut(),
            self.snapshot_live(presence, you, now),
        ) {
            map.extend(live);
        }
        snapshot
    }

    /// The part of the snapshot that changes only with the version (the
    /// record, the position, offers, outcome): the same for every reader, so
    /// the room serializes it once per version. Disjoint from
    /// [`Self::snapshot_live`].
    pub fn snapshot_shared(&self) -> Value {
        let turn_colors = self.mover_colors();
        let moves: Vec<Value> = self
            .game
            .submoves()
            .iter()
            .zip(&self.sans)
            .zip(turn_colors)
            .map(|((mv, san), color)| json!({"uci": mv.to_string(), "san": san, "color": Side::from(color)}))
            .collect();
        let outcome = match (self.ended, self.game.outcome()) {
            (true, Some(outcome)) => outcome_json(outcome),
            _ => Value::Null,
        };
        with_fields(
            self.board_json(),
            [
                ("id", json!(self.id)),
                ("status", json!(self.status())),
                ("variant", json!(self.variant)),
                ("start_fen", json!(self.game.start().fen())),
                ("moves", Value::Array(moves)),
                ("draw_offer", json!(self.draw_offer.map(Side::from))),
                ("rematch_offer", json!(self.rematch_offer.map(Side::from))),
                ("outcome", outcome),
                ("rematch", json!(self.rematch)),
            ],
        )
    }

    /// The part of the snapshot that depends on the moment and the reader:
    /// the clocks, the first-turn timer, who is connected, and `you`.
    pub fn snapshot_live(&self, presence: Presence, you: Option<Color>, now: Instant) -> Value {
        let seat = |color: Color, connected: bool| json!({"taken": self.seat_taken(color), "connected": connected});
        json!({
            "clock": self.clock_json(now),
            "first_move_ms": self.first_move_ms(now),
            "seats": {"white": seat(Color::White, presence.white), "black": seat(Color::Black, presence.black)},
            "spectators": presence.spectators,
            "you": you.map(Side::from),
        })
    }

    /// The colour that played each sub-move of the record.
    fn mover_colors(&self) -> Vec<Color> {
        self.game.positions()[..self.game.submoves().len()]
            .iter()
            .map(Position::side_to_move)
            .collect()
    }

    /// The store's listing row (its summary is what `GET /api/games` returns).
    pub fn listing(&self) -> GameListing {
        let outcome = self.game.outcome().filter(|_| self.ended);
        let summary = json!({
            "id": self.id,
            "status": self.status(),
            "variant": self.variant,
            "clock": self.clock_spec,
            "seats": {"white": self.seat_taken(Color::White), "black": self.seat_taken(Color::Black)},
            "sub_moves": self.game.submoves().len(),
            "result": outcome.map(result_str),
            "reason": outcome.map(|o| reason_name(o.reason())),
            "created_ms": self.created_ms,
            "updated_ms": self.updated_ms,
        });
        GameListing {
            id: self.id.clone(),
            status: self.status(),
            created_ms: self.created_ms,
            updated_ms: self.updated_ms,
            summary: summary.to_string(),
            listed: self.listed,
        }
    }
}

/// `object` (a JSON object) with these fields added.
pub(super) fn with_fields<const N: usize>(mut object: Value, fields: [(&str, Value); N]) -> Value {
    if let Some(map) = object.as_object_mut() {
        for (key, value) in fields {
            map.insert(key.into(), value);
        }
    }
    object
}

pub(super) fn outcome_json(outcome: Outcome) -> Value {
    json!({
        "result": result_str(outcome),
        "winner": outcome.winner().map(Side::from),
        "reason": reason_name(outcome.reason()),
    })
}
