//! What the server sends on the lobby channel (`/ws/lobby`, docs/protocol.md "Lobby socket"):
//! [`LobbyMsg`], in the game socket's envelope `{"t": type, "d": payload}` (never a `v`: nothing
//! here is versioned). `pong` and `error` are the game socket's own bytes (the frame reader is
//! shared, [`crate::server::play::socket`]), so one client routine reads both channels.
//!
//! Serialize is what the server writes; Deserialize is what the tests read, with unknown fields
//! refused, so that a field added on one side only fails the other side's tests.

use serde::{Deserialize, Serialize};

use crate::server::game::{TimeControl, Variant};
use crate::server::play::creation::ColorChoice;
use crate::server::play::protocol::{ChatHistoryMsg, ChatLineMsg, ErrorMsg, PlayerView};

/// A message on the lobby channel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "snake_case")]
pub enum LobbyMsg {
    /// How many players are online (see [`OnlineMsg`]); on connect, then whenever it changes
    /// (coalesced: at most one a `LobbyLimits::online_every`).
    Online(OnlineMsg),
    /// A challenge to or from this user: on connect for every pending one, when it is made, and
    /// when it is accepted (with the game's id).
    Challenge(ChallengeView),
    /// A challenge to or from this user that no longer stands.
    ChallengeGone(GoneMsg),
    /// The answer to a client `ping` (`d` is `{}`).
    Pong(Empty),
    /// A refused client frame (the game socket's `error`).
    Error(ErrorMsg),
    /// A line of the lobby chat (room `lobby`), to every lobby channel.
    Chat(ChatLineMsg),
    /// The lobby chat's recent lines, on connect.
    ChatHistory(ChatHistoryMsg),
    /// To a signed-in user: the games where it is their turn now (on connect, and whenever the
    /// set may have changed: a turn ended or a game ended in a game of theirs).
    YourTurn(YourTurnMsg),
}

/// `your_turn`: the ids of the user's unfinished games where it is their turn, in the order of
/// `GET /api/account/games` (soonest deadline first). Empty: none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct YourTurnMsg {
    pub games: Vec<String>,
}

impl LobbyMsg {
    /// The text frame (serialized once, whatever the number of recipients).
    pub fn to_text(&self) -> String {
        // Unreachable: every payload serializes (string keys, no custom serializer).
        serde_json::to_string(self).unwrap_or_else(|error| {
            tracing::error!(%error, "a lobby message did not serialize");
            String::from("{}")
        })
    }

    /// Reads one text frame (tests).
    pub fn from_text(text: &str) -> Result<LobbyMsg, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// `{}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// `online`: distinct signed-in users with at least one lobby channel open, plus the lobby
/// channels of anonymous visitors (each counts once: one anonymous person with two tabs counts
/// two, as nothing tells them apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnlineMsg {
    pub count: u64,
}

/// Where a challenge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeState {
    /// Waiting for the challenged user's answer.
    Pending,
    /// Accepted: `game` is the new game's id; both clients navigate to `/game/{game}`.
    Accepted,
}

/// A challenge as both users see it (the same bytes to both).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChallengeView {
    /// `null` for an untimed game.
    pub clock: Option<TimeControl>,
    /// The challenger's colour.
    pub color: ColorChoice,
    /// Milliseconds left before it expires (0 once accepted).
    pub expires_in_ms: u64,
    /// The challenger: username, and for a timed challenge the rating at its speed (when the
    /// challenge was made).
    pub from: PlayerView,
    /// The game it became; only when `accepted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    pub id: String,
    pub rated: bool,
    pub state: ChallengeState,
    /// The challenged user, the same way.
    pub to: PlayerView,
    pub variant: Variant,
}

/// Why a challenge no longer stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoneReason {
    /// The challenged user said no.
    Declined,
    /// The challenger withdrew it.
    Cancelled,
    /// Nobody answered within the challenge's time to live (10 minutes).
    Expired,
    /// The challenger's last lobby channel closed and none opened again within the grace.
    ChallengerLeft,
}

