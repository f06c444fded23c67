//! Chat lines per client, over all its connections: [`ChatFlood`]. The per-connection rate
//! ([`super::rate`]) alone let one address that opened fresh sockets write 1,200 lines in 1.8 s
//! into one game's spectator room and 8,625 lines in 10 s into the lobby (issue 34). So every
//! line also takes a token of its client's address and, when signed in, of its account: one in
//! the bucket of the room it is said in, one in the bucket of all rooms together.
//!
//! Defaults (`--chat-room-burst-per-client`, `--chat-burst-per-client`, over `--chat-window-secs`):
//! 6 lines per 5 s per room, 15 per 5 s over all rooms: two people behind one address chatting
//! in one game at the per-connection rate (3 per 5 s each) are never refused, and a flood from
//! one address gets 6 lines into a room instead of 1,200.

use std::net::IpAddr;
use std::time::Instant;

use super::ChatRoom;
use crate::server::domain::user::UserId;
use crate::server::web::ratelimit::{Holder, KeyedLimiter, Limited};

/// Where a line is said: the lobby, or one of a game's two rooms.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChatPlace {
    /// The game's id; `None` for the lobby.
    pub game: Option<Box<str>>,
    pub room: ChatRoom,
}

impl ChatPlace {
    pub fn lobby() -> ChatPlace {
        ChatPlace {
            game: None,
            room: ChatRoom::Lobby,
        }
    }

    pub fn game(id: &str, room: ChatRoom) -> ChatPlace {
        ChatPlace {
            game: Some(id.into()),
            room,
        }
    }
}

/// The chat buckets of every client of the server.
pub struct ChatFlood {
    per_room: KeyedLimiter<(Holder<UserId>, ChatPlace)>,
    overall: KeyedLimiter<Holder<UserId>>,
}

/// How many lines a client may say at once, per room and in all, refilled over `window_secs`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloodLimits {
    pub room_burst: u32,
    pub all_burst: u32,
    pub window_secs: f64,
}

impl ChatFlood {
    pub fn new(limits: FloodLimits) -> ChatFlood {
        let window = limits.window_secs.max(0.001);
        // A burst of 0 turns that limit off (rate 0 is "off" for a KeyedLimiter).
        let rate = |burst: u32| f64::from(burst) / window;
        ChatFlood {
            per_room: KeyedLimiter::new(rate(limits.room_burst), f64::from(limits.room_burst)),
            overall: KeyedLimiter::new(rate(limits.all_burst), f64::from(limits.all_burst)),
        }
    }

    /// Takes a line's tokens for the client at `ip` (signed in as `account`) in `place`;
    /// refused with the seconds until the client may say a line there again.
    pub fn check(
        &self,
        ip: IpAddr,
        account: Option<UserId>,
        place: &ChatPlace,
        now: Instant,
    ) -> Result<(), Limited> {
        for holder in Holder::of(ip, account) {
            self.overall.check_key(holder, now)?;
            self.per_room.check_key((holder, place.clone()), now)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;
    use std::time::Duration;

    use super::*;

    const LIMITS: FloodLimits = FloodLimits {
        room_burst: 6,
        all_burst: 15,
        window_secs: 5.0,
    };

    fn ip(last: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
    }

    #[test]
    fn one_address_says_six_lines_in_a_room_then_is_refused_there_but_not_elsewhere() {
        let flood = ChatFlood::new(LIMITS);
        let now = Instant::now();
        let room = ChatPlace::game("g1", ChatRoom::Spectator);
        for _ in 0..6 {
            assert!(flood.check(ip(2), None, &room, now).is_ok());
        }
        let refused = flood.check(ip(2), None, &room, now).unwrap_err();
        assert_eq!(refused.retry_after_secs, 1);
        assert!(
            flood.check(ip(3), None, &room, now).is_ok(),
            "other addresses"
        );
        assert!(flood.check(ip(2), None, &ChatPlace::lobby(), now).is_ok());
        assert!(
            flood
                .check(ip(2), None, &room, now + Duration::from_secs(1))
                .is_ok(),
            "6 per 5 s: a line back every 0.83 s"
        );
    }

    #[test]
    fn one_address_spread_over_many_rooms_is_held_by_its_total() {
        let flood = ChatFlood::new(LIMITS);
        let now = Instant::now();
        let said = (0..100)
            .filter(|game| {
                let place = ChatPlace::game(&format!("g{game}"), ChatRoom::Spectator);
                flood.check(ip(2), None, &place, now).is_ok()
            })
            .count();
        assert_eq!(said, 15);
    }

    #[test]
    fn an_account_is_held_by_its_own_total_whatever_address_it_comes_from() {
        let flood = ChatFlood::new(LIMITS);
        let now = Instant::now();
        let alice = Some(UserId(7));
        let said = (0..100u8)
            .filter(|i| {
                let place = ChatPlace::game(&format!("g{i}"), ChatRoom::Spectator);
                flood.check(ip(10 + i), alice, &place, now).is_ok()
            })
            .count();
        assert_eq!(said, 15);
        assert!(
            flood.check(ip(9), None, &ChatPlace::lobby(), now).is_ok(),
            "an anonymous page at a fresh address is not alice"
        );
    }

    #[test]
    fn a_burst_of_zero_turns_that_limit_off() {
        let flood = ChatFlood::new(FloodLimits {
            room_burst: 0,
            all_burst: 0,
            window_secs: 5.0,
        });
        let now = Instant::now();
        for _ in 0..1000 {
            assert!(flood.check(ip(2), None, &ChatPlace::lobby(), now).is_ok());
        }
    }
}
