//! Challenges (issue 11): a signed-in user challenges another by name; the challenged user sees
//! it live on every lobby channel of theirs ([`crate::server::lobby::channel`]) and accepts or
//! declines; the challenger sees the answer live. A challenge lapses after its time to live
//! (10 minutes) or when the challenger leaves (their last lobby channel closed and none opened
//! again within a short grace, so that a page reload does not withdraw it).
//!
//! | concept | module |
//! |---|---|
//! | the rules, bounds and rate, pure | [`registry`] |
//! | the HTTP routes | [`routes`] |
//! | several nodes: forwarding to the lobby's owner, what the bus brings | [`remote`] |
//! | the registry + the lobby channels + the timers | [`Lobby`] (here) |

pub mod local;
pub mod registry;
pub mod remote;
pub mod routes;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::server::cluster::lobby::LobbyLink;
use crate::server::config::LobbyLimits;
use crate::server::lobby::channel::hub::Hub;
use crate::server::lobby::channel::msg::{GoneMsg, GoneReason, LobbyMsg};
use crate::server::players::account::{Account, UserId};
use crate::server::players::rating::Rating;
use registry::{Challenge, ChallengeError, Registry, Terms};

/// The lobby's live side: the challenge registry and every open lobby channel.
pub struct Lobby {
    pub hub: Hub,
    /// The lobby chat's recent lines and the lock that orders them (issue 12).
    pub chat: crate::server::lobby::channel::chat::LobbyChat,
    registry: Mutex<Registry>,
    pub limits: LobbyLimits,
    /// With several nodes (set once, at start): notices go through the bus, presence and the
    /// `online` count are summed over the nodes, challenges run on the lobby's owner.
    link: OnceLock<Arc<LobbyLink>>,
}

impl Lobby {
    /// The lobby, its sweeper not yet running: the composition root starts it
    /// ([`Lobby::spawn_sweeper`]); a test may call [`Lobby::sweep`] itself instead.
    pub fn new(limits: LobbyLimits) -> Lobby {
        Lobby {
            hub: Hub::default(),
            chat: Default::default(),
            registry: Mutex::new(Registry::new(limits)),
            limits,
            link: OnceLock::new(),
        }
    }

    /// Makes this lobby one node's of several (once; a second link is ignored).
    pub fn link(&self, link: Arc<LobbyLink>) {
        let _ = self.link.set(link);
    }

    /// The link to the other nodes, if there are any.
    pub fn cluster(&self) -> Option<&Arc<LobbyLink>> {
        self.link.get()
    }

    /// Sends `msg` to every lobby channel of `user`, on every node.
    pub fn tell(&self, user: UserId, msg: &LobbyMsg) {
        match self.cluster() {
            // Delivered here too when the bus brings it back: one path, one order.
            Some(link) => link.notice(Some(user), msg.to_text()),
            None => self.hub.send_to(user, msg),
        }
    }

    /// Whether `user` has a lobby channel open, on any node.
    pub fn is_present(&self, user: UserId) -> bool {
        self.hub.is_present(user)
            || self
                .cluster()
                .is_some_and(|link| link.present_elsewhere(user, Instant::now()))
    }

    /// Players online now, on every node.
    pub fn online(&self) -> u64 {
        match self.cluster() {
            Some(link) => link.online(self.hub.snapshot(), Instant::now()),
            None => self.hub.online(),
        }
    }

    /// `user` left some node's lobby (on the owner: told by that node): their challenges are
    /// withdrawn unless a channel of theirs is open on any node.
    pub fn left(&self, user: UserId) {
        if self.is_present(user) {
            return;
        }
        let withdrawn = self.registry().withdraw_from(user);
        for challenge in &withdrawn {
            self.gone(challenge, GoneReason::ChallengerLeft);
        }
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
        players: (Account, Account),
        terms: Terms,
        ratings: Option<(Rating, Rating)>,
    ) -> Result<Challenge, ChallengeError> {
        let now = Instant::now();
        let challenge = self.registry().make(players, terms, ratings, now)?;
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
        self.tell(challenge.from.id, msg);
        self.tell(challenge.to.id, msg);
    }

