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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Termination;
    use PlaybanOutcome::{Abort, Good, Leave, Sitting};

    const ALICE: UserId = UserId(1);
    const BOB: UserId = UserId(2);
    const END: i64 = 1_000_000;

    /// Alice White, Bob Black, both seated, a 5+3 clock, White to move since 1 s before the end.
    fn ending(outcome: Outcome) -> Ending {
        Ending {
            users: [Some(ALICE), Some(BOB)],
            both_seated: true,
            computer: false,
            outcome,
            ended_ms: END,
            aborted_by: None,
            clocked_end: true,
            turn: Color::White,
            turn_started_ms: Some(END - 1_000),
            live_clock: Some((300, 3)),
        }
    }

    fn aborted() -> Outcome {
        Outcome::Draw {
            reason: Termination::Aborted,
        }
    }

    fn win(winner: Color, reason: Termination) -> Outcome {
        Outcome::Win { winner, reason }
    }

    #[test]
    fn the_player_who_aborts_on_their_own_turn_is_judged_abort_and_the_other_good() {
        let mut e = ending(aborted());
        e.aborted_by = Some(Color::White);
        assert_eq!(judge(&e), [(ALICE, Abort), (BOB, Good)]);
    }

    #[test]
    fn aborting_at_once_on_the_opponents_turn_is_still_an_abort() {
        let mut e = ending(aborted());
        e.aborted_by = Some(Color::Black);
        assert_eq!(judge(&e), [(ALICE, Good), (BOB, Abort)]);
    }

    #[test]
    fn aborting_a_game_whose_opponent_kept_you_waiting_is_no_fault() {
        let mut e = ending(aborted());
        e.aborted_by = Some(Color::Black);
        e.turn_started_ms = Some(END - ABORT_WAIT_MS);
        assert_eq!(judge(&e), [(ALICE, Good), (BOB, Good)]);
        e.turn_started_ms = Some(END - ABORT_WAIT_MS + 1);
        assert_eq!(judge(&e), [(ALICE, Good), (BOB, Abort)]);
    }

    #[test]
    fn a_first_move_timeout_is_an_abort_of_the_side_that_never_moved() {
        let mut e = ending(aborted());
        e.turn = Color::Black;
        assert_eq!(judge(&e), [(ALICE, Good), (BOB, Abort)]);
    }

    #[test]
    fn an_expired_game_judges_nobody() {
        let mut e = ending(aborted());
        e.clocked_end = false;
        assert!(judge(&e).is_empty());
    }

    #[test]
    fn games_against_the_computer_or_never_joined_judge_nobody() {
        let mut e = ending(aborted());
        e.aborted_by = Some(Color::White);
        e.computer = true;
        assert!(judge(&e).is_empty());
        e.computer = false;
        e.both_seated = false;
        assert!(judge(&e).is_empty());
    }

    #[test]
    fn an_anonymous_seat_is_not_judged_but_the_account_opposite_is() {
        let mut e = ending(aborted());
        e.aborted_by = Some(Color::White);
        e.users[1] = None;
        assert_eq!(judge(&e), [(ALICE, Abort)]);
    }

    #[test]
    fn losing_by_the_opponents_abandonment_claim_is_leave() {
        let e = ending(win(Color::Black, Termination::Abandonment));
        assert_eq!(judge(&e), [(ALICE, Leave), (BOB, Good)]);
    }

    #[test]
    fn a_flag_after_a_long_turn_is_sitting_and_after_a_short_one_is_good() {
        let mut e = ending(win(Color::Black, Termination::TimeForfeit));
        assert_eq!(judge(&e), [(ALICE, Good), (BOB, Good)]);
        // 5+3: 300 + 120 s estimated, a tenth is 42 s.
        e.turn_started_ms = Some(END - 42_000);
        assert_eq!(judge(&e), [(ALICE, Sitting), (BOB, Good)]);
    }

    #[test]
    fn a_correspondence_timeout_is_never_sitting() {
        let mut e = ending(win(Color::Black, Termination::TimeForfeit));
        e.live_clock = None;
        e.turn_started_ms = Some(END - 3 * 24 * 3600 * 1000);
        assert_eq!(judge(&e), [(ALICE, Good), (BOB, Good)]);
    }

    #[test]
    fn the_sitting_threshold_is_a_tenth_of_the_game_between_30_s_and_3_min() {
        assert_eq!(sitting_threshold_ms(60, 0), 30_000);
        assert_eq!(sitting_threshold_ms(600, 0), 60_000);
        assert_eq!(sitting_threshold_ms(3600, 30), 180_000);
    }

    #[test]
    fn resigning_or_being_mated_is_good() {
        for reason in [Termination::Resignation, Termination::Checkmate] {
            let e = ending(win(Color::Black, reason));
            assert_eq!(judge(&e), [(ALICE, Good), (BOB, Good)]);
        }
    }

    #[test]
    fn three_bad_outcomes_in_a_row_or_four_making_30_percent_are_bannable() {
        assert!(!bannable(&[Abort, Abort]));
        assert!(bannable(&[Good, Abort, Leave, Sitting]));
        assert!(!bannable(&[Abort, Abort, Abort, Good]), "the last is good");
        let mut mixed = vec![Good; 9];
        mixed.extend([Abort, Good, Abort, Good, Abort]);
        assert!(!bannable(&mixed), "3 bad of 14");
        mixed.extend([Good, Abort]);
        assert!(!bannable(&mixed), "4 bad of 16 is 25 %");
        let mut dense = vec![Good; 6];
        dense.extend([Abort, Good, Abort, Good, Abort, Good, Abort]);
        assert!(bannable(&dense), "4 bad of 13 is 30.8 %");
    }

    #[test]
    fn pauses_grow_fifteen_minutes_times_three_up_to_a_day() {
        assert_eq!(ban_length_ms(0), 15 * 60_000);
        assert_eq!(ban_length_ms(1), 45 * 60_000);
        assert_eq!(ban_length_ms(2), 135 * 60_000);
        assert_eq!(ban_length_ms(10), MAX_BAN_MS);
    }

    fn entries(list: &[(i64, PlaybanOutcome)]) -> Vec<PlaybanEntry> {
        list.iter()
            .enumerate()
            .map(|(i, &(at_ms, outcome))| PlaybanEntry {
                game_id: format!("g{i}"),
                outcome,
                at_ms,
            })
            .collect()
    }

    #[test]
    fn a_third_abort_in_a_row_starts_a_fifteen_minute_pause() {
        let e = entries(&[(1_000, Abort), (2_000, Abort), (3_000, Abort)]);
        assert_eq!(
            bans(&e),
            [Ban {
                start_ms: 3_000,
                until_ms: 3_000 + FIRST_BAN_MS,
                reason: Abort
            }]
        );
        assert!(ban_at(&e, 3_000 + FIRST_BAN_MS - 1).is_some());
        assert_eq!(ban_at(&e, 3_000 + FIRST_BAN_MS), None, "it ends");
    }

    #[test]
    fn a_pause_pays_for_its_record_and_the_next_one_within_a_week_is_three_times_longer() {
        let hour = 3_600_000;
        let e = entries(&[
            (0, Abort),
            (1, Abort),
            (2, Leave),
            (hour, Abort),
            (hour + 1, Abort),
            (hour + 2, Abort),
        ]);
        let found = bans(&e);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].reason, Abort, "2 aborts, 1 leave");
        assert_eq!(found[1].until_ms - found[1].start_ms, 3 * FIRST_BAN_MS);
    }

    #[test]
    fn a_pause_more_than_a_week_old_no_longer_lengthens_the_next() {
        let week = WINDOW_MS;
        let e = entries(&[
            (0, Sitting),
            (1, Sitting),
            (2, Sitting),
            (week, Abort),
            (week + 1, Abort),
            (week + 2, Abort),
        ]);
        let found = bans(&e);
        assert_eq!(found[0].reason, Sitting);
        assert_eq!(found[1].until_ms - found[1].start_ms, FIRST_BAN_MS);
    }

    #[test]
    fn a_bad_outcome_while_a_pause_runs_starts_no_other() {
        let e = entries(&[(0, Abort), (1, Abort), (2, Abort), (3, Leave)]);
        assert_eq!(bans(&e).len(), 1);
    }

    #[test]
    fn good_games_dilute_a_record_below_the_threshold() {
        let mut list = vec![(0, Abort), (1, Abort)];
        list.extend((2..20).map(|t| (t, Good)));
        list.extend([(20, Abort), (21, Abort)]);
        assert!(bans(&entries(&list)).is_empty(), "4 bad of 20 is 20 %");
    }
}
