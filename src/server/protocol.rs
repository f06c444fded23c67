//! The WebSocket wire format (docs/protocol.md section 3): what clients may
//! send ([`ClientMsg`], parsed strictly with a typed error), the error codes
//! ([`ErrorCode`]), and the envelope every server message is written in.
//! The contents of game events are built by [`super::state`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rules::{Claim, Color, SubMove};

/// A colour as it appears on the wire and in stored events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    White,
    Black,
}

impl From<Color> for Side {
    fn from(color: Color) -> Side {
        match color {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

impl From<Side> for Color {
    fn from(side: Side) -> Color {
        match side {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// Why a client message or HTTP request was refused. Serialized snake_case
/// in `{"code": ..., "message": ...}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadJson,
    UnknownType,
    BadMessage,
    BadToken,
    NotAPlayer,
    NotYourTurn,
    IllegalMove,
    GameNotStarted,
    GameOver,
    NotAvailable,
    StoreFailure,
    // HTTP only.
    BadRequest,
    NotFound,
    SeatTaken,
    RateLimited,
}

/// A refusal: the code and a human-readable message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

/// A draw claim named on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimName {
    ThreefoldRepetition,
    FiftyMoveRule,
}

impl From<ClaimName> for Claim {
    fn from(name: ClaimName) -> Claim {
        match name {
            ClaimName::ThreefoldRepetition => Claim::ThreefoldRepetition,
            ClaimName::FiftyMoveRule => Claim::FiftyMoveRule,
        }
    }
}

/// The wire name of a claim.
pub fn claim_name(claim: Claim) -> &'static str {
    match claim {
        Claim::ThreefoldRepetition => "threefold_repetition",
        Claim::FiftyMoveRule => "fifty_move_rule",
    }
}

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
    RematchOffer,
    RematchAccept,
    ClaimVictory,
    Ping,
}

impl ClientMsg {
    /// Whether only a seated player may send it.
    pub fn needs_seat(&self) -> bool {
        !matches!(self, ClientMsg::Hello { .. } | ClientMsg::Ping)
    }
}

#[derive(Deserialize)]
struct Envelope {
    t: String,
    #[serde(default)]
    d: Value,
}

#[derive(Deserialize)]
struct HelloData {
    token: Option<String>,
    v: Option<u64>,
}

#[derive(Deserialize)]
struct MoveData {
    uci: String,
    id: Option<Value>,
}

#[derive(Deserialize)]
struct ClaimData {
    claim: Option<ClaimName>,
}

/// Parses one client text frame.
pub fn parse_client(text: &str) -> Result<ClientMsg, Refusal> {
    let envelope: Envelope = serde_json::from_str(text).map_err(|e| {
        Refusal::new(
            ErrorCode::BadJson,
            format!("expected a JSON object {{\"t\": type, \"d\": data}}: {e}"),
        )
    })?;
    let data = |value: Value| -> Value {
        if value.is_null() {
            Value::Object(Default::default())
        } else {
            value
        }
    };
    let bad = |e: serde_json::Error| Refusal::new(ErrorCode::BadMessage, e.to_string());
    Ok(match envelope.t.as_str() {
        "hello" => {
            let d: HelloData = serde_json::from_value(data(envelope.d)).map_err(bad)?;
            ClientMsg::Hello {
                token: d.token,
                v: d.v,
            }
        }
        "move" => {
            let d: MoveData = serde_json::from_value(data(envelope.d)).map_err(bad)?;
            let mv: SubMove = d
                .uci
                .parse()
                .map_err(|e| Refusal::new(ErrorCode::BadMessage, format!("uci: {e}")))?;
            ClientMsg::Move {
                mv,
                id: ack_id(d.id)?,
            }
        }
        "takeback_submove" => ClientMsg::TakebackSubmove,
        "resign" => ClientMsg::Resign,
        "draw_offer" => ClientMsg::DrawOffer,
        "draw_accept" => ClientMsg::DrawAccept,
        "draw_decline" => ClientMsg::DrawDecline,
        "draw_claim" => {
            let d: ClaimData = serde_json::from_value(data(envelope.d)).map_err(bad)?;
            ClientMsg::DrawClaim {
                claim: d.claim.map(Claim::from),
            }
        }
        "abort" => ClientMsg::Abort,
        "rematch_offer" => ClientMsg::RematchOffer,
        "rematch_accept" => ClientMsg::RematchAccept,
        "claim_victory" => ClientMsg::ClaimVictory,
        "ping" => ClientMsg::Ping,
        other => {
            let shown: String = other.chars().take(32).collect();
            return Err(Refusal::new(
                ErrorCode::UnknownType,
                format!("unknown message type {shown:?}"),
            ));
        }
    })
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

/// A server message as text: `{"t": t, "v": v, "d": d}` (`v` only for game events).
pub fn server_msg(t: &str, v: Option<u64>, d: Value) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        t: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        v: Option<u64>,
        d: Value,
    }
    serde_json::to_string(&Out { t, v, d }).unwrap_or_else(|_| String::from("{}"))
}

/// An `error` message, echoing the move's ack id when there is one.
pub fn error_msg(refusal: &Refusal, id: Option<&str>) -> String {
    let mut d = serde_json::json!({"code": refusal.code, "message": refusal.message});
    if let (Some(id), Some(map)) = (id, d.as_object_mut()) {
        map.insert("id".into(), Value::String(id.to_string()));
    }
    server_msg("error", None, d)
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
                id: Some("7".into())
            }
        );
    }

    #[test]
    fn bad_frames_get_distinct_codes() {
        let code = |text: &str| parse_client(text).unwrap_err().code;
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
    fn error_codes_serialize_snake_case() {
        let text = error_msg(&Refusal::new(ErrorCode::NotYourTurn, "wait"), Some("a"));
        assert_eq!(
            text,
            r#"{"t":"error","d":{"code":"not_your_turn","id":"a","message":"wait"}}"#
        );
    }
}
