//! Cutting PGN text into games and tokens: tags, move numbers (also the
//! compact `1.e4`, `21.,gxf6`, `1...e5,Nc6`), comma-joined turns, results.
//! Comments (`{...}`, `;` to end of line, `%` lines), NAGs (`$1`) and
//! stand-alone annotations (`!?`) are dropped here, a detached `e.p.` is
//! glued back to its sub-move; a variation is
//! kept as one token so the reader can reject it where it stands.
//!
//! The move-tree reader ([`super::variations`]) asks for more
//! ([`split_games_keeping`]): `{comments}` as tokens with their text, and `(`
//! and `)` as tokens of their own, so that variations nest.

use super::{GameResult, PgnError, TagError};

/// One meaningful piece of PGN text.
#[derive(Clone, Debug)]
pub(super) enum Token {
    Tag {
        name: String,
        value: String,
    },
    /// A bad tag line; it belongs to the header of the game it is in.
    TagError(PgnError),
    MoveNumber {
        number: u32,
        /// Written with `...` (two or more dots): a Black turn.
        black: bool,
        /// Written with no dot at all.
        bare: bool,
        text: String,
    },
    /// A turn: sub-moves joined by commas, possibly starting with one.
    Word {
        text: String,
        line: usize,
        /// Pieces of the turn were separated by spaces around a comma.
        spaced: bool,
    },
    Result(GameResult, usize),
    Variation {
        line: usize,
    },
    /// `(`, in the mode that keeps variations ([`split_games_keeping`]).
    OpenParen {
        line: usize,
    },
    /// `{text}`, in the mode that keeps comments ([`split_games_keeping`]).
    Comment {
        text: String,
    },
    CloseParen {
        line: usize,
    },
    /// Text that cannot be read further (an unclosed comment).
    Error(PgnError),
}

/// One game's tags and movetext, not yet replayed.
#[derive(Clone, Debug, Default)]
pub(super) struct RawGame {
    pub tags: Vec<(String, String)>,
    pub header_error: Option<PgnError>,
    pub moves: Vec<Token>,
    pub result: Option<GameResult>,
    /// The line of the result token, to place problems of a game with no
    /// sub-moves.
    pub result_line: Option<usize>,
}

impl RawGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Splits text into games. A game starts at its first tag or movetext
/// token and ends after its result token, or where the next game's tags
/// begin, or at the end of the text.
pub(super) fn split_games(text: &str) -> Vec<RawGame> {
    split(text, false)
}

/// [`split_games`] keeping comments and variations as tokens: a result token
/// inside a variation (`(1... e5 *)`) is dropped rather than ending the game.
pub(super) fn split_games_keeping(text: &str) -> Vec<RawGame> {
    split(text, true)
}

fn split(text: &str, keep: bool) -> Vec<RawGame> {
    let mut games = Vec::new();
    let mut current: Option<RawGame> = None;
    let mut depth = 0usize;
    for token in tokenize(text, keep) {
        match token {
            Token::OpenParen { .. } => {
                depth += 1;
                current
                    .get_or_insert_with(RawGame::default)
                    .moves
                    .push(token);
            }
            Token::CloseParen { .. } if keep => {
                depth = depth.saturating_sub(1);
                current
                    .get_or_insert_with(RawGame::default)
                    .moves
                    .push(token);
            }
            Token::Result(..) if depth > 0 => {}
            Token::Tag { .. } | Token::TagError(_) => {
                if current.as_ref().is_some_and(|g| !g.moves.is_empty()) {
                    games.extend(current.take());
                }
                let game = current.get_or_insert_with(RawGame::default);
                match token {
                    Token::Tag { name, value } => game.tags.push((name, value)),
                    Token::TagError(err) => {
                        game.header_error.get_or_insert(err);
                    }
                    _ => {}
                }
            }
            Token::Result(result, line) => {
                let mut game = current.take().unwrap_or_default();
                game.result = Some(result);
                game.result_line = Some(line);
                games.push(game);
            }
            other => current
                .get_or_insert_with(RawGame::default)
                .moves
                .push(other),
        }
    }
    games.extend(current);
    for game in &mut games {
        game.moves = merge_spaced_commas(std::mem::take(&mut game.moves));
    }
    games
}

/// `e5, Nc6` and `e5 ,Nc6` become the turn `e5,Nc6`, marked as spaced so
/// that strict validation can report it. A word starting with a comma right
/// after a move number (`21. ,gxf6`) is the start of a record at S2 and is
/// left alone.
fn merge_spaced_commas(tokens: Vec<Token>) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    for token in tokens {
        if let Token::Word { text, line, spaced } = token {
            if let Some(Token::Word {
                text: previous,
                spaced: previous_spaced,
                ..
            }) = out.last_mut()
            {
                // `exd6 e.p.` or `exd6 e.p.,Ke2`: the suffix belongs to the sub-move.
                if text.starts_with("e.p.") {
                    previous.push_str(&text);
                    continue;
                }
                if previous.ends_with(',') || text.starts_with(',') {
                    previous.push_str(&text);
                    *previous_spaced = true;
                    continue;
                }
            }
            out.push(Token::Word { text, line, spaced });
        } else {
            out.push(token);
        }
    }
    out
}

struct Lexer {
    /// Comments and variations kept as tokens.
    keep: bool,
    chars: Vec<char>,
    at: usize,
    line: usize,
    tokens: Vec<Token>,
}

