//! A chat line's values: the room it is said in ([`ChatRoom`]) and its text ([`ChatText`]).
//!
//! A [`ChatText`] is made only by [`ChatText::parse`], so a line that reaches the store or
//! another client has had its control characters stripped (a newline or a tab becomes a space:
//! a line stays one line) and the zero-width characters that only hide or pad
//! ([`visible::is_stripped`]), is trimmed, is not empty, has at most [`MAX_CHAT_CHARS`]
//! characters, has a character a reader sees ([`visible::is_visible`]: not only whitespace,
//! zero-width characters, fillers or combining marks) and at most [`MAX_MARKS`] combining marks
//! stacked on one character. Length is counted in Unicode scalar values (what a person types and
//! counts), not bytes: 140 Cyrillic letters are allowed though they are 280 bytes. Nothing else
//! is changed: `<b>` stays `<b>`, the client renders a line as text, never HTML.

use serde::{Deserialize, Serialize};

use super::visible;
pub use super::visible::MAX_MARKS;

/// Longest line, in characters.
pub const MAX_CHAT_CHARS: usize = 140;

/// Why a text is not a chat line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChatTextError {
    #[error("a chat line cannot be empty")]
    Empty,
    #[error("a chat line has at most {MAX_CHAT_CHARS} characters; this one has {chars}")]
    TooLong { chars: usize },
    /// Only whitespace, zero-width characters, fillers or combining marks: it would show as an
    /// empty line.
    #[error("a chat line needs a visible character")]
    Invisible,
    /// "Zalgo" text, drawn over the lines around it.
    #[error(
        "a chat line has at most {MAX_MARKS} combining marks on one character; this one has {marks}"
    )]
    TooManyMarks { marks: usize },
}

/// A valid chat line's text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChatText(String);

