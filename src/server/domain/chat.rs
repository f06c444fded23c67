//! A chat line's values: the room it is said in ([`ChatRoom`]) and its text ([`ChatText`]).
//!
//! A [`ChatText`] is made only by [`ChatText::parse`], so a line that reaches the store or
//! another client has had its control characters stripped (a newline or a tab becomes a space:
//! a line stays one line), is trimmed, is not empty and has at most
//! [`MAX_CHAT_CHARS`] characters. Length is counted in Unicode scalar values (what a person
//! types and counts), not bytes: 140 Cyrillic letters are allowed though they are 280 bytes.
//! Nothing else is changed: `<b>` stays `<b>`, the client renders a line as text, never HTML.

use serde::{Deserialize, Serialize};

/// Longest line, in characters.
pub const MAX_CHAT_CHARS: usize = 140;

/// Why a text is not a chat line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatTextError {
    #[error("a chat line cannot be empty")]
    Empty,
    #[error("a chat line has at most {MAX_CHAT_CHARS} characters; this one has {chars}")]
    TooLong { chars: usize },
}

/// A valid chat line's text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChatText(String);

impl ChatText {
    /// Cleans `raw` (control characters stripped, line breaks and tabs become spaces, trimmed)
    /// and checks what is left. The length is checked after cleaning: stripped characters do
    /// not count.
    pub fn parse(raw: &str) -> Result<ChatText, ChatTextError> {
        // `raw` is bounded by the socket's message size limit; it is read whole.
        let mut text = String::with_capacity(raw.len());
        for c in raw.chars() {
            let c = match c {
                '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' => ' ',
                c if is_control(c) => continue,
                c => c,
            };
            text.push(c);
        }
        let trimmed = text.trim();
        let count = trimmed.chars().count();
        if count == 0 {
            return Err(ChatTextError::Empty);
        }
        if count > MAX_CHAT_CHARS {
            return Err(ChatTextError::TooLong { chars: count });
        }
        Ok(ChatText(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Characters that are not shown but change how text shows: C0/C1 controls, and the
/// bidirectional overrides and isolates (which can make a line look as if another player wrote
/// part of it). Zero-width joiners are kept: emoji sequences need them.
fn is_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// A chat room of a game, or the lobby's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRoom {
    Player,
    Spectator,
    Lobby,
}

impl ChatRoom {
    /// The text stored in `chat_lines.room` (the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRoom::Player => "player",
            ChatRoom::Spectator => "spectator",
            ChatRoom::Lobby => "lobby",
        }
    }

    /// The room a stored text names.
    pub fn from_stored(text: &str) -> Option<ChatRoom> {
        match text {
            "player" => Some(ChatRoom::Player),
            "spectator" => Some(ChatRoom::Spectator),
            "lobby" => Some(ChatRoom::Lobby),
            _ => None,
        }
    }

    /// The rooms of a game.
    pub const GAME: [ChatRoom; 2] = [ChatRoom::Player, ChatRoom::Spectator];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_stripped_and_line_breaks_become_spaces() {
        let text =
            ChatText::parse("good\u{0}\u{7}\u{1b}[31m move\nreally\r\n\tnice\u{85}!").unwrap();
        assert_eq!(text.as_str(), "good[31m move really   nice!");
    }

    #[test]
    fn bidirectional_overrides_are_stripped() {
        let text = ChatText::parse("gg \u{202E}evil\u{2066}x\u{2069}").unwrap();
        assert_eq!(text.as_str(), "gg evilx");
    }

    #[test]
    fn ordinary_spaces_are_kept_and_the_ends_trimmed() {
        assert_eq!(ChatText::parse("  a  b  ").unwrap().as_str(), "a  b");
    }

    #[test]
    fn an_empty_or_blank_line_is_refused() {
        for raw in ["", "   ", "\n\t", "\u{0}\u{1}"] {
            assert_eq!(ChatText::parse(raw), Err(ChatTextError::Empty), "{raw:?}");
        }
    }

    #[test]
    fn the_limit_is_140_characters_not_bytes() {
        let cyrillic = "ж".repeat(MAX_CHAT_CHARS);
        assert_eq!(cyrillic.len(), 2 * MAX_CHAT_CHARS);
        assert_eq!(ChatText::parse(&cyrillic).unwrap().as_str(), cyrillic);
        let over = "ж".repeat(MAX_CHAT_CHARS + 1);
        assert_eq!(
            ChatText::parse(&over),
            Err(ChatTextError::TooLong {
                chars: MAX_CHAT_CHARS + 1
            })
        );
    }

    #[test]
    fn stripped_characters_do_not_count_towards_the_limit() {
        let raw = format!("{}{}", "a".repeat(MAX_CHAT_CHARS), "\u{0}".repeat(50));
        assert!(ChatText::parse(&raw).is_ok());
    }

    #[test]
    fn a_huge_text_is_refused_as_too_long() {
        let raw = "x".repeat(100_000);
        assert!(matches!(
            ChatText::parse(&raw),
            Err(ChatTextError::TooLong { .. })
        ));
    }

    #[test]
    fn html_is_kept_verbatim() {
        let raw = "<img src=x onerror=alert(1)>&amp;";
        assert_eq!(ChatText::parse(raw).unwrap().as_str(), raw);
    }
}
