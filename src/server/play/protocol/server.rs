//! What the server sends on a WebSocket: [`ServerMsg`], one variant per
//! message type of docs/protocol.md sections 3.3 and 3.5, each with a typed
//! payload, written in the envelope `{"t": type, "v": version, "d": payload}`
//! (`v` only on game events and `state`).
//!
//! Byte compatibility is the constraint that shapes these types: the wire
//! was first written with `serde_json::json!`, whose objects sort their keys,
//! so every payload struct declares its fields in alphabetical order (the
//! derive writes them in declaration order). The one exception is `state`
//! (see [`super::snapshot`]). The golden tests below pin the bytes, from
//! messages recorded from a real server (`tests/data/server_messages.jsonl`).
//!
//! Serialize is what the server writes ([`ServerMsg::to_text`], once per
//! message, whatever the number of recipients); Deserialize is what test
//! clients and the load generator read, so that they speak the same types.
//! The payloads refuse unknown fields: a field added on one side only fails
//! the other side's tests instead of being dropped silently.

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::error::{ErrorMsg, Refusal};
use super::names::{ClaimName, GameResult, PhaseName, Reason, Side};
use super::players::{Players, RatingsMsg};
use super::snapshot::StateMsg;
use super::uci::{submove, submoves};
use super::views::{ClockView, CorrespondenceView, OutcomeView};
use crate::rules::{Outcome, SubMove};
use crate::server::chat::ChatRoom;

/// A message from the server to one client or to everyone in a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerMsg {
    /// The whole game as of version `v` (on connect, and on a `hello` that
    /// cannot be answered with the missed events).
    State {
        v: u64,
        d: StateMsg,
    },
    /// The second seat was taken; the game starts.
    Join {
        v: u64,
        d: JoinMsg,
    },
    Move {
        v: u64,
        d: MoveMsg,
    },
    Takeback {
        v: u64,
        d: TakebackMsg,
    },
    DrawOffer {
        v: u64,
        d: ByMsg,
    },
    DrawDecline {
        v: u64,
        d: ByMsg,
    },
    /// An arena player berserked: who, and both clocks after it.
    Berserk {
        v: u64,
        d: BerserkMsg,
    },
    RematchOffer {
        v: u64,
        d: ByMsg,
    },
    Rematch {
        v: u64,
        d: RematchMsg,
    },
    End {
        v: u64,
        d: EndMsg,
    },
    /// To the mover only: its move is on disk, as version `d.v`.
    Ack(AckMsg),
    Error(ErrorMsg),
    Presence(PresenceMsg),
    /// The answer to a client `ping`; `d` is `{}`.
    Pong,
    /// To one player only: its seat in the rematch (holds a seat token).
    RematchSeat(RematchSeatMsg),
    /// After the end of a rated game is stored: both players' rating changes.
    Ratings(RatingsMsg),
    /// A chat line, stored, to those who may read its room. Not a game event: no `v`.
    Chat(ChatLineMsg),
    /// The recent lines of one room, oldest first: after `state` on every (re)connect, one per
    /// room the connection reads (and when a player starts reading the spectators' room).
    ChatHistory(ChatHistoryMsg),
}

/// The message types, as named in `t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MsgType {
    State,
    Join,
    Move,
    Takeback,
    DrawOffer,
    DrawDecline,
    Berserk,
    RematchOffer,
    Rematch,
    End,
    Ack,
    Error,
    Presence,
    Pong,
    RematchSeat,
    Ratings,
    Chat,
    ChatHistory,
}

impl MsgType {
    pub const ALL: [MsgType; 18] = [
        MsgType::State,
        MsgType::Join,
        MsgType::Move,
        MsgType::Takeback,
        MsgType::DrawOffer,
        MsgType::DrawDecline,
        MsgType::Berserk,
        MsgType::RematchOffer,
        MsgType::Rematch,
        MsgType::End,
        MsgType::Ack,
        MsgType::Error,
        MsgType::Presence,
        MsgType::Pong,
        MsgType::RematchSeat,
        MsgType::Ratings,
        MsgType::Chat,
        MsgType::ChatHistory,
    ];

