//! The rules of game management, in one place: what the chess rules (`crate::rules`) leave to
//! the server. Pure functions of explicit values and instants, like [`crate::server::game::clock`]:
//! the decisions (`decide.rs`) and the fold (`state.rs`) ask here, and nowhere else says it.
//!
//! | rule | function |
//! |---|---|
//! | a turn has ended (the mover changed, or the game ended on the board) | [`turn_ended`] |
//! | the abort window: until both sides completed a turn | [`abortable`] |
//! | clocks run only once both sides completed a turn | [`clocks_run`] |
//! | the first-move timer: each side's first turn in a clocked game is timed | [`first_move_timer_runs`] |
//! | the time-forfeit outcome (a draw when the winner cannot mate) | [`time_forfeit`] |
//! | the outcome and result of an aborted game (no result: `*`) | [`aborted`], [`result_token`] |
//! | the takeback precondition and limits | [`takeback_allowed`] |
//! | a draw offer lapses when the side it was made to completes a turn | [`draw_offer_lapses`] |
//! | one draw offer per side per turn | [`may_offer_draw`] |
//! | victory by abandonment needs the opponent away for the grace period | [`abandoned`] |
//! | a rematch needs a finished game that had two players and was not aborted | [`rematch_possible`] |
//! | a correspondence turn lasts its days per turn, whatever was left of the last one | [`turn_deadline`] |
//! | a deadline that passed while the server was down gives the side to move a grace after boot | [`after_downtime`] |
//! | the players' links are measured for lag only in a game with a live clock being played | [`lag_measured`] |
//! | whether a side has played a sub-move yet | [`has_played`] |
//! | berserk: an arena game with a live clock, once, before one's first sub-move | [`berserk_allowed`] |

use std::time::{Duration, Instant};

use super::event::DaysPerTurn;
use crate::rules::{Color, Outcome, Phase, Position, Termination};
use crate::server::domain::status::GameStatus;

/// How many times each player may take back a first sub-move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TakebackLimits {
    pub per_turn: u32,
    pub per_game: u32,
}

/// Whether the sub-move that led from a position with `mover` to move to `after` (with the
/// game's `outcome` after it) completed the mover's turn.
pub fn turn_ended(mover: Color, after: &Position, outcome: Option<Outcome>) -> bool {
    after.side_to_move() != mover || outcome.is_some()
}

/// A game can be aborted (without result) until both sides have completed a turn.
pub fn abortable(turns_completed: u32) -> bool {
    turns_completed < 2
}

/// Clocks start once both sides have completed a turn.
pub fn clocks_run(turns_completed: u32) -> bool {
    !abortable(turns_completed)
}

/// In a clocked game, until the clocks run, the side to move's turn is timed by the
/// first-move limit (`--first-move-secs`); untimed games have no such timer.
pub fn first_move_timer_runs(clocked: bool, turns_completed: u32) -> bool {
    clocked && !clocks_run(turns_completed)
}

/// Whether the first-move timer started at `since` has run out at `now`.
pub fn first_move_expired(since: Instant, limit: Duration, now: Instant) -> bool {
    now.saturating_duration_since(since) >= limit
}

/// The outcome when `loser`'s flag falls in `position`: a win for the opponent, or a draw if
/// the opponent cannot checkmate with what it has left (FIDE 6.9).
pub fn time_forfeit(position: &Position, loser: Color) -> Outcome {
    let winner = !loser;
    if position.can_checkmate(winner) {
        Outcome::Win {
            winner,
            reason: Termination::TimeForfeit,
        }
    } else {
        Outcome::Draw {
            reason: Termination::TimeForfeit,
        }
    }
}

/// The outcome of an aborted game (recorded as a draw, reason `aborted`).
pub fn aborted() -> Outcome {
    Outcome::Draw {
        reason: Termination::Aborted,
    }
}

/// The result token of an outcome: `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game, which
/// has no result.
pub fn result_token(outcome: Outcome) -> &'static str {
    if outcome.reason() == Termination::Aborted {
        "*"
    } else {
        outcome.result_str()
    }
}

/// Why a takeback is not allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TakebackRefused {
    #[error("there is no first sub-move of this turn to take back")]
    NothingToTakeBack,
    #[error("at most {0} takeback(s) per turn: play your turn")]
    PerTurn(u32),
    #[error("you have used your {0} takebacks of this game")]
    PerGame(u32),
}

