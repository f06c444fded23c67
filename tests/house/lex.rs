//! Rust source as the import graph needs it: identifiers, `::`, braces and the few punctuation
//! marks a `use` tree is made of. Comments, strings and character literals are dropped, so that
//! a path in a doc comment or a message is never read as an import.

/// One token of a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    Ident(String),
    /// `::`
    PathSep,
    Open,
    Close,
    /// Any other punctuation or literal, kept as a character so that `use` trees and item
    /// headers can be read (`;`, `,`, `*`, `(`, `)`, `!`, `#`, `[`, `]`, ...).
    Punct(char),
}

/// Splits `text` into tokens.
pub fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i);
        } else if c == '"' {
            i = skip_string(&chars, i + 1);
        } else if (c == 'r' || c == 'b') && starts_raw_or_byte_string(&chars, i) {
            i = skip_raw_or_byte_string(&chars, i);
        } else if c == '\'' {
            i = skip_char_or_lifetime(&chars, i);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(Token::Ident(word.trim_start_matches("r#").to_string()));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push(Token::PathSep);
            i += 2;
        } else if c == '{' {
            out.push(Token::Open);
            i += 1;
        } else if c == '}' {
            out.push(Token::Close);
            i += 1;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

fn skip_block_comment(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i + 1 < chars.len() {
        if chars[i] == '/' && chars[i + 1] == '*' {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars[i + 1] == '/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    chars.len()
}

/// From just after an opening `"` to just after its closing one.
fn skip_string(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

fn starts_raw_or_byte_string(chars: &[char], i: usize) -> bool {
    // Not the end of an identifier such as `bar"`: the letter starts a token.
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
    rest.starts_with("r\"")
        || rest.starts_with("r#")
        || rest.starts_with("b\"")
        || rest.starts_with("br")
        || rest.starts_with("b'")
}

fn skip_raw_or_byte_string(chars: &[char], mut i: usize) -> usize {
    if chars[i] == 'b' {
        i += 1;
        match chars.get(i) {
            Some('"') => return skip_string(chars, i + 1),
            Some('\'') => return skip_char_or_lifetime(chars, i),
            _ => {}
        }
    }
    // r, then hashes, then a quote
    i += 1;
    let mut hashes = 0;
    while chars.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    if chars.get(i) != Some(&'"') {
        // `r#ident`: a raw identifier, read by the caller's next turn
        return i;
    }
    i += 1;
    while i < chars.len() {
        if chars[i] == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    chars.len()
}

/// `'a'`, `'\n'`, `'\u{..}'` are character literals; `'a` is a lifetime (its name is skipped:
/// it never names a module).
fn skip_char_or_lifetime(chars: &[char], i: usize) -> usize {
    match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('\\'), _) => {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            j + 1
        }
        (Some(_), Some('\'')) => i + 3,
        _ => {
            let mut j = i + 1;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            j
        }
    }
}

/// One path a `use` brings in: `use a::b::{c as d, e::*}` gives `a::b::c` (named `d`) and
/// `a::b::e::*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsePath {
    pub segments: Vec<String>,
    /// The name it is known by here; `None` for a glob.
    pub alias: Option<String>,
}

/// Reads the tree of a `use` that starts at `tokens[start]` (just after `use`), up to its `;`.
/// Returns the paths and the index after the `;`.
pub fn use_tree(tokens: &[Token], start: usize) -> (Vec<UsePath>, usize) {
    let mut out = Vec::new();
    let mut i = start;
    read_tree(tokens, &mut i, &[], &mut out);
    while i < tokens.len() && tokens[i] != Token::Punct(';') {
        i += 1;
    }
    (out, i + 1)
}

fn read_tree(tokens: &[Token], i: &mut usize, prefix: &[String], out: &mut Vec<UsePath>) {
    let mut segments = prefix.to_vec();
    loop {
        match tokens.get(*i) {
            Some(Token::PathSep) => *i += 1,
            Some(Token::Ident(word)) => {
                segments.push(word.clone());
                *i += 1;
                if tokens.get(*i) == Some(&Token::PathSep) {
                    continue;
                }
                let mut alias = word.clone();
                if tokens.get(*i) == Some(&Token::Ident("as".into())) {
                    if let Some(Token::Ident(name)) = tokens.get(*i + 1) {
                        alias = name.clone();
                    }
                    *i += 2;
                }
                if segments.last().map(String::as_str) == Some("self") {
                    segments.pop();
                    if alias == "self" {
                        alias = segments.last().cloned().unwrap_or_default();
                    }
                }
                out.push(UsePath {
                    segments,
                    alias: Some(alias),
                });
                return;
            }
            Some(Token::Punct('*')) => {
                *i += 1;
                out.push(UsePath {
                    segments,
                    alias: None,
                });
                return;
            }
            Some(Token::Open) => {
                *i += 1;
                loop {
                    match tokens.get(*i) {
                        Some(Token::Close) => {
                            *i += 1;
                            return;
                        }
                        Some(Token::Punct(',')) => *i += 1,
                        None => return,
                        _ => read_tree(tokens, i, &segments, out),
                    }
                }
            }
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(src: &str) -> Vec<(String, Option<String>)> {
        let tokens = tokens(src);
        let (paths, _) = use_tree(&tokens, 1);
        paths
            .into_iter()
            .map(|p| (p.segments.join("::"), p.alias))
            .collect()
    }

    #[test]
    fn a_nested_use_tree_gives_every_path_with_its_name() {
        let got = paths("use crate::server::{a::B, c::{self, D as E}, f::*};");
        assert_eq!(
            got,
            vec![
                ("crate::server::a::B".into(), Some("B".into())),
                ("crate::server::c".into(), Some("c".into())),
                ("crate::server::c::D".into(), Some("E".into())),
                ("crate::server::f".into(), None),
            ]
        );
    }

    #[test]
    fn comments_strings_and_chars_hide_no_path_and_make_none() {
        let got =
            tokens("// crate::a\n/* crate::b /* nested */ */ \"crate::c\" r#\"crate::d\"# '\"' x");
        assert_eq!(got, vec![Token::Ident("x".into())]);
        let lifetimes = tokens("fn f<'a>(s: &'a str) -> char { 'x' }");
        assert!(!lifetimes.contains(&Token::Ident("a".into())));
    }
}
