//! What clients may send: [`ClientMsg`], parsed strictly from one text frame
//! by [`parse_client`], with a typed [`Refusal`] for anything else (bad
//! JSON, an unknown type, a bad or duplicated field).

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{ErrorCode, ErrorMsg, Refusal};
use super::names::ClaimName;
use crate::rules::{Claim, SubMove};
use crate::server::chat::{ChatRoom, ChatText, ChatTextError};

/// Longest accepted client ack id.
pub const MAX_ACK_ID_LEN: usize = 64;

/// A message from a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMsg {
    Hello {
        token: Option<String>,
        v: Option<u64>,
    },
    Move {
        mv: SubMove,
        /// The client's ack id (a JSON string or integer, normalized to text).
        id: Option<String>,
        /// The version of the last event the client had seen when it played
        /// the move: the position it was meant for. Absent: not checked.
        v: Option<u64>,
        /// The lag the client measured itself (ms): a hint the lag tracker
        /// never trusts beyond what the server measured (docs/protocol.md
        /// section 4). Absent: the server's own measure alone.
        lag: Option<u32>,
    },
    TakebackSubmove,
    Resign,
    DrawOffer,
    DrawAccept,
    DrawDecline,
    DrawClaim {
        claim: Option<Claim>,
    },
    Abort,
    /// Half the clock, no increment, a point more on a win (arena games).
    Berserk,
    RematchOffer,
    RematchAccept,
    ClaimVictory,
    Ping,
    /// A chat line for `room` (a game's `player` or `spectator`, or on /ws/lobby `lobby`); the
    /// text is already clean and within the limit (a longer one is refused with `too_long`).
    Chat {
        room: ChatRoom,
        text: ChatText,
    },
    /// A player asks to read (or stop reading) the spectators' room.
    ChatWatch {
        spectator: bool,
    },
}

impl ClientMsg {
    /// Whether only a seated player may send it.
    pub fn needs_seat(&self) -> bool {
        !matches!(
            self,
            ClientMsg::Hello { .. }
                | ClientMsg::Ping
                | ClientMsg::Chat { .. }
                | ClientMsg::ChatWatch { .. }
        )
    }

    /// The `t` of the envelope.
    pub fn type_name(&self) -> &'static str {
        match self {
            ClientMsg::Hello { .. } => "hello",
            ClientMsg::Move { .. } => "move",
            ClientMsg::TakebackSubmove => "takeback_submove",
            ClientMsg::Resign => "resign",
            ClientMsg::DrawOffer => "draw_offer",
            ClientMsg::DrawAccept => "draw_accept",
            ClientMsg::DrawDecline => "draw_decline",
            ClientMsg::DrawClaim { .. } => "draw_claim",
            ClientMsg::Abort => "abort",
            ClientMsg::Berserk => "berserk",
            ClientMsg::RematchOffer => "rematch_offer",
            ClientMsg::RematchAccept => "rematch_accept",
            ClientMsg::ClaimVictory => "claim_victory",
            ClientMsg::Ping => "ping",
            ClientMsg::Chat { .. } => "chat",
            ClientMsg::ChatWatch { .. } => "chat_watch",
        }
    }

    /// The text frame a client sends (test clients, the load generator):
    /// `{"t": type}`, with `d` only when there is data, absent fields left
    /// out. [`parse_client`] reads it back to the same message.
    pub fn to_text(&self) -> String {
        // Unreachable fallback: every field serializes.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

impl Serialize for ClientMsg {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct HelloOut<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            token: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            v: Option<u64>,
        }
        #[derive(Serialize)]
        struct MoveOut<'a> {
            #[serde(with = "super::uci::submove")]
            uci: SubMove,
            #[serde(skip_serializing_if = "Option::is_none")]
            id: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            v: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            lag: Option<u32>,
        }
        #[derive(Serialize)]
        struct ClaimOut {
            claim: ClaimName,
        }
        #[derive(Serialize)]
        struct ChatOut<'a> {
            room: ChatRoom,
            text: &'a str,
        }
        #[derive(Serialize)]
        struct WatchOut {
            spectator: bool,
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("t", self.type_name())?;
        match self {
            ClientMsg::Hello { token, v } if token.is_some() || v.is_some() => {
                let token = token.as_deref();
                map.serialize_entry("d", &HelloOut { token, v: *v })?;
            }
            ClientMsg::Move { mv, id, v, lag } => {
                let id = id.as_deref();
                map.serialize_entry(
                    "d",
                    &MoveOut {
                        uci: *mv,
                        id,
                        v: *v,
                        lag: *lag,
                    },
                )?;
            }
            ClientMsg::DrawClaim { claim: Some(claim) } => {
                let claim = ClaimName::from(*claim);
                map.serialize_entry("d", &ClaimOut { claim })?;
            }
            ClientMsg::Chat { room, text } => {
                let text = text.as_str();
                map.serialize_entry("d", &ChatOut { room: *room, text })?;
            }
            ClientMsg::ChatWatch { spectator } => {
                map.serialize_entry(
                    "d",
                    &WatchOut {
                        spectator: *spectator,
                    },
                )?;
            }
            _ => {}
        }
        map.end()
    }
}