impl ChatText {
    /// Cleans `raw` (control characters and meaningless zero-width characters stripped, line
    /// breaks and tabs become spaces, trimmed) and checks what is left. The length is checked
    /// after cleaning: stripped characters do not count.
    ///
    /// A line that was nothing but stripped zero-width characters is [`ChatTextError::Invisible`]
    /// (someone tried to send an invisible line), one of controls and blanks only is
    /// [`ChatTextError::Empty`]. Marks are refused rather than dropped down to the cap: the writer
    /// is told why, and no line is shown otherwise than it was written.
    pub fn parse(raw: &str) -> Result<ChatText, ChatTextError> {
        // `raw` is bounded by the socket's message size limit; it is read whole.
        let mut text = String::with_capacity(raw.len());
        let mut stripped_invisible = false;
        for c in raw.chars() {
            let c = match c {
                '\n' | '\r' | '\t' | '\u{2028}' | '\u{2029}' => ' ',
                c if is_control(c) => continue,
                c if visible::is_stripped(c) => {
                    stripped_invisible = true;
                    continue;
                }
                c => c,
            };
            text.push(c);
        }
        let trimmed = text.trim();
        let count = trimmed.chars().count();
        if count == 0 {
            return Err(if stripped_invisible {
                ChatTextError::Invisible
            } else {
                ChatTextError::Empty
            });
        }
        if count > MAX_CHAT_CHARS {
            return Err(ChatTextError::TooLong { chars: count });
        }
        if !trimmed.chars().any(visible::is_visible) {
            return Err(ChatTextError::Invisible);
        }
        let marks = visible::most_marks_on_one_character(trimmed);
        if marks > MAX_MARKS {
            return Err(ChatTextError::TooManyMarks { marks });
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
/// part of it). Zero-width joiners are kept: emoji sequences need them
/// ([`visible::is_stripped`] says which zero-width characters go).
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
    fn a_line_of_zero_width_characters_is_refused_as_invisible() {
        for raw in [
            "\u{200B}",
            "\u{200C}",
            "\u{200D}",
            "\u{200E}\u{200F}",
            "\u{2060}\u{2061}\u{2062}\u{2063}\u{2064}",
            "\u{FEFF}",
            "\u{00AD}",
            "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}",
            " \u{200B} \u{FEFF} ",
        ] {
            assert_eq!(
                ChatText::parse(raw),
                Err(ChatTextError::Invisible),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn a_line_of_hangul_fillers_is_refused_as_invisible() {
        for raw in [
            "\u{3164}",
            "\u{115F}",
            "\u{1160}",
            "\u{FFA0}",
            "\u{3164} \u{3164}",
        ] {
            assert_eq!(
                ChatText::parse(raw),
                Err(ChatTextError::Invisible),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn a_line_of_variation_selectors_or_combining_marks_alone_is_refused_as_invisible() {
        for raw in [
            "\u{FE0F}",
            "\u{FE00}\u{FE0E}",
            "\u{E0100}",
            "\u{0301}",
            " \u{0301}\u{0308} ",
            "\u{20E3}",
        ] {
            assert_eq!(
                ChatText::parse(raw),
                Err(ChatTextError::Invisible),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn a_line_of_unusual_whitespace_or_blank_braille_is_refused() {
        // Trimmed away (Unicode White_Space): empty.
        for raw in ["\u{A0}", "\u{3000}\u{2003}", "\u{205F}\u{202F}\u{1680}"] {
            assert_eq!(ChatText::parse(raw), Err(ChatTextError::Empty), "{raw:?}");
        }
        assert_eq!(
            ChatText::parse("\u{2800}\u{2800}"),
            Err(ChatTextError::Invisible)
        );
        assert_eq!(
            ChatText::parse("\u{3000}\u{200D}\u{3000}"),
            Err(ChatTextError::Invisible)
        );
    }

    #[test]
    fn zero_width_characters_inside_a_visible_line_are_stripped_but_the_joiners_kept() {
        assert_eq!(
            ChatText::parse("\u{FEFF}g\u{200B}g\u{2060} \u{3164}")
                .unwrap()
                .as_str(),
            "gg"
        );
        assert_eq!(ChatText::parse("so\u{00AD}ft").unwrap().as_str(), "soft");
        // Persian writes with the zero-width non-joiner ("mi-khaham").
        let persian = "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}";
        assert_eq!(ChatText::parse(persian).unwrap().as_str(), persian);
    }

    #[test]
    fn stripped_zero_width_characters_do_not_count_towards_the_limit() {
        let raw = format!("{}{}", "a".repeat(MAX_CHAT_CHARS), "\u{200B}".repeat(50));
        assert_eq!(
            ChatText::parse(&raw).unwrap().as_str(),
            "a".repeat(MAX_CHAT_CHARS)
        );
    }

    #[test]
    fn a_letter_with_more_than_four_combining_marks_is_refused() {
        let five = format!("gg{}", "\u{0301}".repeat(MAX_MARKS + 1));
        assert_eq!(
            ChatText::parse(&five),
            Err(ChatTextError::TooManyMarks {
                marks: MAX_MARKS + 1
            })
        );
        // Zero-width characters between the marks do not split the stack.
        let hidden = "a\u{0301}\u{200D}\u{0302}\u{200C}\u{0303}\u{200D}\u{0304}\u{200D}\u{0305}";
        assert_eq!(
            ChatText::parse(hidden),
            Err(ChatTextError::TooManyMarks { marks: 5 })
        );
    }

    #[test]
    fn one_hundred_and_thirty_nine_combining_marks_on_one_letter_are_refused() {
        let zalgo = format!("a{}", "\u{0336}".repeat(139));
        assert_eq!(
            zalgo.chars().count(),
            MAX_CHAT_CHARS,
            "within the length limit"
        );
        assert_eq!(
            ChatText::parse(&zalgo),
            Err(ChatTextError::TooManyMarks { marks: 139 })
        );
    }

    #[test]
    fn four_combining_marks_on_one_letter_and_marks_spread_over_letters_are_accepted() {
        let four = format!("a{}", "\u{0301}".repeat(MAX_MARKS));
        assert_eq!(ChatText::parse(&four).unwrap().as_str(), four);
        let spread = "a\u{0301}\u{0302}b\u{0301}\u{0302}c\u{0301}\u{0302}";
        assert_eq!(ChatText::parse(spread).unwrap().as_str(), spread);
    }

    #[test]
    fn french_and_spanish_with_precomposed_or_decomposed_accents_are_accepted() {
        for raw in [
            "Très bien joué, à bientôt ! Ça passe.",
            "Tre\u{0300}s bien joue\u{0301}",
            "¿Jugamos otra? ¡Qué partida, señor! Pingüino",
            "Que\u{0301} partida, sen\u{0303}or",
            // Vietnamese, decomposed: two marks on one vowel.
            "Vie\u{0323}\u{0302}t",
        ] {
            assert_eq!(ChatText::parse(raw).unwrap().as_str(), raw);
        }
    }

    #[test]
    fn emoji_with_skin_tones_zwj_sequences_flags_and_keycaps_are_accepted() {
        for raw in [
            "\u{1F44D}\u{1F3FD}",                          // thumbs up, medium skin tone
            "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}", // family: woman, woman, girl
            "\u{1F469}\u{1F3FE}\u{200D}\u{1F4BB}",         // woman technologist, skin tone
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",          // rainbow flag
            "\u{1F1EB}\u{1F1F7}",                          // the flag of France
            // The flag of Scotland: a black flag and tag characters.
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
            "1\u{FE0F}\u{20E3}", // keycap one
            "\u{2764}\u{FE0F} gg",
        ] {
            assert_eq!(ChatText::parse(raw).unwrap().as_str(), raw, "{raw:?}");
        }
    }

    #[test]
    fn chinese_japanese_and_korean_are_accepted() {
        for raw in [
            "下得好",
            "よろしくお願いします",
            "잘 부탁드립니다",
            "将军！",
        ] {
            assert_eq!(ChatText::parse(raw).unwrap().as_str(), raw);
        }
    }

    #[test]
    fn html_is_kept_verbatim() {
        let raw = "<img src=x onerror=alert(1)>&amp;";
        assert_eq!(ChatText::parse(raw).unwrap().as_str(), raw);
    }
}
