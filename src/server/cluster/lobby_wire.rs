//! What the nodes say to each other about the lobby, on the bus (JSON): notices for users'
//! lobby channels, lobby chat lines, each node's presence (who has a lobby channel open
//! there), and challenge operations forwarded to the lobby's owner with their answers.
//! Nothing here reaches a client as is: a notice carries the lobby message's text, serialized
//! once by the node that made it.

use serde::{Deserialize, Serialize};

use crate::server::play::protocol::ChatLineMsg;
use crate::server::players::account::{Account, UserId, Username};

/// The channel every node subscribes: notices, chat lines, presence.
pub const LOBBY_CHANNEL: &str = "marseillais:lobby";

/// The channel of one node: the challenge operations it runs as the lobby's owner, and the
/// answers to those it forwarded.
pub fn node_channel(node: &str) -> String {
    format!("marseillais:lobby:{node}")
}

/// One message on a lobby channel of the bus.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Wire {
    /// A lobby message's text for every channel of `user` (`None`: every lobby channel).
    Notice { user: Option<i64>, text: String },
    /// A lobby chat line, already stored: every node keeps it for `chat_history` and sends it.
    Chat { line: ChatLineMsg },
    /// A node's lobby channels now: anonymous ones, and the signed-in users present there.
    Presence {
        node: String,
        anonymous: u64,
        users: Vec<i64>,
    },
    /// A challenge operation for the lobby's owner; the answer goes to `reply_to`'s channel.
    Ask { id: u64, reply_to: String, op: Op },
    /// The owner's answer to [`Wire::Ask`] `id`: the HTTP response it would have given.
    Answer { id: u64, outcome: Outcome },
    /// A quick-pairing message (its text) for one page of the node whose channel it is on:
    /// its seat, or its seek replaced (the pools run on the lobby's owner).
    PoolTold { conn: u64, text: String },
    /// The owner's `pools` message (its text), for every node's lobby pages.
    PoolCounts { text: String },
}

/// A lobby page of some node, as a pool operation names it: its node, its connection there,
/// its account if signed in, and its address (seeks are bounded per address).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WirePage {
    pub node: String,
    pub conn: u64,
    pub account: Option<WireAccount>,
    pub ip: std::net::IpAddr,
}

/// A signed-in user as it travels (an [`Account`] has no serde of its own: its name is
/// checked again when it arrives).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireAccount {
    pub id: i64,
    pub name: String,
}

impl From<&Account> for WireAccount {
    fn from(account: &Account) -> WireAccount {
        WireAccount {
            id: account.id.0,
            name: account.name.as_str().to_owned(),
        }
    }
}

/// A [`WireAccount`] whose name is no username.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a forwarded account has a bad username")]
pub struct BadWireAccount;

impl WireAccount {
    pub fn account(&self) -> Result<Account, BadWireAccount> {
        Ok(Account {
            id: UserId(self.id),
            name: Username::parse(&self.name).map_err(|_| BadWireAccount)?,
        })
    }
}

/// A challenge operation, as the HTTP route received it on the asking node (the body already
/// read and checked as JSON there).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// `POST /api/challenges` with this body.
    Make {
        me: WireAccount,
        body: String,
    },
    /// `GET /api/challenges`.
    Mine {
        me: WireAccount,
    },
    Accept {
        me: WireAccount,
        id: String,
    },
    Decline {
        me: WireAccount,
        id: String,
    },
    Cancel {
        me: WireAccount,
        id: String,
    },
    /// `user`'s last lobby channel on the asking node closed past the grace: the owner
    /// withdraws their challenges unless they are present on some node.
    Left {
        user: i64,
    },
    /// A page's `pool_in`: answered 204 (it waits), or the refusal (a JSON `error` payload).
    PoolIn {
        page: WirePage,
        pool: String,
        rated: bool,
    },
    /// A page's `pool_out`, or the page closed: answered 204 (it left) or 404 (it waited no
    /// more: a wave took it).
    PoolOut {
        page: WirePage,
        pool: String,
        rated: bool,
    },
}

/// An HTTP response in transit: status, `Retry-After`, JSON body (empty for 204).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<String>,
    pub body: String,
}

/// A bus message that is no [`Wire`] (another version, or garbage).
#[derive(Debug, thiserror::Error)]
#[error("a lobby bus message does not read: {0}")]
pub struct BadWire(#[from] serde_json::Error);

impl Wire {
    pub fn to_bytes(&self) -> Vec<u8> {
        // A derived Serialize of plain fields cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Wire, BadWire> {
        Ok(serde_json::from_slice(bytes)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lobby_bus_message_reads_back_as_itself() {
        let me = WireAccount {
            id: 7,
            name: "alice".into(),
        };
        let all = [
            Wire::Notice {
                user: Some(3),
                text: r#"{"t":"online","d":{"count":1}}"#.into(),
            },
            Wire::Presence {
                node: "n1".into(),
                anonymous: 2,
                users: vec![1, 2],
            },
            Wire::Ask {
                id: 9,
                reply_to: "n2".into(),
                op: Op::Accept {
                    me: me.clone(),
                    id: "abc".into(),
                },
            },
            Wire::Ask {
                id: 10,
                reply_to: "n2".into(),
                op: Op::Left { user: 4 },
            },
            Wire::Ask {
                id: 11,
                reply_to: "n2".into(),
                op: Op::PoolIn {
                    page: WirePage {
                        node: "n2".into(),
                        conn: 5,
                        account: Some(me.clone()),
                        ip: std::net::IpAddr::from([127, 0, 0, 1]),
                    },
                    pool: "3+2".into(),
                    rated: true,
                },
            },
            Wire::PoolTold {
                conn: 5,
                text: "{}".into(),
            },
            Wire::PoolCounts { text: "{}".into() },
            Wire::Answer {
                id: 9,
                outcome: Outcome {
                    status: 429,
                    retry_after: Some("3".into()),
                    body: "{}".into(),
                },
            },
        ];
        for wire in all {
            assert_eq!(Wire::from_bytes(&wire.to_bytes()).unwrap(), wire);
        }
        assert!(Wire::from_bytes(b"{\"t\":\"nope\"}").is_err());
    }

    #[test]
    fn a_forwarded_account_with_a_bad_name_is_refused() {
        let bad = WireAccount {
            id: 1,
            name: "no spaces allowed".into(),
        };
        assert_eq!(bad.account(), Err(BadWireAccount));
    }
}
