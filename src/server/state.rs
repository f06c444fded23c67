//! What a game's event log means: [`GameState`] is the fold of its events
//! ([`GameState::apply`], [`GameState::replay`]) with the accessors the room
//! reads. Pure: no I/O, no async; the current instant is always an argument.
//! The decisions that turn a player's request (or the clock) into new events
//! are in `state/decide.rs`; the JSON views of a game (snapshot, listing,
//! the position fields of public messages) are in `state/view.rs`. The room
//! (actor, persistence, broadcast) is in [`super::room`].

mod decide;
mod view;

use view::{outcome_json, with_fields};
pub use view::{phase_name, reason_name, result_str};

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::clock::Clock;
use super::events::{ClockSpec, Event, Variant};
use super::ids;
use super::protocol::{Side, server_msg};
use super::store::GameStatus;
use crate::rules::{Claim, Color, Game, Outcome, Position, Rules, SubMove, Termination};

/// Why an event could not be applied: a corrupt or foreign log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    #[error("event is not valid JSON for this version: {0}")]
    Json(String),
    #[error("the log does not start with a created event")]
    NotCreated,
    #[error("bad start position: {0}")]
    Fen(String),
    #[error("event {index} cannot apply: {reason}")]
    Inconsistent { index: u64, reason: String },
}

/// Who is connected, supplied by the room for snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Presence {
    pub white: bool,
    pub black: bool,
    pub spectators: usize,
}

/// One game as its log says, plus the live clock.
#[derive(Clone, Debug)]
pub struct GameState {
    pub id: String,
    pub variant: Variant,
    pub clock_spec: Option<ClockSpec>,
    pub created_ms: i64,
    pub updated_ms: i64,
    /// Whether the game appears in the lobby listings (see `Event::Created`).
    pub listed: bool,
    game: Game,
    sans: Vec<String>,
    /// Token hashes, indexed by `Color as usize`.
    seats: [Option<String>; 2],
    clock: Option<Clock>,
    /// Clock readings frozen at the end.
    end_clock: Option<[u64; 2]>,
    turns_completed: u32,
    /// Clocked games before both first turns: when the side to move's first turn began.
    first_move_since: Option<Instant>,
    first_move_limit: Duration,
    ended: bool,
    draw_offer: Option<Color>,
    rematch_offer: Option<Color>,
    /// The hash of the standing offer's rematch token (`Event::RematchOffer`).
    rematch_offer_seat: Option<String>,
    rematch: Option<String>,
    /// Whether the rematch's seats are derived from this game's tokens (`Event::Rematch`).
    rematch_derived: bool,
    /// `"<colour>:<ack id>"` -> version of the accepted move.
    acks: HashMap<String, u64>,
    /// The version of the last event that changed the position (join,
    /// move, takeback): a `move` played on an older version is stale.
    position_version: u64,
    /// Takebacks made in this game, indexed by `Color as usize`.
    takebacks: [u32; 2],
    /// Takebacks the side to move made in the current turn.
    takebacks_this_turn: u32,
    /// Per colour: `turns_completed` when it last offered a draw (one offer
    /// per turn, or "offer, decline" loops would grow the log forever).
    draw_offered_at: [Option<u32>; 2],
    /// Number of events applied; the next event's version.
    events: u64,
}

/// The parts of a [`GameState`] that do not come from its event log but
/// from when things happened in this process: the running clock, the
/// first-turn timer, the clocks frozen at the end. [`GameState::replay`]
/// restarts them at its `now`; a room that rebuilds its state from the store
/// after a failed commit puts the live ones back, so that a store failure
/// neither gives nor takes time.
#[derive(Clone, Debug)]
pub struct LiveParts {
    clock: Option<Clock>,
    end_clock: Option<[u64; 2]>,
    first_move_since: Option<Instant>,
}

fn inconsistent(index: u64, reason: impl ToString) -> ApplyError {
    ApplyError::Inconsistent {
        index,
        reason: reason.to_string(),
    }
}

