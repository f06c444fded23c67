//! The rules of challenges, pure (explicit `Instant`s, no I/O): who may make, accept, decline
//! or cancel one, the bounds (per challenger and in total), the per-challenger rate, and when
//! a challenge lapses. [`super::Lobby`] wraps it in a mutex and tells the users.
//!
//! Challenges live in memory only: a restart forgets them, as it closes every lobby channel that
//! would show them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::server::config::LobbyLimits;
use crate::server::game::rated::{self, RatedAsk, RatedRefused};
use crate::server::game::{TimeControl, Variant};
use crate::server::ids;
use crate::server::lobby::channel::msg::{ChallengeState, ChallengeView};
use crate::server::play::creation::ColorChoice;
use crate::server::play::protocol::{PlayerView, RatingView};
use crate::server::players::account::{Account, UserId};
use crate::server::players::rating::Rating;
use crate::server::web::bucket::TokenBucket;

/// Rate buckets kept before the full ones are forgotten (a full bucket is a new one).
const MAX_BUCKETS: usize = 4096;

/// What the challenger proposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Terms {
    pub clock: Option<TimeControl>,
    /// The challenger's colour.
    pub color: ColorChoice,
    pub variant: Variant,
    pub rated: bool,
}

/// A pending challenge.
#[derive(Clone, Debug, PartialEq)]
pub struct Challenge {
    pub id: String,
    pub from: Account,
    pub to: Account,
    /// The challenger's and the challenged user's ratings at the challenge's speed when it was
    /// made (shown, not used: the game reads them afresh); `None` for an untimed challenge.
    pub ratings: Option<(Rating, Rating)>,
    pub terms: Terms,
    pub made: Instant,
    pub expires: Instant,
}

impl Challenge {
    /// How both users see it at `now` (accepted: with the game's id).
    pub fn view(&self, now: Instant, game: Option<&str>) -> ChallengeView {
        ChallengeView {
            clock: self.terms.clock,
            color: self.terms.color,
            expires_in_ms: match game {
                Some(_) => 0,
                None => {
                    let left = self.expires.saturating_duration_since(now).as_millis();
                    u64::try_from(left).unwrap_or(u64::MAX)
                }
            },
            from: PlayerView {
                name: self.from.name.as_str().to_owned(),
                rating: self.ratings.map(|(from, _)| RatingView::from(from)),
            },
            game: game.map(str::to_owned),
            id: self.id.clone(),
            rated: self.terms.rated,
            state: match game {
                Some(_) => ChallengeState::Accepted,
                None => ChallengeState::Pending,
            },
            to: PlayerView {
                name: self.to.name.as_str().to_owned(),
                rating: self.ratings.map(|(_, to)| RatingView::from(to)),
            },
            variant: self.terms.variant,
        }
    }

    fn involves(&self, user: UserId) -> bool {
        self.from.id == user || self.to.id == user
    }
}

/// The codes only challenges have (`code` of the error body).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeCode {
    /// 404: `to` names nobody.
    UnknownUser,
    /// 400: `to` is the challenger.
    SelfChallenge,
    /// 409 (this challenger's pending challenges) or 503 (the server's).
    TooManyChallenges,
    /// 403: accept/decline by the challenger, cancel by the challenged.
    NotYourChallenge,
}

