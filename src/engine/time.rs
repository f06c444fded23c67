//! Time management per turn. The clock runs across both sub-moves of a turn,
//! so the engine plans the whole turn at S1 (its search there already covers
//! S2) and at S2 spends what is left of that turn's share.
//!
//! - `movetime`: exactly that per sub-move (less a small margin).
//! - `wtime/btime/winc/binc` at [`Pace::Engine`] (UCI, the match harness): a turn gets about
//!   1/25 of the remaining time plus most of the increment. At S1 the search may use up to
//!   3/4 of it (soft limit: no new iteration after half of that); at S2, when the position is
//!   the one the S1 search expected, the rest of the turn's share; otherwise S2 is budgeted
//!   as a fresh half turn.
//! - The same at [`Pace::Human`] (the server's computer): the pace a player expects of an
//!   opponent, [`human_turn`]; the search stops early when its best sub-move is settled and
//!   thinks longer when its score drops ([`next_iteration`]); a lone legal sub-move is played
//!   at once.
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

/// How a clocked search spends the clock.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub enum Pace {
    /// As an engine under test: the most strength the clock allows, about 1/25 of it and
    /// most of the increment per turn (10-14 s a turn at 5+3).
    #[default]
    Engine,
    /// As a person across the board: a typical turn of about (clock + 40 increments) / 170,
    /// 2.5 s at 5+3 and 0.35 s at 1+0, and never more than 8/3 of that (6.6 s at 5+3).
    Human,
}

/// A human-paced turn: what a typical turn takes and the longest one may, from the clock.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct HumanTurn {
    pub typical: Duration,
    pub longest: Duration,
}

/// The turns a clock's remaining game is spread over at [`Pace::Human`]: lichess's estimate
/// of a game's length (the clock plus 40 increments) over 170 gives a typical turn of 2.5 s
/// at 5+3 and proportionally less at bullet. A turn's iterations end past its soft limit, so
/// the median turn is about 1.1 of this (measured at 1+0 with 140: a typical 0.43 s, a
/// median 0.45-0.49 s): 170 keeps the blitz median under the 3 s a player expects.
const HUMAN_TURNS: u32 = 170;
/// The increments a game is expected to gain (lichess's speed estimate).
const EXPECTED_TURNS: u32 = 40;

/// A human-paced turn with `time` left and `inc` per turn, never beyond the engine pace's
/// own turn (`engine_turn`): a long think is 8/3 of a typical one (6.6 s at 5+3).
pub fn human_turn(time: Duration, inc: Duration, engine_turn: Duration) -> HumanTurn {
    let typical =
        (time.saturating_add(inc.saturating_mul(EXPECTED_TURNS)) / HUMAN_TURNS).min(engine_turn);
    HumanTurn {
        typical,
        longest: (typical.saturating_mul(8) / 3).min(engine_turn),
    }
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
    pace: Pace,
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
    let engine_turn = (usable / 25 + clock.inc * 3 / 4).min(cap * 2);
    let (turn, soft_turn) = match pace {
        Pace::Engine => (engine_turn, engine_turn),
        Pace::Human => {
            let human = human_turn(usable, clock.inc, engine_turn);
            (human.longest, human.typical)
        }
    };
    let share = |turn: Duration| match (phase, left_of_turn) {
        (Phase::Single, _) => turn,
        (Phase::First, _) => turn * 3 / 4,
        (Phase::Second, Some(left)) => left.max(turn / 8),
        (Phase::Second, None) => turn / 2,
    };
    let hard = share(turn).min(cap).max(Duration::from_millis(1));
    let soft = match pace {
        Pace::Engine => hard / 2,
        // S2 after the planned S1 starts from what S1 learnt: a quarter of a typical turn.
        Pace::Human => match (phase, left_of_turn) {
            (Phase::Second, Some(_)) => soft_turn / 4,
            _ => share(soft_turn) / 2,
        }
        .min(hard),
    };
    Budget {
        soft: Some(soft),
        hard: Some(hard),
        turn: Some(turn),
    }
}

/// What the iterations so far say about the position, for [`next_iteration`].
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Signals {
    /// Iterations in a row, the last included, whose best sub-move was the same.
    pub stable_iterations: u32,
    /// How far the last iteration's score fell below the one before, in centipawns (0 when
    /// it rose).
    pub score_drop: i32,
}

/// An iteration's score drop that doubles the thinking time at [`Pace::Human`]: a player
/// who sees trouble coming thinks longer.
const DROP_CP: i32 = 30;
/// Iterations in a row with one best sub-move after which it is taken as settled.
const SETTLED_ITERATIONS: u32 = 5;

