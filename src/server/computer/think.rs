//! How long the computer may think for one sub-move: the engine's [`Limits`] from what the
//! room last said about the clocks, the first-turn timer and the level.
//!
//! - Timed game: the live readings (`wtime/btime/winc/binc`), the mover's own time less what
//!   elapsed since the reading was received, and less a [`reserve`] for what happens after
//!   the search (sending, deciding and committing the move: a disk write). The engine's time
//!   manager then spends it at a person's pace ([`Pace::Human`]: a typical turn of about
//!   (clock + 40 increments) / 170, 2.5 s at 5+3, a long one 8/3 of that), and never more than a
//!   fifth of it on one sub-move, so a sane clock (1+0 and up) is never lost on time.
//! - Untimed game: a fixed think time per level ([`untimed_think`]). Levels 1 to 7 are capped
//!   by nodes as well (docs/engine.md), so they answer much sooner than that.
//! - While the first-turn timer runs (the first turns, before the clocks start), a sub-move
//!   gets at most a quarter of what is left of it: a turn has at most two sub-moves, so the
//!   timer cannot fall on the computer.
//! - However many searches wait for an engine thread, the computer thinks for the whole of
//!   this (issue 35: a level keeps its promise under load). The wait itself is time off the
//!   clock (the clocks are read when the search starts); it is bounded by refusing new
//!   computer games while the queue is long ([`super::admission`]).

use std::time::{Duration, Instant};

use crate::engine::{Level, Limits, Pace};
use crate::rules::Color;

/// What the room said about the clocks in its last message, and when it was received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockReading {
    /// Milliseconds left, indexed by `Color as usize`.
    pub left_ms: [u64; 2],
    pub increment_ms: u64,
    /// Whose clock runs (none before the clocks start, and after the end).
    pub running: Option<Color>,
    pub at: Instant,
}

/// The first-turn timer as last read: milliseconds left at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstMoveReading {
    pub left_ms: u64,
    pub at: Instant,
}

/// The think time of a sub-move in an untimed game, per level.
pub fn untimed_think(level: Level) -> Duration {
    Duration::from_millis(match level.get() {
        1..=4 => 300,
        5 | 6 => 600,
        7 => 1_000,
        _ => 2_000,
    })
}

/// Time kept back on the mover's clock for what follows the search: the move's trip to the
/// room and its commit. 50 ms, plus 2% of what is left (an fsync on a busy disk).
pub fn reserve(left: Duration) -> Duration {
    Duration::from_millis(50) + left / 50
}