    /// The `t` of the envelope.
    pub fn as_str(self) -> &'static str {
        match self {
            MsgType::State => "state",
            MsgType::Join => "join",
            MsgType::Move => "move",
            MsgType::Takeback => "takeback",
            MsgType::DrawOffer => "draw_offer",
            MsgType::DrawDecline => "draw_decline",
            MsgType::Berserk => "berserk",
            MsgType::RematchOffer => "rematch_offer",
            MsgType::Rematch => "rematch",
            MsgType::End => "end",
            MsgType::Ack => "ack",
            MsgType::Error => "error",
            MsgType::Presence => "presence",
            MsgType::Pong => "pong",
            MsgType::RematchSeat => "rematch_seat",
            MsgType::Ratings => "ratings",
            MsgType::Chat => "chat",
            MsgType::ChatHistory => "chat_history",
        }
    }

    /// Whether messages of this type carry the game's version `v`.
    pub fn is_versioned(self) -> bool {
        !matches!(
            self,
            MsgType::Ack
                | MsgType::Error
                | MsgType::Presence
                | MsgType::Pong
                | MsgType::RematchSeat
                | MsgType::Ratings
                | MsgType::Chat
                | MsgType::ChatHistory
        )
    }
}

/// The fields that describe the current position, carried by `join`,
/// `move` and `takeback` (and, all but the clock ones, by `state`).
/// Not itself a payload (its fields mix with each message's own in
/// alphabetical order); the payload constructors take it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionFields {
    pub check: bool,
    pub claims: Vec<ClaimName>,
    pub clock: Option<ClockView>,
    pub correspondence: Option<CorrespondenceView>,
    pub fen: String,
    /// Milliseconds left for the side to move's first turn, while that timer runs.
    pub first_move_ms: Option<u64>,
    /// Empty while the game is not being played.
    pub legal: Vec<SubMove>,
    pub phase: PhaseName,
    pub turn: Side,
}

/// `join`: the position fields and the colour of the seat just taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinMsg {
    pub check: bool,
    pub claims: Vec<ClaimName>,
    pub clock: Option<ClockView>,
    pub color: Side,
    /// Correspondence games only (absent otherwise): days per turn and the deadline. Boxed:
    /// 8 bytes instead of 24 in every [`ServerMsg`], which is sized by its largest payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<Box<CorrespondenceView>>,
    pub fen: String,
    pub first_move_ms: Option<u64>,
    #[serde(with = "submoves")]
    pub legal: Vec<SubMove>,
    pub phase: PhaseName,
    /// The signed-in players, once either seat has one (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
    pub turn: Side,
}

impl JoinMsg {
    pub fn new(position: PositionFields, color: Side, players: Option<Players>) -> JoinMsg {
        let PositionFields {
            check,
            claims,
            clock,
            correspondence,
            fen,
            first_move_ms,
            legal,
            phase,
            turn,
        } = position;
        let correspondence = correspondence.map(Box::new);
        JoinMsg {
            check,
            claims,
            clock,
            color,
            correspondence,
            fen,
            first_move_ms,
            legal,
            phase,
            players,
            turn,
        }
    }
}

/// `move`: the sub-move (`uci`, `san`, by `color`), the standing draw offer
/// after it, and the position fields after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveMsg {
    pub check: bool,
    pub claims: Vec<ClaimName>,
    pub clock: Option<ClockView>,
    pub color: Side,
    /// Correspondence games only (absent otherwise): days per turn and the deadline. Boxed:
    /// 8 bytes instead of 24 in every [`ServerMsg`], which is sized by its largest payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<Box<CorrespondenceView>>,
    pub draw_offer: Option<Side>,
    pub fen: String,
    pub first_move_ms: Option<u64>,
    #[serde(with = "submoves")]
    pub legal: Vec<SubMove>,
    pub phase: PhaseName,
    pub san: String,
    pub turn: Side,
    #[serde(with = "submove")]
    pub uci: SubMove,
}

