//! The rules of fair play by rule (playban), pure: what a finished game says of each account
//! seated in it ([`judge`]), and the pauses a record of such outcomes earns ([`bans`]).
//! docs/fair-play.md says the same in prose; every number here is named there.
//!
//! | rule | function / constant |
//! |---|---|
//! | which games are judged: two seats taken, no computer, an account in at least one seat | [`judge`] |
//! | `abort`: aborted a game its opponent was not keeping waiting, or never played the first move | [`judge`], [`ABORT_WAIT_MS`] |
//! | `sitting`: lost on time after a turn of at least a tenth of the game's time (30 s to 3 min) | [`sitting_threshold_ms`] |
//! | `leave`: lost by the opponent's abandonment claim | [`judge`] |
//! | a record is the outcomes of the last 7 days, at most the last 20 since the last pause | [`WINDOW_MS`], [`RECORD_LEN`] |
//! | a pause starts at a bad outcome that makes 3 bad in a row, or at least 4 bad and 30 % | [`bannable`] |
//! | 15 min, then x3 for each pause of the 7 days before, at most 24 h | [`ban_length_ms`] |

use crate::rules::{Color, Outcome, Termination};
use crate::server::domain::user::UserId;
use crate::server::store::{PlaybanEntry, PlaybanOutcome};

/// An explicit abort is fair when the opponent, to move, has kept the aborter waiting this
/// long: a game nobody plays may be dropped without blame.
pub const ABORT_WAIT_MS: i64 = 20_000;
/// The outcomes (and pauses) a record remembers: older ones are forgotten.
pub const WINDOW_MS: i64 = 7 * 24 * 3600 * 1000;
/// At most this many outcomes since the last pause are weighed.
pub const RECORD_LEN: usize = 20;
/// Bad outcomes in a row that earn a pause.
pub const STREAK: usize = 3;
/// Or at least this many bad outcomes in the record ...
pub const MIN_BAD: usize = 4;
/// ... that make at least this percentage of it.
pub const BAD_PERCENT: usize = 30;
/// The first pause.
pub const FIRST_BAN_MS: i64 = 15 * 60 * 1000;
/// Each pause of the window before a new one multiplies its length by this.
pub const GROWTH: i64 = 3;
/// The longest pause.
pub const MAX_BAN_MS: i64 = 24 * 3600 * 1000;

/// How a game ended, as far as fair play looks at it: read from the game's state and the
/// events that end it (`crate::server::play::commit`), so it needs no store or clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    /// The accounts seated as White and Black (`None`: anonymous).
    pub users: [Option<UserId>; 2],
    /// Both seats were taken (a game nobody joined judges nobody).
    pub both_seated: bool,
    /// One seat is the server's computer: nobody's time was wasted, nobody is judged.
    pub computer: bool,
    pub outcome: Outcome,
    pub ended_ms: i64,
    /// The player whose `abort` request ended it.
    pub aborted_by: Option<Color>,
    /// The end carries clock readings (a clocked game ended by a request or its clocks; an
    /// expiry has none).
    pub clocked_end: bool,
    /// The side to move at the end.
    pub turn: Color,
    /// When that side's turn began.
    pub turn_started_ms: Option<i64>,
    /// The live clock's (base, increment) in seconds; `None` untimed or correspondence.
    pub live_clock: Option<(u32, u32)>,
}

/// How long a turn that ends in a lost flag must have lasted to count as `sitting`: a tenth of
/// the game's estimated time (base + 40 increments), at least 30 s and at most 3 min.
pub fn sitting_threshold_ms(base_secs: u32, increment_secs: u32) -> i64 {
    let estimate = i64::from(base_secs) + 40 * i64::from(increment_secs);
    (estimate * 100).clamp(30_000, 180_000)
}

/// Each judged account's outcome of a finished game; empty when the game is not judged
/// (see the module table). An expired game (aborted by nobody, without clock readings) judges
/// nobody either: no one can be blamed for it.
pub fn judge(ending: &Ending) -> Vec<(UserId, PlaybanOutcome)> {
    if !ending.both_seated || ending.computer {
        return Vec::new();
    }
    let mut judged = Vec::new();
    for color in Color::ALL {
        let Some(user) = ending.users[color as usize] else {
            continue;
        };
        let Some(outcome) = outcome_of(ending, color) else {
            return Vec::new();
        };
        judged.push((user, outcome));
    }
    judged
}

