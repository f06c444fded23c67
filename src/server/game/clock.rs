//! The chess clock of one game, pure: every method takes the current instant,
//! so tests drive it with made-up instants and no real time passes.
//!
//! Marseillais rules for clocks (docs/protocol.md section 4): the clock of the
//! side to move runs across both of its sub-moves; at the end of a turn the
//! mover's clock stops, gets the increment once, and the opponent's starts.
//! Whether the clock has started at all (after each side's first turn) is the
//! room's decision, expressed by calling [`Clock::start`].

use std::time::{Duration, Instant};

use cozy_chess::Color;

/// Remaining times of both sides and which one runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Indexed by `Color as usize`: a berserk side has none.
    increment_ms: [u64; 2],
    /// Indexed by `Color as usize`: what was left when that side's clock last stopped.
    remaining_ms: [u64; 2],
    /// The running side and since when.
    running: Option<(Color, Instant)>,
}

impl Clock {
    /// A stopped clock with both sides at `base_ms`.
    pub fn new(base_ms: u64, increment_ms: u64) -> Clock {
        Clock::restore([base_ms, base_ms], [increment_ms; 2])
    }

    /// A stopped clock with these readings (white, black) and increments, e.g. from the
    /// event log.
    pub fn restore(remaining_ms: [u64; 2], increment_ms: [u64; 2]) -> Clock {
        Clock {
            increment_ms,
            remaining_ms,
            running: None,
        }
    }

