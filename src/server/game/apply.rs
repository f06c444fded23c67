//! Folding events into the state. [`GameState::apply`] takes only [`Checked`] events (decided
//! by `decide.rs`, or checked here when a stored log is replayed), so it cannot fail: a
//! failed store commit has nothing to undo because nothing was applied before it.

use std::time::{Duration, Instant};

use super::decide::{Checked, MovePreview};
use super::event::Event;
use super::policy;
use super::state::{ComputerSeat, GameState};
use crate::rules::{Claim, Color, Termination};
use crate::server::game::clock::Clock;

/// Why a stored log cannot be replayed: it does not describe a game this server could have
/// played (a corrupt or foreign log).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("the log does not start with a created event")]
    NotCreated,
    #[error("event {index} cannot apply: {reason}")]
    Inconsistent { index: u64, reason: String },
}

impl GameState {
    /// Rebuilds a game from its events, starting its clock at `now`. `each` sees the state
    /// after every event from event 1 on, with that event and its version (the room projects
    /// the last ones into its resync history).
    pub fn replay(
        id: &str,
        events: &[Event],
        first_move_limit: Duration,
        now: Instant,
        mut each: impl FnMut(&GameState, &Event, u64),
    ) -> Result<GameState, ReplayError> {
        let first = events.first().ok_or(ReplayError::NotCreated)?;
        let mut state =
            GameState::new(id, first, first_move_limit).ok_or(ReplayError::NotCreated)?;
        for event in &events[1..] {
            let v = state.events;
            let checked = state.check(event.clone())?;
            state.apply(checked, now);
            each(&state, event, v);
        }
        Ok(state)
    }

    /// Checks a stored event against the state, as the decision did when it was played. Only
    /// what makes the log consistent is checked (a legal sub-move, a free seat, nothing after
    /// the end); policies that a later version changed (limits, offers) are not, so an old log
    /// always replays.
    pub fn check(&self, event: Event) -> Result<Checked, ReplayError> {
        let index = self.events;
        let inconsistent = |reason: String| ReplayError::Inconsistent { index, reason };
        if self.ended_ms.is_some()
            && !matches!(event, Event::RematchOffer { .. } | Event::Rematch { .. })
        {
            return Err(inconsistent("event after the end".into()));
        }
        match &event {
            Event::Created { .. } => Err(inconsistent("second created event".into())),
            Event::Joined { color, .. } if self.seat_taken(*color) => {
                Err(inconsistent("seat already taken".into()))
            }
            Event::Move { mv, .. } => {
                let preview = self.preview(*mv).map_err(|e| inconsistent(e.to_string()))?;
                Ok(Checked {
                    event,
                    preview: Some(preview),
                    aborted_by: None,
                })
            }
            Event::Takeback { .. } => {
                policy::takeback_allowed(
                    self.game.position(),
                    self.game.submove_count(),
                    0,
                    0,
                    crate::server::game::policy::TakebackLimits {
                        per_turn: u32::MAX,
                        per_game: u32::MAX,
                    },
                )
                .map_err(|e| inconsistent(e.to_string()))?;
                Ok(Checked::plain(event))
            }
            Event::End { outcome, .. } if self.game.outcome().is_none() => {
                let reason = outcome.reason();
                let allowed = match reason {
                    Termination::ThreefoldRepetition => self
                        .game
                        .available_claims()
                        .contains(&Claim::ThreefoldRepetition),
                    Termination::FiftyMoveRule => {
                        self.game.available_claims().contains(&Claim::FiftyMoveRule)
                    }
                    other => !other.is_on_board(),
                };
                if allowed {
                    Ok(Checked::plain(event))
                } else {
                    Err(inconsistent(format!(
                        "{} is not available here",
                        reason.as_str()
                    )))
                }
            }
            _ => Ok(Checked::plain(event)),
        }
    }