/// The limits of the computer's next search, playing `me` at `level`, at `now`.
pub fn limits(
    me: Color,
    level: Level,
    clock: Option<ClockReading>,
    first_move: Option<FirstMoveReading>,
    now: Instant,
) -> Limits {
    let mut limits = match clock {
        None => Limits::movetime(untimed_think(level)),
        Some(reading) => {
            let left = |color: Color| {
                let mut left = Duration::from_millis(reading.left_ms[color as usize]);
                if reading.running == Some(color) {
                    left = left.saturating_sub(now.saturating_duration_since(reading.at));
                }
                if color == me {
                    left = left.saturating_sub(reserve(left));
                }
                left.max(Duration::from_millis(1))
            };
            let increment = Duration::from_millis(reading.increment_ms);
            Limits {
                wtime: Some(left(Color::White)),
                btime: Some(left(Color::Black)),
                winc: increment,
                binc: increment,
                pace: Pace::Human,
                ..Limits::default()
            }
        }
    };
    if let Some(timer) = first_move {
        let left = Duration::from_millis(timer.left_ms)
            .saturating_sub(now.saturating_duration_since(timer.at));
        let cap = (left / 4).max(Duration::from_millis(1));
        let think = limits.movetime.unwrap_or(untimed_think(level)).min(cap);
        limits.movetime = Some(think);
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(white: u64, black: u64, running: Option<Color>, at: Instant) -> ClockReading {
        ClockReading {
            left_ms: [white, black],
            increment_ms: 0,
            running,
            at,
        }
    }

    #[test]
    fn an_untimed_game_thinks_for_the_levels_fixed_time() {
        let now = Instant::now();
        let limits = limits(Color::White, Level::new(8), None, None, now);
        assert_eq!(limits.movetime, Some(Duration::from_secs(2)));
        assert_eq!(limits.wtime, None);
        assert!(untimed_think(Level::new(1)) < untimed_think(Level::new(8)));
    }

    #[test]
    fn the_running_clock_loses_what_elapsed_since_it_was_read_and_the_reserve() {
        let at = Instant::now();
        let now = at + Duration::from_millis(1_000);
        let limits = limits(
            Color::Black,
            Level::new(8),
            Some(reading(60_000, 60_000, Some(Color::Black), at)),
            None,
            now,
        );
        // White's clock is not running: as read. Black's: 59 s left, less 50 ms + 2%.
        assert_eq!(limits.wtime, Some(Duration::from_millis(60_000)));
        assert_eq!(
            limits.btime,
            Some(Duration::from_millis(59_000 - 50 - 1_180))
        );
        assert_eq!(limits.movetime, None);
    }

    #[test]
    fn a_reading_older_than_the_time_left_still_gives_a_positive_clock() {
        let at = Instant::now();
        let limits = limits(
            Color::White,
            Level::new(3),
            Some(reading(100, 5_000, Some(Color::White), at)),
            None,
            at + Duration::from_secs(5),
        );
        assert_eq!(limits.wtime, Some(Duration::from_millis(1)));
    }

    #[test]
    fn the_engine_never_plans_more_than_the_clock_allows_at_one_minute() {
        // 1+0 with 2 s left: the engine's own budget (a fifth of the clock at most per
        // sub-move) is far below what is left, reserve included.
        let at = Instant::now();
        let limits = limits(
            Color::White,
            Level::new(8),
            Some(reading(2_000, 60_000, Some(Color::White), at)),
            None,
            at,
        );
        let left = limits.wtime.expect("timed");
        assert!(left < Duration::from_millis(2_000) - Duration::from_millis(50));
    }

    #[test]
    fn the_first_turn_timer_caps_a_submove_at_a_quarter_of_what_is_left() {
        let at = Instant::now();
        let untimed = limits(
            Color::White,
            Level::new(8),
            None,
            Some(FirstMoveReading { left_ms: 4_000, at }),
            at + Duration::from_millis(2_000),
        );
        assert_eq!(untimed.movetime, Some(Duration::from_millis(500)));
        let timed = limits(
            Color::White,
            Level::new(8),
            Some(reading(600_000, 600_000, None, at)),
            Some(FirstMoveReading {
                left_ms: 30_000,
                at,
            }),
            at,
        );
        assert_eq!(timed.movetime, Some(Duration::from_secs(2)));
    }

    /// A fake clock: 1+0, the computer playing 100 turns (a long bullet game) where every
    /// sub-move searches to its hard limit and a further 20 ms pass between the clock's
    /// reading and the search and after it (the room's messages, the commit). The budgets are
    /// the real ones: these limits through the engine's time manager at the human pace.
    #[test]
    fn at_1_plus_0_with_delays_the_computer_never_loses_on_time() {
        use crate::engine::time::{Clock, budget};
        use crate::rules::Phase;
        let delay = Duration::from_millis(20);
        let start = Instant::now();
        let mut left = Duration::from_secs(60);
        for turn in 0..100 {
            let mut left_of_turn = None;
            for phase in [Phase::First, Phase::Second] {
                let read = reading(left.as_millis() as u64, 60_000, Some(Color::White), start);
                let limits = limits(Color::White, Level::new(8), Some(read), None, start + delay);
                assert_eq!(limits.pace, Pace::Human);
                let clock = Clock {
                    time: limits.wtime,
                    inc: limits.winc,
                };
                let b = budget(None, clock, phase, left_of_turn, limits.pace);
                let spent = b.hard.expect("hard") + delay * 2;
                assert!(
                    spent < left,
                    "flagged at turn {turn}: {spent:?} of {left:?}"
                );
                left -= spent;
                left_of_turn = b.turn.map(|t| t.saturating_sub(b.hard.expect("hard")));
            }
        }
        assert!(
            left > Duration::from_secs(1),
            "{left:?} left after 100 turns"
        );
    }
}
