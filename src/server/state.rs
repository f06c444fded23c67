//! What a game's event log means: [`GameState`] is the fold of its events
//! ([`GameState::apply`]), plus the decisions that turn a player's request
//! into new events (`decide_*`, which never change the state). Pure: no I/O,
//! no async; the current instant is always an argument. The room (actor,
//! persistence, broadcast) is in [`super::room`].

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::clock::Clock;
use super::events::{ClockSpec, Event, Variant};
use super::ids;
use super::protocol::{ErrorCode, Refusal, Side, claim_name, server_msg};
use super::store::{GameListing, GameStatus};
use crate::rules::{Claim, Color, Game, Outcome, Phase, Position, Rules, SubMove, Termination};

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
    rematch: Option<String>,
    /// `"<colour>:<ack id>"` -> version of the accepted move.
    acks: HashMap<String, u64>,
    /// Number of events applied; the next event's version.
    events: u64,
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
            rematch: None,
            acks: HashMap::new(),
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

    pub fn rematch_id(&self) -> Option<&str> {
        self.rematch.as_deref()
    }

    /// The version of an already accepted move with this ack id from `color`.
    pub fn acked(&self, color: Color, ack: &str) -> Option<u64> {
        self.acks.get(&ack_key(color, ack)).copied()
    }

    /// Whether both sides have completed a turn (abort is over, clocks run).
    pub fn started(&self) -> bool {
        self.turns_completed >= 2
    }

    /// Applies one event (live or replayed) and returns its public message,
    /// if it has one. On error the state may be partly changed: callers
    /// apply to a clone and keep it only on success.
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
            } => Some((
                "move",
                self.apply_move(index, uci, ack.as_deref(), *clock, now)?,
            )),
            Event::Takeback { .. } => {
                let mv = self
                    .game
                    .takeback_first_submove()
                    .map_err(|e| inconsistent(index, e))?;
                self.sans.pop();
                let d = with_fields(self.position_json(now), [("uci", json!(mv.to_string()))]);
                Some(("takeback", d))
            }
            Event::DrawOffer { by, .. } => {
                self.draw_offer = Some(Color::from(*by));
                Some(("draw_offer", json!({"by": by})))
            }
            Event::DrawDecline { by, .. } => {
                self.draw_offer = None;
                Some(("draw_decline", json!({"by": by})))
            }
            Event::RematchOffer { by, .. } => {
                self.rematch_offer = Some(Color::from(*by));
                Some(("rematch_offer", json!({"by": by})))
            }
            Event::Rematch { id, .. } => {
                self.rematch = Some(id.clone());
                self.rematch_offer = None;
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

    /// The fields describing the current position for the side to move.
    fn position_json(&self, now: Instant) -> Value {
        let position = self.game.position();
        json!({
            "fen": position.fen(),
            "turn": Side::from(position.side_to_move()),
            "phase": phase_name(position.phase()),
            "check": position.is_check(),
            "legal": self.legal(),
            "clock": self.clock_json(now),
            "first_move_ms": self.first_move_ms(now),
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

    fn clock_json(&self, now: Instant) -> Value {
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

    /// The public state (HTTP `GET /api/games/{id}` and the `state` message's `d`).
    pub fn snapshot(&self, presence: Presence, you: Option<Color>, now: Instant) -> Value {
        let turn_colors = self.mover_colors();
        let moves: Vec<Value> = self
            .game
            .submoves()
            .iter()
            .zip(&self.sans)
            .zip(turn_colors)
            .map(|((mv, san), color)| json!({"uci": mv.to_string(), "san": san, "color": Side::from(color)}))
            .collect();
        let seat = |color: Color, connected: bool| json!({"taken": self.seat_taken(color), "connected": connected});
        let outcome = match (self.ended, self.game.outcome()) {
            (true, Some(outcome)) => outcome_json(outcome),
            _ => Value::Null,
        };
        with_fields(
            self.position_json(now),
            [
                ("id", json!(self.id)),
                ("status", json!(self.status())),
                ("variant", json!(self.variant)),
                ("start_fen", json!(self.game.start().fen())),
                ("moves", Value::Array(moves)),
                (
                    "seats",
                    json!({"white": seat(Color::White, presence.white), "black": seat(Color::Black, presence.black)}),
                ),
                ("spectators", json!(presence.spectators)),
                ("draw_offer", json!(self.draw_offer.map(Side::from))),
                ("rematch_offer", json!(self.rematch_offer.map(Side::from))),
                ("outcome", outcome),
                ("rematch", json!(self.rematch)),
                ("you", json!(you.map(Side::from))),
            ],
        )
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
        }
    }

    // ---- decisions: requests -> events (the state is not changed) ----

    fn require_playing(&self) -> Result<(), Refusal> {
        if self.ended {
            return Err(Refusal::new(ErrorCode::GameOver, "the game is over"));
        }
        if self.status() == GameStatus::Open {
            return Err(Refusal::new(
                ErrorCode::GameNotStarted,
                "waiting for an opponent",
            ));
        }
        Ok(())
    }

    fn require_turn(&self, color: Color) -> Result<(), Refusal> {
        self.require_playing()?;
        if self.game.position().side_to_move() != color {
            return Err(Refusal::new(ErrorCode::NotYourTurn, "it is not your turn"));
        }
        Ok(())
    }

    /// A sub-move by `color`. Board endings are added by [`GameState::pending_end`].
    pub fn decide_move(
        &self,
        color: Color,
        mv: SubMove,
        ack: Option<String>,
        now: Instant,
        at_ms: i64,
    ) -> Result<Event, Refusal> {
        self.require_turn(color)?;
        let after = self
            .game
            .position()
            .play(mv)
            .map_err(|e| Refusal::new(ErrorCode::IllegalMove, e.to_string()))?;
        let clock = self.clock.as_ref().map(|clock| {
            let mut clock = clock.clone();
            if after.side_to_move() != color || after.board_outcome().is_some() {
                clock.end_turn(now);
            }
            clock.readings(now)
        });
        Ok(Event::Move {
            at_ms,
            uci: mv.to_string(),
            ack,
            clock,
        })
    }

    /// The end event the game owes after a sub-move that ended it on the board.
    pub fn pending_end(&self, now: Instant, at_ms: i64) -> Option<Event> {
        if self.ended {
            return None;
        }
        let outcome = self.game.outcome()?;
        Some(self.end_event(outcome, now, at_ms))
    }

    fn end_event(&self, outcome: Outcome, now: Instant, at_ms: i64) -> Event {
        Event::End {
            at_ms,
            winner: outcome.winner().map(Side::from),
            reason: outcome.reason().as_str().to_string(),
            clock: self.clock.as_ref().map(|c| c.readings(now)),
        }
    }

    fn win_event(&self, winner: Color, reason: Termination, now: Instant, at_ms: i64) -> Event {
        self.end_event(Outcome::Win { winner, reason }, now, at_ms)
    }

    fn draw_event(&self, reason: Termination, now: Instant, at_ms: i64) -> Event {
        self.end_event(Outcome::Draw { reason }, now, at_ms)
    }

    pub fn decide_takeback(
        &self,
        color: Color,
        at_ms: i64,
        now: Instant,
    ) -> Result<Event, Refusal> {
        self.require_turn(color)?;
        if self.game.position().phase() != Phase::Second || self.game.submoves().is_empty() {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "there is no first sub-move of this turn to take back",
            ));
        }
        Ok(Event::Takeback {
            at_ms,
            clock: self.clock.as_ref().map(|c| c.readings(now)),
        })
    }

    pub fn decide_resign(&self, color: Color, now: Instant, at_ms: i64) -> Result<Event, Refusal> {
        self.require_playing()?;
        Ok(self.win_event(!color, Termination::Resignation, now, at_ms))
    }

    pub fn decide_draw_offer(
        &self,
        color: Color,
        now: Instant,
        at_ms: i64,
    ) -> Result<Event, Refusal> {
        self.require_playing()?;
        match self.draw_offer {
            Some(by) if by == !color => self.decide_draw_accept(color, now, at_ms),
            Some(_) => Err(Refusal::new(
                ErrorCode::NotAvailable,
                "you already offered a draw",
            )),
            None => Ok(Event::DrawOffer {
                at_ms,
                by: color.into(),
            }),
        }
    }

    pub fn decide_draw_accept(
        &self,
        color: Color,
        now: Instant,
        at_ms: i64,
    ) -> Result<Event, Refusal> {
        self.require_playing()?;
        if self.draw_offer != Some(!color) {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "no draw offer to accept",
            ));
        }
        Ok(self.draw_event(Termination::Agreement, now, at_ms))
    }

    pub fn decide_draw_decline(&self, color: Color, at_ms: i64) -> Result<Event, Refusal> {
        self.require_playing()?;
        if self.draw_offer != Some(!color) {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "no draw offer to decline",
            ));
        }
        Ok(Event::DrawDecline {
            at_ms,
            by: color.into(),
        })
    }

    pub fn decide_claim(
        &self,
        color: Color,
        wanted: Option<Claim>,
        now: Instant,
        at_ms: i64,
    ) -> Result<Event, Refusal> {
        self.require_turn(color)?;
        let available = self.game.available_claims();
        let claim = match wanted {
            Some(claim) => available.iter().copied().find(|&c| c == claim),
            None => available.first().copied(),
        }
        .ok_or_else(|| Refusal::new(ErrorCode::NotAvailable, "no draw claim is available now"))?;
        Ok(self.draw_event(claim.termination(), now, at_ms))
    }

    pub fn decide_abort(&self, now: Instant, at_ms: i64) -> Result<Event, Refusal> {
        if self.ended {
            return Err(Refusal::new(ErrorCode::GameOver, "the game is over"));
        }
        if self.started() {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "both sides have played: the game can no longer be aborted",
            ));
        }
        Ok(self.draw_event(Termination::Aborted, now, at_ms))
    }

    /// Victory by abandonment; `opponent_away` is decided by the room (presence).
    pub fn decide_claim_victory(
        &self,
        color: Color,
        opponent_away: bool,
        now: Instant,
        at_ms: i64,
    ) -> Result<Event, Refusal> {
        self.require_playing()?;
        if !self.started() {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "the game has not really started: abort it instead",
            ));
        }
        if !opponent_away {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "your opponent has not been disconnected long enough",
            ));
        }
        Ok(self.win_event(color, Termination::Abandonment, now, at_ms))
    }

    /// A rematch offer, or `Ok(None)` when it meets the opponent's offer
    /// (then the room creates the rematch).
    pub fn decide_rematch_offer(&self, color: Color, at_ms: i64) -> Result<Option<Event>, Refusal> {
        self.require_rematch_possible()?;
        match self.rematch_offer {
            Some(by) if by == !color => Ok(None),
            Some(_) => Err(Refusal::new(
                ErrorCode::NotAvailable,
                "you already offered a rematch",
            )),
            None => Ok(Some(Event::RematchOffer {
                at_ms,
                by: color.into(),
            })),
        }
    }

    /// Whether `color` may accept a rematch now.
    pub fn check_rematch_accept(&self, color: Color) -> Result<(), Refusal> {
        self.require_rematch_possible()?;
        if self.rematch_offer != Some(!color) {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "no rematch offer to accept",
            ));
        }
        Ok(())
    }

    fn require_rematch_possible(&self) -> Result<(), Refusal> {
        if !self.ended {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "the game is not over",
            ));
        }
        if self.rematch.is_some() {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "the rematch already exists",
            ));
        }
        if !(self.seat_taken(Color::White) && self.seat_taken(Color::Black)) {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                "there was no opponent",
            ));
        }
        Ok(())
    }

    /// The free seat, if the game can still be joined.
    pub fn free_seat(&self) -> Option<Color> {
        if self.ended {
            return None;
        }
        Color::ALL.into_iter().find(|&c| !self.seat_taken(c))
    }

    /// An ending the clocks impose at `now`: a flag fall, or a first turn
    /// not played in time (abort).
    pub fn due_timeout(&self, now: Instant, at_ms: i64) -> Option<Event> {
        if self.ended || self.status() != GameStatus::Playing {
            return None;
        }
        if let Some(loser) = self.clock.as_ref().and_then(|c| c.flagged(now)) {
            let winner = !loser;
            let outcome = if self.game.position().can_checkmate(winner) {
                Outcome::Win {
                    winner,
                    reason: Termination::TimeForfeit,
                }
            } else {
                Outcome::Draw {
                    reason: Termination::TimeForfeit,
                }
            };
            return Some(self.end_event(outcome, now, at_ms));
        }
        let since = self.first_move_since?;
        (now.saturating_duration_since(since) >= self.first_move_limit)
            .then(|| self.draw_event(Termination::Aborted, now, at_ms))
    }

    /// When [`GameState::due_timeout`] may next return an event.
    pub fn next_deadline(&self) -> Option<Instant> {
        if self.ended || self.status() != GameStatus::Playing {
            return None;
        }
        let flag = self.clock.as_ref().and_then(Clock::flag_deadline);
        let first = self.first_move_since.map(|s| s + self.first_move_limit);
        match (flag, first) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

fn ack_key(color: Color, ack: &str) -> String {
    format!("{}:{ack}", if color == Color::White { "w" } else { "b" })
}

pub fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Single => "single",
        Phase::First => "first",
        Phase::Second => "second",
    }
}

/// `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game.
pub fn result_str(outcome: Outcome) -> &'static str {
    if outcome.reason() == Termination::Aborted {
        "*"
    } else {
        outcome.result_str()
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
        "result": result_str(outcome),
        "winner": outcome.winner().map(Side::from),
        "reason": reason_name(outcome.reason()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::INITIAL_FEN;

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
