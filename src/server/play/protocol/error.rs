//! Why a request was refused: the closed set of error codes ([`ErrorCode`],
//! the `code` of a WebSocket `error` message and of an HTTP error body) and
//! a refusal carrying one ([`Refusal`]), and the `d` of the `error`
//! message that tells a client ([`ErrorMsg`]).

use serde::{Deserialize, Serialize};

/// Why a client message or HTTP request was refused. Serialized snake_case
/// in `{"code": ..., "message": ...}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// A `move` played on a version older than the current position (another
    /// tab of the same seat moved first), or on a version the game never had.
    Stale,
    /// Too many requests: `hello`s on one connection, events in one game,
    /// or (HTTP, 429) games created or joined from one address.
    RateLimited,
    // HTTP only.
    BadRequest,
    NotFound,
    SeatTaken,
    /// HTTP 401: the request needs a signed-in account (a rated game).
    NotLoggedIn,
    /// HTTP 409: a rated game's two seats would be the same account's.
    SamePlayer,
    /// HTTP 400: a rated game without a clock.
    RatedNeedsClock,
    /// A chat line longer than 140 characters.
    TooLong,
    /// A chat line for a room the connection may not write in (a spectator in `player`).
    NotAllowed,
    /// A chat line of an account a moderator banned from chat (issue 32): the message gives
    /// the reason and until when.
    ChatBanned,
    /// A block between the two accounts stands in the way (issue 32): a challenge, a join,
    /// said only as "this is not possible", never why (docs/protocol.md, "Blocks").
    NotPossible,
    /// HTTP 403 (and a pool seek's refusal): the account may not start games until its fair
    /// play pause ends (`crate::server::safety::playban`).
    Playban,
    /// A chat line refused because its writer repeated a line or wrote too fast: silenced for
    /// a while (`crate::server::chat::guard`).
    ChatSilenced,
    /// A chat line refused because it holds a word of the server's word list.
    ChatWord,
}

/// `error`: the refusal, and the ack id of the move it refuses (the key is
/// absent when there is none).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorMsg {
    pub code: ErrorCode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub message: String,
    /// A `rate_limited` refusal: seconds until the client may try again (the `Retry-After`
    /// of an HTTP 429); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_secs: Option<u64>,
}

impl ErrorMsg {
    pub fn new(refusal: &Refusal, id: Option<&str>) -> ErrorMsg {
        ErrorMsg {
            code: refusal.code,
            id: id.map(str::to_string),
            message: refusal.message.clone(),
            retry_after_secs: refusal.retry_after_secs,
        }
    }
}

/// A refusal: the code and a human-readable message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_secs: Option<u64>,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
            retry_after_secs: None,
        }
    }

    /// The same refusal, telling the client when to try again.
    pub fn retry_after(mut self, secs: u64) -> Refusal {
        self.retry_after_secs = Some(secs);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_code_has_its_documented_wire_name_both_ways() {
        let names = [
            (ErrorCode::BadJson, "bad_json"),
            (ErrorCode::UnknownType, "unknown_type"),
            (ErrorCode::BadMessage, "bad_message"),
            (ErrorCode::BadToken, "bad_token"),
            (ErrorCode::NotAPlayer, "not_a_player"),
            (ErrorCode::NotYourTurn, "not_your_turn"),
            (ErrorCode::IllegalMove, "illegal_move"),
            (ErrorCode::GameNotStarted, "game_not_started"),
            (ErrorCode::GameOver, "game_over"),
            (ErrorCode::NotAvailable, "not_available"),
            (ErrorCode::StoreFailure, "store_failure"),
            (ErrorCode::Stale, "stale"),
            (ErrorCode::RateLimited, "rate_limited"),
            (ErrorCode::BadRequest, "bad_request"),
            (ErrorCode::NotFound, "not_found"),
            (ErrorCode::SeatTaken, "seat_taken"),
            (ErrorCode::NotLoggedIn, "not_logged_in"),
            (ErrorCode::SamePlayer, "same_player"),
            (ErrorCode::RatedNeedsClock, "rated_needs_clock"),
            (ErrorCode::TooLong, "too_long"),
            (ErrorCode::NotAllowed, "not_allowed"),
            (ErrorCode::ChatBanned, "chat_banned"),
            (ErrorCode::NotPossible, "not_possible"),
            (ErrorCode::Playban, "playban"),
            (ErrorCode::ChatSilenced, "chat_silenced"),
            (ErrorCode::ChatWord, "chat_word"),
        ];
        for (code, name) in names {
            let text = format!("\"{name}\"");
            assert_eq!(serde_json::to_string(&code).ok(), Some(text.clone()));
            assert_eq!(serde_json::from_str::<ErrorCode>(&text).ok(), Some(code));
        }
    }
}