/// The outcome of `color`'s player; `None` when the game judges nobody.
fn outcome_of(ending: &Ending, color: Color) -> Option<PlaybanOutcome> {
    let reason = ending.outcome.reason();
    let loser = ending.outcome.winner().map(|w| !w);
    Some(match reason {
        Termination::Aborted => match ending.aborted_by {
            Some(by) if by == color => {
                let waiting = ending.turn != color
                    && ending
                        .turn_started_ms
                        .is_some_and(|t| ending.ended_ms - t >= ABORT_WAIT_MS);
                if waiting {
                    PlaybanOutcome::Good
                } else {
                    PlaybanOutcome::Abort
                }
            }
            Some(_) => PlaybanOutcome::Good,
            // The first-move timer ran out: the side to move never played.
            None if ending.clocked_end => {
                if ending.turn == color {
                    PlaybanOutcome::Abort
                } else {
                    PlaybanOutcome::Good
                }
            }
            None => return None,
        },
        Termination::Abandonment if loser == Some(color) => PlaybanOutcome::Leave,
        // A flag: the side to move lost (or drew, the winner unable to mate) on time.
        Termination::TimeForfeit if ending.turn == color => {
            match (ending.live_clock, ending.turn_started_ms) {
                (Some((base, increment)), Some(started))
                    if ending.ended_ms - started >= sitting_threshold_ms(base, increment) =>
                {
                    PlaybanOutcome::Sitting
                }
                _ => PlaybanOutcome::Good,
            }
        }
        _ => PlaybanOutcome::Good,
    })
}

/// Whether a record (oldest first) earns a pause now: its newest outcome is bad, and either
/// the last [`STREAK`] are all bad or at least [`MIN_BAD`] are, making [`BAD_PERCENT`] of it.
pub fn bannable(record: &[PlaybanOutcome]) -> bool {
    if !record.last().is_some_and(|o| o.is_bad()) {
        return false;
    }
    let streak = record.len() >= STREAK && record.iter().rev().take(STREAK).all(|o| o.is_bad());
    let bad = record.iter().filter(|o| o.is_bad()).count();
    streak || (bad >= MIN_BAD && bad * 100 >= BAD_PERCENT * record.len())
}

/// The length of a pause that follows `earlier` pauses within the window: 15 min x 3^earlier,
/// at most [`MAX_BAN_MS`].
pub fn ban_length_ms(earlier: usize) -> i64 {
    let mut length = FIRST_BAN_MS;
    for _ in 0..earlier {
        length = length.saturating_mul(GROWTH);
        if length >= MAX_BAN_MS {
            return MAX_BAN_MS;
        }
    }
    length
}

/// A pause from starting games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ban {
    pub start_ms: i64,
    pub until_ms: i64,
    /// The bad outcome most frequent in the record that earned it (the newest on a tie).
    pub reason: PlaybanOutcome,
}

/// Every pause a user's outcomes (oldest first, those of the window) earn, in order: the
/// record is replayed outcome by outcome, a pause starting at the outcome that makes the
/// record [`bannable`] (unless one is still running then), and emptying it: the pause pays
/// for what earned it. Bans are not stored: every node derives the same from the same rows.
pub fn bans(entries: &[PlaybanEntry]) -> Vec<Ban> {
    let mut record: Vec<PlaybanOutcome> = Vec::new();
    let mut bans: Vec<Ban> = Vec::new();
    for entry in entries {
        record.push(entry.outcome);
        if record.len() > RECORD_LEN {
            record.remove(0);
        }
        let running = bans.last().is_some_and(|b| b.until_ms > entry.at_ms);
        if running || !bannable(&record) {
            continue;
        }
        let earlier = bans
            .iter()
            .filter(|b| entry.at_ms - b.start_ms < WINDOW_MS)
            .count();
        bans.push(Ban {
            start_ms: entry.at_ms,
            until_ms: entry.at_ms.saturating_add(ban_length_ms(earlier)),
            reason: reason_of(&record),
        });
        record.clear();
    }
    bans
}

/// The pause in effect at `now_ms`, if any.
pub fn ban_at(entries: &[PlaybanEntry], now_ms: i64) -> Option<Ban> {
    bans(entries).pop().filter(|b| b.until_ms > now_ms)
}

/// The bad outcome most frequent in `record` (the newest of those on a tie).
fn reason_of(record: &[PlaybanOutcome]) -> PlaybanOutcome {
    let count = |o: PlaybanOutcome| record.iter().filter(|&&r| r == o).count();
    // Oldest first: of equal counts, `max_by_key` keeps the last, the newest.
    record
        .iter()
        .copied()
        .filter(|o| o.is_bad())
        .max_by_key(|&o| count(o))
        .unwrap_or(PlaybanOutcome::Abort)
}
