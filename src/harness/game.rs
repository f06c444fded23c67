//! One game of a match, played to its end from an opening: by the rules (checkmate, the
//! stalemates, insufficient material, fivefold, the 75-move rule), by a threefold repetition
//! (a draw, as both players would claim it), by a flag, or after a bound on sub-moves
//! (adjudicated a draw: every loop here is bounded).
//!
//! The clock runs as the server's does (docs/rules.md): across both sub-moves of a turn, the
//! increment added once when the turn ends.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::engine::{Limits, Pace};
use crate::rules::{Color, Game, SubMove};

use super::player::Player;

/// A game's time control, `BASE+INC` in seconds (`10+0.1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base: Duration,
    pub inc: Duration,
}

/// Why a time control was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("'{0}': expected BASE+INC in seconds, such as 10+0.1 (base above 0, at most a day)")]
pub struct TimeControlError(String);

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let bad = || TimeControlError(text.to_string());
        let (base, inc) = text.split_once('+').ok_or_else(bad)?;
        let seconds = |s: &str| {
            let value: f64 = s.parse().map_err(|_| bad())?;
            if !(0.0..=86_400.0).contains(&value) {
                return Err(bad());
            }
            Ok(Duration::from_secs_f64(value))
        };
        let (base, inc) = (seconds(base)?, seconds(inc)?);
        if base.is_zero() {
            return Err(bad());
        }
        Ok(TimeControl { base, inc })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.base.as_secs_f64(), self.inc.as_secs_f64())
    }
}

/// What limits each sub-move's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// A fixed node budget per sub-move: the game is exactly reproducible from its seeds.
    Nodes(u64),
    /// A fixed time per sub-move.
    MoveTime(Duration),
    /// A clock per player.
    Clock(TimeControl),
}

impl fmt::Display for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Control::Nodes(n) => write!(f, "{n} nodes per sub-move"),
            Control::MoveTime(t) => write!(f, "{} ms per sub-move", t.as_millis()),
            Control::Clock(tc) => write!(f, "{tc} s per game"),
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules; the outcome as the rules word it.
    Rules(String),
    Repetition,
    /// Still going after the bound on sub-moves.
    MoveLimit,
    /// This side's clock ran out.
    Time(Color),
    /// A player returned no sub-move in a live position, or an illegal one: a bug in it.
    Forfeit(Color, Option<SubMove>),
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Rules(outcome) => f.write_str(outcome),
            Ending::Repetition => f.write_str("threefold repetition"),
            Ending::MoveLimit => f.write_str("adjudicated: move limit"),
            Ending::Time(side) => write!(f, "{side:?} lost on time"),
            Ending::Forfeit(side, None) => write!(f, "{side:?} returned no move"),
            Ending::Forfeit(side, Some(mv)) => write!(f, "{side:?} played illegal {mv}"),
        }
    }
}

/// A game played.
pub struct Played {
    /// `None`: a draw.
    pub winner: Option<Color>,
    pub ending: Ending,
    pub game: Game,
    /// Each turn's thinking time (its sub-moves' together), in play order, with its side.
    pub turns: Vec<(Color, Duration)>,
}

/// Plays `game` on to its end between `white` and `black`; a clock is spent at `pace`.
pub fn play(
    mut game: Game,
    (white, black): (&mut Player, &mut Player),
    control: Control,
    pace: Pace,
    max_submoves: usize,
) -> Played {
    let mut clocks = match control {
        Control::Clock(tc) => Some([tc.base, tc.base]),
        _ => None,
    };
    let mut times: Vec<(Color, Duration)> = Vec::new();
    let end = |game: Game, turns: Vec<(Color, Duration)>, winner, ending| Played {
        winner,
        ending,
        game,
        turns,
    };
    loop {
        if let Some(outcome) = game.outcome() {
            let winner = outcome.winner();
            return end(game, times, winner, Ending::Rules(outcome.to_string()));
        }
        if game.position().is_turn_start() && game.repetition_count() >= 3 {
            return end(game, times, None, Ending::Repetition);
        }
        if game.submove_count() >= max_submoves {
            return end(game, times, None, Ending::MoveLimit);
        }
        let side = game.position().side_to_move();
        let limits = Limits {
            pace,
            ..limits(control, clocks)
        };
        let mover = match side {
            Color::White => &mut *white,
            Color::Black => &mut *black,
        };
        let started = Instant::now();
        let choice = mover.choose(&game, &limits);
        let spent = started.elapsed();
        match times.last_mut() {
            Some((mover, turn)) if *mover == side && !game.position().is_turn_start() => {
                *turn += spent
            }
            _ => times.push((side, spent)),
        }
        if let (Some(clocks), Control::Clock(tc)) = (clocks.as_mut(), control) {
            let left = &mut clocks[side as usize];
            if spent > *left {
                return end(game, times, Some(!side), Ending::Time(side));
            }
            *left -= spent;
            let Some(mv) = choice else {
                return end(game, times, Some(!side), Ending::Forfeit(side, None));
            };
            if game.play(mv).is_err() {
                return end(game, times, Some(!side), Ending::Forfeit(side, Some(mv)));
            }
            if game.position().side_to_move() != side {
                *left += tc.inc;
            }
            continue;
        }
        let Some(mv) = choice else {
            return end(game, times, Some(!side), Ending::Forfeit(side, None));
        };
        if game.play(mv).is_err() {
            return end(game, times, Some(!side), Ending::Forfeit(side, Some(mv)));
        }
    }
}

/// The search limits of a sub-move under `control`, the clocks as they stand.
fn limits(control: Control, clocks: Option<[Duration; 2]>) -> Limits {
    match (control, clocks) {
        (Control::Nodes(n), _) => Limits::nodes(n),
        (Control::MoveTime(t), _) => Limits::movetime(t),
        (Control::Clock(tc), clocks) => {
            let [white, black] = clocks.unwrap_or([tc.base, tc.base]);
            Limits {
                wtime: Some(white),
                btime: Some(black),
                winc: tc.inc,
                binc: tc.inc,
                ..Limits::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_control_is_base_plus_increment_in_seconds() {
        let tc: TimeControl = "10+0.1".parse().expect("tc");
        assert_eq!(tc.base, Duration::from_secs(10));
        assert_eq!(tc.inc, Duration::from_millis(100));
        assert_eq!(tc.to_string(), "10+0.1");
        for bad in ["10", "0+1", "-1+0", "x+1", "10+", "1e9+0", "NaN+0"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_clock_limits_name_both_sides_and_the_increment() {
        let tc: TimeControl = "60+1".parse().expect("tc");
        let l = limits(
            Control::Clock(tc),
            Some([Duration::from_secs(30), Duration::from_secs(50)]),
        );
        assert_eq!(l.wtime, Some(Duration::from_secs(30)));
        assert_eq!(l.btime, Some(Duration::from_secs(50)));
        assert_eq!(l.winc, Duration::from_secs(1));
        assert_eq!(limits(Control::Nodes(5), None), Limits::nodes(5));
    }
}
