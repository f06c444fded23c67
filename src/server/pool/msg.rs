//! The pools on the wire (docs/protocol.md "Quick pairing"): what a lobby page sends
//! (`pool_in`, `pool_out`) and what it is sent (`pools`, `pool_joined`, `pool_left`,
//! `pool_paired`), in the lobby channel's envelope `{"t": type, "d": payload}`.
//!
//! Serialize is what the server writes; Deserialize is what the tests read, with unknown fields
//! refused, so that a field added on one side only fails the other side's tests.

use serde::{Deserialize, Serialize};

use crate::server::domain::side::Side;
use crate::server::game::ClockSpec;
use crate::server::play::protocol::{ErrorCode, Refusal};

use super::catalog::{POOLS, QueueKey};

/// A lobby page's pool request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolRequest {
    /// Wait in a pool (leaving any other): `{"t":"pool_in","d":{"pool":"3+2","rated":true}}`.
    In(QueueKey),
    /// Stop waiting: `{"t":"pool_out"}`.
    Out,
    /// Send this page the `pools` counts, now and as they change: `{"t":"pools_watch"}` (a
    /// lobby page; the other pages of the site keep their channel without them).
    Watch,
}

/// A frame's type, its other fields skipped.
#[derive(Deserialize)]
struct Kind<'a> {
    #[serde(borrow)]
    t: std::borrow::Cow<'a, str>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    t: String,
    #[serde(default)]
    d: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InData {
    pool: String,
    #[serde(default)]
    rated: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutData {}

impl PoolRequest {
    /// Reads a lobby frame's text as a pool request: `None` when it is no pool message (its `t`
    /// is not `pool_in` or `pool_out`, or it is no envelope at all: the lobby channel's own
    /// reader answers that), or the request, or why it is refused.
    pub fn from_text(text: &str) -> Option<Result<PoolRequest, Refusal>> {
        // Every lobby frame comes here first (chat lines too): its type alone is read, without
        // building its payload, and only a pool message is read whole.
        let kind: Kind<'_> = serde_json::from_str(text).ok()?;
        if !matches!(kind.t.as_ref(), "pool_in" | "pool_out" | "pools_watch") {
            return None;
        }
        let bad = |e: serde_json::Error| Refusal::new(ErrorCode::BadMessage, e.to_string());
        let envelope: Envelope = match serde_json::from_str(text) {
            Ok(envelope) => envelope,
            Err(error) => return Some(Err(bad(error))),
        };
        let data = envelope
            .d
            .filter(|d| !d.is_null())
            .unwrap_or_else(|| serde_json::Value::Object(Default::default()));
        Some(match envelope.t.as_str() {
            "pool_in" => serde_json::from_value::<InData>(data)
                .map_err(bad)
                .and_then(|d| {
                    QueueKey::find(&d.pool, d.rated)
                        .map(PoolRequest::In)
                        .ok_or_else(|| {
                            let names: Vec<&str> = POOLS.iter().map(|p| p.id).collect();
                            Refusal::new(
                                ErrorCode::BadMessage,
                                format!(
                                    "pool: {:?} is no pool; pools are {}",
                                    d.pool,
                                    names.join(", ")
                                ),
                            )
                        })
                }),
            "pool_out" => serde_json::from_value::<OutData>(data)
                .map_err(bad)
                .map(|_| PoolRequest::Out),
            "pools_watch" => serde_json::from_value::<OutData>(data)
                .map_err(bad)
                .map(|_| PoolRequest::Watch),
            _ => return None,
        })
    }
}

/// A pool message to a lobby page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
pub enum PoolMsg {
    /// How many wait in each pool: to a page that sent `pools_watch`, then whenever it
    /// changes (at most once a `LobbyLimits::online_every`).
    Pools(PoolsMsg),
    /// This page's seek waits in `pool`.
    PoolJoined(QueueView),
    /// This page's seek no longer waits, and why.
    PoolLeft(LeftMsg),
    /// A game was made for this page's seek: its seat (the token is this seat's secret, sent
    /// to this page alone).
    PoolPaired(PairedMsg),
}

impl PoolMsg {
    /// The text frame.
    pub fn to_text(&self) -> String {
        // Unreachable: every payload serializes (string keys, no custom serializer).
        serde_json::to_string(self).unwrap_or_else(|error| {
            tracing::error!(%error, "a pool message did not serialize");
            String::from("{}")
        })
    }

    /// Reads one text frame (tests).
    pub fn from_text(text: &str) -> Result<PoolMsg, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// `pools`: every pool, fastest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolsMsg {
    pub pools: Vec<PoolCount>,
}

/// One pool and how many wait in it, on each side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolCount {
    pub id: String,
    pub clock: ClockSpec,
    /// Accounts waiting for a rated game.
    pub rated: usize,
    /// Players (signed in or not) waiting for a casual game.
    pub casual: usize,
}

/// A queue as the wire names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueView {
    pub pool: String,
    pub rated: bool,
}

impl From<QueueKey> for QueueView {
    fn from(key: QueueKey) -> QueueView {
        QueueView {
            pool: key.pool().id.to_owned(),
            rated: key.rated,
        }
    }
}

