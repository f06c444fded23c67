//! What time passing imposes on a game, decided as [`super::Input::Tick`]: a flag fall (after
//! the flag grace), a first turn not played in time, a correspondence turn past its deadline,
//! or else the game's expiry; and when the next of these may come, for the room's timer.

use std::time::{Duration, Instant};

use super::event::{Event, Readings};
use super::expiry::Expiry;
use super::policy;
use super::state::GameState;
use crate::server::domain::status::GameStatus;

impl GameState {
    /// Both clocks' readings at `now`, for a game with a live clock.
    pub(super) fn readings(&self, now: Instant) -> Option<Readings> {
        self.clock.as_ref().map(|c| c.readings(now))
    }

    /// The `end` that time imposes at `now` (`at_ms` on the wall clock), if any: a timeout,
    /// or else the expiry under `expiry`.
    pub(super) fn time_imposes(&self, expiry: &Expiry, now: Instant, at_ms: i64) -> Option<Event> {
        self.due_timeout(now, at_ms)
            .or_else(|| self.expired(expiry, at_ms))
    }

    /// The end of a game whose clocks impose `outcome` at `now`.
    fn ended_by_time(&self, outcome: crate::rules::Outcome, now: Instant, at_ms: i64) -> Event {
        Event::End {
            at_ms,
            outcome,
            clock: self.readings(now),
        }
    }

    /// The game's expiry ([`super::expiry`]), if it is due at `at_ms`: it ends aborted,
    /// without clock readings.
    fn expired(&self, expiry: &Expiry, at_ms: i64) -> Option<Event> {
        (expiry.due_ms(self)? <= at_ms).then_some(Event::End {
            at_ms,
            outcome: policy::aborted(),
            clock: None,
        })
    }

    /// An ending the clocks impose at `now` (`at_ms` on the wall clock): a flag fall, a first
    /// turn not played in time (abort), or a correspondence turn past its deadline (after the
    /// downtime grace: [`GameState::effective_deadline_ms`]), which loses on time like a flag.
    fn due_timeout(&self, now: Instant, at_ms: i64) -> Option<Event> {
        if self.ended_ms.is_some() || self.status() != GameStatus::Playing {
            return None;
        }
        let grace = self.flag_grace();
        if let Some(loser) = self
            .clock
            .as_ref()
            .and_then(|c| c.flagged_after(now, grace))
        {
            let outcome = policy::time_forfeit(self.game.position(), loser);
            return Some(self.ended_by_time(outcome, now, at_ms));
        }
        if let Some(deadline) = self.effective_deadline_ms()
            && at_ms >= deadline
        {
            let loser = self.game.position().side_to_move();
            let outcome = policy::time_forfeit(self.game.position(), loser);
            return Some(self.ended_by_time(outcome, now, at_ms));
        }
        let since = self.first_move_since?;
        policy::first_move_expired(since, self.first_move_limit, now)
            .then(|| self.ended_by_time(policy::aborted(), now, at_ms))
    }

    /// When deciding [`super::Input::Tick`] may next find something due (a timeout, or the
    /// expiry under `expiry`), given the wall clock `now_ms` at `now` (a correspondence
    /// deadline and an expiry are wall-clock times; one in the past is `now`).
    pub fn next_tick(&self, expiry: &Expiry, now: Instant, now_ms: i64) -> Option<Instant> {
        let expiry = expiry.deadline(self, now, now_ms);
        [self.next_deadline(now, now_ms), expiry]
            .into_iter()
            .flatten()
            .min()
    }

    /// When [`GameState::due_timeout`] may next return an event, given the wall clock
    /// `now_ms` at `now` (a correspondence deadline is wall-clock time; one in the past is
    /// `now`).
    pub(super) fn next_deadline(&self, now: Instant, now_ms: i64) -> Option<Instant> {
        if self.ended_ms.is_some() || self.status() != GameStatus::Playing {
            return None;
        }
        let flag = self
            .clock
            .as_ref()
            .and_then(super::clock::Clock::flag_deadline)
            .map(|at| at + self.flag_grace());
        let first = self.first_move_since.map(|s| s + self.first_move_limit);
        let turn = self.effective_deadline_ms().map(|deadline| {
            let wait = u64::try_from(deadline.saturating_sub(now_ms)).unwrap_or(0);
            now + Duration::from_millis(wait)
        });
        [flag, first, turn].into_iter().flatten().min()
    }
}