#[derive(Deserialize)]
struct Envelope {
    t: String,
    #[serde(default)]
    d: Data,
}

/// The `d` of a client message, read as a JSON value that remembers the
/// first duplicate key it met. serde_json keeps the last of duplicate keys
/// silently (the derived envelope refuses a duplicate `t` or `d`, but `d`
/// is read as a [`Value`]), so `{"uci":"e2e4","uci":"d2d4"}` would play
/// whichever the client's JSON writer put last. Reading on past the
/// duplicate (instead of failing the whole envelope) lets the refusal be a
/// `bad_message` that names the key and where it is.
#[derive(Default)]
struct Data {
    value: Value,
    /// The first duplicate met.
    duplicate: Option<Duplicate>,
}

/// A key given twice: `"uci" in d`, `"c" in d.a.b[1]`.
#[derive(Debug)]
struct Duplicate {
    /// The key (at most [`SHOWN_KEY_CHARS`] of it).
    key: String,
    /// The object it is in: `d`, `d.a.b[1]`.
    path: String,
}

impl Duplicate {
    /// Whether it is one of `d`'s own keys named `key`.
    fn is_top_level(&self, key: &str) -> bool {
        self.path == "d" && self.key == key
    }
}

impl std::fmt::Display for Duplicate {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{:?} in {}", self.key, self.path)
    }
}

impl<'de> Deserialize<'de> for Data {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Data, D::Error> {
        let mut duplicate = None;
        let value = deserializer.deserialize_any(StrictVisitor {
            path: "d".to_string(),
            duplicate: &mut duplicate,
        })?;
        Ok(Data { value, duplicate })
    }
}

/// Builds a [`Value`], recording the first duplicate key under `path`.
/// Recursion depth is bounded by serde_json's own nesting limit (128).
struct StrictVisitor<'a> {
    path: String,
    duplicate: &'a mut Option<Duplicate>,
}

/// Longest part of a duplicate key quoted back in the refusal.
const SHOWN_KEY_CHARS: usize = 32;

impl<'de> serde::de::DeserializeSeed<'de> for StrictVisitor<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for StrictVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let seed = StrictVisitor {
                path: format!("{}[{}]", self.path, items.len()),
                duplicate: &mut *self.duplicate,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let shown: String = key.chars().take(SHOWN_KEY_CHARS).collect();
            let seed = StrictVisitor {
                path: format!("{}.{shown}", self.path),
                duplicate: &mut *self.duplicate,
            };
            let value = map.next_value_seed(seed)?;
            if object.insert(key, value).is_some() && self.duplicate.is_none() {
                *self.duplicate = Some(Duplicate {
                    key: shown,
                    path: self.path.clone(),
                });
            }
        }
        Ok(Value::Object(object))
    }
}

#[derive(Deserialize)]
struct HelloData {
    token: Option<String>,
    v: Option<u64>,
}

