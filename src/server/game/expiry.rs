//! Games nobody plays any more end by themselves, so that they leave the lobby and the store's
//! unfinished set instead of living forever:
//! - an **open** game nobody joined within `--open-game-ttl-secs` (default 1 h) of its creation;
//! - an **untimed** game being played in which nothing happened (no sub-move, takeback, offer,
//!   ...) for `--idle-game-ttl-secs` (default 24 h). That covers a rematch nobody came to, and a
//!   game abandoned mid-way: without a clock no side can fairly be said to have lost on time.
//!
//! An untimed game against the **computer** in which the person has not played a sub-move
//! within `--unplayed-computer-game-ttl-secs` (default 10 min) of its creation ends the same
//! way: nobody opened it, or its player left at once. Such a game costs little (a room and the
//! computer's few bytes between searches), but one address could otherwise keep thousands for
//! a day (issue 35). Once the person has played, the idle rule above applies.
//!
//! An open **correspondence** game waits `--open-correspondence-ttl-secs` instead (default 3
//! days: a seek for a game of days per move is answered more slowly than one for a blitz), and
//! one being played never expires idle: each of its turns has a deadline, and the side that
//! misses it loses on time (the room, or the store's deadline schedule, flags it).
//!
//! Timed games need neither: their first turns are timed (`--first-move-secs`) and then their
//! clocks run. Either way the game ends with an ordinary stored `end` event, no winner, reason
//! `aborted` (result `*`): what [`GameState::decide`] decides for [`super::Input::Tick`] once
//! the game is due. The room decides it at its timer like a flag fall; games that are not in
//! memory (open games whose room retired, everything at startup) are decided by the registry's
//! expiry pass and the startup pass, and committed straight to the store.

use std::time::{Duration, Instant};

use super::state::GameState;
use crate::server::domain::status::GameStatus;

/// The two time-to-live figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expiry {
    /// An open game ends this long after its creation.
    pub open: Duration,
    /// An open correspondence game ends this long after its creation.
    pub open_correspondence: Duration,
    /// An untimed game being played ends after this long without any event.
    pub idle_untimed: Duration,
    /// An untimed computer game ends this long after its creation if the person has not
    /// played a sub-move.
    pub unplayed_computer: Duration,
}

/// A duration in whole milliseconds, saturating.
pub fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

impl Expiry {
    /// The Unix-millisecond time at which `state` expires, if it can.
    pub fn due_ms(&self, state: &GameState) -> Option<i64> {
        match state.status() {
            GameStatus::Open => {
                let ttl = match state.days_per_turn() {
                    Some(_) => self.open_correspondence,
                    None => self.open,
                };
                Some(state.created_ms.saturating_add(millis(ttl)))
            }
            GameStatus::Playing if state.time_control().is_none() => {
                let idle = state.updated_ms.saturating_add(millis(self.idle_untimed));
                let unplayed = unplayed_by_person(state).then(|| {
                    state
                        .created_ms
                        .saturating_add(millis(self.unplayed_computer))
                });
                Some(unplayed.map_or(idle, |unplayed| unplayed.min(idle)))
            }
            GameStatus::Playing | GameStatus::Finished => None,
        }
    }

    /// When (as an `Instant`, for the room's timer) `state` expires, given the wall clock
    /// `now_ms` at `now`; an expiry in the past is `now`.
    pub fn deadline(&self, state: &GameState, now: Instant, now_ms: i64) -> Option<Instant> {
        let due = self.due_ms(state)?;
        let wait = u64::try_from(due.saturating_sub(now_ms)).unwrap_or(0);
        Some(now + Duration::from_millis(wait))
    }
}