/// `challenge_gone`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoneMsg {
    pub id: String,
    pub reason: GoneReason,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::game::ClockSpec;
    use crate::server::play::protocol::{ErrorCode, Refusal, ServerMsg};

    #[test]
    fn lobby_messages_have_the_documented_bytes() {
        let online = LobbyMsg::Online(OnlineMsg { count: 3 });
        assert_eq!(online.to_text(), r#"{"t":"online","d":{"count":3}}"#);
        let gone = LobbyMsg::ChallengeGone(GoneMsg {
            id: "c1".into(),
            reason: GoneReason::ChallengerLeft,
        });
        assert_eq!(
            gone.to_text(),
            r#"{"t":"challenge_gone","d":{"id":"c1","reason":"challenger_left"}}"#
        );
        let view = ChallengeView {
            clock: Some(TimeControl::Live(ClockSpec {
                base_secs: 300,
                increment_secs: 2,
            })),
            color: ColorChoice::White,
            expires_in_ms: 1000,
            from: PlayerView {
                name: "alice".into(),
                rating: Some(crate::server::play::protocol::RatingView {
                    rating: 1512,
                    deviation: 87,
                    provisional: false,
                }),
            },
            game: None,
            id: "c1".into(),
            rated: true,
            state: ChallengeState::Pending,
            to: PlayerView {
                name: "bob".into(),
                rating: None,
            },
            variant: Variant::Balanced,
        };
        assert_eq!(
            LobbyMsg::Challenge(view.clone()).to_text(),
            concat!(
                r#"{"t":"challenge","d":{"clock":{"base_secs":300,"increment_secs":2},"#,
                r#""color":"white","expires_in_ms":1000,"#,
                r#""from":{"name":"alice","rating":{"rating":1512,"deviation":87,"provisional":false}},"#,
                r#""id":"c1","rated":true,"state":"pending","to":{"name":"bob"},"variant":"balanced"}}"#
            )
        );
        let text = LobbyMsg::Challenge(view.clone()).to_text();
        assert_eq!(
            LobbyMsg::from_text(&text).ok(),
            Some(LobbyMsg::Challenge(view))
        );
    }

    #[test]
    fn lobby_chat_and_your_turn_have_the_documented_bytes_and_chat_is_the_game_sockets() {
        let line = ChatLineMsg {
            at_ms: 5,
            author: "anonymous".into(),
            room: crate::server::chat::ChatRoom::Lobby,
            text: "<i>hi</i>".into(),
            user: None,
        };
        let chat = LobbyMsg::Chat(line.clone());
        assert_eq!(
            chat.to_text(),
            r#"{"t":"chat","d":{"at_ms":5,"author":"anonymous","room":"lobby","text":"<i>hi</i>"}}"#
        );
        assert_eq!(chat.to_text(), ServerMsg::Chat(line.clone()).to_text());
        let history = ChatHistoryMsg {
            lines: vec![line],
            room: crate::server::chat::ChatRoom::Lobby,
        };
        assert_eq!(
            LobbyMsg::ChatHistory(history.clone()).to_text(),
            ServerMsg::ChatHistory(history).to_text()
        );
        let turn = LobbyMsg::YourTurn(YourTurnMsg {
            games: vec!["g1".into(), "g2".into()],
        });
        assert_eq!(
            turn.to_text(),
            r#"{"t":"your_turn","d":{"games":["g1","g2"]}}"#
        );
        assert_eq!(LobbyMsg::from_text(&turn.to_text()).ok(), Some(turn));
    }

    #[test]
    fn pong_and_error_are_the_game_sockets_bytes() {
        assert_eq!(
            LobbyMsg::Pong(Empty {}).to_text(),
            ServerMsg::Pong.to_text()
        );
        let refusal = Refusal::new(ErrorCode::UnknownType, "no");
        let error = ServerMsg::error(&refusal, None).to_text();
        assert_eq!(
            LobbyMsg::from_text(&error).ok(),
            Some(LobbyMsg::Error(ErrorMsg::new(&refusal, None)))
        );
    }
}