/// The side to move may withdraw its own S1 while it is at S2, within the limits: a takeback
/// and the sub-move played again are two events that do not advance the game, so without a
/// bound a client looping them grows the log forever.
pub fn takeback_allowed(
    position: &Position,
    submoves_played: usize,
    this_turn: u32,
    this_game: u32,
    limits: TakebackLimits,
) -> Result<(), TakebackRefused> {
    if position.phase() != Phase::Second || submoves_played == 0 {
        return Err(TakebackRefused::NothingToTakeBack);
    }
    if this_turn >= limits.per_turn {
        return Err(TakebackRefused::PerTurn(limits.per_turn));
    }
    if this_game >= limits.per_game {
        return Err(TakebackRefused::PerGame(limits.per_game));
    }
    Ok(())
}

/// Whether `color` has played a sub-move, in a game whose first turn was `first`'s, with
/// `turns_completed` turns done and the side to move at `phase` of its turn.
pub fn has_played(color: Color, first: Color, turns_completed: u32, phase: Phase) -> bool {
    let mid_turn = phase == Phase::Second;
    match turns_completed {
        0 => color == first && mid_turn,
        1 => color == first || mid_turn,
        _ => true,
    }
}

/// Why a berserk is not allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BerserkRefused {
    #[error("berserk is for arena games with a clock")]
    NotAnArenaGame,
    #[error("you already berserked")]
    Already,
    #[error("berserk only before your first sub-move")]
    AfterFirstMove,
}

/// Berserk (an arena's rule, as on lichess): a player of an arena game with a live clock may
/// give up half their time and their increment, once, before their first sub-move; a win of
/// at least `arena::score::BERSERK_MIN_TURNS` turns then scores a point more.
pub fn berserk_allowed(
    arena_with_clock: bool,
    already: bool,
    played: bool,
) -> Result<(), BerserkRefused> {
    if !arena_with_clock {
        return Err(BerserkRefused::NotAnArenaGame);
    }
    if already {
        return Err(BerserkRefused::Already);
    }
    if played {
        return Err(BerserkRefused::AfterFirstMove);
    }
    Ok(())
}

/// A standing draw offer `by` lapses when `mover`, the side it was made to, completes a turn
/// without accepting it.
pub fn draw_offer_lapses(offer_by: Option<Color>, mover: Color, turn_ended: bool) -> bool {
    turn_ended && offer_by == Some(!mover)
}

/// One draw offer per side per turn, or "offer, decline" loops would grow the log forever:
/// `last_offer_at` is the number of completed turns when `color` last offered.
pub fn may_offer_draw(last_offer_at: Option<u32>, turns_completed: u32) -> bool {
    last_offer_at != Some(turns_completed)
}

/// Whether a seat that has had no connection since `away_since` counts as abandoned at `now`.
pub fn abandoned(away_since: Option<Instant>, grace: Duration, now: Instant) -> bool {
    away_since.is_some_and(|since| now.saturating_duration_since(since) >= grace)
}

/// How long until a seat away since `away_since` counts as abandoned (zero once it does).
pub fn abandonment_in(away_since: Instant, grace: Duration, now: Instant) -> Duration {
    grace.saturating_sub(now.saturating_duration_since(away_since))
}

/// When a correspondence turn that began at `turn_started_ms` (Unix ms) runs out: the whole
/// days per turn, whatever the side to move had left of its previous turn (time does not
/// accumulate, as on vchess.club and lichess).
pub fn turn_deadline(turn_started_ms: i64, days: DaysPerTurn) -> i64 {
    turn_started_ms.saturating_add(days.millis())
}

/// The deadline that applies in a process that booted at `boot_ms`: one that passed before the
/// boot (while the server was down, so nobody could move) becomes `boot_ms + grace`; later ones
/// are unchanged. Downtime does not pause a correspondence deadline (it is wall-clock time,
/// stored with the game), but nobody loses on time for an outage they could not play through.
pub fn after_downtime(deadline_ms: i64, boot_ms: i64, grace: Duration) -> i64 {
    if deadline_ms < boot_ms {
        boot_ms.saturating_add(i64::try_from(grace.as_millis()).unwrap_or(i64::MAX))
    } else {
        deadline_ms
    }
}

/// When this process started and the grace it gives deadlines that passed before
/// ([`after_downtime`]): what a game's state needs to know to flag a correspondence game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Downtime {
    pub boot_ms: i64,
    pub grace: Duration,
}

impl Downtime {
    /// No downtime known: every deadline is taken as it is (replays outside a room).
    pub const NONE: Downtime = Downtime {
        boot_ms: i64::MIN,
        grace: Duration::ZERO,
    };

    /// The deadline that applies, [`after_downtime`].
    pub fn effective(self, deadline_ms: i64) -> i64 {
        after_downtime(deadline_ms, self.boot_ms, self.grace)
    }
}