    /// The side whose clock runs, if any.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(side, _)| side)
    }

    /// What `side` has left at `now` (never negative).
    pub fn remaining(&self, side: Color, now: Instant) -> u64 {
        let stored = self.remaining_ms[side as usize];
        match self.running {
            Some((running, since)) if running == side => {
                let used = now.saturating_duration_since(since).as_millis();
                stored.saturating_sub(u64::try_from(used).unwrap_or(u64::MAX))
            }
            _ => stored,
        }
    }

    /// Both readings at `now`, white first.
    pub fn readings(&self, now: Instant) -> [u64; 2] {
        [
            self.remaining(Color::White, now),
            self.remaining(Color::Black, now),
        ]
    }

    /// The running side and since when its clock runs (the start of its turn, or its last
    /// sub-move: the time spent on the sub-move being played).
    pub fn running_since(&self) -> Option<(Color, Instant)> {
        self.running
    }

    /// Gives `side` back `ms` (lag compensation, `game::lag`): its clock reads that much more,
    /// as if the sub-move had taken that much less.
    pub fn credit(&mut self, side: Color, ms: u64) {
        let left = &mut self.remaining_ms[side as usize];
        *left = left.saturating_add(ms);
    }

    /// Starts `side`'s clock (stopping the other one without increment).
    pub fn start(&mut self, side: Color, now: Instant) {
        self.stop(now);
        self.running = Some((side, now));
    }

    /// Stops whichever clock runs, charging it up to `now`.
    pub fn stop(&mut self, now: Instant) {
        if let Some((side, _)) = self.running {
            self.remaining_ms[side as usize] = self.remaining(side, now);
            self.running = None;
        }
    }

    /// The running side completed its turn at `now`: charge it, add the
    /// increment once, start the opponent. Does nothing when no clock runs.
    pub fn end_turn(&mut self, now: Instant) {
        if let Some((side, _)) = self.running {
            self.stop(now);
            let left = &mut self.remaining_ms[side as usize];
            *left = left.saturating_add(self.increment_ms[side as usize]);
            self.running = Some((!side, now));
        }
    }

    /// `side` berserks (an arena's rule): half of what it has left, and no increment from
    /// now on. Only ever before its first sub-move, when its clock does not run.
    pub fn berserk(&mut self, side: Color, now: Instant) {
        let left = self.remaining(side, now) / 2;
        self.remaining_ms[side as usize] = left;
        if let Some((running, _)) = self.running
            && running == side
        {
            self.running = Some((side, now));
        }
        self.increment_ms[side as usize] = 0;
    }

    /// The side whose flag has fallen at `now`, if any.
    pub fn flagged(&self, now: Instant) -> Option<Color> {
        let side = self.running()?;
        (self.remaining(side, now) == 0).then_some(side)
    }

    /// The side whose flag has fallen at `now`, when a flag falls `grace` after the clock
    /// reads zero (the lag grace, `game::lag`).
    pub fn flagged_after(&self, now: Instant, grace: Duration) -> Option<Color> {
        let deadline = self.flag_deadline()?;
        (now >= deadline + grace).then_some(self.running()?)
    }

    /// When the running side's clock reads zero (its flag falls then, after any grace).
    pub fn flag_deadline(&self) -> Option<Instant> {
        let (side, since) = self.running?;
        Some(since + Duration::from_millis(self.remaining_ms[side as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn only_the_running_side_loses_time() {
        let t0 = Instant::now();
        let mut clock = Clock::new(10_000, 0);
        clock.start(Color::White, t0);
        assert_eq!(clock.readings(t0 + ms(2_500)), [7_500, 10_000]);
    }

    #[test]
    fn ending_a_turn_adds_the_increment_once_and_switches() {
        let t0 = Instant::now();
        let mut clock = Clock::new(10_000, 2_000);
        clock.start(Color::White, t0);
        clock.end_turn(t0 + ms(3_000));
        assert_eq!(clock.running(), Some(Color::Black));
        assert_eq!(clock.readings(t0 + ms(4_000)), [9_000, 9_000]);
    }

    #[test]
    fn a_stopped_clock_neither_runs_nor_gets_increments() {
        let t0 = Instant::now();
        let mut clock = Clock::new(5_000, 1_000);
        clock.end_turn(t0 + ms(1_000));
        assert_eq!(clock.running(), None);
        assert_eq!(clock.readings(t0 + ms(9_000)), [5_000, 5_000]);
    }

    #[test]
    fn the_flag_falls_exactly_when_the_time_is_used() {
        let t0 = Instant::now();
        let mut clock = Clock::new(1_000, 0);
        clock.start(Color::Black, t0);
        assert_eq!(clock.flag_deadline(), Some(t0 + ms(1_000)));
        assert_eq!(clock.flagged(t0 + ms(999)), None);
        assert_eq!(clock.flagged(t0 + ms(1_000)), Some(Color::Black));
        assert_eq!(clock.remaining(Color::Black, t0 + ms(5_000)), 0);
    }

    #[test]
    fn a_credit_gives_the_running_side_time_back_even_past_zero() {
        let t0 = Instant::now();
        let mut clock = Clock::new(1_000, 0);
        clock.start(Color::White, t0);
        assert_eq!(clock.remaining(Color::White, t0 + ms(1_200)), 0);
        clock.credit(Color::White, 300);
        assert_eq!(clock.remaining(Color::White, t0 + ms(1_200)), 100);
        assert_eq!(clock.running_since(), Some((Color::White, t0)));
    }

    #[test]
    fn with_a_grace_the_flag_falls_that_long_after_zero() {
        let t0 = Instant::now();
        let mut clock = Clock::new(1_000, 0);
        clock.start(Color::Black, t0);
        assert_eq!(clock.flagged_after(t0 + ms(1_499), ms(500)), None);
        assert_eq!(
            clock.flagged_after(t0 + ms(1_500), ms(500)),
            Some(Color::Black)
        );
        assert_eq!(
            clock.flagged_after(t0 + ms(1_000), Duration::ZERO),
            Some(Color::Black)
        );
    }

    #[test]
    fn stopping_keeps_the_time_used_so_far() {
        let t0 = Instant::now();
        let mut clock = Clock::new(60_000, 0);
        clock.start(Color::White, t0);
        clock.stop(t0 + ms(1_234));
        assert_eq!(clock.running(), None);
        assert_eq!(clock.readings(t0 + ms(50_000)), [58_766, 60_000]);
    }

    #[test]
    fn a_berserk_side_keeps_half_its_time_and_gets_no_increment() {
        let t0 = Instant::now();
        let mut clock = Clock::new(180_000, 2_000);
        clock.berserk(Color::Black, t0);
        assert_eq!(clock.readings(t0), [180_000, 90_000]);
        clock.start(Color::White, t0);
        clock.end_turn(t0 + ms(1_000));
        assert_eq!(
            clock.readings(t0 + ms(1_000)),
            [181_000, 90_000],
            "White's increment"
        );
        clock.end_turn(t0 + ms(3_000));
        assert_eq!(
            clock.readings(t0 + ms(3_000)),
            [181_000, 88_000],
            "none for Black"
        );
    }
}