#[derive(Deserialize)]
struct ClaimData {
    claim: Option<ClaimName>,
}

#[derive(Deserialize)]
struct ChatData {
    room: ChatRoom,
    text: String,
}

#[derive(Deserialize)]
struct WatchData {
    spectator: bool,
}

/// A client frame [`parse_client`] refused: why, and the ack id of the `move` it was when that
/// move's `id` could be read (docs/protocol.md 3.4: a refused move is answered with its id,
/// whatever else in it is malformed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{refusal}")]
pub struct FrameRefusal {
    pub refusal: Refusal,
    pub id: Option<String>,
}

impl FrameRefusal {
    /// The `d` of the `error` message that answers it.
    pub fn error_msg(&self) -> ErrorMsg {
        ErrorMsg::new(&self.refusal, self.id.as_deref())
    }
}

impl From<Refusal> for FrameRefusal {
    fn from(refusal: Refusal) -> FrameRefusal {
        FrameRefusal { refusal, id: None }
    }
}

/// Parses one client text frame, in two steps: the envelope (`t`, and `d` read as a value),
/// and for a `move` its ack id, which every later refusal of the move then carries; then the
/// rest of `d`, by the message's type.
pub fn parse_client(text: &str) -> Result<ClientMsg, FrameRefusal> {
    let envelope: Envelope = serde_json::from_str(text).map_err(|e| {
        Refusal::new(
            ErrorCode::BadJson,
            format!("expected a JSON object {{\"t\": type, \"d\": data}}: {e}"),
        )
    })?;
    let Data { value, duplicate } = envelope.d;
    let d = if value.is_null() {
        Value::Object(Default::default())
    } else {
        value
    };
    let id = match envelope.t.as_str() {
        "move" => readable_id(&d, duplicate.as_ref()),
        _ => None,
    };
    let refused = |refusal: Refusal| FrameRefusal {
        refusal,
        id: id.clone(),
    };
    if let Some(duplicate) = duplicate {
        return Err(refused(Refusal::new(
            ErrorCode::BadMessage,
            format!("duplicate key {duplicate}"),
        )));
    }
    message(&envelope.t, d).map_err(refused)
}

/// The ack id of a move's `d`, when it has one that [`ack_id`] accepts and gives once.
fn readable_id(d: &Value, duplicate: Option<&Duplicate>) -> Option<String> {
    if duplicate.is_some_and(|duplicate| duplicate.is_top_level("id")) {
        return None;
    }
    ack_id(d.get("id").cloned()).ok().flatten()
}

/// The message of type `t` with data `d` (an object when the frame had none).
fn message(t: &str, d: Value) -> Result<ClientMsg, Refusal> {
    let bad = |e: serde_json::Error| Refusal::new(ErrorCode::BadMessage, e.to_string());
    Ok(match t {
        "hello" => {
            let d: HelloData = serde_json::from_value(d).map_err(bad)?;
            ClientMsg::Hello {
                token: d.token,
                v: d.v,
            }
        }
        "move" => move_message(d)?,
        "takeback_submove" => ClientMsg::TakebackSubmove,
        "resign" => ClientMsg::Resign,
        "draw_offer" => ClientMsg::DrawOffer,
        "draw_accept" => ClientMsg::DrawAccept,
        "draw_decline" => ClientMsg::DrawDecline,
        "draw_claim" => {
            let d: ClaimData = serde_json::from_value(d).map_err(bad)?;
            ClientMsg::DrawClaim {
                claim: d.claim.map(Claim::from),
            }
        }
        "abort" => ClientMsg::Abort,
        "berserk" => ClientMsg::Berserk,
        "rematch_offer" => ClientMsg::RematchOffer,
        "rematch_accept" => ClientMsg::RematchAccept,
        "claim_victory" => ClientMsg::ClaimVictory,
        "ping" => ClientMsg::Ping,
        "chat" => {
            let d: ChatData = serde_json::from_value(d).map_err(bad)?;
            let text = ChatText::parse(&d.text).map_err(|e| match e {
                ChatTextError::TooLong { .. } => Refusal::new(ErrorCode::TooLong, e.to_string()),
                // No new wire code: a line that is not one is a `bad_message`, and the message
                // says which rule it broke.
                ChatTextError::Empty
                | ChatTextError::Invisible
                | ChatTextError::TooManyMarks { .. } => {
                    Refusal::new(ErrorCode::BadMessage, e.to_string())
                }
            })?;
            ClientMsg::Chat { room: d.room, text }
        }
        "chat_watch" => {
            let d: WatchData = serde_json::from_value(d).map_err(bad)?;
            ClientMsg::ChatWatch {
                spectator: d.spectator,
            }
        }
        other => {
            let shown: String = other.chars().take(32).collect();
            return Err(Refusal::new(
                ErrorCode::UnknownType,
                format!("unknown message type {shown:?}"),
            ));
        }
    })
}