/// Why a challenge request is refused (each has its wire code, docs/protocol.md).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ChallengeError {
    #[error("no user has that name")]
    UnknownUser,
    #[error("you cannot challenge yourself")]
    SelfChallenge,
    #[error(transparent)]
    Rated(#[from] RatedRefused),
    #[error("you have {0} challenges waiting for an answer; cancel one first")]
    TooManyFromYou(usize),
    #[error("too many challenges are waiting on the server; try again later")]
    TooManyInTotal,
    #[error("too many challenges; try again in {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    #[error("no such challenge")]
    NotFound,
    /// Accept/decline by someone other than the challenged, cancel by someone other than the
    /// challenger.
    #[error("only the {0} may do that")]
    NotYours(&'static str),
}

/// Every pending challenge, and the challengers' rate buckets.
pub struct Registry {
    limits: LobbyLimits,
    pending: HashMap<String, Challenge>,
    buckets: HashMap<UserId, TokenBucket>,
}

impl Registry {
    pub fn new(limits: LobbyLimits) -> Registry {
        Registry {
            limits,
            pending: HashMap::new(),
            buckets: HashMap::new(),
        }
    }

    /// Charges one challenge attempt to `user` (before anything is looked up, so that probing
    /// for usernames is throttled too).
    pub fn charge(&mut self, user: UserId, now: Instant) -> Result<(), ChallengeError> {
        if self.buckets.len() >= MAX_BUCKETS {
            self.buckets.retain(|_, bucket| !bucket.is_full_at(now));
        }
        let limits = &self.limits;
        let bucket = self.buckets.entry(user).or_insert_with(|| {
            TokenBucket::new(
                limits.challenge_rate_per_min / 60.0,
                limits.challenge_burst,
                now,
            )
        });
        if bucket.take(now) {
            return Ok(());
        }
        let wait = bucket.wait_secs();
        let retry_after_secs = if wait.is_finite() {
            wait.ceil().max(1.0) as u64
        } else {
            u64::MAX
        };
        Err(ChallengeError::RateLimited { retry_after_secs })
    }

    /// Makes a challenge from `from` to `to`.
    pub fn make(
        &mut self,
        (from, to): (Account, Account),
        terms: Terms,
        ratings: Option<(Rating, Rating)>,
        now: Instant,
    ) -> Result<Challenge, ChallengeError> {
        if from.id == to.id {
            return Err(ChallengeError::SelfChallenge);
        }
        if terms.rated {
            rated::may_create(RatedAsk {
                signed_in: true,
                timed: terms.clock.is_some(),
                against_computer: false,
            })?;
        }
        let sent = self
            .pending
            .values()
            .filter(|c| c.from.id == from.id)
            .count();
        if sent >= self.limits.challenges_per_user {
            return Err(ChallengeError::TooManyFromYou(sent));
        }
        if self.pending.len() >= self.limits.max_challenges {
            return Err(ChallengeError::TooManyInTotal);
        }
        let mut id = ids::new_game_id();
        while self.pending.contains_key(&id) {
            id = ids::new_game_id();
        }
        let challenge = Challenge {
            id: id.clone(),
            from,
            to,
            ratings,
            terms,
            made: now,
            expires: now + self.limits.challenge_ttl,
        };
        self.pending.insert(id, challenge.clone());
        Ok(challenge)
    }

    /// The pending challenges `user` sent or received, oldest first.
    pub fn of(&self, user: UserId) -> Vec<Challenge> {
        let mut mine: Vec<Challenge> = self
            .pending
            .values()
            .filter(|c| c.involves(user))
            .cloned()
            .collect();
        mine.sort_by(|a, b| a.made.cmp(&b.made).then_with(|| a.id.cmp(&b.id)));
        mine
    }

    /// Removes challenge `id` if `allowed` says `by` may answer it.
    fn answer(
        &mut self,
        id: &str,
        by: UserId,
        who: &'static str,
        allowed: impl Fn(&Challenge) -> bool,
    ) -> Result<Challenge, ChallengeError> {
        let challenge = self.pending.get(id).ok_or(ChallengeError::NotFound)?;
        if !challenge.involves(by) {
            // Someone else's challenge is none of their business: not even that it exists.
            return Err(ChallengeError::NotFound);
        }
        if !allowed(challenge) {
            return Err(ChallengeError::NotYours(who));
        }
        self.pending.remove(id).ok_or(ChallengeError::NotFound)
    }

    /// Takes challenge `id` out to be accepted by `by` (the challenged user): once out, a second
    /// accept finds nothing, so a challenge makes one game at most. [`Registry::restore`] puts it
    /// back if the game cannot be made.
    pub fn accept(&mut self, id: &str, by: UserId) -> Result<Challenge, ChallengeError> {
        self.answer(id, by, "challenged user", |c| c.to.id == by)
    }

    /// Puts back a challenge whose game could not be made (it keeps its expiry).
    pub fn restore(&mut self, challenge: Challenge) {
        self.pending.insert(challenge.id.clone(), challenge);
    }

    pub fn decline(&mut self, id: &str, by: UserId) -> Result<Challenge, ChallengeError> {
        self.answer(id, by, "challenged user", |c| c.to.id == by)
    }

    pub fn cancel(&mut self, id: &str, by: UserId) -> Result<Challenge, ChallengeError> {
        self.answer(id, by, "challenger", |c| c.from.id == by)
    }

    /// Removes and returns the challenges past their expiry at `now`.
    pub fn expire(&mut self, now: Instant) -> Vec<Challenge> {
        self.drain(|c| c.expires <= now)
    }

    /// Removes and returns every challenge `user` sent.
    pub fn withdraw_from(&mut self, user: UserId) -> Vec<Challenge> {
        self.drain(|c| c.from.id == user)
    }

    fn drain(&mut self, pick: impl Fn(&Challenge) -> bool) -> Vec<Challenge> {
        let ids: Vec<String> = self
            .pending
            .values()
            .filter(|c| pick(c))
            .map(|c| c.id.clone())
            .collect();
        ids.iter()
            .filter_map(|id| self.pending.remove(id))
            .collect()
    }

    /// Pending challenges on the server.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// The time to live of a challenge.
    pub fn ttl(&self) -> Duration {
        self.limits.challenge_ttl
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::game::ClockSpec;
    use crate::server::players::account::Username;

    fn account(id: i64, name: &str) -> Account {
        Account {
            id: UserId(id),
            name: Username::parse(name).unwrap(),
        }
    }

    fn terms() -> Terms {
        Terms {
            clock: Some(TimeControl::Live(ClockSpec {
                base_secs: 300,
                increment_secs: 0,
            })),
            color: ColorChoice::Random,
            variant: Variant::Balanced,
            rated: false,
        }
    }

    fn limits() -> LobbyLimits {
        LobbyLimits {
            challenges_per_user: 2,
            max_challenges: 3,
            challenge_rate_per_min: 0.0,
            challenge_burst: 3.0,
            ..LobbyLimits::default()
        }
    }

    #[test]
    fn only_the_challenged_user_accepts_or_declines_and_only_the_challenger_cancels() {
        let mut registry = Registry::new(limits());
        let (alice, bob, carol) = (account(1, "alice"), account(2, "bob"), account(3, "carol"));
        let now = Instant::now();
        let c = registry
            .make((alice.clone(), bob.clone()), terms(), None, now)
            .unwrap();
        assert_eq!(
            registry.accept(&c.id, alice.id),
            Err(ChallengeError::NotYours("challenged user"))
        );
        assert_eq!(
            registry.decline(&c.id, alice.id),
            Err(ChallengeError::NotYours("challenged user"))
        );
        assert_eq!(
            registry.cancel(&c.id, bob.id),
            Err(ChallengeError::NotYours("challenger"))
        );
        assert_eq!(
            registry.accept(&c.id, carol.id),
            Err(ChallengeError::NotFound)
        );
        assert_eq!(
            registry.accept(&c.id, bob.id).map(|c| c.id.clone()),
            Ok(c.id.clone())
        );
        assert_eq!(
            registry.accept(&c.id, bob.id),
            Err(ChallengeError::NotFound),
            "once"
        );
    }

    #[test]
    fn a_challenge_to_yourself_or_rated_without_a_clock_is_refused() {
        let mut registry = Registry::new(limits());
        let alice = account(1, "alice");
        let now = Instant::now();
        assert_eq!(
            registry.make((alice.clone(), account(1, "Alice")), terms(), None, now),
            Err(ChallengeError::SelfChallenge)
        );
        let untimed_rated = Terms {
            clock: None,
            rated: true,
            ..terms()
        };
        assert_eq!(
            registry.make((alice, account(2, "bob")), untimed_rated, None, now),
            Err(ChallengeError::Rated(RatedRefused::NeedsClock))
        );
        assert!(registry.is_empty());
    }

    #[test]
    fn pending_challenges_are_bounded_per_challenger_and_in_total() {
        let mut registry = Registry::new(limits());
        let now = Instant::now();
        let (alice, bob, carol) = (account(1, "alice"), account(2, "bob"), account(3, "carol"));
        for _ in 0..2 {
            registry
                .make((alice.clone(), bob.clone()), terms(), None, now)
                .unwrap();
        }
        assert_eq!(
            registry.make((alice.clone(), carol.clone()), terms(), None, now),
            Err(ChallengeError::TooManyFromYou(2))
        );
        registry
            .make((carol.clone(), bob.clone()), terms(), None, now)
            .unwrap();
        assert_eq!(
            registry.make((bob.clone(), carol.clone()), terms(), None, now),
            Err(ChallengeError::TooManyInTotal)
        );
        assert_eq!(registry.of(bob.id).len(), 3);
        assert_eq!(registry.of(alice.id).len(), 2);
        assert_eq!(registry.withdraw_from(alice.id).len(), 2);
        assert_eq!(registry.len(), 1);
    }

    #[test]
    fn attempts_beyond_the_burst_are_rate_limited_per_challenger() {
        let mut registry = Registry::new(limits());
        let now = Instant::now();
        for _ in 0..3 {
            assert_eq!(registry.charge(UserId(1), now), Ok(()));
        }
        assert!(matches!(
            registry.charge(UserId(1), now),
            Err(ChallengeError::RateLimited { .. })
        ));
        assert_eq!(registry.charge(UserId(2), now), Ok(()), "per user");
    }

    #[test]
    fn a_challenge_expires_at_its_time_to_live_and_not_before() {
        let mut registry = Registry::new(limits());
        let now = Instant::now();
        let c = registry
            .make((account(1, "alice"), account(2, "bob")), terms(), None, now)
            .unwrap();
        let ttl = registry.ttl();
        assert_eq!(c.view(now, None).expires_in_ms, ttl.as_millis() as u64);
        assert!(
            registry
                .expire(now + ttl - Duration::from_millis(1))
                .is_empty()
        );
        let expired = registry.expire(now + ttl);
        assert_eq!(expired.len(), 1);
        assert!(registry.is_empty());
        // A failed accept puts it back as it was.
        registry.restore(c.clone());
        assert_eq!(registry.of(UserId(2)), vec![c]);
    }
}
