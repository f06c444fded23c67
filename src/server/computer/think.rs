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
//! - Levels 1 to 7 answer at a person's pace for their level ([`least_think`]): their node
//!   caps end a search in milliseconds, and an instant answer is not what a person across the
//!   board does. A sub-move takes at least a share of a typical turn that grows with the level
//!   (fast at level 1), varied by the position (a quick one now and then); level 8 paces
//!   itself through the time manager. `--computer-pace instant` switches this off (tests).
//! - However many searches wait for an engine thread, the computer thinks for the whole of
//!   this (issue 35: a level keeps its promise under load). The wait itself is time off the
//!   clock (the clocks are read when the search starts); it is bounded by refusing new
//!   computer games while the queue is long ([`super::admission`]).

use std::time::{Duration, Instant};

use crate::engine::level::splitmix;
use crate::engine::time::human_turn;
use crate::engine::{Level, Limits, Pace};
use crate::rules::Color;

/// How the server's computer paces its answers (`--computer-pace`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ComputerPace {
    /// As a person of its level ([`least_think`]).
    #[default]
    Human,
    /// As soon as the search ends: for tests and benchmarks that play many computer games.
    Instant,
}

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

/// A typical turn of an untimed game, for [`least_think`]: what a person spends on a turn
/// when no clock presses (a typical 10+0 turn).
const UNTIMED_TYPICAL_TURN: Duration = Duration::from_secs(4);

/// The share of a typical turn ([`human_turn`]) that a turn of each level takes at least,
/// levels 1 to 7: a beginner answers in a third of a typical turn, a club player in most of it.
const LEVEL_TURN_SHARE_PERCENT: [u32; 7] = [30, 40, 50, 60, 70, 80, 90];

/// The least wall time the computer at `level` takes over a sub-move, from the moment the
/// position reached it (its search included): half of its level's share of a typical turn
/// (each turn has two sub-moves), times a factor of the position between 0.25 and 1.75 (mean
/// 1: some answers come quickly, some after a longer look). Level 8 paces itself (zero).
/// Never more than a tenth of the computer's clock, nor a quarter of the first-turn timer.
pub fn least_think(
    me: Color,
    level: Level,
    clock: Option<ClockReading>,
    first_move: Option<FirstMoveReading>,
    position_hash: u64,
) -> Duration {
    let Some(&share) = LEVEL_TURN_SHARE_PERCENT.get(usize::from(level.get()) - 1) else {
        return Duration::ZERO;
    };
    let (typical, cap) = match clock {
        None => (UNTIMED_TYPICAL_TURN, Duration::MAX),
        Some(reading) => {
            let left = Duration::from_millis(reading.left_ms[me as usize]);
            let inc = Duration::from_millis(reading.increment_ms);
            (human_turn(left, inc, Duration::MAX).typical, left / 10)
        }
    };
    let cap = match first_move {
        Some(timer) => cap.min(Duration::from_millis(timer.left_ms) / 4),
        None => cap,
    };
    // The factor in 1/1000: 250..=1750.
    let factor = 250 + (splitmix(position_hash) % 1_501) as u32;
    let sub_move = typical * share / 200;
    (sub_move * factor / 1_000).min(cap)
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

    /// The mean least think of a level over many positions.
    fn mean_least_think(level: u8, clock: Option<ClockReading>) -> Duration {
        let total: Duration = (0..1_000u64)
            .map(|hash| least_think(Color::White, Level::new(level.into()), clock, None, hash))
            .sum();
        total / 1_000
    }

    #[test]
    fn a_higher_level_takes_longer_over_a_sub_move_and_none_answers_at_once() {
        let blitz = Some(reading(
            300_000,
            300_000,
            Some(Color::White),
            Instant::now(),
        ));
        for clock in [None, blitz] {
            let means: Vec<Duration> = (1..=7)
                .map(|level| mean_least_think(level, clock))
                .collect();
            assert!(means.windows(2).all(|w| w[0] < w[1]), "{means:?}");
            // At 5+3 a typical turn is 2.5 s: level 1 takes about 0.37 s a sub-move on average.
            assert!(means[0] > Duration::from_millis(100), "{means:?}");
        }
        assert_eq!(mean_least_think(8, blitz), Duration::ZERO);
    }

    #[test]
    fn the_least_think_varies_with_the_position_within_a_quarter_and_seven_quarters() {
        let blitz = Some(reading(
            300_000,
            300_000,
            Some(Color::White),
            Instant::now(),
        ));
        let mean = mean_least_think(4, blitz);
        let thinks: Vec<Duration> = (0..1_000u64)
            .map(|hash| least_think(Color::White, Level::new(4), blitz, None, hash))
            .collect();
        let (least, most) = (thinks.iter().min().unwrap(), thinks.iter().max().unwrap());
        assert!(
            *least >= mean / 5 && *least < mean / 2,
            "{least:?} of {mean:?}"
        );
        assert!(
            *most <= mean * 2 && *most > mean * 3 / 2,
            "{most:?} of {mean:?}"
        );
    }

    #[test]
    fn the_least_think_stays_within_a_tenth_of_the_clock_and_a_quarter_of_the_first_turn_timer() {
        let at = Instant::now();
        for left_ms in [200, 1_000, 10_000, 60_000] {
            for inc in [0, 1_000, 30_000] {
                let mut clock = reading(left_ms, left_ms, Some(Color::Black), at);
                clock.increment_ms = inc;
                for hash in 0..200 {
                    let think = least_think(Color::Black, Level::new(7), Some(clock), None, hash);
                    assert!(think <= Duration::from_millis(left_ms) / 10);
                }
            }
        }
        let timer = FirstMoveReading { left_ms: 2_000, at };
        for hash in 0..200 {
            let think = least_think(Color::White, Level::new(7), None, Some(timer), hash);
            assert!(think <= Duration::from_millis(500));
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