/// Whether another iteration starts after `elapsed`. At [`Pace::Engine`] only the soft limit
/// decides; at [`Pace::Human`] it halves once the best sub-move is settled and doubles after a
/// score drop (within the hard limit, which aborts the search anyway).
pub fn next_iteration(elapsed: Duration, budget: &Budget, signals: Signals, pace: Pace) -> bool {
    let Some(soft) = budget.soft else {
        return true;
    };
    let soft = match pace {
        Pace::Engine => soft,
        Pace::Human if signals.score_drop >= DROP_CP => soft * 2,
        Pace::Human if signals.stable_iterations >= SETTLED_ITERATIONS => soft / 2,
        Pace::Human => soft,
    };
    elapsed < soft
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
        let s1 = budget(None, clock, Phase::First, None, Pace::Engine);
        let turn = s1.turn.unwrap();
        assert!(s1.hard.unwrap() < turn);
        let left = turn - s1.hard.unwrap();
        let s2 = budget(None, clock, Phase::Second, Some(left), Pace::Engine);
        assert_eq!(s2.hard.unwrap(), left);
    }

    fn clock(secs: f64, inc: f64) -> Clock {
        Clock {
            time: Some(Duration::from_secs_f64(secs)),
            inc: Duration::from_secs_f64(inc),
        }
    }

    /// The longest a turn can take: S1 to its hard limit, then S2 with what it left.
    fn longest_turn(clock: Clock, pace: Pace) -> Duration {
        let s1 = budget(None, clock, Phase::First, None, pace);
        let left = s1
            .turn
            .expect("turn")
            .saturating_sub(s1.hard.expect("hard"));
        let s2 = budget(None, clock, Phase::Second, Some(left), pace);
        s1.hard.expect("hard") + s2.hard.expect("hard")
    }

    #[test]
    fn at_5_plus_3_a_human_paced_turn_is_about_2_5_s_and_never_over_8() {
        let blitz = clock(300.0, 3.0);
        let human = human_turn(
            Duration::from_secs(300),
            Duration::from_secs(3),
            Duration::MAX,
        );
        assert_eq!(human.typical, Duration::from_secs(420) / 170);
        assert_eq!(human.longest, human.typical * 8 / 3);
        assert!(longest_turn(blitz, Pace::Human) <= Duration::from_secs(8));
        // The soft limits, where a typical turn ends, are within the typical turn.
        let s1 = budget(None, blitz, Phase::First, None, Pace::Human);
        assert!(s1.soft.expect("soft") <= Duration::from_millis(1_500));
        // The engine pace is the old 1/25 + 3/4 inc: over 14 s a turn.
        let engine = budget(None, blitz, Phase::First, None, Pace::Engine);
        assert!(engine.turn.expect("turn") > Duration::from_secs(14));
    }

    #[test]
    fn at_bullet_a_human_paced_turn_is_proportionally_shorter() {
        let bullet = longest_turn(clock(60.0, 0.0), Pace::Human);
        assert!(bullet <= Duration::from_millis(950), "{bullet:?}");
        let short = longest_turn(clock(10.0, 0.0), Pace::Human);
        assert!(short < bullet);
        // Never more than the engine's own turn, however the clock stands.
        for (secs, inc) in [(0.5, 0.0), (5.0, 30.0), (3_600.0, 0.0)] {
            let c = clock(secs, inc);
            assert!(longest_turn(c, Pace::Human) <= longest_turn(c, Pace::Engine));
        }
    }

    #[test]
    fn a_settled_best_move_stops_early_and_a_falling_score_thinks_longer() {
        let b = Budget {
            soft: Some(Duration::from_secs(1)),
            hard: Some(Duration::from_secs(4)),
            turn: None,
        };
        let at = Duration::from_millis(700);
        let plain = Signals {
            stable_iterations: 1,
            score_drop: 0,
        };
        let settled = Signals {
            stable_iterations: 5,
            ..plain
        };
        let falling = Signals {
            score_drop: 40,
            ..settled
        };
        assert!(next_iteration(at, &b, plain, Pace::Human));
        assert!(!next_iteration(at, &b, settled, Pace::Human));
        let later = Duration::from_millis(1_500);
        assert!(next_iteration(later, &b, falling, Pace::Human));
        assert!(!next_iteration(later, &b, plain, Pace::Human));
        // The engine pace keeps to its soft limit whatever the signals.
        assert!(next_iteration(at, &b, settled, Pace::Engine));
        assert!(!next_iteration(later, &b, falling, Pace::Engine));
    }

    #[test]
    fn movetime_is_per_sub_move() {
        let b = budget(
            Some(Duration::from_millis(500)),
            Clock::default(),
            Phase::First,
            None,
            Pace::Human,
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
            for pace in [Pace::Engine, Pace::Human] {
                let b = budget(
                    None,
                    clock,
                    phase,
                    Some(Duration::from_millis(u64::MAX)),
                    pace,
                );
                assert!(b.hard.is_some());
            }
        }
    }
}