impl MoveMsg {
    pub fn new(
        position: PositionFields,
        uci: SubMove,
        san: String,
        color: Side,
        draw_offer: Option<Side>,
    ) -> MoveMsg {
        let PositionFields {
            check,
            claims,
            clock,
            correspondence,
            fen,
            first_move_ms,
            legal,
            phase,
            turn,
        } = position;
        let correspondence = correspondence.map(Box::new);
        MoveMsg {
            check,
            claims,
            clock,
            color,
            correspondence,
            draw_offer,
            fen,
            first_move_ms,
            legal,
            phase,
            san,
            turn,
            uci,
        }
    }
}

/// `takeback`: the withdrawn first sub-move (`uci`) and the position fields
/// after it (the start of the turn again).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TakebackMsg {
    pub check: bool,
    pub claims: Vec<ClaimName>,
    pub clock: Option<ClockView>,
    /// Correspondence games only (absent otherwise): days per turn and the deadline. Boxed:
    /// 8 bytes instead of 24 in every [`ServerMsg`], which is sized by its largest payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<Box<CorrespondenceView>>,
    pub fen: String,
    pub first_move_ms: Option<u64>,
    #[serde(with = "submoves")]
    pub legal: Vec<SubMove>,
    pub phase: PhaseName,
    pub turn: Side,
    #[serde(with = "submove")]
    pub uci: SubMove,
}

impl TakebackMsg {
    pub fn new(position: PositionFields, uci: SubMove) -> TakebackMsg {
        let PositionFields {
            check,
            claims,
            clock,
            correspondence,
            fen,
            first_move_ms,
            legal,
            phase,
            turn,
        } = position;
        let correspondence = correspondence.map(Box::new);
        TakebackMsg {
            check,
            claims,
            clock,
            correspondence,
            fen,
            first_move_ms,
            legal,
            phase,
            turn,
            uci,
        }
    }
}

/// `draw_offer`, `draw_decline`, `rematch_offer`: who did it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ByMsg {
    pub by: Side,
}

/// `berserk`: who berserked, and both clocks after it (theirs halved).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BerserkMsg {
    pub by: Side,
    pub clock: Option<ClockView>,
}

/// `rematch`: the new game's id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RematchMsg {
    pub id: String,
}

/// `end`: the outcome and the clocks frozen at the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndMsg {
    pub clock: Option<ClockView>,
    pub reason: Reason,
    pub result: GameResult,
    pub winner: Option<Side>,
}

impl EndMsg {
    pub fn new(outcome: Outcome, clock: Option<ClockView>) -> EndMsg {
        let OutcomeView {
            reason,
            result,
            winner,
        } = outcome.into();
        EndMsg {
            clock,
            reason,
            result,
            winner,
        }
    }
}

/// `ack`: the client's ack id (`null` if it gave none) and the version its
/// move was stored as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AckMsg {
    pub id: Option<String>,
    pub v: u64,
}

/// `presence`: which seats have a socket, how many spectators, and for an
/// away seat how soon its opponent may claim victory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresenceMsg {
    pub black: bool,
    pub claim_in_ms: ClaimInMs,
    pub spectators: usize,
    pub white: bool,
}

/// Per seat: milliseconds until the opponent may `claim_victory`; `null`
/// for a connected or free seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimInMs {
    pub black: Option<u64>,
    pub white: Option<u64>,
}

/// `rematch_seat`: a player's seat in the rematch. Holds a seat token, so
/// its `Debug` does not show it (secrets are never logged).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RematchSeatMsg {
    pub color: Side,
    pub id: String,
    pub token: String,
    pub url: String,
}

impl std::fmt::Debug for RematchSeatMsg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RematchSeatMsg")
            .field("color", &self.color)
            .field("id", &self.id)
            .field("token", &"<secret>")
            .field("url", &self.url)
            .finish()
    }
}

/// `chat`: one stored line. `author` is the label shown (the username, else `white` / `black`
/// for a player, `anonymous` for a spectator or a lobby visitor); `user`, present only when the
/// author was signed in, is that username (so that an account named `white` is told from the
/// anonymous White player). `text` is plain text: clients render it as text, never as HTML.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatLineMsg {
    /// Unix milliseconds when the server stored it.
    pub at_ms: i64,
    pub author: String,
    pub room: ChatRoom,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

