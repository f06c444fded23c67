//! Writing a game as comma PGN: tags, then the movetext wrapped between
//! tokens into lines of less than 80 characters, ending with the result.

use std::fmt::Write;

use cozy_chess::Color;

use super::super::fen::INITIAL_FEN;
use super::super::game::Game;
use super::super::outcome::Termination;
use super::super::san::san;
use super::{GameResult, PgnTags};

/// Lines of movetext have at most this many characters: PGN export format
/// (standard 8.2.1) wants every movetext line shorter than 80.
const WIDTH: usize = 79;

/// The whole PGN of `game`: the seven standard tags, `Variant`, `SetUp` and
/// `FEN` for a non-standard start, `TimeControl` when known, `Termination`,
/// a blank line, the movetext and a final newline.
pub fn write_game(game: &Game, tags: &PgnTags) -> String {
    let result = GameResult::of(game.outcome());
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
    };
    tag("Event", &tags.event);
    tag("Site", &tags.site);
    tag("Date", &tags.date);
    tag("Round", &tags.round);
    tag("White", &tags.white);
    tag("Black", &tags.black);
    tag("Result", result.as_str());
    tag("Variant", "Marseillais");
    let start = game.start().fen();
    if start != INITIAL_FEN {
        tag("SetUp", "1");
        tag("FEN", &start);
    }
    if let Some(time_control) = &tags.time_control {
        tag("TimeControl", time_control);
    }
    let termination = game
        .outcome()
        .map_or(Termination::Unterminated, |o| o.reason());
    tag("Termination", termination.as_str());
    out.push('\n');
    out.push_str(&movetext(game));
    out.push('\n');
    out
}

/// Tag values are quoted; a quote or backslash inside is escaped and line
/// breaks (which a tag line cannot hold) become spaces.
pub(super) fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The movetext alone: move numbers, comma-joined turns and the result,
/// wrapped into lines of at most 79 characters.
pub fn movetext(game: &Game) -> String {
    let positions = game.positions();
    let mut tokens: Vec<String> = Vec::new();
    let mut after_white_turn = false;
    for turn in game.turns() {
        match turn.side {
            Color::White => tokens.push(format!("{}.", turn.number)),
            Color::Black if !after_white_turn => tokens.push(format!("{}...", turn.number)),
            Color::Black => {}
        }
        let mut text = String::new();
        if turn.starts_at_second {
            text.push(',');
        }
        for (offset, &mv) in turn.submoves.iter().enumerate() {
            if offset > 0 {
                text.push(',');
            }
            let before = &positions[turn.first_index + offset];
            text.push_str(&san(before, mv));
        }
        tokens.push(text);
        after_white_turn = turn.side == Color::White;
    }
    tokens.push(GameResult::of(game.outcome()).as_str().to_string());
    wrap(&tokens)
}

pub(super) fn wrap(tokens: &[String]) -> String {
    let mut out = String::new();
    let mut column = 0;
    for token in tokens {
        if column > 0 && column + 1 + token.len() > WIDTH {
            out.push('\n');
            column = 0;
        } else if column > 0 {
            out.push(' ');
            column += 1;
        }
        out.push_str(token);
        column += token.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_would_be_exactly_80_characters_is_broken_before_its_last_token() {
        // Nine tokens of 8 characters and the spaces between them: 80.
        let tokens: Vec<String> = (0..9).map(|i| format!("{i}.Nf3,Nc")).collect();
        assert_eq!(tokens.iter().map(String::len).sum::<usize>() + 8, 80);
        let text = wrap(&tokens);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[0].len(), 71, "{text}");
        assert_eq!(lines[1], "8.Nf3,Nc");
    }

    #[test]
    fn a_line_of_79_characters_stays_one_line() {
        let mut tokens: Vec<String> = (0..8).map(|i| format!("{i}.Nf3,Nc")).collect();
        tokens.push("8.Nf3,N".to_string());
        let text = wrap(&tokens);
        assert_eq!(text.len(), 79);
        assert_eq!(text.lines().count(), 1, "{text}");
    }
}