/// Whether `state` is a game against the computer in which the person has not played yet.
fn unplayed_by_person(state: &GameState) -> bool {
    let Some(computer) = state.computer() else {
        return false;
    };
    let game = state.game();
    // The computer's turn is at most two sub-moves: past two, the person has played.
    if game.submove_count() > 2 {
        return false;
    }
    let person = !computer.color;
    !game
        .replay()
        .any(|(before, _)| before.side_to_move() == person)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Level;
    use crate::rules::{Color, Position};
    use crate::server::game::{ClockSpec, Event, TimeControl, Variant};
    use crate::server::ids;

    const HOUR: Duration = Duration::from_secs(3600);
    const EXPIRY: Expiry = Expiry {
        open: HOUR,
        open_correspondence: Duration::from_secs(72 * 3600),
        idle_untimed: Duration::from_secs(24 * 3600),
        unplayed_computer: Duration::from_secs(600),
    };

    fn game(clock: Option<ClockSpec>, joined: bool) -> GameState {
        game_with(clock.map(TimeControl::Live), joined)
    }

    fn game_with(clock: Option<TimeControl>, joined: bool) -> GameState {
        replayed(log_of(clock, joined, None))
    }

    fn log_of(clock: Option<TimeControl>, joined: bool, computer: Option<Level>) -> Vec<Event> {
        let mut log = vec![Event::Created {
            at_ms: 1_000,
            variant: Variant::Balanced,
            start: Position::initial(),
            clock,
            creator: Color::White,
            seat_hash: ids::token_hash("w"),
            listed: true,
            rated: false,
            user: None,
            arena: None,
        }];
        if joined {
            log.push(Event::Joined {
                at_ms: 2_000,
                color: Color::Black,
                seat_hash: ids::token_hash("b"),
                computer,
                user: None,
            });
        }
        log
    }

    fn replayed(log: Vec<Event>) -> GameState {
        GameState::replay(
            "g",
            &log,
            Duration::from_secs(30),
            Instant::now(),
            |_, _, _| {},
        )
        .expect("replays")
    }

    #[test]
    fn an_open_game_expires_its_ttl_after_creation() {
        let expiry = EXPIRY;
        let open = game(None, false);
        assert_eq!(expiry.due_ms(&open), Some(1_000 + 3_600_000));
    }

    #[test]
    fn only_untimed_games_being_played_expire_when_idle() {
        let expiry = EXPIRY;
        let untimed = game(None, true);
        assert_eq!(expiry.due_ms(&untimed), Some(2_000 + 86_400_000));
        let timed = game(
            Some(ClockSpec {
                base_secs: 60,
                increment_secs: 0,
            }),
            true,
        );
        assert_eq!(expiry.due_ms(&timed), None);
    }

    fn correspondence(joined: bool) -> GameState {
        let days = crate::server::game::DaysPerTurn::try_from(3).expect("allowed");
        game_with(Some(TimeControl::from(days)), joined)
    }

    #[test]
    fn a_correspondence_game_being_played_never_expires_idle() {
        let expiry = EXPIRY;
        // Its turns are timed by their deadline: days without an event are normal.
        assert_eq!(expiry.due_ms(&correspondence(true)), None);
    }

    #[test]
    fn an_open_correspondence_game_waits_its_own_ttl() {
        let expiry = EXPIRY;
        assert_eq!(
            expiry.due_ms(&correspondence(false)),
            Some(1_000 + 72 * 3_600_000)
        );
    }

    /// A game against the computer playing Black, after `submoves` sub-moves at 1 minute each.
    fn against_computer(submoves: usize) -> GameState {
        let mut log = log_of(None, true, Some(Level::new(8)));
        let mut position = Position::initial();
        for n in 0..submoves {
            let mv = position.legal_submoves()[0];
            position = position.play(mv).expect("legal");
            log.push(Event::Move {
                at_ms: 2_000 + 60_000 * (n as i64 + 1),
                mv,
                ack: None,
                clock: None,
            });
        }
        replayed(log)
    }

    #[test]
    fn an_untimed_computer_game_nobody_played_ends_ten_minutes_after_its_creation() {
        assert_eq!(EXPIRY.due_ms(&against_computer(0)), Some(1_000 + 600_000));
    }

    #[test]
    fn once_the_person_played_a_computer_game_idles_as_any_untimed_game() {
        // The person is White: one sub-move is theirs.
        let played = against_computer(1);
        assert_eq!(EXPIRY.due_ms(&played), Some(played.updated_ms + 86_400_000));
    }

    #[test]
    fn a_game_between_two_people_nobody_moved_in_keeps_the_idle_rule() {
        let untimed = game(None, true);
        assert_eq!(EXPIRY.due_ms(&untimed), Some(2_000 + 86_400_000));
    }
}