/// `chat_history`: a room's recent lines (at most 50), oldest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatHistoryMsg {
    pub lines: Vec<ChatLineMsg>,
    pub room: ChatRoom,
}

/// The `d` of `pong`: `{}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

impl ServerMsg {
    pub fn msg_type(&self) -> MsgType {
        match self {
            ServerMsg::State { .. } => MsgType::State,
            ServerMsg::Join { .. } => MsgType::Join,
            ServerMsg::Move { .. } => MsgType::Move,
            ServerMsg::Takeback { .. } => MsgType::Takeback,
            ServerMsg::DrawOffer { .. } => MsgType::DrawOffer,
            ServerMsg::DrawDecline { .. } => MsgType::DrawDecline,
            ServerMsg::Berserk { .. } => MsgType::Berserk,
            ServerMsg::RematchOffer { .. } => MsgType::RematchOffer,
            ServerMsg::Rematch { .. } => MsgType::Rematch,
            ServerMsg::End { .. } => MsgType::End,
            ServerMsg::Ack(_) => MsgType::Ack,
            ServerMsg::Error(_) => MsgType::Error,
            ServerMsg::Presence(_) => MsgType::Presence,
            ServerMsg::Pong => MsgType::Pong,
            ServerMsg::RematchSeat(_) => MsgType::RematchSeat,
            ServerMsg::Ratings(_) => MsgType::Ratings,
            ServerMsg::Chat(_) => MsgType::Chat,
            ServerMsg::ChatHistory(_) => MsgType::ChatHistory,
        }
    }

    /// The game version a game event or `state` carries.
    pub fn v(&self) -> Option<u64> {
        match self {
            ServerMsg::State { v, .. }
            | ServerMsg::Join { v, .. }
            | ServerMsg::Move { v, .. }
            | ServerMsg::Takeback { v, .. }
            | ServerMsg::DrawOffer { v, .. }
            | ServerMsg::DrawDecline { v, .. }
            | ServerMsg::Berserk { v, .. }
            | ServerMsg::RematchOffer { v, .. }
            | ServerMsg::Rematch { v, .. }
            | ServerMsg::End { v, .. } => Some(*v),
            ServerMsg::Ack(_)
            | ServerMsg::Error(_)
            | ServerMsg::Presence(_)
            | ServerMsg::Pong
            | ServerMsg::RematchSeat(_)
            | ServerMsg::Ratings(_)
            | ServerMsg::Chat(_)
            | ServerMsg::ChatHistory(_) => None,
        }
    }

    /// An `error` refusing a message (with the move's ack id, if any).
    pub fn error(refusal: &Refusal, id: Option<&str>) -> ServerMsg {
        ServerMsg::Error(ErrorMsg::new(refusal, id))
    }

    /// The text frame: serialized once, then shared by every recipient. A
    /// `state` joins its pre-serialized shared part without parsing it
    /// ([`StateMsg::write_d`]).
    pub fn to_text(&self) -> String {
        let written = match self {
            ServerMsg::State { v, d } => {
                let mut text = format!("{{\"t\":\"state\",\"v\":{v},\"d\":");
                d.write_d(&mut text).map(|()| {
                    text.push('}');
                    text
                })
            }
            other => serde_json::to_string(other),
        };
        // Unreachable: every payload serializes (string keys, no custom
        // serializer that can fail). Logged rather than sent half-written.
        written.unwrap_or_else(|error| {
            tracing::error!(%error, t = self.msg_type().as_str(), "a server message did not serialize");
            String::from("{}")
        })
    }

    /// Reads one server text frame (test clients, the load generator).
    pub fn from_text(text: &str) -> Result<ServerMsg, serde_json::Error> {
        serde_json::from_str(text)
    }
}

