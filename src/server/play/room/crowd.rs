//! Who is in a room: each connection's seat (or none: a spectator), the seat token it proved,
//! its `hello` allowance; since when each seat has had no connection (abandonment), since when
//! the room has been empty (retirement), and the presence last told, with spectator-count
//! changes coalesced so that a crowd joining costs one `presence`, not one per pair.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::fanout::ConnId;
use crate::rules::Color;
use crate::server::game::policy;
use crate::server::play::project::Presence;
use crate::server::players::account::UserId;
use crate::server::web::bucket::TokenBucket;

/// How long spectator-count changes are gathered before one `presence`.
pub const SPECTATOR_COALESCE: Duration = Duration::from_millis(500);

pub struct Member {
    pub seat: Option<Color>,
    /// This connection's `hello`s: each one costs a full snapshot.
    pub hello: TokenBucket,
    /// The seat token this connection proved (`seat` is its seat). Kept in memory only, to
    /// derive the player's rematch token; never stored, logged or sent.
    pub token: Option<String>,
    /// The account this connection is signed in as (its session cookie, resolved at the
    /// upgrade): it holds the seat that account owns, with or without the token.
    pub account: Option<UserId>,
    /// Its chat rate and which chat rooms it reads ([`super::chat`]).
    pub chat: super::chat_member::ChatMember,
}

/// What a membership change calls for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tell {
    /// A seat's connection changed: tell everyone now.
    Now,
    /// Only the spectator count changed: a `presence` is due later (or already is).
    Later,
}

pub struct Crowd {
    members: HashMap<ConnId, Member>,
    /// Per seat: since when no connection holds it (`None` while connected).
    away_since: [Option<Instant>; 2],
    /// Since when the room has had no connections.
    idle_since: Instant,
    last_told: Presence,
    due: Option<Instant>,
}

impl Crowd {
    /// A room just loaded: both seats count as away from `now` (after a restart, abandonment
    /// can be claimed only a full grace period later).
    pub fn new(now: Instant) -> Crowd {
        Crowd {
            members: HashMap::new(),
            away_since: [Some(now), Some(now)],
            idle_since: now,
            last_told: Presence::default(),
            due: None,
        }
    }

    pub fn insert(&mut self, conn: ConnId, member: Member) {
        self.members.insert(conn, member);
    }

    pub fn remove(&mut self, conn: ConnId) -> bool {
        self.members.remove(&conn).is_some()
    }

    pub fn get(&self, conn: ConnId) -> Option<&Member> {
        self.members.get(&conn)
    }

    pub fn get_mut(&mut self, conn: ConnId) -> Option<&mut Member> {
        self.members.get_mut(&conn)
    }

    pub fn conns(&self) -> Vec<ConnId> {
        self.members.keys().copied().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn idle_since(&self) -> Instant {
        self.idle_since
    }

    /// The connection holding `color`'s seat with its token, if any.
    pub fn seated(&self, color: Color) -> Option<ConnId> {
        self.members
            .iter()
            .find(|(_, m)| m.seat == Some(color) && m.token.is_some())
            .map(|(conn, _)| *conn)
    }

    /// A seat was just taken by HTTP join: its player is not connected yet.
    pub fn seat_taken_now(&mut self, color: Color, now: Instant) {
        self.away_since[color as usize] = Some(now);
    }

    pub fn presence(&self) -> Presence {
        let mut presence = Presence::default();
        for member in self.members.values() {
            match member.seat {
                Some(Color::White) => presence.white = true,
                Some(Color::Black) => presence.black = true,
                None => presence.spectators += 1,
            }
        }
        presence
    }

    /// Updates away and idle times after a connection came, went or changed seat; says whether
    /// to tell everyone now or later, or `None` when nothing visible changed.
    pub fn changed(&mut self, now: Instant) -> Option<Tell> {
        let presence = self.presence();
        for (color, here) in [
            (Color::White, presence.white),
            (Color::Black, presence.black),
        ] {
            let away = &mut self.away_since[color as usize];
            match (here, *away) {
                (true, _) => *away = None,
                (false, None) => *away = Some(now),
                (false, Some(_)) => {}
            }
        }
        if self.members.is_empty() {
            self.idle_since = now;
        }
        let last = self.last_told;
        if presence.white != last.white || presence.black != last.black {
            return Some(Tell::Now);
        }
        if presence != last {
            if self.due.is_none() {
                self.due = Some(now + SPECTATOR_COALESCE);
            }
            return Some(Tell::Later);
        }
        None
    }

    /// When a coalesced `presence` is due.
    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    /// Records that the current presence is being told to everyone.
    pub fn told(&mut self) -> Presence {
        self.last_told = self.presence();
        self.due = None;
        self.last_told
    }

    /// Whether `color`'s seat has been away for the whole grace period at `now`.
    pub fn abandoned(&self, color: Color, grace: Duration, now: Instant) -> bool {
        policy::abandoned(self.away_since[color as usize], grace, now)
    }

    /// For a taken seat with no connection: how long until its opponent may claim victory.
    pub fn claim_in(
        &self,
        color: Color,
        here: bool,
        grace: Duration,
        now: Instant,
    ) -> Option<Duration> {
        match self.away_since[color as usize] {
            Some(since) if !here => Some(policy::abandonment_in(since, grace, now)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(seat: Option<Color>, now: Instant) -> Member {
        Member {
            seat,
            hello: TokenBucket::new(1.0, 3.0, now),
            token: seat.map(|_| "t".to_owned()),
            account: None,
            chat: crate::server::play::room::chat_member::ChatMember::new(
                &crate::server::config::Config::new(
                    std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
                    "unused",
                ),
                now,
            ),
        }
    }

    #[test]
    fn a_seat_change_is_told_at_once_and_spectators_are_coalesced() {
        let t0 = Instant::now();
        let mut crowd = Crowd::new(t0);
        crowd.insert(1, member(Some(Color::White), t0));
        assert_eq!(crowd.changed(t0), Some(Tell::Now));
        crowd.told();
        crowd.insert(2, member(None, t0));
        assert_eq!(crowd.changed(t0), Some(Tell::Later));
        assert_eq!(crowd.due(), Some(t0 + SPECTATOR_COALESCE));
        crowd.insert(3, member(None, t0));
        assert_eq!(crowd.changed(t0), Some(Tell::Later));
        assert_eq!(
            crowd.due(),
            Some(t0 + SPECTATOR_COALESCE),
            "one presence for the crowd"
        );
        assert_eq!(crowd.told().spectators, 2);
        assert_eq!(crowd.changed(t0), None);
    }

    #[test]
    fn a_seat_counts_as_away_from_loading_and_from_its_last_disconnection() {
        let t0 = Instant::now();
        let grace = Duration::from_secs(30);
        let mut crowd = Crowd::new(t0);
        assert!(crowd.abandoned(Color::Black, grace, t0 + grace));
        crowd.insert(1, member(Some(Color::Black), t0));
        crowd.changed(t0);
        assert!(!crowd.abandoned(Color::Black, grace, t0 + grace * 2));
        let later = t0 + grace * 2;
        crowd.remove(1);
        crowd.changed(later);
        assert!(!crowd.abandoned(Color::Black, grace, later + Duration::from_secs(29)));
        assert!(crowd.abandoned(Color::Black, grace, later + grace));
        assert_eq!(crowd.idle_since(), later);
    }
}
