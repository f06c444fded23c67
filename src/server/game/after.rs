//! "The state after these events", in one place: what a game will be once events that were
//! decided but not yet applied are applied. A commit writes it beside the events (the listing
//! row, the turn-deadline index, the rating of a rated end) *before* they are applied, because a
//! failed commit applies nothing ([`GameState::apply`] runs only once the store said yes).
//!
//! Read from the events alone, without copying the state: a copy would carry the game's whole
//! record, and this runs on every commit of every game.

use super::decide::Checked;
use super::event::{Event, SeatUser};
use super::policy;
use super::state::{ComputerSeat, GameState};
use crate::rules::{Color, Outcome};
use crate::server::domain::status::GameStatus;

/// A game as it will be after some pending events (see the module comment).
#[derive(Clone, Debug, PartialEq)]
pub struct After<'a> {
    /// Whether each seat is taken, indexed by `Color as usize`.
    pub seats: [bool; 2],
    /// The accounts the seats belong to, indexed by `Color as usize`.
    pub users: [Option<&'a SeatUser>; 2],
    pub computer: Option<ComputerSeat>,
    /// Sub-moves in the record.
    pub sub_moves: usize,
    /// Turns completed, both sides' counted ([`GameState`]'s own count).
    pub turns_completed: u32,
    /// Who berserked, White then Black.
    pub berserk: [bool; 2],
    /// How the game ended, once it is over.
    pub outcome: Option<Outcome>,
    /// Whether the pending events end the game (it was not over before them): what a rated
    /// game's rating follows.
    pub ends_now: bool,
    /// The time of the last event.
    pub updated_ms: i64,
    pub status: GameStatus,
    /// The side to move.
    pub turn: Color,
    /// A correspondence game being played: the deadline of the turn under way, before the
    /// downtime grace (what the store's deadline index holds). `None` for any other game.
    pub turn_deadline_ms: Option<i64>,
    /// The same deadline after the downtime grace ([`policy::Downtime`]): what is shown.
    pub effective_deadline_ms: Option<i64>,
    /// When the side to move's turn began (the `joined` that started the game or the `move`
    /// that ended the other side's turn); `None` before the game started.
    pub turn_started_ms: Option<i64>,
    /// The player whose `abort` request ends the game in the pending events, if one does.
    pub aborted_by: Option<Color>,
}

impl GameState {
    /// The game as it will be once `pending` (decided, not yet applied) events are applied;
    /// with no events, as it is.
    pub fn after<'a>(&'a self, pending: &'a [Checked]) -> After<'a> {
        let mut seats = Color::ALL.map(|c| self.seat_taken(c));
        let mut users = Color::ALL.map(|c| self.user(c));
        let mut computer = self.computer();
        let mut sub_moves = self.game.submove_count();
        let mut turns_completed = self.turns_completed;
        let mut berserk = self.berserk;
        let mut ended = self.ended_ms.is_some();
        let mut outcome = self.game.outcome().filter(|_| ended);
        let mut updated_ms = self.updated_ms;
        let mut turn = self.game.position().side_to_move();
        let mut turn_started_ms = self.turn_started_ms;
        let mut aborted_by = None;
        for checked in pending {
            aborted_by = aborted_by.or(checked.aborted_by);
            let event = &checked.event;
            updated_ms = event.at_ms();
            match event {
                Event::Joined {
                    at_ms,
                    color,
                    computer: level,
                    user,
                    ..
                } => {
                    seats[*color as usize] = true;
                    if let Some(user) = user {
                        users[*color as usize] = Some(user);
                    }
                    if let Some(level) = level {
                        computer = Some(ComputerSeat {
                            color: *color,
                            level: *level,
                        });
                    }
                    // The second seat taken: the first turn begins.
                    turn_started_ms = Some(*at_ms);
                }
                Event::Move { at_ms, .. } => {
                    sub_moves += 1;
                    if let Some(preview) = &checked.preview {
                        if policy::turn_ended(preview.mover, preview.next(), preview.outcome()) {
                            turn_started_ms = Some(*at_ms);
                            turns_completed += 1;
                        }
                        turn = preview.next().side_to_move();
                    }
                }
                // A takeback gives the turn's first sub-move back: same side, same turn.
                Event::Takeback { .. } => sub_moves = sub_moves.saturating_sub(1),
                Event::Berserk { by, .. } => berserk[*by as usize] = true,
                Event::End { outcome: end, .. } => {
                    ended = true;
                    outcome = Some(*end);
                }
                _ => {}
            }
        }
        let status = if ended {
            GameStatus::Finished
        } else if seats.iter().all(|&taken| taken) {
            GameStatus::Playing
        } else {
            GameStatus::Open
        };
        let turn_deadline_ms = match (self.days_per_turn, turn_started_ms) {
            (Some(days), Some(started)) if status == GameStatus::Playing => {
                Some(policy::turn_deadline(started, days))
            }
            _ => None,
        };
        After {
            seats,
            users,
            computer,
            sub_moves,
            turns_completed,
            berserk,
            outcome,
            ends_now: ended && self.ended_ms.is_none(),
            updated_ms,
            status,
            turn,
            turn_deadline_ms,
            effective_deadline_ms: turn_deadline_ms.map(|d| self.downtime.effective(d)),
            turn_started_ms,
            aborted_by,
        }
    }
}