/// A `move`'s data, field by field so that a refusal names the field.
fn move_message(d: Value) -> Result<ClientMsg, Refusal> {
    let bad = |message: String| Refusal::new(ErrorCode::BadMessage, message);
    let Value::Object(mut d) = d else {
        return Err(bad(
            r#"d must be an object {"uci", "id"?, "v"?, "lag"?}"#.to_owned()
        ));
    };
    let uci: String = match d.remove("uci") {
        None => return Err(bad("missing field `uci`".to_owned())),
        Some(uci) => serde_json::from_value(uci).map_err(|e| bad(format!("uci: {e}")))?,
    };
    let mv: SubMove = uci.parse().map_err(|e| bad(format!("uci: {e}")))?;
    Ok(ClientMsg::Move {
        mv,
        id: ack_id(d.remove("id"))?,
        v: optional(&mut d, "v")?,
        lag: optional(&mut d, "lag")?,
    })
}

/// An optional field of `d` (absent or `null`: `None`), its refusal naming it.
fn optional<T: serde::de::DeserializeOwned>(
    d: &mut serde_json::Map<String, Value>,
    name: &str,
) -> Result<Option<T>, Refusal> {
    match d.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => serde_json::from_value(value)
            .map(Some)
            .map_err(|e| Refusal::new(ErrorCode::BadMessage, format!("{name}: {e}"))),
    }
}

