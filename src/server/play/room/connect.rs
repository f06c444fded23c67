//! A room's subscribers coming and going: authenticating a `hello`, bringing a subscriber up to
//! date (the events it missed from the history, or a `state` snapshot whose shared part is
//! serialized once per version), telling everyone who is here, and delivering to one or all.

use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::crowd::{Member, Tell};
use super::fanout::ConnId;
use super::{RoomTask, project};
use crate::rules::Color;
use crate::server::computer::ComputerProof;
use crate::server::play::protocol::{
    ClaimInMs, ErrorCode, PresenceMsg, Refusal, ServerMsg, SharedText,
};
use crate::server::web::bucket::TokenBucket;

impl RoomTask {
    pub(super) fn leave(&mut self, conn: ConnId) {
        self.fanout.unsubscribe(conn);
        if self.crowd.remove(conn) {
            self.after_membership_change();
        }
    }

    /// Authenticates (by the token when one is given, else or when it is wrong by the
    /// connection's account) and resyncs one subscriber. A connection signed in as the account
    /// that owns a seat is seated exactly as if it had presented the seat's token.
    pub(super) fn hello(&mut self, conn: ConnId, token: Option<String>, since: Option<u64>) {
        let account_seat = self
            .crowd
            .get(conn)
            .and_then(|m| m.account)
            .and_then(|user| self.state.seat_of_user(user));
        if let Some(token) = token {
            match (self.state.seat_of(&token), account_seat) {
                (Some(color), _) => {
                    if let Some(member) = self.crowd.get_mut(conn) {
                        member.seat = Some(color);
                        member.token = Some(token);
                    }
                }
                (None, Some(color)) => {
                    if let Some(member) = self.crowd.get_mut(conn) {
                        member.seat = Some(color);
                    }
                }
                (None, None) => {
                    self.deps.metrics.bad_tokens.fetch_add(1, Ordering::Relaxed);
                    let refusal =
                        Refusal::new(ErrorCode::BadToken, "that token holds no seat in this game");
                    self.send_to(conn, &ServerMsg::error(&refusal, None));
                }
            }
        } else if let Some(color) = account_seat
            && let Some(member) = self.crowd.get_mut(conn)
            && member.seat.is_none()
        {
            member.seat = Some(color);
        }
        self.resync(conn, since);
        self.send_chat_history(conn);
        if let Some(grant) = self.rematch_grant(conn) {
            self.send_to(conn, &grant);
        }
        if !self.after_membership_change() {
            let msg = self.presence_msg();
            self.send_to(conn, &msg);
        }
    }

    /// Seats the computer's connection in the game's computer seat (a spectator if the game
    /// has none: the proof is a computer's, not a seat of this game) and sends it a snapshot.
    pub(super) fn hello_computer(&mut self, conn: ConnId, _proof: ComputerProof) {
        let config = &self.deps.config;
        let hello = TokenBucket::new(
            config.hello_rate_per_sec,
            config.hello_burst,
            Instant::now(),
        );
        let seat = self.state.computer().map(|c| c.color);
        self.crowd.insert(
            conn,
            Member {
                seat,
                hello,
                token: None,
                account: None,
                chat: super::chat_member::ChatMember::new(config, Instant::now()),
            },
        );
        self.resync(conn, None);
        if !self.after_membership_change() {
            let msg = self.presence_msg();
            self.send_to(conn, &msg);
        }
    }

    /// Sends the events after `since`, or a snapshot when they are not all at hand.
    pub(super) fn resync(&mut self, conn: ConnId, since: Option<u64>) {
        let version = self.state.version();
        // A correspondence deadline that passed while the server was down is shown as boot +
        // grace, but the recorded messages (and whatever the client kept from before the
        // restart) carry the logged one: such a client gets the snapshot, which has it right.
        let regraced = self.state.effective_deadline_ms() != self.state.turn_deadline_ms();
        if let Some(seen) = since
            && !regraced
            && let Some(missed) = self
                .history
                .since(seen, version, self.fanout.room_left(conn))
        {
            for text in missed {
                self.send_bytes(conn, text);
            }
            return;
        }
        let you = self.crowd.get(conn).and_then(|m| m.seat);
        let msg = self.state_msg(you);
        self.send_to(conn, &msg);
    }

