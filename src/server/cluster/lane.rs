//! What nodes say to each other about games, on their lanes: each node subscribes one bus
//! channel, `marseillais:node:{id}` (its lane), and every message about a game it relays or
//! owns comes to it there, in the order its sender published (one publisher per node, see
//! [`super::Bus::publish`]). A relay's `Connect` is followed by its `Act`s on the same lane,
//! so the owner sees them in that order without an acknowledgement round trip.
//!
//! Payloads carry seat tokens and chat: they are never logged (their `Debug` is only used by
//! tests).

use serde::{Deserialize, Serialize};

use crate::server::play::protocol::{ErrorCode, GameSnapshot, Refusal};
use crate::server::play::room::SeatGrant;
use crate::server::play::room::fanout::ConnId;
use crate::server::players::account::{Account, UserId, Username};
use crate::server::web::rtt::RttEstimate;

/// The lane (bus channel) of a node.
pub fn channel(node: &str) -> String {
    format!("marseillais:node:{node}")
}

/// One message between two nodes about one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
pub enum LaneMsg {
    /// Relay -> owner: socket `conn` of node `from` joins the game (as `Command::Connect`).
    Connect {
        game: String,
        from: String,
        conn: u64,
        token: Option<String>,
        account: Option<i64>,
        since: Option<u64>,
    },
    /// Relay -> owner: a client message of `conn`, as its client JSON text.
    Act {
        game: String,
        from: String,
        conn: u64,
        msg: String,
        rtt: Option<WireRtt>,
    },
    /// Relay -> owner: socket `conn` went away.
    Disconnect {
        game: String,
        from: String,
        conn: u64,
    },
    /// Relay -> owner: an HTTP command (join, snapshot, PGN), answered with `Answer {id}`.
    Ask {
        game: String,
        from: String,
        id: u64,
        what: AskWhat,
    },
    /// Owner -> relay: the answer to `Ask {id}`.
    Answer { id: u64, reply: AskReply },
    /// Owner -> relay: the `seq`-th message (from 1) for the relay's socket `conn`.
    Deliver {
        game: String,
        conn: u64,
        seq: u64,
        text: String,
    },
    /// Owner -> relay: the room dropped the relay's socket `conn` (it could not keep up, or
    /// the room retired): the relay closes that socket.
    Ended {
        game: String,
        conn: u64,
        lagged: bool,
    },
    /// A node (re)started under id `node`: the other nodes' relays towards it resync (what
    /// they sent to its previous life is lost) and their remote members from it leave.
    Started { node: String },
    /// Owner -> relay: this node does not run the game (any more): the relay closes its
    /// sockets (1012) and forgets itself; they reconnect and find the current owner.
    Moved { game: String },
}

impl LaneMsg {
    pub fn encode(&self) -> Vec<u8> {
        // Every field serializes (strings, numbers, plain enums).
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Result<LaneMsg, BadLaneMsg> {
        serde_json::from_slice(bytes).map_err(|e| BadLaneMsg(e.to_string()))
    }
}

/// A lane message that does not decode (another version of the server, or garbage).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("undecodable lane message: {0}")]
pub struct BadLaneMsg(pub String);

/// A connection's round trip in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireRtt {
    pub smoothed_us: u64,
    pub latest_us: u64,
}

impl From<RttEstimate> for WireRtt {
    fn from(rtt: RttEstimate) -> WireRtt {
        let us = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
        WireRtt {
            smoothed_us: us(rtt.smoothed),
            latest_us: us(rtt.latest),
        }
    }
}

impl From<WireRtt> for RttEstimate {
    fn from(rtt: WireRtt) -> RttEstimate {
        RttEstimate {
            smoothed: std::time::Duration::from_micros(rtt.smoothed_us),
            latest: std::time::Duration::from_micros(rtt.latest_us),
        }
    }
}

/// The signed-in account behind an HTTP join.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireAccount {
    pub id: i64,
    pub name: String,
}