    /// One pass of the timers at `now`: expired challenges, challengers gone past the grace,
    /// and the `online` count if it changed.
    pub fn sweep(&self, now: Instant) {
        let expired = self.registry().expire(now);
        for challenge in &expired {
            self.gone(challenge, GoneReason::Expired);
        }
        for user in self.hub.departed(now, self.limits.leave_grace) {
            match self.cluster().and_then(|link| link.remote_owner()) {
                Some(owner) => {
                    if let Some(link) = self.cluster() {
                        link.left(&owner, user);
                    }
                }
                None => self.left(user),
            }
        }
        match self.cluster() {
            Some(link) => {
                let here = self.hub.snapshot();
                link.report(here.clone(), now);
                self.hub.announce(link.online(here, now));
            }
            None => {
                self.hub.announce_online();
            }
        }
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

    /// Runs the sweeper until `shutdown`: expiries, departures, the `online` count. Needs a
    /// tokio runtime.
    pub fn spawn_sweeper(self: &Arc<Self>, mut shutdown: watch::Receiver<bool>) {
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use tokio_tungstenite::tungstenite::Utf8Bytes;

    use super::*;
    use crate::server::game::{ClockSpec, TimeControl, Variant};
    use crate::server::play::creation::ColorChoice;
    use crate::server::play::room::{Outbox, mailbox};
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
                base_secs: 60,
                increment_secs: 0,
            })),
            color: ColorChoice::Black,
            variant: Variant::Balanced,
            rated: false,
        }
    }

    /// Opens a channel for `user` on the lobby's hub; its receiving end.
    fn page(lobby: &Lobby, user: UserId, conn: u64) -> mailbox::Receiver<Utf8Bytes> {
        let (queue, rx) = mailbox::channel(16);
        let lagged = Arc::new(AtomicBool::new(false));
        let at = crate::server::web::ratelimit::Client::V4(0x7f00_0001);
        lobby
            .hub
            .open(Some(user), at, conn, Outbox { queue, lagged });
        rx
    }

    fn texts(rx: &mut mailbox::Receiver<Utf8Bytes>) -> Vec<LobbyMsg> {
        let mut out = Vec::new();
        while let Ok(text) = rx.try_recv() {
            out.push(LobbyMsg::from_text(text.as_str()).unwrap());
        }
        out
    }

    fn gone_reasons(msgs: &[LobbyMsg]) -> Vec<GoneReason> {
        msgs.iter()
            .filter_map(|m| match m {
                LobbyMsg::ChallengeGone(g) => Some(g.reason),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_challengers_challenges_are_withdrawn_once_they_left_for_the_grace_and_both_are_told() {
        let limits = LobbyLimits {
            leave_grace: Duration::from_secs(5),
            ..LobbyLimits::default()
        };
        let lobby = Lobby::new(limits);
        let (alice, bob) = (account(1, "alice"), account(2, "bob"));
        let mut alice_rx = page(&lobby, alice.id, 1);
        let mut bob_rx = page(&lobby, bob.id, 2);
        lobby
            .make((alice.clone(), bob.clone()), terms(), None)
            .unwrap();
        assert_eq!(texts(&mut bob_rx).len(), 1, "bob sees the challenge");
        let left = Instant::now();
        lobby.hub.close(Some(alice.id), 1, left);
        lobby.sweep(left + Duration::from_secs(4));
        assert!(
            gone_reasons(&texts(&mut bob_rx)).is_empty(),
            "within the grace"
        );
        lobby.sweep(left + Duration::from_secs(5));
        assert_eq!(
            gone_reasons(&texts(&mut bob_rx)),
            [GoneReason::ChallengerLeft]
        );
        assert!(lobby.of(bob.id).is_empty());
        let _ = texts(&mut alice_rx);
    }

    #[test]
    fn an_expired_challenge_is_gone_for_both_users() {
        let limits = LobbyLimits {
            challenge_ttl: Duration::from_secs(600),
            ..LobbyLimits::default()
        };
        let lobby = Lobby::new(limits);
        let (alice, bob) = (account(1, "alice"), account(2, "bob"));
        let mut alice_rx = page(&lobby, alice.id, 1);
        let mut bob_rx = page(&lobby, bob.id, 2);
        let made = Instant::now();
        lobby.make((alice, bob), terms(), None).unwrap();
        lobby.sweep(made + Duration::from_secs(599));
        assert!(gone_reasons(&texts(&mut bob_rx)).is_empty());
        lobby.sweep(made + Duration::from_secs(601));
        assert_eq!(gone_reasons(&texts(&mut bob_rx)), [GoneReason::Expired]);
        assert_eq!(gone_reasons(&texts(&mut alice_rx)), [GoneReason::Expired]);
    }
}
