//! Challenges (issue 11): a signed-in user challenges another by name; the challenged user sees
//! it live on every lobby channel of theirs ([`crate::server::lobby_socket`]) and accepts or
//! declines; the challenger sees the answer live. A challenge lapses after its time to live
//! (10 minutes) or when the challenger leaves (their last lobby channel closed and none opened
//! again within a short grace, so that a page reload does not withdraw it).
//!
//! | concept | module |
//! |---|---|
//! | the rules, bounds and rate, pure | [`registry`] |
//! | the HTTP routes | [`routes`] |
//! | the registry + the lobby channels + the timers | [`Lobby`] (here) |

pub mod registry;
// pub mod routes;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::server::account::{Account, UserId};
use crate::server::config::LobbyLimits;
use crate::server::lobby_socket::hub::Hub;
use crate::server::lobby_socket::msg::{GoneMsg, GoneReason, LobbyMsg};
use registry::{Challenge, ChallengeError, Registry, Terms};

/// The lobby's live side: the challenge registry and every open lobby channel.
pub struct Lobby {
    pub hub: Hub,
    registry: Mutex<Registry>,
    pub limits: LobbyLimits,
}

impl Lobby {
    /// The lobby, with its sweeper running until `shutdown` (expiries, departures, the `online`
    /// count). Needs a tokio runtime.
    pub fn start(limits: LobbyLimits, shutdown: watch::Receiver<bool>) -> Arc<Lobby> {
        let lobby = Arc::new(Lobby {
            hub: Hub::default(),
            registry: Mutex::new(Registry::new(limits)),
            limits,
        });
        lobby.spawn_sweeper(shutdown);
        lobby
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        // Plain maps: still consistent after a panic elsewhere.
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One challenge attempt of `user` ([`Registry::charge`]).
    pub fn charge(&self, user: UserId) -> Result<(), ChallengeError> {
        self.registry().charge(user, Instant::now())
    }

    /// Makes a challenge and shows it to both users.
    pub fn make(
        &self,
        from: Account,
        to: Account,
        terms: Terms,
    ) -> Result<Challenge, ChallengeError> {
        let now = Instant::now();
        let challenge = self.registry().make(from, to, terms, now)?;
        self.tell_both(&challenge, &LobbyMsg::Challenge(challenge.view(now, None)));
        Ok(challenge)
    }

    /// The pending challenges of `user`, both directions.
    pub fn of(&self, user: UserId) -> Vec<Challenge> {
        self.registry().of(user)
    }

    /// Takes a challenge out for `by` to accept; [`Lobby::accepted`] or [`Lobby::restore`] next.
    pub fn take_for_accept(&self, id: &str, by: UserId) -> Result<Challenge, ChallengeError> {
        self.registry().accept(id, by)
    }

    /// The game of an accepted challenge exists: both users are told its id.
    pub fn accepted(&self, challenge: &Challenge, game: &str) {
        let view = challenge.view(Instant::now(), Some(game));
        self.tell_both(challenge, &LobbyMsg::Challenge(view));
    }

    /// The game of an accepted challenge could not be made: it stands again.
    pub fn restore(&self, challenge: Challenge) {
        self.registry().restore(challenge);
    }

    pub fn decline(&self, id: &str, by: UserId) -> Result<Challenge, ChallengeError> {
        let challenge = self.registry().decline(id, by)?;
        self.gone(&challenge, GoneReason::Declined);
        Ok(challenge)
    }

    pub fn cancel(&self, id: &str, by: UserId) -> Result<Challenge, ChallengeError> {
        let challenge = self.registry().cancel(id, by)?;
        self.gone(&challenge, GoneReason::Cancelled);
        Ok(challenge)
    }

    fn gone(&self, challenge: &Challenge, reason: GoneReason) {
        let msg = LobbyMsg::ChallengeGone(GoneMsg {
            id: challenge.id.clone(),
            reason,
        });
        self.tell_both(challenge, &msg);
    }

    fn tell_both(&self, challenge: &Challenge, msg: &LobbyMsg) {
        self.hub.send_to(challenge.from.id, msg);
        self.hub.send_to(challenge.to.id, msg);
    }

    /// One pass of the timers at `now`: expired challenges, challengers gone past the grace,
    /// and the `online` count if it changed.
    pub fn sweep(&self, now: Instant) {
        let expired = self.registry().expire(now);
        for challenge in &expired {
            self.gone(challenge, GoneReason::Expired);
        }
        for user in self.hub.departed(now, self.limits.leave_grace) {
            let withdrawn = self.registry().withdraw_from(user);
            for challenge in &withdrawn {
                self.gone(challenge, GoneReason::ChallengerLeft);
            }
        }
        self.hub.announce_online();
    }

    /// How often the sweeper runs: often enough for the shortest of the timers it serves to be
    /// late by at most half of itself (and never more than a second late).
    fn sweep_period(&self) -> Duration {
        let limits = &self.limits;
        (limits
            .challenge_ttl
            .min(limits.leave_grace)
            .min(limits.online_every)
            / 2)
        .clamp(Duration::from_millis(10), Duration::from_secs(1))
    }

    fn spawn_sweeper(self: &Arc<Self>, mut shutdown: watch::Receiver<bool>) {
        let lobby = Arc::downgrade(self);
        let period = self.sweep_period();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(period);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.changed() => break,
                    _ = ticker.tick() => {
                        let Some(lobby) = lobby.upgrade() else { break };
                        lobby.sweep(Instant::now());
                    }
                }
            }
        });
    }
}