/// Why a rematch cannot be offered or accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RematchRefused {
    #[error("the game is not over")]
    NotOver,
    #[error("the rematch already exists")]
    Exists,
    #[error("there was no opponent")]
    NoOpponent,
    #[error("the game was aborted: start a new one instead")]
    Aborted,
}

/// A rematch is for a game that was played: finished (`outcome`), with both seats taken, not
/// aborted (an aborted game never started: there is nothing to play again), and only once.
pub fn rematch_possible(
    outcome: Option<Outcome>,
    both_seated: bool,
    rematch_exists: bool,
) -> Result<(), RematchRefused> {
    let outcome = outcome.ok_or(RematchRefused::NotOver)?;
    if rematch_exists {
        return Err(RematchRefused::Exists);
    }
    if !both_seated {
        return Err(RematchRefused::NoOpponent);
    }
    if outcome.reason() == Termination::Aborted {
        return Err(RematchRefused::Aborted);
    }
    Ok(())
}

/// Whether the players' links are measured (pinged every `--game-ping-interval-ms`) for lag
/// compensation: only a live clock being played has time to give back. An open game, a finished
/// one, an untimed or a correspondence game, and every spectator, get the keepalive ping alone
/// (`--ping-interval-secs`): an idle socket costs one ping in 20 s instead of one in 2.5 s.
pub fn lag_measured(live_clock: bool, status: GameStatus) -> bool {
    live_clock && status == GameStatus::Playing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn position(fen: &str) -> Position {
        Position::from_fen(fen, Rules::Marseillais).expect("fen")
    }

    #[test]
    fn a_game_can_be_aborted_until_both_sides_completed_a_turn_and_clocks_run_after() {
        assert!(abortable(0) && abortable(1));
        assert!(!abortable(2) && clocks_run(2));
        assert!(first_move_timer_runs(true, 1));
        assert!(!first_move_timer_runs(true, 2));
        assert!(
            !first_move_timer_runs(false, 0),
            "untimed games have no first-move timer"
        );
    }

    #[test]
    fn a_flag_against_a_side_whose_opponent_cannot_mate_is_a_draw() {
        // White has a lone king: Black's flag falling cannot give White the win.
        let bare = position("4k3/8/8/8/8/8/8/4K2q w - - 0 1");
        assert_eq!(
            time_forfeit(&bare, Color::Black),
            Outcome::Draw {
                reason: Termination::TimeForfeit
            }
        );
        assert_eq!(
            time_forfeit(&bare, Color::White),
            Outcome::Win {
                winner: Color::Black,
                reason: Termination::TimeForfeit
            }
        );
    }

    #[test]
    fn an_aborted_game_has_no_result() {
        assert_eq!(result_token(aborted()), "*");
        let resigned = Outcome::Win {
            winner: Color::Black,
            reason: Termination::Resignation,
        };
        assert_eq!(result_token(resigned), "0-1");
    }

    #[test]
    fn a_takeback_needs_a_first_submove_of_this_turn_and_respects_both_limits() {
        let limits = TakebackLimits {
            per_turn: 1,
            per_game: 5,
        };
        let at_first = Position::initial();
        assert_eq!(
            takeback_allowed(&at_first, 0, 0, 0, limits),
            Err(TakebackRefused::NothingToTakeBack)
        );
        let at_second = position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 2");
        assert_eq!(takeback_allowed(&at_second, 3, 0, 0, limits), Ok(()));
        assert_eq!(
            takeback_allowed(&at_second, 3, 1, 1, limits),
            Err(TakebackRefused::PerTurn(1))
        );
        assert_eq!(
            takeback_allowed(&at_second, 3, 0, 5, limits),
            Err(TakebackRefused::PerGame(5))
        );
    }

    #[test]
    fn a_draw_offer_lapses_only_when_the_side_it_was_made_to_completes_a_turn() {
        assert!(draw_offer_lapses(Some(Color::White), Color::Black, true));
        assert!(!draw_offer_lapses(Some(Color::White), Color::Black, false));
        assert!(!draw_offer_lapses(Some(Color::White), Color::White, true));
        assert!(!draw_offer_lapses(None, Color::Black, true));
    }

    #[test]
    fn one_draw_offer_per_side_per_turn() {
        assert!(may_offer_draw(None, 3));
        assert!(!may_offer_draw(Some(3), 3));
        assert!(may_offer_draw(Some(3), 4));
    }

    #[test]
    fn a_rematch_needs_a_finished_game_between_two_players_that_was_not_aborted() {
        let resigned = Some(Outcome::Win {
            winner: Color::White,
            reason: Termination::Resignation,
        });
        assert_eq!(rematch_possible(resigned, true, false), Ok(()));
        assert_eq!(
            rematch_possible(None, true, false),
            Err(RematchRefused::NotOver)
        );
        assert_eq!(
            rematch_possible(resigned, true, true),
            Err(RematchRefused::Exists)
        );
        assert_eq!(
            rematch_possible(resigned, false, false),
            Err(RematchRefused::NoOpponent)
        );
        assert_eq!(
            rematch_possible(Some(aborted()), true, false),
            Err(RematchRefused::Aborted)
        );
    }

    fn days(n: u64) -> DaysPerTurn {
        DaysPerTurn::try_from(n).expect("allowed")
    }

    #[test]
    fn a_correspondence_turn_has_days_per_turn_whatever_was_left() {
        const DAY: i64 = 86_400_000;
        // Black's turn began an hour after White's did: the deadline is counted from it, and
        // nothing White saved or lost on the previous turn carries over.
        assert_eq!(turn_deadline(1_000, days(3)), 1_000 + 3 * DAY);
        assert_eq!(
            turn_deadline(1_000 + 3_600_000, days(3)),
            1_000 + 3_600_000 + 3 * DAY
        );
        assert_eq!(turn_deadline(0, days(14)), 14 * DAY);
        assert_eq!(turn_deadline(i64::MAX - 1, days(1)), i64::MAX, "saturates");
    }

    #[test]
    fn days_per_turn_are_only_the_listed_values() {
        for n in [1, 2, 3, 5, 7, 14] {
            assert_eq!(u64::from(days(n)), n);
            assert_eq!(i64::from(days(n).days()) * 86_400_000, days(n).millis());
        }
        for n in [0, 4, 6, 8, 10, 15, 30, 256, u64::MAX] {
            assert_eq!(
                DaysPerTurn::try_from(n),
                Err(super::super::event::BadDaysPerTurn(n))
            );
        }
    }

    #[test]
    fn a_deadline_passed_during_downtime_gets_an_hour_after_restart() {
        let boot = 10_000_000;
        let hour = Duration::from_secs(3600);
        assert_eq!(after_downtime(boot - 1, boot, hour), boot + 3_600_000);
        assert_eq!(
            after_downtime(0, boot, hour),
            boot + 3_600_000,
            "days overdue"
        );
    }

    #[test]
    fn a_deadline_after_boot_is_unchanged() {
        let boot = 10_000_000;
        let hour = Duration::from_secs(3600);
        assert_eq!(after_downtime(boot, boot, hour), boot);
        assert_eq!(
            after_downtime(boot + 1, boot, hour),
            boot + 1,
            "not pushed to the grace"
        );
        assert_eq!(Downtime::NONE.effective(i64::MIN + 1), i64::MIN + 1);
    }

    #[test]
    fn a_seat_is_abandoned_only_after_the_whole_grace_period() {
        let t0 = Instant::now();
        let grace = Duration::from_secs(30);
        assert!(!abandoned(None, grace, t0 + grace));
        assert!(!abandoned(Some(t0), grace, t0 + Duration::from_secs(29)));
        assert!(abandoned(Some(t0), grace, t0 + grace));
        assert_eq!(
            abandonment_in(t0, grace, t0 + Duration::from_secs(10)),
            Duration::from_secs(20)
        );
    }

    #[test]
    fn only_a_live_clock_being_played_measures_the_players_links() {
        assert!(lag_measured(true, GameStatus::Playing));
        assert!(!lag_measured(true, GameStatus::Open));
        assert!(!lag_measured(true, GameStatus::Finished));
        // Untimed and correspondence games have no live clock.
        assert!(!lag_measured(false, GameStatus::Playing));
    }

    #[test]
    fn a_side_has_played_once_its_first_sub_move_is_on_the_board() {
        use Color::{Black, White};
        // White opens with its one-sub-move first turn.
        assert!(!has_played(White, White, 0, Phase::Single));
        assert!(!has_played(Black, White, 0, Phase::Single));
        assert!(has_played(White, White, 1, Phase::First));
        assert!(!has_played(Black, White, 1, Phase::First));
        assert!(has_played(Black, White, 1, Phase::Second));
        assert!(has_played(Black, White, 2, Phase::First));
    }

    #[test]
    fn berserk_needs_an_arena_game_once_before_ones_first_sub_move() {
        assert_eq!(berserk_allowed(true, false, false), Ok(()));
        assert_eq!(
            berserk_allowed(false, false, false),
            Err(BerserkRefused::NotAnArenaGame)
        );
        assert_eq!(
            berserk_allowed(true, true, false),
            Err(BerserkRefused::Already)
        );
        assert_eq!(
            berserk_allowed(true, false, true),
            Err(BerserkRefused::AfterFirstMove)
        );
    }
}
