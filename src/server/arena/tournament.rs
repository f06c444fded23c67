//! What an arena is and when it runs, pure: a request checked into a [`Tournament`], its phase
//! at an instant, when pairing is open, and who may join. Instants are Unix milliseconds
//! passed in, so every rule is tested without a clock.

use std::time::Duration;

use crate::server::domain::user::UserId;
use crate::server::game::ClockSpec;

use super::pairing::closing_time;

/// Shortest and longest arena.
pub const MIN_DURATION: Duration = Duration::from_secs(20 * 60);
pub const MAX_DURATION: Duration = Duration::from_secs(12 * 3600);
/// Longest clock of an arena game: an arena is for games that end well within it.
pub const MAX_BASE_SECS: u32 = 3600;
pub const MAX_INCREMENT_SECS: u32 = 60;
/// How far ahead an arena may be announced.
pub const MAX_LEAD: Duration = Duration::from_secs(30 * 86_400);
/// A name is 2-30 characters.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 2..=30;
/// Unfinished arenas a user may have made at once (a shared list: one user cannot fill it).
pub const MAX_OPEN_ARENAS_PER_USER: usize = 3;
/// The most rated games an arena may ask of its players before they join.
pub const MAX_MIN_RATED_GAMES: u32 = 100;

/// Who made an arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Creator {
    User(UserId),
    /// The server's own schedule ([`super::schedule`]).
    Schedule,
}

/// An arena, checked ([`Terms::check`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tournament {
    pub id: String,
    pub creator: Creator,
    pub terms: Terms,
}

/// Where an arena is at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Players may join; nobody is paired yet.
    Upcoming,
    Running,
    Finished,
}

/// What an arena is played on: asked by a request (or the schedule), kept once checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Terms {
    pub name: String,
    pub clock: ClockSpec,
    pub starts_ms: i64,
    pub duration: Duration,
    pub rated: bool,
    /// Rated games a player needs at the arena's speed to join (`None`: none; 0 reads as none).
    pub min_rated_games: Option<u32>,
}

/// Why an arena cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentRefused {
    #[error("name: 2 to 30 characters")]
    Name,
    #[error(
        "clock: base_secs at most {MAX_BASE_SECS}, increment_secs at most {MAX_INCREMENT_SECS}, not both 0"
    )]
    Clock,
    #[error("duration: 20 minutes to 12 hours")]
    Duration,
    #[error("starts_ms: from now to 30 days ahead")]
    Start,
    #[error("min_rated_games: at most {MAX_MIN_RATED_GAMES}")]
    MinRatedGames,
}

/// Why a player cannot join an arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JoinRefused {
    #[error("sign in to play in arenas")]
    SignIn,
    #[error("this arena is over")]
    Finished,
    #[error("this arena asks for {needed} rated games at its speed; you have {have}")]
    TooFewRatedGames { needed: u32, have: u32 },
}

impl Terms {
    /// The arena these terms make under `id`, by `creator`, checked at `now_ms`.
    pub fn check(
        mut self,
        id: String,
        creator: Creator,
        now_ms: i64,
    ) -> Result<Tournament, TournamentRefused> {
        self.name = self.name.trim().to_owned();
        let name = &self.name;
        if !NAME_CHARS.contains(&name.chars().count()) || name.chars().any(char::is_control) {
            return Err(TournamentRefused::Name);
        }
        let clock = self.clock;
        if clock.base_secs > MAX_BASE_SECS
            || clock.increment_secs > MAX_INCREMENT_SECS
            || clock.base_secs == 0 && clock.increment_secs == 0
        {
            return Err(TournamentRefused::Clock);
        }
        if !(MIN_DURATION..=MAX_DURATION).contains(&self.duration) {
            return Err(TournamentRefused::Duration);
        }
        let lead = self.starts_ms.saturating_sub(now_ms);
        if lead < 0 || lead > MAX_LEAD.as_millis() as i64 {
            return Err(TournamentRefused::Start);
        }
        if self
            .min_rated_games
            .is_some_and(|n| n > MAX_MIN_RATED_GAMES)
        {
            return Err(TournamentRefused::MinRatedGames);
        }
        self.min_rated_games = self.min_rated_games.filter(|&n| n > 0);
        Ok(Tournament {
            id,
            creator,
            terms: self,
        })
    }
}

impl Tournament {
    pub fn ends_ms(&self) -> i64 {
        self.terms
            .starts_ms
            .saturating_add(i64::try_from(self.terms.duration.as_millis()).unwrap_or(i64::MAX))
    }

    pub fn phase(&self, now_ms: i64) -> Phase {
        if now_ms < self.terms.starts_ms {
            Phase::Upcoming
        } else if now_ms < self.ends_ms() {
            Phase::Running
        } else {
            Phase::Finished
        }
    }