impl Serialize for ServerMsg {
    /// The envelope; prefer [`ServerMsg::to_text`] on the server, which does
    /// not re-read a `state`'s shared part to write it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let v = self.v();
        let mut map = serializer.serialize_map(Some(if v.is_some() { 3 } else { 2 }))?;
        map.serialize_entry("t", self.msg_type().as_str())?;
        if let Some(v) = v {
            map.serialize_entry("v", &v)?;
        }
        match self {
            ServerMsg::State { d, .. } => map.serialize_entry("d", d)?,
            ServerMsg::Join { d, .. } => map.serialize_entry("d", d)?,
            ServerMsg::Move { d, .. } => map.serialize_entry("d", d)?,
            ServerMsg::Takeback { d, .. } => map.serialize_entry("d", d)?,
            ServerMsg::DrawOffer { d, .. }
            | ServerMsg::DrawDecline { d, .. }
            | ServerMsg::RematchOffer { d, .. } => map.serialize_entry("d", d)?,
            ServerMsg::Berserk { d, .. } => map.serialize_entry("d", d)?,
            ServerMsg::Rematch { d, .. } => map.serialize_entry("d", d)?,
            ServerMsg::End { d, .. } => map.serialize_entry("d", d)?,
            ServerMsg::Ack(d) => map.serialize_entry("d", d)?,
            ServerMsg::Error(d) => map.serialize_entry("d", d)?,
            ServerMsg::Presence(d) => map.serialize_entry("d", d)?,
            ServerMsg::Pong => map.serialize_entry("d", &Empty {})?,
            ServerMsg::RematchSeat(d) => map.serialize_entry("d", d)?,
            ServerMsg::Ratings(d) => map.serialize_entry("d", d)?,
            ServerMsg::Chat(d) => map.serialize_entry("d", d)?,
            ServerMsg::ChatHistory(d) => map.serialize_entry("d", d)?,
        }
        map.end()
    }
}

/// A payload read for a known type.
enum Payload {
    State(StateMsg),
    Join(JoinMsg),
    Move(MoveMsg),
    Takeback(TakebackMsg),
    By(ByMsg),
    Berserk(BerserkMsg),
    Rematch(RematchMsg),
    End(EndMsg),
    Ack(AckMsg),
    Error(ErrorMsg),
    Presence(PresenceMsg),
    Pong,
    RematchSeat(RematchSeatMsg),
    Ratings(RatingsMsg),
    Chat(ChatLineMsg),
    ChatHistory(ChatHistoryMsg),
}

/// Reads the `d` of a message of a known type.
struct PayloadSeed(MsgType);