impl GameState {
    /// The state after event 0.
    pub fn from_created(
        id: &str,
        event: &Event,
        first_move_limit: Duration,
    ) -> Result<GameState, ApplyError> {
        let Event::Created {
            at_ms,
            variant,
            start_fen,
            clock,
            creator,
            seat_hash,
            listed,
        } = event
        else {
            return Err(ApplyError::NotCreated);
        };
        let start = Position::from_fen(start_fen, Rules::Marseillais)
            .map_err(|e| ApplyError::Fen(e.to_string()))?;
        let mut seats = [None, None];
        seats[Color::from(*creator) as usize] = Some(seat_hash.clone());
        Ok(GameState {
            id: id.to_string(),
            variant: *variant,
            clock_spec: *clock,
            created_ms: *at_ms,
            updated_ms: *at_ms,
            listed: *listed,
            game: Game::new(start),
            sans: Vec::new(),
            seats,
            clock: clock.map(|c| {
                Clock::new(
                    u64::from(c.base_secs) * 1000,
                    u64::from(c.increment_secs) * 1000,
                )
            }),
            end_clock: None,
            turns_completed: 0,
            first_move_since: None,
            first_move_limit,
            ended: false,
            draw_offer: None,
            rematch_offer: None,
            rematch_offer_seat: None,
            rematch: None,
            rematch_derived: false,
            acks: HashMap::new(),
            position_version: 0,
            takebacks: [0, 0],
            takebacks_this_turn: 0,
            draw_offered_at: [None, None],
            events: 1,
        })
    }

    /// Rebuilds a game from its stored events (JSON), starting its clock at `now`.
    pub fn replay(
        id: &str,
        events: &[String],
        first_move_limit: Duration,
        now: Instant,
    ) -> Result<(GameState, Vec<(u64, String)>), ApplyError> {
        let parse = |text: &String| {
            serde_json::from_str::<Event>(text).map_err(|e| ApplyError::Json(e.to_string()))
        };
        let first = events.first().ok_or(ApplyError::NotCreated)?;
        let mut state = GameState::from_created(id, &parse(first)?, first_move_limit)?;
        let mut public = Vec::new();
        for text in &events[1..] {
            let v = state.version() + 1;
            if let Some(msg) = state.apply(&parse(text)?, now)? {
                public.push((v, msg));
            }
        }
        Ok((state, public))
    }

    /// A copy of the live (not logged) parts: small, whatever the game's length.
    pub fn live_parts(&self) -> LiveParts {
        LiveParts {
            clock: self.clock.clone(),
            end_clock: self.end_clock,
            first_move_since: self.first_move_since,
        }
    }

    /// Puts back live parts taken from a state at the same version.
    pub fn restore_live_parts(&mut self, live: LiveParts) {
        self.clock = live.clock;
        self.end_clock = live.end_clock;
        self.first_move_since = live.first_move_since;
    }

