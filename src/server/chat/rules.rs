//! Who may write and read which chat room, and under which name a line is shown.
//!
//! | room | writes | reads |
//! |---|---|---|
//! | `player` | the two players | the two players |
//! | `spectator` | spectators | spectators; a player only after `chat_watch` `{"spectator": true}` |
//! | `lobby` | anyone on `/ws/lobby` | everyone on `/ws/lobby` |
//!
//! Players do not see the spectators' room by default: spectators may discuss the game (and
//! its best moves) where the players would otherwise read it. A spectator never reads the
//! players' room (it is the players' conversation, not a broadcast).

use std::time::Duration;

use crate::rules::Color;
pub use crate::server::domain::chat::ChatRoom;

/// Who a connection is, as far as chat goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatRole {
    /// Seated in the game as this colour.
    Player(Color),
    /// In a game's room without a seat.
    Spectator,
    /// On the lobby channel.
    Lobby,
}

/// A connection may not write in that room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{role} cannot write in the {room} room", role = role_name(*.role), room = .room.as_str())]
pub struct NotAllowed {
    pub role: ChatRole,
    pub room: ChatRoom,
}

fn role_name(role: ChatRole) -> &'static str {
    match role {
        ChatRole::Player(_) => "a player",
        ChatRole::Spectator => "a spectator",
        ChatRole::Lobby => "the lobby channel",
    }
}

impl ChatRole {
    /// Whether this connection may write in `room`.
    pub fn may_write(self, room: ChatRoom) -> Result<(), NotAllowed> {
        let allowed = matches!(
            (self, room),
            (ChatRole::Player(_), ChatRoom::Player)
                | (ChatRole::Spectator, ChatRoom::Spectator)
                | (ChatRole::Lobby, ChatRoom::Lobby)
        );
        if allowed {
            Ok(())
        } else {
            Err(NotAllowed { role: self, room })
        }
    }

    /// Whether this connection reads `room`; `watches_spectators`: a player asked to read the
    /// spectators' room.
    pub fn may_read(self, room: ChatRoom, watches_spectators: bool) -> bool {
        match (self, room) {
            (ChatRole::Player(_), ChatRoom::Player) => true,
            (ChatRole::Player(_), ChatRoom::Spectator) => watches_spectators,
            (ChatRole::Spectator, ChatRoom::Spectator) => true,
            (ChatRole::Lobby, ChatRoom::Lobby) => true,
            _ => false,
        }
    }
}

/// Whether a game's spectators may still write in their room at `now_ms`: until `after_end`
/// has passed since the game ended (`ended_ms`). A finished game's room used to stay writable
/// by anyone for ever (issue 34); lichess closes it too. The players' room never closes: they
/// may still say "good game" or arrange a rematch.
pub fn spectator_room_open(ended_ms: Option<i64>, now_ms: i64, after_end: Duration) -> bool {
    let after_ms = i64::try_from(after_end.as_millis()).unwrap_or(i64::MAX);
    ended_ms.is_none_or(|ended| now_ms < ended.saturating_add(after_ms))
}

/// The name a line is shown under: the signed-in account's username, else the player's colour
/// (`white` / `black`), else `anonymous`.
pub fn author_label(role: ChatRole, username: Option<&str>) -> String {
    match (username, role) {
        (Some(name), _) => name.to_owned(),
        (None, ChatRole::Player(Color::White)) => "white".to_owned(),
        (None, ChatRole::Player(Color::Black)) => "black".to_owned(),
        (None, ChatRole::Spectator | ChatRole::Lobby) => "anonymous".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHITE: ChatRole = ChatRole::Player(Color::White);

    #[test]
    fn players_write_and_read_the_player_room() {
        assert!(WHITE.may_write(ChatRoom::Player).is_ok());
        assert!(WHITE.may_read(ChatRoom::Player, false));
    }

    #[test]
    fn a_spectator_may_never_write_in_the_player_room_nor_read_it() {
        assert_eq!(
            ChatRole::Spectator.may_write(ChatRoom::Player),
            Err(NotAllowed {
                role: ChatRole::Spectator,
                room: ChatRoom::Player
            })
        );
        assert!(!ChatRole::Spectator.may_read(ChatRoom::Player, true));
    }

    #[test]
    fn spectators_write_and_read_the_spectator_room() {
        assert!(ChatRole::Spectator.may_write(ChatRoom::Spectator).is_ok());
        assert!(ChatRole::Spectator.may_read(ChatRoom::Spectator, false));
    }

    #[test]
    fn players_read_the_spectator_room_only_if_they_asked_and_never_write_there() {
        assert!(!WHITE.may_read(ChatRoom::Spectator, false));
        assert!(WHITE.may_read(ChatRoom::Spectator, true));
        assert!(WHITE.may_write(ChatRoom::Spectator).is_err());
    }

    #[test]
    fn the_lobby_room_is_only_the_lobby_channels_and_game_sockets_cannot_use_it() {
        assert!(ChatRole::Lobby.may_write(ChatRoom::Lobby).is_ok());
        assert!(ChatRole::Lobby.may_read(ChatRoom::Lobby, false));
        assert!(ChatRole::Lobby.may_write(ChatRoom::Player).is_err());
        assert!(WHITE.may_write(ChatRoom::Lobby).is_err());
        assert!(ChatRole::Spectator.may_write(ChatRoom::Lobby).is_err());
        assert!(!ChatRole::Spectator.may_read(ChatRoom::Lobby, true));
    }

    #[test]
    fn an_author_is_the_username_else_the_colour_else_anonymous() {
        assert_eq!(author_label(WHITE, Some("Alice")), "Alice");
        assert_eq!(author_label(WHITE, None), "white");
        assert_eq!(author_label(ChatRole::Player(Color::Black), None), "black");
        assert_eq!(author_label(ChatRole::Spectator, None), "anonymous");
        assert_eq!(author_label(ChatRole::Lobby, None), "anonymous");
        assert_eq!(author_label(ChatRole::Spectator, Some("bob")), "bob");
    }

    #[test]
    fn the_spectator_room_closes_its_delay_after_the_end_and_is_open_while_the_game_runs() {
        let ten_min = Duration::from_secs(600);
        assert!(spectator_room_open(None, i64::MAX, ten_min));
        assert!(spectator_room_open(Some(1_000), 1_000 + 599_999, ten_min));
        assert!(!spectator_room_open(Some(1_000), 1_000 + 600_000, ten_min));
        assert!(!spectator_room_open(Some(1_000), 1_000, Duration::ZERO));
        assert!(spectator_room_open(
            Some(i64::MAX - 5),
            i64::MAX - 1,
            Duration::MAX
        ));
    }

    #[test]
    fn every_room_has_its_stored_text_both_ways() {
        for room in [ChatRoom::Player, ChatRoom::Spectator, ChatRoom::Lobby] {
            assert_eq!(ChatRoom::from_stored(room.as_str()), Some(room));
            assert_eq!(
                serde_json::to_string(&room).ok(),
                Some(format!("\"{}\"", room.as_str()))
            );
        }
        assert_eq!(ChatRoom::from_stored("kitchen"), None);
    }
}