fn ack_id(value: Option<Value>) -> Result<Option<String>, Refusal> {
    let text = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => n.to_string(),
        Some(_) => {
            return Err(Refusal::new(
                ErrorCode::BadMessage,
                "id must be a string or an integer",
            ));
        }
    };
    if text.len() > MAX_ACK_ID_LEN {
        return Err(Refusal::new(
            ErrorCode::BadMessage,
            format!("id is longer than {MAX_ACK_ID_LEN} bytes"),
        ));
    }
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_with_an_integer_id_parses_with_the_id_as_text() {
        let msg = parse_client(r#"{"t":"move","d":{"uci":"e2e4","id":7}}"#).unwrap();
        assert_eq!(
            msg,
            ClientMsg::Move {
                mv: "e2e4".parse().unwrap(),
                id: Some("7".into()),
                v: None,
                lag: None,
            }
        );
    }

    #[test]
    fn a_move_carries_the_version_it_was_played_on() {
        let msg = parse_client(r#"{"t":"move","d":{"uci":"e2e4","id":"a","v":12}}"#).unwrap();
        assert!(
            matches!(msg, ClientMsg::Move { v: Some(12), .. }),
            "{msg:?}"
        );
        let bad = parse_client(r#"{"t":"move","d":{"uci":"e2e4","v":-1}}"#)
            .unwrap_err()
            .refusal;
        assert_eq!(bad.code, ErrorCode::BadMessage);
    }

    #[test]
    fn a_move_may_carry_the_lag_the_client_measured_and_a_bad_one_is_a_bad_message() {
        let msg = parse_client(r#"{"t":"move","d":{"uci":"e2e4","lag":212}}"#).unwrap();
        assert!(
            matches!(msg, ClientMsg::Move { lag: Some(212), .. }),
            "{msg:?}"
        );
        let code = |text: &str| parse_client(text).unwrap_err().refusal.code;
        for bad in [r#""fast""#, "-1", "1.5", "4294967296"] {
            let text = format!(r#"{{"t":"move","d":{{"uci":"e2e4","lag":{bad}}}}}"#);
            assert_eq!(code(&text), ErrorCode::BadMessage, "{text}");
        }
    }

    #[test]
    fn a_move_whose_v_or_lag_is_malformed_is_refused_with_its_id_and_the_field_named() {
        for (field, value, says) in [
            (
                "v",
                "18446744073709551616",
                "v: invalid type: floating point",
            ),
            ("v", "-1", "v: invalid value: integer `-1`"),
            ("v", "1.5", "v: invalid type: floating point `1.5`"),
            ("v", r#""1""#, r#"v: invalid type: string "1""#),
            (
                "lag",
                "4294967296",
                "lag: invalid value: integer `4294967296`",
            ),
            (
                "lag",
                "1000.0",
                "lag: invalid type: floating point `1000.0`",
            ),
        ] {
            for (id, echoed) in [(r#""a1""#, "a1"), ("7", "7")] {
                let text =
                    format!(r#"{{"t":"move","d":{{"uci":"e2e4","id":{id},"{field}":{value}}}}}"#);
                let refused = parse_client(&text).unwrap_err();
                assert_eq!(refused.refusal.code, ErrorCode::BadMessage, "{text}");
                assert_eq!(refused.id.as_deref(), Some(echoed), "{text}");
                assert!(
                    refused.refusal.message.starts_with(says),
                    "{text}: {refused}"
                );
                assert_eq!(refused.error_msg().id.as_deref(), Some(echoed));
            }
        }
    }

    #[test]
    fn every_refusal_of_a_move_with_a_readable_id_carries_it() {
        for text in [
            r#"{"t":"move","d":{"id":"x"}}"#,
            r#"{"t":"move","d":{"uci":"e2e9","id":"x"}}"#,
            r#"{"t":"move","d":{"uci":4,"id":"x"}}"#,
            r#"{"t":"move","d":{"uci":"e2e4","uci":"d2d4","id":"x"}}"#,
            r#"{"t":"move","d":{"uci":"e2e4","id":"x","extra":{"a":1,"a":2}}}"#,
        ] {
            let refused = parse_client(text).unwrap_err();
            assert_eq!(refused.refusal.code, ErrorCode::BadMessage, "{text}");
            assert_eq!(refused.id.as_deref(), Some("x"), "{text}");
        }
    }

    #[test]
    fn a_refusal_carries_no_id_when_the_id_is_unreadable_or_the_message_no_move() {
        let long = "i".repeat(MAX_ACK_ID_LEN + 1);
        for text in [
            r#"{"t":"move","d":{"uci":"e2e4","id":1.5,"v":-1}}"#.to_owned(),
            r#"{"t":"move","d":{"uci":"e2e4","id":{"a":1},"v":-1}}"#.to_owned(),
            r#"{"t":"move","d":{"uci":"e2e4","id":"a","id":"b"}}"#.to_owned(),
            format!(r#"{{"t":"move","d":{{"uci":"e2e4","id":"{long}","v":-1}}}}"#),
            r#"{"t":"move","d":[{"id":"x"}]}"#.to_owned(),
            r#"{"t":"move","d":{"uci":"e2e4","id":"x"},"t":"move"}"#.to_owned(),
            r#"{"t":"draw_claim","d":{"claim":"boredom","id":"x"}}"#.to_owned(),
        ] {
            let refused = parse_client(&text).unwrap_err();
            assert_eq!(refused.id, None, "{text}: {refused}");
        }
    }

    #[test]
    fn bad_frames_get_distinct_codes() {
        let code = |text: &str| parse_client(text).unwrap_err().refusal.code;
        assert_eq!(code("not json"), ErrorCode::BadJson);
        assert_eq!(code(r#"{"d":{}}"#), ErrorCode::BadJson);
        assert_eq!(code(r#"{"t":"fly"}"#), ErrorCode::UnknownType);
        assert_eq!(code(r#"{"t":"move","d":{}}"#), ErrorCode::BadMessage);
        assert_eq!(
            code(r#"{"t":"move","d":{"uci":"e2e9"}}"#),
            ErrorCode::BadMessage
        );
        assert_eq!(
            code(r#"{"t":"draw_claim","d":{"claim":"boredom"}}"#),
            ErrorCode::BadMessage
        );
    }

    #[test]
    fn messages_without_data_parse() {
        assert_eq!(parse_client(r#"{"t":"resign"}"#), Ok(ClientMsg::Resign));
        assert_eq!(
            parse_client(r#"{"t":"hello"}"#),
            Ok(ClientMsg::Hello {
                token: None,
                v: None
            })
        );
    }

    #[test]
    fn a_duplicate_top_level_key_is_bad_json_naming_the_key() {
        let refusal = parse_client(r#"{"t":"resign","t":"abort"}"#)
            .unwrap_err()
            .refusal;
        assert_eq!(refusal.code, ErrorCode::BadJson);
        assert!(refusal.message.contains("duplicate field `t`"), "{refusal}");
    }

    #[test]
    fn a_duplicate_key_inside_d_is_bad_message_naming_the_key() {
        let refusal = parse_client(r#"{"t":"move","d":{"uci":"e2e4","id":"a","uci":"d2d4"}}"#)
            .unwrap_err()
            .refusal;
        assert_eq!(refusal.code, ErrorCode::BadMessage);
        assert_eq!(refusal.message, r#"duplicate key "uci" in d"#);
    }

    #[test]
    fn a_duplicate_key_anywhere_inside_d_is_refused_with_its_path() {
        let code_and_message = |text: &str| {
            let refusal = parse_client(text).unwrap_err().refusal;
            (refusal.code, refusal.message)
        };
        // A key the message does not use, and keys nested in objects and arrays.
        assert_eq!(
            code_and_message(r#"{"t":"hello","d":{"x":1,"x":2}}"#),
            (
                ErrorCode::BadMessage,
                r#"duplicate key "x" in d"#.to_string()
            )
        );
        assert_eq!(
            code_and_message(r#"{"t":"resign","d":{"a":{"b":[0,{"c":1,"c":1}]}}}"#),
            (
                ErrorCode::BadMessage,
                r#"duplicate key "c" in d.a.b[1]"#.to_string()
            )
        );
        assert_eq!(
            code_and_message(
                r#"{"t":"draw_claim","d":{"claim":"fifty_move_rule","claim":"threefold_repetition"}}"#
            ),
            (
                ErrorCode::BadMessage,
                r#"duplicate key "claim" in d"#.to_string()
            )
        );
    }

    #[test]
    fn distinct_keys_inside_d_still_parse() {
        assert_eq!(
            parse_client(r#"{"t":"hello","d":{"token":"t","v":3,"extra":{"a":1,"b":[{"a":2}]}}}"#),
            Ok(ClientMsg::Hello {
                token: Some("t".into()),
                v: Some(3)
            })
        );
    }

    #[test]
    fn every_client_message_written_by_to_text_parses_back_to_itself() {
        let all = [
            ClientMsg::Hello {
                token: None,
                v: None,
            },
            ClientMsg::Hello {
                token: Some("t\"ok".into()),
                v: Some(7),
            },
            ClientMsg::Move {
                mv: "a7a8q".parse().unwrap(),
                id: Some("a1".into()),
                v: Some(7),
                lag: Some(180),
            },
            ClientMsg::Move {
                mv: "e1g1".parse().unwrap(),
                id: None,
                v: None,
                lag: None,
            },
            ClientMsg::TakebackSubmove,
            ClientMsg::Resign,
            ClientMsg::DrawOffer,
            ClientMsg::DrawAccept,
            ClientMsg::DrawDecline,
            ClientMsg::DrawClaim { claim: None },
            ClientMsg::DrawClaim {
                claim: Some(Claim::FiftyMoveRule),
            },
            ClientMsg::Abort,
            ClientMsg::Berserk,
            ClientMsg::RematchOffer,
            ClientMsg::RematchAccept,
            ClientMsg::ClaimVictory,
            ClientMsg::Ping,
            ClientMsg::Chat {
                room: ChatRoom::Spectator,
                text: ChatText::parse("<b>gg</b> \"ok\"").unwrap(),
            },
            ClientMsg::ChatWatch { spectator: true },
        ];
        for msg in all {
            let text = msg.to_text();
            assert_eq!(parse_client(&text), Ok(msg), "{text}");
        }
    }

    #[test]
    fn a_chat_line_over_140_characters_is_refused_as_too_long() {
        let text = format!(
            r#"{{"t":"chat","d":{{"room":"player","text":"{}"}}}}"#,
            "é".repeat(141)
        );
        assert_eq!(
            parse_client(&text).unwrap_err().refusal.code,
            ErrorCode::TooLong
        );
        let text = format!(
            r#"{{"t":"chat","d":{{"room":"player","text":"{}"}}}}"#,
            "é".repeat(140)
        );
        assert!(matches!(parse_client(&text), Ok(ClientMsg::Chat { .. })));
    }

    #[test]
    fn a_chat_line_is_cleaned_when_parsed_and_a_blank_or_roomless_one_refused() {
        let msg = parse_client(r#"{"t":"chat","d":{"room":"spectator","text":" a\u0000b\nc "}}"#);
        assert_eq!(
            msg,
            Ok(ClientMsg::Chat {
                room: ChatRoom::Spectator,
                text: ChatText::parse("ab c").unwrap(),
            })
        );
        let code = |text: &str| parse_client(text).unwrap_err().refusal.code;
        assert_eq!(
            code(r#"{"t":"chat","d":{"room":"player","text":" "}}"#),
            ErrorCode::BadMessage
        );
        assert_eq!(
            code(r#"{"t":"chat","d":{"text":"hi"}}"#),
            ErrorCode::BadMessage
        );
        assert_eq!(
            code(r#"{"t":"chat","d":{"room":"kitchen","text":"hi"}}"#),
            ErrorCode::BadMessage
        );
        assert_eq!(code(r#"{"t":"chat_watch","d":{}}"#), ErrorCode::BadMessage);
    }

    #[test]
    fn an_invisible_or_zalgo_chat_line_is_a_bad_message_saying_why() {
        let refusal = |text: &str| {
            let frame = serde_json::json!({"t": "chat", "d": {"room": "player", "text": text}});
            parse_client(&frame.to_string()).unwrap_err().refusal
        };
        let invisible = refusal("\u{200B}\u{3164}");
        assert_eq!(invisible.code, ErrorCode::BadMessage);
        assert!(
            invisible.message.contains("visible"),
            "{}",
            invisible.message
        );
        let zalgo = refusal(&format!("a{}", "\u{0301}".repeat(139)));
        assert_eq!(zalgo.code, ErrorCode::BadMessage);
        assert!(
            zalgo.message.contains("combining marks"),
            "{}",
            zalgo.message
        );
    }

    #[test]
    fn a_client_message_writes_d_only_with_data_and_leaves_absent_fields_out() {
        let mv = ClientMsg::Move {
            mv: "e2e4".parse().unwrap(),
            id: Some("a1".into()),
            v: None,
            lag: None,
        };
        assert_eq!(mv.to_text(), r#"{"t":"move","d":{"uci":"e2e4","id":"a1"}}"#);
        assert_eq!(ClientMsg::Resign.to_text(), r#"{"t":"resign"}"#);
        let hello = ClientMsg::Hello {
            token: None,
            v: Some(3),
        };
        assert_eq!(hello.to_text(), r#"{"t":"hello","d":{"v":3}}"#);
    }
}