impl WireAccount {
    pub fn of(account: &Account) -> WireAccount {
        WireAccount {
            id: account.id.0,
            name: account.name.to_string(),
        }
    }

    /// `None` for a name that is no user name (the owner refuses such a join).
    pub fn account(&self) -> Option<Account> {
        Some(Account {
            id: UserId(self.id),
            name: Username::parse(&self.name).ok()?,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "q", rename_all = "snake_case")]
pub enum AskWhat {
    Join {
        account: Option<WireAccount>,
    },
    Snapshot,
    Pgn,
    /// Relay -> owner, while its sockets hear nothing: does the owner still have them, and
    /// how many messages has it sent each? (See `relay::check_after`.)
    Check {
        conns: Vec<u64>,
    },
}

/// A refusal on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireRefusal {
    pub code: ErrorCode,
    pub message: String,
}

impl From<&Refusal> for WireRefusal {
    fn from(r: &Refusal) -> WireRefusal {
        WireRefusal {
            code: r.code,
            message: r.message.clone(),
        }
    }
}

impl From<WireRefusal> for Refusal {
    fn from(r: WireRefusal) -> Refusal {
        Refusal::new(r.code, r.message)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "a", rename_all = "snake_case")]
pub enum AskReply {
    Join {
        grant: Result<SeatGrant, WireRefusal>,
    },
    Snapshot {
        snapshot: Box<GameSnapshot>,
    },
    Pgn {
        pgn: String,
    },
    /// For each conn of a `Check`, in order: the `seq` of the last `Deliver` published for it
    /// before this answer (0: none yet), or `None` if it is no member here.
    Check {
        sent: Vec<Option<u64>>,
    },
    /// The asked node does not run the game.
    Moved,
}

/// What the lane brings a relay.
pub enum RelayIn {
    Deliver {
        conn: u64,
        seq: u64,
        text: String,
    },
    Ended {
        conn: u64,
        lagged: bool,
    },
    /// Close every socket with 1012 and forget the relay.
    Resync,
    /// The owner's answer to a `Check` of these conns (`None`: no answer in time).
    Checked {
        conns: Vec<ConnId>,
        sent: Option<Vec<Option<u64>>>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_message_decodes_to_what_was_encoded() {
        let msgs = [
            LaneMsg::Connect {
                game: "g".into(),
                from: "n1".into(),
                conn: 7,
                token: Some("t".into()),
                account: Some(3),
                since: Some(12),
            },
            LaneMsg::Act {
                game: "g".into(),
                from: "n1".into(),
                conn: 7,
                msg: r#"{"t":"resign"}"#.into(),
                rtt: Some(WireRtt {
                    smoothed_us: 10,
                    latest_us: 20,
                }),
            },
            LaneMsg::Ask {
                game: "g".into(),
                from: "n1".into(),
                id: 1,
                what: AskWhat::Join {
                    account: Some(WireAccount {
                        id: 1,
                        name: "alice".into(),
                    }),
                },
            },
            LaneMsg::Answer {
                id: 1,
                reply: AskReply::Join {
                    grant: Err(WireRefusal {
                        code: ErrorCode::NotAvailable,
                        message: "no".into(),
                    }),
                },
            },
            LaneMsg::Deliver {
                game: "g".into(),
                conn: 7,
                seq: 1,
                text: "{}".into(),
            },
            LaneMsg::Moved { game: "g".into() },
            LaneMsg::Started { node: "n2".into() },
            LaneMsg::Ask {
                game: "g".into(),
                from: "n1".into(),
                id: 2,
                what: AskWhat::Check { conns: vec![7, 9] },
            },
            LaneMsg::Answer {
                id: 2,
                reply: AskReply::Check {
                    sent: vec![Some(3), None],
                },
            },
        ];
        for msg in msgs {
            assert_eq!(LaneMsg::decode(&msg.encode()), Ok(msg));
        }
        assert!(LaneMsg::decode(b"{\"k\":\"nope\"}").is_err());
    }
}