    /// Folds in one checked event (live, or replayed by [`GameState::replay`]).
    pub fn apply(&mut self, checked: Checked, now: Instant) {
        let index = self.events;
        let Checked { event, preview, .. } = checked;
        self.updated_ms = event.at_ms();
        match event {
            // `check` refuses a second one and the state is made from the first.
            Event::Created { .. } => {}
            Event::Joined {
                color,
                seat_hash,
                computer,
                user,
                ..
            } => {
                self.seats[color as usize] = Some(seat_hash);
                self.users[color as usize] = user;
                self.computer = computer.map(|level| ComputerSeat { color, level });
                self.position_version = index;
                // The second seat taken: the first turn begins.
                self.turn_started_ms = Some(self.updated_ms);
                if policy::first_move_timer_runs(self.clock.is_some(), self.turns_completed) {
                    self.first_move_since = Some(now);
                }
            }
            Event::Move { ack, clock, .. } => {
                if let Some(preview) = preview {
                    self.apply_move(index, preview, ack, clock, now);
                }
            }
            Event::Takeback { .. } => {
                let mover = self.game.position().side_to_move();
                if let Ok(mv) = self.game.takeback_first_submove() {
                    self.taken_back = Some(mv);
                    self.last_san = None;
                    self.last_mover = None;
                    self.position_version = index;
                    // Counted on replay too: a restart does not reset the limits.
                    self.takebacks[mover as usize] += 1;
                    self.takebacks_this_turn += 1;
                }
            }
            Event::DrawOffer { by, .. } => {
                self.draw_offer = Some(by);
                self.draw_offered_at[by as usize] = Some(self.turns_completed);
            }
            Event::DrawDecline { .. } => self.draw_offer = None,
            Event::Berserk { by, .. } => {
                self.berserk[by as usize] = true;
                if let Some(clock) = self.clock.as_mut() {
                    clock.berserk(by, now);
                }
            }
            Event::RematchOffer { by, seat_hash, .. } => {
                self.rematch_offer = Some(by);
                self.rematch_offer_seat = seat_hash;
            }
            Event::Rematch {
                id, derived_seats, ..
            } => {
                self.rematch = Some(id);
                self.rematch_derived = derived_seats;
                self.rematch_offer = None;
                self.rematch_offer_seat = None;
            }
            Event::End { outcome, clock, .. } => {
                if self.game.outcome().is_none() {
                    // `check` (or the decision) made sure the claim or declaration is allowed.
                    let _ = match outcome.reason() {
                        Termination::ThreefoldRepetition => {
                            self.game.claim(Claim::ThreefoldRepetition).map(|_| ())
                        }
                        Termination::FiftyMoveRule => {
                            self.game.claim(Claim::FiftyMoveRule).map(|_| ())
                        }
                        _ => self.game.declare(outcome),
                    };
                }
                self.ended_ms = Some(self.updated_ms);
                self.draw_offer = None;
                self.first_move_since = None;
                self.end_clock = clock.or_else(|| self.clock.as_ref().map(|c| c.readings(now)));
                if let Some(clock) = self.clock.as_mut() {
                    clock.stop(now);
                }
            }
        }
        self.events += 1;
    }

    fn apply_move(
        &mut self,
        index: u64,
        preview: MovePreview,
        ack: Option<String>,
        readings: Option<[u64; 2]>,
        now: Instant,
    ) {
        let outcome = preview.outcome();
        let next = *preview.next();
        let MovePreview {
            mv,
            mover,
            san,
            preview,
            lag,
        } = preview;
        // The preview was made on this very game by the decision (or the replay check) and
        // nothing happened in between; should it ever be stale, play the sub-move afresh.
        if let Err(error) = self.game.play_previewed(preview) {
            tracing::error!(game = %self.id, %mv, %error, "a decided sub-move's preview was stale; playing it afresh");
            if let Err(error) = self.game.play(mv) {
                tracing::error!(game = %self.id, %mv, %error, "a decided sub-move no longer plays");
            }
        }
        self.last_san = Some(san);
        self.last_mover = Some(mover);
        let completed = policy::turn_ended(mover, &next, outcome);
        if completed {
            self.turns_completed += 1;
            self.turn_started_ms = Some(self.updated_ms);
            self.takebacks_this_turn = 0;
            if policy::draw_offer_lapses(self.draw_offer, mover, completed) {
                self.draw_offer = None;
            }
            self.first_move_since =
                if policy::first_move_timer_runs(self.clock.is_some(), self.turns_completed) {
                    Some(now)
                } else {
                    None
                };
        }
        if let Some(credit) = lag {
            self.lag[mover as usize] = credit.after;
        }
        if let Some(ack) = ack {
            self.acks.push(mover, ack, index);
        }
        if let (Some(clock), Some(spec)) = (self.clock.as_mut(), self.clock_spec) {
            if let Some(readings) = readings {
                let increment = u64::from(spec.increment_secs) * 1000;
                let berserk = self.berserk;
                *clock = Clock::restore(
                    readings,
                    Color::ALL.map(|c| if berserk[c as usize] { 0 } else { increment }),
                );
            }
            if policy::clocks_run(self.turns_completed) && outcome.is_none() {
                clock.start(next.side_to_move(), now);
            }
        }
        self.position_version = index;
    }
}