    /// Whether new games may be paired at `now_ms`: running, and not within the closing time
    /// of the end ([`closing_time`]).
    pub fn pairing_open(&self, now_ms: i64) -> bool {
        let closing = closing_time(Duration::from_secs(u64::from(self.terms.clock.base_secs)));
        self.phase(now_ms) == Phase::Running && now_ms < self.ends_ms() - closing.as_millis() as i64
    }

    /// Whether a player may join at `now_ms`: signed in, before the end, with the rated games
    /// the arena asks for (`rated_games`: theirs at its speed). A player who withdrew may join
    /// again: their games and points are kept.
    pub fn may_join(
        &self,
        signed_in: bool,
        rated_games: u32,
        now_ms: i64,
    ) -> Result<(), JoinRefused> {
        if !signed_in {
            return Err(JoinRefused::SignIn);
        }
        if self.phase(now_ms) == Phase::Finished {
            return Err(JoinRefused::Finished);
        }
        match self.terms.min_rated_games {
            Some(needed) if rated_games < needed => Err(JoinRefused::TooFewRatedGames {
                needed,
                have: rated_games,
            }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: i64 = 60_000;

    fn request() -> Terms {
        Terms {
            name: "Hourly blitz".into(),
            clock: ClockSpec {
                base_secs: 180,
                increment_secs: 2,
            },
            starts_ms: 10 * MINUTE,
            duration: Duration::from_secs(3600),
            rated: true,
            min_rated_games: None,
        }
    }

    fn arena() -> Tournament {
        request()
            .check("t1".into(), Creator::Schedule, 0)
            .expect("a good request")
    }

    #[test]
    fn an_arena_is_upcoming_then_running_for_its_duration_then_finished() {
        let t = arena();
        assert_eq!(t.phase(10 * MINUTE - 1), Phase::Upcoming);
        assert_eq!(t.phase(10 * MINUTE), Phase::Running);
        assert_eq!(t.phase(70 * MINUTE - 1), Phase::Running);
        assert_eq!(t.phase(70 * MINUTE), Phase::Finished);
    }

    #[test]
    fn pairing_closes_before_the_end_by_the_closing_time() {
        let t = arena(); // 3+2: half the base is 90 s
        assert!(!t.pairing_open(10 * MINUTE - 1), "not before the start");
        assert!(t.pairing_open(10 * MINUTE));
        let end = t.ends_ms();
        assert!(t.pairing_open(end - 90_001));
        assert!(!t.pairing_open(end - 90_000));
    }

    #[test]
    fn a_request_is_checked_field_by_field() {
        let refused = |edit: fn(&mut Terms)| {
            let mut r = request();
            edit(&mut r);
            r.check("t".into(), Creator::Schedule, 0).err()
        };
        assert_eq!(
            refused(|r| r.name = " x ".into()),
            Some(TournamentRefused::Name)
        );
        assert_eq!(
            refused(|r| r.name = "a\u{7}b".into()),
            Some(TournamentRefused::Name)
        );
        assert_eq!(
            refused(|r| r.name = "n".repeat(31)),
            Some(TournamentRefused::Name)
        );
        assert_eq!(
            refused(|r| r.clock = ClockSpec {
                base_secs: 0,
                increment_secs: 0
            }),
            Some(TournamentRefused::Clock)
        );
        assert_eq!(
            refused(|r| r.clock.base_secs = MAX_BASE_SECS + 1),
            Some(TournamentRefused::Clock)
        );
        assert_eq!(
            refused(|r| r.duration = Duration::from_secs(19 * 60)),
            Some(TournamentRefused::Duration)
        );
        assert_eq!(
            refused(|r| r.starts_ms = -1),
            Some(TournamentRefused::Start)
        );
        assert_eq!(
            refused(|r| r.starts_ms = 31 * 86_400_000),
            Some(TournamentRefused::Start)
        );
        assert_eq!(
            refused(|r| r.min_rated_games = Some(101)),
            Some(TournamentRefused::MinRatedGames)
        );
        assert_eq!(refused(|_| {}), None);
        let trimmed = request().check("t".into(), Creator::Schedule, 0).unwrap();
        assert_eq!(trimmed.terms.name, "Hourly blitz");
    }

    #[test]
    fn joining_needs_an_account_an_arena_not_over_and_the_rated_games_it_asks() {
        let mut t = arena();
        assert_eq!(t.may_join(false, 50, 0), Err(JoinRefused::SignIn));
        assert_eq!(t.may_join(true, 0, 0), Ok(()), "upcoming: join early");
        assert_eq!(
            t.may_join(true, 0, 30 * MINUTE),
            Ok(()),
            "running: join late"
        );
        assert_eq!(t.may_join(true, 0, t.ends_ms()), Err(JoinRefused::Finished));
        t.terms.min_rated_games = Some(10);
        assert_eq!(
            t.may_join(true, 9, 0),
            Err(JoinRefused::TooFewRatedGames {
                needed: 10,
                have: 9
            })
        );
        assert_eq!(t.may_join(true, 10, 0), Ok(()));
    }
}