    /// The version of the last applied event.
    pub fn version(&self) -> u64 {
        self.events - 1
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn sans(&self) -> &[String] {
        &self.sans
    }

    pub fn is_finished(&self) -> bool {
        self.ended
    }

    pub fn status(&self) -> GameStatus {
        if self.ended {
            GameStatus::Finished
        } else if self.seats.iter().all(Option::is_some) {
            GameStatus::Playing
        } else {
            GameStatus::Open
        }
    }

    /// The seat `token` belongs to, if any.
    pub fn seat_of(&self, token: &str) -> Option<Color> {
        Color::ALL.into_iter().find(|&c| {
            self.seats[c as usize]
                .as_deref()
                .is_some_and(|hash| ids::token_matches(token, hash))
        })
    }

    pub fn seat_taken(&self, color: Color) -> bool {
        self.seats[color as usize].is_some()
    }

    /// The free seat, if the game can still be joined.
    pub fn free_seat(&self) -> Option<Color> {
        if self.ended {
            return None;
        }
        Color::ALL.into_iter().find(|&c| !self.seat_taken(c))
    }

    pub fn rematch_id(&self) -> Option<&str> {
        self.rematch.as_deref()
    }

    /// The rematch game's id, when its seats belong to tokens derived from this game's
    /// ([`ids::rematch_token`]), so that a player's new seat can be handed out again.
    pub fn derived_rematch_id(&self) -> Option<&str> {
        self.rematch.as_deref().filter(|_| self.rematch_derived)
    }

    /// The standing rematch offer: who made it and the hash of its rematch token, when the log
    /// recorded one.
    pub fn rematch_offer(&self) -> Option<(Color, Option<&str>)> {
        self.rematch_offer
            .map(|by| (by, self.rematch_offer_seat.as_deref()))
    }

    /// The version of an already accepted move with this ack id from `color`.
    pub fn acked(&self, color: Color, ack: &str) -> Option<u64> {
        self.acks.get(&ack_key(color, ack)).copied()
    }

    /// The version of the last event that changed the position.
    pub fn position_version(&self) -> u64 {
        self.position_version
    }

    /// Whether both sides have completed a turn (abort is over, clocks run).
    pub fn started(&self) -> bool {
        self.turns_completed >= 2
    }

    /// Applies one event (live or replayed) and returns its public message,
    /// if it has one. On error the state may be partly changed: the room
    /// then rebuilds it from the store (`RoomTask::restore_committed`).
    pub fn apply(&mut self, event: &Event, now: Instant) -> Result<Option<String>, ApplyError> {
        let index = self.events;
        if self.ended && !matches!(event, Event::RematchOffer { .. } | Event::Rematch { .. }) {
            return Err(inconsistent(index, "event after the end"));
        }
        self.updated_ms = event.at_ms();
        let msg = match event {
            Event::Created { .. } => return Err(inconsistent(index, "second created event")),
            Event::Joined {
                color, seat_hash, ..
            } => {
                let color = Color::from(*color);
                if self.seats[color as usize].is_some() {
                    return Err(inconsistent(index, "seat already taken"));
                }
                self.seats[color as usize] = Some(seat_hash.clone());
                self.position_version = index;
                if self.clock.is_some() {
                    self.first_move_since = Some(now);
                }
                // The position fields too: the game starts, so `legal` is no longer empty.
                let d = with_fields(
                    self.position_json(now),
                    [("color", json!(Side::from(color)))],
                );
                Some(("join", d))
            }
            Event::Move {
                uci, ack, clock, ..
            } => {
                let d = self.apply_move(index, uci, ack.as_deref(), *clock, now)?;
                self.position_version = index;
                Some(("move", d))
            }
            Event::Takeback { .. } => {
                let mover = self.game.position().side_to_move();
                let mv = self
                    .game
                    .takeback_first_submove()
                    .map_err(|e| inconsistent(index, e))?;
                self.sans.pop();
                self.position_version = index;
                // Counted on replay too: a restart does not reset the limits
                // (`decide_takeback`), but a log is never refused for them.
                self.takebacks[mover as usize] += 1;
                self.takebacks_this_turn += 1;
                let d = with_fields(self.position_json(now), [("uci", json!(mv.to_string()))]);
                Some(("takeback", d))
            }
            Event::DrawOffer { by, .. } => {
                self.draw_offer = Some(Color::from(*by));
                self.draw_offered_at[Color::from(*by) as usize] = Some(self.turns_completed);
                Some(("draw_offer", json!({"by": by})))
            }
            Event::DrawDecline { by, .. } => {
                self.draw_offer = None;
                Some(("draw_decline", json!({"by": by})))
            }
            Event::RematchOffer { by, seat_hash, .. } => {
                self.rematch_offer = Some(Color::from(*by));
                self.rematch_offer_seat = seat_hash.clone();
                Some(("rematch_offer", json!({"by": by})))
            }
            Event::Rematch {
                id, derived_seats, ..
            } => {
                self.rematch = Some(id.clone());
                self.rematch_derived = *derived_seats;
                self.rematch_offer = None;
                self.rematch_offer_seat = None;
                Some(("rematch", json!({"id": id})))
            }
            Event::End {
                winner,
                reason,
                clock,
                ..
            } => Some(("end", self.apply_end(index, *winner, reason, *clock, now)?)),
        };
        self.events += 1;
        Ok(msg.map(|(t, d)| server_msg(t, Some(index), d)))
    }

    fn apply_move(
        &mut self,
        index: u64,
        uci: &str,
        ack: Option<&str>,
        readings: Option<[u64; 2]>,
        now: Instant,
    ) -> Result<Value, ApplyError> {
        let mv: SubMove = uci.parse().map_err(|e| inconsistent(index, e))?;
        let before = *self.game.position();
        let mover = before.side_to_move();
        let san = before.san(mv);
        self.game.play(mv).map_err(|e| inconsistent(index, e))?;
        self.sans.push(san.clone());
        let after = *self.game.position();
        let completed = after.side_to_move() != mover || self.game.outcome().is_some();
        if completed {
            self.turns_completed += 1;
            self.takebacks_this_turn = 0;
            if self.draw_offer == Some(!mover) {
                self.draw_offer = None;
            }
            if self.clock.is_some() && !self.started() {
                self.first_move_since = Some(now);
            } else {
                self.first_move_since = None;
            }
        }
        if let Some(ack) = ack {
            self.acks.insert(ack_key(mover, ack), index);
        }
        if let (Some(clock), Some(spec)) = (self.clock.as_mut(), self.clock_spec) {
            if let Some(readings) = readings {
                *clock = Clock::restore(readings, u64::from(spec.increment_secs) * 1000);
            }
            if self.turns_completed >= 2 && self.game.outcome().is_none() {
                clock.start(after.side_to_move(), now);
            }
        }
        Ok(with_fields(
            self.position_json(now),
            [
                ("uci", json!(uci)),
                ("san", json!(san)),
                ("color", json!(Side::from(mover))),
                ("draw_offer", json!(self.draw_offer.map(Side::from))),
            ],
        ))
    }

    fn apply_end(
        &mut self,
        index: u64,
        winner: Option<Side>,
        reason: &str,
        readings: Option<[u64; 2]>,
        now: Instant,
    ) -> Result<Value, ApplyError> {
        let reason: Termination = reason.parse().map_err(|e| inconsistent(index, e))?;
        let outcome = match winner {
            Some(side) => Outcome::Win {
                winner: side.into(),
                reason,
            },
            None => Outcome::Draw { reason },
        };
        if self.game.outcome().is_none() {
            let result = match reason {
                Termination::ThreefoldRepetition => {
                    self.game.claim(Claim::ThreefoldRepetition).map(|_| ())
                }
                Termination::FiftyMoveRule => self.game.claim(Claim::FiftyMoveRule).map(|_| ()),
                _ => self.game.declare(outcome),
            };
            result.map_err(|e| inconsistent(index, e))?;
        }
        self.ended = true;
        self.draw_offer = None;
        self.first_move_since = None;
        self.end_clock = readings.or_else(|| self.clock.as_ref().map(|c| c.readings(now)));
        if let Some(clock) = self.clock.as_mut() {
            clock.stop(now);
        }
        Ok(with_fields(
            outcome_json(self.game.outcome().unwrap_or(outcome)),
            [("clock", self.clock_json(now))],
        ))
    }
}

fn ack_key(color: Color, ack: &str) -> String {
    format!("{}:{ack}", if color == Color::White { "w" } else { "b" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::INITIAL_FEN;
    use crate::server::protocol::ErrorCode;

    fn new_game(now: Instant) -> (GameState, Vec<(u64, String)>, Vec<String>) {
        let created = Event::Created {
            at_ms: 1,
            variant: Variant::Balanced,
            start_fen: INITIAL_FEN.into(),
            clock: Some(ClockSpec {
                base_secs: 60,
                increment_secs: 2,
            }),
            creator: Side::White,
            seat_hash: ids::token_hash("w"),
            listed: true,
        };
        let joined = Event::Joined {
            at_ms: 2,
            color: Side::Black,
            seat_hash: ids::token_hash("b"),
        };
        let log = vec![created.to_json(), joined.to_json()];
        let (state, public) =
            GameState::replay("g", &log, Duration::from_secs(30), now).expect("replays");
        (state, public, log)
    }

    /// Decides and applies one sub-move, appending it to `log`.
    fn play(state: &mut GameState, log: &mut Vec<String>, color: Color, uci: &str, now: Instant) {
        let mv = uci.parse().expect("uci");
        let event = state
            .decide_move(color, mv, Some(uci.into()), now, 3)
            .expect("legal");
        state.apply(&event, now).expect("applies");
        log.push(event.to_json());
    }

    #[test]
    fn replaying_a_log_rebuilds_the_same_game_acks_and_public_events() {
        let t0 = Instant::now();
        let (mut live, mut public, mut log) = new_game(t0);
        for (color, uci) in [
            (Color::White, "e2e4"),
            (Color::Black, "e7e5"),
            (Color::Black, "g8f6"),
        ] {
            let v = live.version() + 1;
            let mv = uci.parse().expect("uci");
            let event = live
                .decide_move(color, mv, Some(uci.into()), t0, 3)
                .expect("legal");
            let msg = live.apply(&event, t0).expect("applies").expect("public");
            public.push((v, msg));
            log.push(event.to_json());
        }
        let (replayed, replayed_public) =
            GameState::replay("g", &log, Duration::from_secs(30), t0).expect("replays");
        assert_eq!(replayed.version(), live.version());
        assert_eq!(replayed.game().submoves(), live.game().submoves());
        assert_eq!(replayed.sans(), live.sans());
        assert_eq!(replayed.acked(Color::Black, "g8f6"), Some(4));
        assert_eq!(replayed.acked(Color::White, "g8f6"), None);
        assert_eq!(replayed_public, public);
        assert_eq!(replayed.listing().summary, live.listing().summary);
    }

    #[test]
    fn a_replayed_state_given_back_its_live_parts_keeps_the_running_clock() {
        let t0 = Instant::now();
        let (mut state, _, mut log) = new_game(t0);
        play(&mut state, &mut log, Color::White, "e2e4", t0);
        play(&mut state, &mut log, Color::Black, "e7e5", t0);
        play(&mut state, &mut log, Color::Black, "g8f6", t0);
        let live = state.live_parts();
        let later = t0 + Duration::from_secs(10);
        let (mut replayed, _) =
            GameState::replay("g", &log, Duration::from_secs(30), later).expect("replays");
        // Replaying restarts White's running clock at `later`...
        assert_ne!(replayed.next_deadline(), state.next_deadline());
        replayed.restore_live_parts(live);
        // ...the live parts put it back where it was.
        assert_eq!(replayed.next_deadline(), state.next_deadline());
        assert_eq!(replayed.version(), state.version());
    }

    #[test]
    fn a_draw_offer_lapses_when_the_opponent_completes_a_turn() {
        let t0 = Instant::now();
        let (mut state, _, mut log) = new_game(t0);
        let offer = state.decide_draw_offer(Color::White, t0, 3).expect("offer");
        state.apply(&offer, t0).expect("applies");
        play(&mut state, &mut log, Color::White, "e2e4", t0);
        assert!(state.decide_draw_accept(Color::Black, t0, 3).is_ok());
        play(&mut state, &mut log, Color::Black, "e7e5", t0);
        assert!(state.decide_draw_accept(Color::Black, t0, 3).is_ok());
        play(&mut state, &mut log, Color::Black, "g8f6", t0);
        let refused = state.decide_draw_accept(Color::Black, t0, 3);
        assert_eq!(refused.map_err(|r| r.code), Err(ErrorCode::NotAvailable));
    }

    #[test]
    fn clocks_start_after_both_first_turns_and_abort_is_over_then() {
        let t0 = Instant::now();
        let (mut state, _, mut log) = new_game(t0);
        assert!(state.next_deadline().is_some(), "first-turn deadline");
        play(&mut state, &mut log, Color::White, "e2e4", t0);
        play(&mut state, &mut log, Color::Black, "e7e5", t0);
        assert!(state.decide_abort(t0, 3).is_ok());
        play(&mut state, &mut log, Color::Black, "g8f6", t0);
        assert!(state.decide_abort(t0, 3).is_err());
        let flag = state.next_deadline().expect("White's flag time");
        assert_eq!(flag, t0 + Duration::from_secs(60));
        let later = t0 + Duration::from_secs(61);
        let Some(Event::End { winner, reason, .. }) = state.due_timeout(later, 4) else {
            panic!("White's flag has fallen");
        };
        assert_eq!(
            (winner, reason.as_str()),
            (Some(Side::Black), "time forfeit")
        );
    }
}