impl<'de> de::DeserializeSeed<'de> for PayloadSeed {
    type Value = Payload;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Payload, D::Error> {
        Ok(match self.0 {
            MsgType::State => Payload::State(StateMsg::deserialize(d)?),
            MsgType::Join => Payload::Join(JoinMsg::deserialize(d)?),
            MsgType::Move => Payload::Move(MoveMsg::deserialize(d)?),
            MsgType::Takeback => Payload::Takeback(TakebackMsg::deserialize(d)?),
            MsgType::DrawOffer | MsgType::DrawDecline | MsgType::RematchOffer => {
                Payload::By(ByMsg::deserialize(d)?)
            }
            MsgType::Berserk => Payload::Berserk(BerserkMsg::deserialize(d)?),
            MsgType::Rematch => Payload::Rematch(RematchMsg::deserialize(d)?),
            MsgType::End => Payload::End(EndMsg::deserialize(d)?),
            MsgType::Ack => Payload::Ack(AckMsg::deserialize(d)?),
            MsgType::Error => Payload::Error(ErrorMsg::deserialize(d)?),
            MsgType::Presence => Payload::Presence(PresenceMsg::deserialize(d)?),
            MsgType::Pong => {
                Empty::deserialize(d)?;
                Payload::Pong
            }
            MsgType::RematchSeat => Payload::RematchSeat(RematchSeatMsg::deserialize(d)?),
            MsgType::Ratings => Payload::Ratings(RatingsMsg::deserialize(d)?),
            MsgType::Chat => Payload::Chat(ChatLineMsg::deserialize(d)?),
            MsgType::ChatHistory => Payload::ChatHistory(ChatHistoryMsg::deserialize(d)?),
        })
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum EnvelopeKey {
    T,
    V,
    D,
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = ServerMsg;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a server message {\"t\": type, \"v\": version, \"d\": data}")
    }

    /// The server writes `t` first, so `d` is read straight into its type;
    /// a `d` met before `t` (another writer) is held as a JSON value first.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ServerMsg, A::Error> {
        let mut t: Option<MsgType> = None;
        let mut v: Option<u64> = None;
        let mut payload: Option<Payload> = None;
        let mut early_d: Option<Value> = None;
        while let Some(key) = map.next_key::<EnvelopeKey>()? {
            match key {
                EnvelopeKey::T if t.is_some() => return Err(de::Error::duplicate_field("t")),
                EnvelopeKey::V if v.is_some() => return Err(de::Error::duplicate_field("v")),
                EnvelopeKey::D if payload.is_some() || early_d.is_some() => {
                    return Err(de::Error::duplicate_field("d"));
                }
                EnvelopeKey::T => t = Some(map.next_value()?),
                EnvelopeKey::V => v = Some(map.next_value()?),
                EnvelopeKey::D => match t {
                    Some(kind) => payload = Some(map.next_value_seed(PayloadSeed(kind))?),
                    None => early_d = Some(map.next_value()?),
                },
            }
        }
        let t = t.ok_or_else(|| de::Error::missing_field("t"))?;
        let payload = match (payload, early_d) {
            (Some(payload), _) => payload,
            (None, Some(value)) => de::DeserializeSeed::deserialize(PayloadSeed(t), value)
                .map_err(de::Error::custom)?,
            (None, None) => return Err(de::Error::missing_field("d")),
        };
        let versioned = |v: Option<u64>| v.ok_or_else(|| de::Error::missing_field("v"));
        if !t.is_versioned() && v.is_some() {
            return Err(de::Error::custom(format!(
                "a {} message has no v",
                t.as_str()
            )));
        }
        Ok(match (t, payload) {
            (MsgType::State, Payload::State(d)) => ServerMsg::State {
                v: versioned(v)?,
                d,
            },
            (MsgType::Join, Payload::Join(d)) => ServerMsg::Join {
                v: versioned(v)?,
                d,
            },
            (MsgType::Move, Payload::Move(d)) => ServerMsg::Move {
                v: versioned(v)?,
                d,
            },
            (MsgType::Takeback, Payload::Takeback(d)) => ServerMsg::Takeback {
                v: versioned(v)?,
                d,
            },
            (MsgType::DrawOffer, Payload::By(d)) => ServerMsg::DrawOffer {
                v: versioned(v)?,
                d,
            },
            (MsgType::DrawDecline, Payload::By(d)) => ServerMsg::DrawDecline {
                v: versioned(v)?,
                d,
            },
            (MsgType::Berserk, Payload::Berserk(d)) => ServerMsg::Berserk {
                v: versioned(v)?,
                d,
            },
            (MsgType::RematchOffer, Payload::By(d)) => ServerMsg::RematchOffer {
                v: versioned(v)?,
                d,
            },
            (MsgType::Rematch, Payload::Rematch(d)) => ServerMsg::Rematch {
                v: versioned(v)?,
                d,
            },
            (MsgType::End, Payload::End(d)) => ServerMsg::End {
                v: versioned(v)?,
                d,
            },
            (MsgType::Ack, Payload::Ack(d)) => ServerMsg::Ack(d),
            (MsgType::Error, Payload::Error(d)) => ServerMsg::Error(d),
            (MsgType::Presence, Payload::Presence(d)) => ServerMsg::Presence(d),
            (MsgType::Pong, Payload::Pong) => ServerMsg::Pong,
            (MsgType::RematchSeat, Payload::RematchSeat(d)) => ServerMsg::RematchSeat(d),
            (MsgType::Ratings, Payload::Ratings(d)) => ServerMsg::Ratings(d),
            (MsgType::Chat, Payload::Chat(d)) => ServerMsg::Chat(d),
            (MsgType::ChatHistory, Payload::ChatHistory(d)) => ServerMsg::ChatHistory(d),
            // PayloadSeed reads the payload of the type it is given.
            (t, _) => {
                return Err(de::Error::custom(format!(
                    "{} payload mismatch",
                    t.as_str()
                )));
            }
        })
    }
}

impl<'de> Deserialize<'de> for ServerMsg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ServerMsg, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

#[cfg(test)]
mod tests;