    /// The `state` message for one subscriber: the shared part of the snapshot (the whole
    /// record: 148 KB for a game of 3,000 sub-moves), serialized once per version and reused
    /// by every subscriber and every `hello` until the next event, joined with this
    /// subscriber's live fields (clocks as of now, presence, `you`), which are small.
    pub(super) fn state_msg(&mut self, you: Option<Color>) -> ServerMsg {
        let version = self.state.version();
        let shared = match &self.snapshot {
            Some((v, text)) if *v == version => text.clone(),
            _ => {
                let record = self.state.record();
                // Serializing a plain record cannot fail; if it ever did, the reader gets an
                // empty shared part rather than the room a panic.
                let text =
                    SharedText::new(&project::shared_state(&self.state, &record, self.ratings))
                        .unwrap_or_else(|_| SharedText::empty());
                self.deps
                    .metrics
                    .snapshots_serialized
                    .fetch_add(1, Ordering::Relaxed);
                self.snapshot = Some((version, text.clone()));
                text
            }
        };
        let live = project::live_state(&self.state, self.crowd.presence(), you, Instant::now());
        project::state_msg(version, live, shared)
    }

    /// Tells everyone who is here: at once when a seat's connection changed, coalesced when
    /// only the spectator count did. Returns whether presence was broadcast now.
    pub(super) fn after_membership_change(&mut self) -> bool {
        match self.crowd.changed(Instant::now()) {
            Some(Tell::Now) => {
                self.broadcast_presence();
                true
            }
            Some(Tell::Later) | None => false,
        }
    }

    /// The `presence` message. For a taken seat with no connection it also says in how many
    /// ms its opponent may claim victory, so that pages can count down instead of offering a
    /// claim the server would refuse.
    pub(super) fn presence_msg(&self) -> ServerMsg {
        let presence = self.crowd.presence();
        let now = Instant::now();
        let grace = self.deps.config.disconnect_grace;
        let claim_in = |color: Color, here: bool| {
            // A correspondence game is never won by absence (it ends on time).
            if !self.state.seat_taken(color) || self.state.days_per_turn().is_some() {
                return None;
            }
            self.crowd
                .claim_in(color, here, grace, now)
                .map(project::millis)
        };
        ServerMsg::Presence(PresenceMsg {
            black: presence.black,
            claim_in_ms: ClaimInMs {
                black: claim_in(Color::Black, presence.black),
                white: claim_in(Color::White, presence.white),
            },
            spectators: presence.spectators,
            white: presence.white,
        })
    }

    pub(super) fn broadcast_presence(&mut self) {
        self.crowd.told();
        let text = self.presence_msg().to_text();
        self.broadcast(Utf8Bytes::from(text));
    }

    /// Serializes `msg` for one subscriber only (acks, errors, its own `state`).
    pub(super) fn send_to(&mut self, conn: ConnId, msg: &ServerMsg) {
        self.send_bytes(conn, Utf8Bytes::from(msg.to_text()));
    }

    pub(super) fn send_bytes(&mut self, conn: ConnId, text: Utf8Bytes) {
        if self.crowd.get(conn).is_none() {
            return;
        }
        if !self.fanout.send(conn, text) && self.crowd.remove(conn) {
            self.after_membership_change();
        }
    }

    /// Sends to every subscriber; drops (and reports) those that cannot keep up.
    pub(super) fn broadcast(&mut self, text: Utf8Bytes) {
        let dropped = self.fanout.publish(text);
        let mut changed = false;
        for conn in dropped {
            changed |= self.crowd.remove(conn);
        }
        if changed {
            self.after_membership_change();
        }
    }
}
