//! Writing a game as comma PGN: tags, then the movetext wrapped at 80
//! columns between tokens, ending with the result.

use std::fmt::Write;

use cozy_chess::Color;

use super::super::fen::INITIAL_FEN;
use super::super::game::Game;
use super::super::outcome::Termination;
use super::super::san::san;
use super::{GameResult, PgnTags};

/// Lines of movetext stay within this many columns.
const WIDTH: usize = 80;

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
fn escape(value: &str) -> String {
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
/// wrapped at 80 columns.
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

fn wrap(tokens: &[String]) -> String {
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
