//! Time management per turn. The clock runs across both sub-moves of a turn,
//! so the engine plans the whole turn at S1 (its search there already covers
//! S2) and at S2 spends what is left of that turn's share.
//!
//! - `movetime`: exactly that per sub-move (less a small margin).
//! - `wtime/btime/winc/binc`: a turn gets about 1/25 of the remaining time
//!   plus most of the increment. At S1 the search may use up to 3/4 of it
//!   (soft limit: no new iteration after half of that); at S2, when the
//!   position is the one the S1 search expected, the rest of the turn's
//!   share; otherwise S2 is budgeted as a fresh half turn.
//! - `depth`, `nodes`, `infinite`: no clock; the search stops at the depth,
//!   at the node count, or on `stop`.

use std::time::Duration;

use crate::rules::Phase;

/// Margin kept for the GUI and the pipe on every sub-move.
const OVERHEAD: Duration = Duration::from_millis(15);

/// The clock part of a `go`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Clock {
    pub time: Option<Duration>,
    pub inc: Duration,
}

/// When the search should stop.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Budget {
    /// No new iteration starts after this.
    pub soft: Option<Duration>,
    /// The search is aborted at this.
    pub hard: Option<Duration>,
    /// The whole turn's share (set at S1 for the plan of S2).
    pub turn: Option<Duration>,
}

/// The budget of one sub-move. `left_of_turn` is what the S1 search left of
/// its turn's share, when S2 is the position it expected.
pub fn budget(
    movetime: Option<Duration>,
    clock: Clock,
    phase: Phase,
    left_of_turn: Option<Duration>,
) -> Budget {
    if let Some(mt) = movetime {
        let t = mt.saturating_sub(OVERHEAD).max(Duration::from_millis(1));
        return Budget {
            soft: Some(t),
            hard: Some(t),
            turn: None,
        };
    }
    let Some(time) = clock.time else {
        return Budget::default();
    };
    let usable = time.saturating_sub(OVERHEAD);
    // Never more than a fifth of the clock on one sub-move.
    let cap = usable / 5;
    let turn = (usable / 25 + clock.inc * 3 / 4).min(cap * 2);
    let share = match (phase, left_of_turn) {
        (Phase::Single, _) => turn,
        (Phase::First, _) => turn * 3 / 4,
        (Phase::Second, Some(left)) => left.max(turn / 8),
        (Phase::Second, None) => turn / 2,
    };
    let hard = share.min(cap).max(Duration::from_millis(1));
    Budget {
        soft: Some(hard / 2),
        hard: Some(hard),
        turn: Some(turn),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s1_plans_for_the_turn_and_s2_spends_what_is_left() {
        let clock = Clock {
            time: Some(Duration::from_secs(100)),
            inc: Duration::ZERO,
        };
        let s1 = budget(None, clock, Phase::First, None);
        let turn = s1.turn.unwrap();
        assert!(s1.hard.unwrap() < turn);
        let left = turn - s1.hard.unwrap();
        let s2 = budget(None, clock, Phase::Second, Some(left));
        assert_eq!(s2.hard.unwrap(), left);
    }

    #[test]
    fn movetime_is_per_sub_move() {
        let b = budget(
            Some(Duration::from_millis(500)),
            Clock::default(),
            Phase::First,
            None,
        );
        assert_eq!(b.hard, Some(Duration::from_millis(485)));
    }
}

#[cfg(test)]
mod overflow_tests {
    use super::*;

    #[test]
    fn huge_clock_values_from_a_gui_do_not_overflow() {
        let clock = Clock {
            time: Some(Duration::from_millis(u64::MAX)),
            inc: Duration::from_millis(u64::MAX),
        };
        for phase in [Phase::Single, Phase::First, Phase::Second] {
            let b = budget(None, clock, phase, Some(Duration::from_millis(u64::MAX)));
            assert!(b.hard.is_some());
        }
    }
}