/// Why a seek stopped waiting without a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeftReason {
    /// The page sent `pool_out`.
    Cancelled,
    /// The same account joined a pool from another page (an account waits once).
    Replaced,
    /// The pools were restarted (several nodes: the node that runs them changed); join again.
    Interrupted,
}

/// `pool_left`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeftMsg {
    pub pool: String,
    pub rated: bool,
    pub reason: LeftReason,
}

/// `pool_paired`: the game and this player's seat in it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairedMsg {
    pub pool: String,
    pub rated: bool,
    pub game: String,
    pub url: String,
    pub color: Side,
    pub token: String,
}

/// Never shows the seat token.
impl std::fmt::Debug for PairedMsg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairedMsg")
            .field("pool", &self.pool)
            .field("rated", &self.rated)
            .field("game", &self.game)
            .field("color", &self.color)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_requests_are_read_and_other_messages_left_to_the_lobby() {
        assert_eq!(
            PoolRequest::from_text(r#"{"t":"pool_in","d":{"pool":"3+2","rated":true}}"#),
            Some(Ok(PoolRequest::In(QueueKey::find("3+2", true).unwrap())))
        );
        assert_eq!(
            PoolRequest::from_text(r#"{"t":"pool_in","d":{"pool":"1+0"}}"#),
            Some(Ok(PoolRequest::In(QueueKey::find("1+0", false).unwrap())))
        );
        assert_eq!(
            PoolRequest::from_text(r#"{"t":"pool_out"}"#),
            Some(Ok(PoolRequest::Out))
        );
        assert_eq!(
            PoolRequest::from_text(r#"{"t":"pools_watch"}"#),
            Some(Ok(PoolRequest::Watch))
        );
        assert_eq!(PoolRequest::from_text(r#"{"t":"ping"}"#), None);
        assert_eq!(
            PoolRequest::from_text(r#"{"t":"chat","d":{"room":"lobby","text":"pool_in"}}"#),
            None
        );
        assert!(
            matches!(
                PoolRequest::from_text(r#"{"t":"pool_in","d":{"pool":"3+2"},"x":1}"#),
                Some(Err(_))
            ),
            "an unknown top-level key is refused"
        );
        assert_eq!(PoolRequest::from_text("not json"), None);
    }

    #[test]
    fn a_bad_pool_request_is_refused_with_what_is_wrong() {
        let refused = |text: &str| match PoolRequest::from_text(text) {
            Some(Err(refusal)) => refusal,
            other => panic!("{text}: {other:?}"),
        };
        let unknown = refused(r#"{"t":"pool_in","d":{"pool":"2+1"}}"#);
        assert_eq!(unknown.code, ErrorCode::BadMessage);
        assert!(unknown.message.contains("3+2"), "{}", unknown.message);
        assert_eq!(
            refused(r#"{"t":"pool_in","d":{}}"#).code,
            ErrorCode::BadMessage
        );
        assert_eq!(
            refused(r#"{"t":"pool_in","d":{"pool":"3+2","rated":"yes"}}"#).code,
            ErrorCode::BadMessage
        );
        assert_eq!(
            refused(r#"{"t":"pool_in","d":{"pool":"3+2","extra":1}}"#).code,
            ErrorCode::BadMessage
        );
        assert_eq!(
            refused(r#"{"t":"pool_out","d":{"x":1}}"#).code,
            ErrorCode::BadMessage
        );
    }

    #[test]
    fn pool_messages_have_the_documented_bytes() {
        let joined = PoolMsg::PoolJoined(QueueKey::find("5+3", false).unwrap().into());
        assert_eq!(
            joined.to_text(),
            r#"{"t":"pool_joined","d":{"pool":"5+3","rated":false}}"#
        );
        let left = PoolMsg::PoolLeft(LeftMsg {
            pool: "5+3".into(),
            rated: true,
            reason: LeftReason::Replaced,
        });
        assert_eq!(
            left.to_text(),
            r#"{"t":"pool_left","d":{"pool":"5+3","rated":true,"reason":"replaced"}}"#
        );
        let counts = PoolMsg::Pools(PoolsMsg {
            pools: vec![PoolCount {
                id: "1+0".into(),
                clock: POOLS[0].clock,
                rated: 2,
                casual: 1,
            }],
        });
        assert_eq!(
            counts.to_text(),
            r#"{"t":"pools","d":{"pools":[{"id":"1+0","clock":{"base_secs":60,"increment_secs":0},"rated":2,"casual":1}]}}"#
        );
        let paired = PoolMsg::PoolPaired(PairedMsg {
            pool: "1+0".into(),
            rated: false,
            game: "g1".into(),
            url: "/game/g1".into(),
            color: Side::White,
            token: "secret".into(),
        });
        assert_eq!(
            paired.to_text(),
            r#"{"t":"pool_paired","d":{"pool":"1+0","rated":false,"game":"g1","url":"/game/g1","color":"white","token":"secret"}}"#
        );
        assert!(!format!("{paired:?}").contains("secret"));
        assert_eq!(PoolMsg::from_text(&paired.to_text()).ok(), Some(paired));
    }
}
