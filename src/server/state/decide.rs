//! The decisions: a player's request (or the clock) checked against a
//! game's state and turned into the event to commit, or a typed refusal.
//! Nothing here changes the state: the room commits the event, then
//! [`GameState::apply`] folds it in.

use std::time::Instant;

use super::GameState;
use crate::rules::{Claim, Color, Outcome, Phase, SubMove, Termination};
use crate::server::clock::Clock;
use crate::server::config::TakebackLimits;
use crate::server::events::Event;
use crate::server::protocol::{ErrorCode, Refusal, Side};
use crate::server::store::GameStatus;

impl GameState {
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

    /// Refuses a `move` played on version `seen` when the position changed
    /// since (another tab of the same seat moved or took back first) or when
    /// the game never had that version. Events that leave the position
    /// alone (a draw offer, say) do not make a move stale. `None` (a client
    /// that does not send `v`) is not checked.
    pub fn check_seen(&self, seen: Option<u64>) -> Result<(), Refusal> {
        match seen {
            Some(v) if v < self.position_version => Err(Refusal::new(
                ErrorCode::Stale,
                format!(
                    "the position changed since version {v} (now {}); look again and replay",
                    self.version()
                ),
            )),
            Some(v) if v > self.version() => Err(Refusal::new(
                ErrorCode::Stale,
                format!(
                    "version {v} is ahead of the game (at {}); resync",
                    self.version()
                ),
            )),
            _ => Ok(()),
        }
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

    /// Taking back `color`'s first sub-move, within `limits`: a takeback
    /// and the sub-move played again are two events that do not advance the
    /// game, so without a bound a client looping them grows the log forever.
    pub fn decide_takeback(
        &self,
        color: Color,
        limits: TakebackLimits,
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
        if self.takebacks_this_turn >= limits.per_turn {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                format!(
                    "at most {} takeback(s) per turn: play your turn",
                    limits.per_turn
                ),
            ));
        }
        if self.takebacks[color as usize] >= limits.per_game {
            return Err(Refusal::new(
                ErrorCode::NotAvailable,
                format!(
                    "you have used your {} takebacks of this game",
                    limits.per_game
                ),
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
            None if self.draw_offered_at[color as usize] == Some(self.turns_completed) => {
                Err(Refusal::new(
                    ErrorCode::NotAvailable,
                    "one draw offer per turn: offer again after the next move",
                ))
            }
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
    /// (then the room creates the rematch). `seat_hash`: the hash of the offerer's rematch token.
    pub fn decide_rematch_offer(
        &self,
        color: Color,
        seat_hash: String,
        at_ms: i64,
    ) -> Result<Option<Event>, Refusal> {
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
                seat_hash: Some(seat_hash),
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