fn tokenize(text: &str, keep: bool) -> Vec<Token> {
    // A byte-order mark is not whitespace to Rust but is not text either.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lexer = Lexer {
        keep,
        chars: text.chars().collect(),
        at: 0,
        line: 1,
        tokens: Vec::new(),
    };
    lexer.run();
    lexer.tokens
}

fn ends_word(c: char) -> bool {
    c.is_whitespace() || matches!(c, '{' | '}' | ';' | '[' | '(' | ')' | '$')
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// Advances one character, counting lines.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn at_line_start(&self) -> bool {
        self.at == 0 || self.chars.get(self.at - 1) == Some(&'\n')
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                '%' if self.at_line_start() => self.skip_line(),
                c if c.is_whitespace() => {
                    self.bump();
                }
                '{' => {
                    let line = self.line;
                    let start = self.at + 1;
                    if !self.skip_comment() {
                        self.tokens
                            .push(Token::Error(PgnError::UnclosedComment { line }));
                        return;
                    }
                    if self.keep {
                        let text: String = self.chars[start..self.at - 1].iter().collect();
                        self.tokens.push(Token::Comment { text });
                    }
                }
                ';' => self.skip_line(),
                '[' => self.tag(),
                '(' if self.keep => {
                    self.tokens.push(Token::OpenParen { line: self.line });
                    self.bump();
                }
                '(' => {
                    let line = self.line;
                    self.skip_variation();
                    self.tokens.push(Token::Variation { line });
                }
                ')' => {
                    self.tokens.push(Token::CloseParen { line: self.line });
                    self.bump();
                }
                '$' => {
                    self.bump();
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.bump();
                    }
                }
                _ => self.word(),
            }
        }
    }

    /// Skips `{...}`; false when the comment never closes.
    fn skip_comment(&mut self) -> bool {
        self.bump();
        while let Some(c) = self.bump() {
            if c == '}' {
                return true;
            }
        }
        false
    }

    /// Skips a balanced `( ... )`, comments inside included.
    fn skip_variation(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                '(' => {
                    depth += 1;
                    self.bump();
                }
                ')' => {
                    self.bump();
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                '{' => {
                    if !self.skip_comment() {
                        return;
                    }
                }
                ';' => self.skip_line(),
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.bump();
        }
    }

    /// `[Name "value"]`, with `\"` and `\\` escapes in the value.
    fn tag(&mut self) {
        let line = self.line;
        self.bump();
        self.skip_blanks();
        let mut name = String::new();
        while let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
            name.push(c);
            self.bump();
        }
        let result = if name.is_empty() {
            Err(TagError::MissingName)
        } else {
            self.tag_value(&name)
        };
        match result {
            Ok(value) => self.tokens.push(Token::Tag { name, value }),
            Err(reason) => {
                if self.line == line {
                    self.skip_line();
                }
                self.tokens
                    .push(Token::TagError(PgnError::Tag { line, reason }));
            }
        }
    }

    fn tag_value(&mut self, name: &str) -> Result<String, TagError> {
        self.skip_blanks();
        if self.peek() != Some('"') {
            return Err(TagError::MissingValue(name.to_string()));
        }
        self.bump();
        let mut value = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => return Err(TagError::UnclosedValue(name.to_string())),
                Some('"') => {
                    self.bump();
                    break;
                }
                Some('\\') => {
                    self.bump();
                    match self.peek() {
                        Some(c @ ('"' | '\\')) => {
                            value.push(c);
                            self.bump();
                        }
                        _ => value.push('\\'),
                    }
                }
                Some(c) => {
                    value.push(c);
                    self.bump();
                }
            }
        }
        self.skip_blanks();
        if self.peek() != Some(']') {
            return Err(TagError::UnclosedTag(name.to_string()));
        }
        self.bump();
        Ok(value)
    }

    fn word(&mut self) {
        let line = self.line;
        let mut text = String::new();
        while let Some(c) = self.peek().filter(|&c| !ends_word(c)) {
            text.push(c);
            self.bump();
        }
        if text.is_empty() {
            // A stray closing brace or bracket: skip it as noise.
            self.bump();
            return;
        }
        self.classify(text, line);
    }

    /// Classifies a word; compact forms such as `1.e4` or `1...e5,Nc6`
    /// yield a move number and then the rest, in a loop (not recursion, so
    /// that `1.2.3.4...` of any length is safe).
    fn classify(&mut self, mut text: String, line: usize) {
        loop {
            if let Ok(result) = text.parse::<GameResult>() {
                self.tokens.push(Token::Result(result, line));
                return;
            }
            if text.chars().all(|c| c == '!' || c == '?') {
                return;
            }
            let digits = text.chars().take_while(|c| c.is_ascii_digit()).count();
            // Digits are ASCII, so `digits` is also a byte offset.
            let (number_text, rest) = text.split_at(digits);
            let dots = rest.chars().take_while(|&c| c == '.' || c == '…').count();
            if digits == 0 || (dots == 0 && !rest.is_empty()) {
                // A turn, or `0-0` and other text that merely starts with a digit.
                self.tokens.push(Token::Word {
                    text,
                    line,
                    spaced: false,
                });
                return;
            }
            let number = number_text.parse().unwrap_or(u32::MAX);
            let dots_text: String = rest.chars().take(dots).collect();
            let black = dots_text.chars().count() >= 2 || dots_text.contains('…');
            let remainder: String = rest.chars().skip(dots).collect();
            self.tokens.push(Token::MoveNumber {
                number,
                black,
                bare: dots == 0,
                text: format!("{number_text}{dots_text}"),
            });
            if remainder.is_empty() {
                return;
            }
            text = remainder;
        }
    }
}
