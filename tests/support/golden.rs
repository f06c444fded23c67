//! Golden transcripts: the exact text the server sent, normalized only where
//! a value cannot repeat from one run to the next, compared byte for byte
//! with a file under `tests/data/`.
//!
//! Used by `tests/server/wire_golden.rs` (the WebSocket and HTTP wire) and
//! `tests/store/fixture_v2.rs` (what a database written by an older binary
//! serves). They guard byte compatibility across rewrites of the server core,
//! so the comparison is on the raw text, never on parsed JSON: key order,
//! spacing and number formatting all count.
//!
//! ## Blessing
//! Without `MARSEILLAIS_BLESS=1` a test only compares, and on a difference
//! writes what it got next to the golden file as `NAME.actual` (ignored by
//! git) so that `diff` shows it. With `MARSEILLAIS_BLESS=1` it (re)writes the
//! golden file instead. Bless only for an intended wire change, and review
//! the diff of `tests/data/` like code.
//!
//! ## What is normalized ([`Normalizer`]) and nothing else
//! JSON text is walked token by token (a tiny scanner, not serde, so that
//! everything else stays byte-identical); a value is replaced by a
//! placeholder, keeping its key and position, only when:
//! - it is a game id: a string of 8 ASCII letters or digits under the key
//!   `id` or `rematch`, or any id registered with [`Normalizer::game`]. Every
//!   occurrence of a known id anywhere in the text (urls `/game/ID`, the PGN
//!   `Site` tag) becomes `<game-N>`, numbered in the order the ids were first
//!   registered or seen, so that the golden still shows which game is which.
//!   (The tests choose ack ids that are not 8 characters long.)
//! - it is a seat token or its stored hash: the string under the key `token`
//!   -> `"<token>"`, under `seat_hash` -> `"<seat_hash>"`;
//! - it is a wall-clock timestamp: the number under `at_ms`, `created_ms`,
//!   `updated_ms` -> `<ms>`;
//! - it is a reading of a clock taken at some moment: the number under
//!   `first_move_ms` -> `<first_move_ms>`, under `white`/`black` of a
//!   `claim_in_ms` object -> `<claim_in_ms>`, and under `white`/`black` of a
//!   `clock` object -> `<clock>`, and each number of a `clock` array (a
//!   stored event's readings) -> `<clock>`.
//!
//! In [`Mode::Stored`] (what a fixture database serves) ids, tokens,
//! timestamps and dates are fixed and kept; only live readings are replaced:
//! `first_move_ms`, `claim_in_ms`, and in a `clock` only the side named by its
//! `running` (the other side's reading is the stored one).
//!
//! A placeholder replaces only a number (or, for ids and tokens, a string):
//! `null` stays `null`, so a value that changes type still shows.
//! In PGN text the ids are replaced the same way and the `Date` tag's value
//! (the creation day) becomes `<date>` ([`Mode::Wire`] only).
use std::path::{Path, PathBuf};

/// The switch that (re)writes golden files instead of comparing.
pub const BLESS_ENV: &str = "MARSEILLAIS_BLESS";

/// What is volatile in the text being normalized.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Output about games played during the test: everything listed in the
    /// module documentation.
    Wire,
    /// Output about games stored earlier (a fixture database): ids,
    /// timestamps and dates are fixed, and so is every clock reading but the
    /// running side's; only live readings (the running clock, a pending
    /// `first_move_ms`, `claim_in_ms`) are replaced.
    Stored,
}

/// Replaces the volatile values of server output by placeholders (see the
/// module documentation for the complete list).
pub struct Normalizer {
    ids: Vec<String>,
    mode: Mode,
}

impl Normalizer {
    pub fn new(mode: Mode) -> Normalizer {
        Normalizer {
            ids: Vec::new(),
            mode,
        }
    }

    /// Registers a game id (numbered in registration order); returns its
    /// placeholder.
    pub fn game(&mut self, id: &str) -> String {
        let at = match self.ids.iter().position(|known| known == id) {
            Some(at) => at,
            None => {
                self.ids.push(id.to_string());
                self.ids.len() - 1
            }
        };
        format!("<game-{}>", at + 1)
    }

    /// A JSON text (one message or body), normalized.
    pub fn json(&mut self, text: &str) -> String {
        let mut scan = Scan {
            text: text.as_bytes(),
            at: 0,
            out: String::with_capacity(text.len()),
            found_ids: Vec::new(),
            mode: self.mode,
        };
        if scan.value(None, None).is_err() || scan.at != text.len() {
            // Not one JSON value: leave it to the id replacement only, so
            // the golden shows exactly what came.
            scan.out = text.to_string();
        }
        if self.mode == Mode::Wire {
            for id in std::mem::take(&mut scan.found_ids) {
                self.game(&id);
            }
        }
        self.replace_ids(&scan.out)
    }

    /// A PGN (or other plain) text, normalized.
    pub fn text(&mut self, text: &str) -> String {
        let mut out = self.replace_ids(text);
        if self.mode == Mode::Wire {
            out = out
                .lines()
                .map(|line| {
                    if line.starts_with("[Date \"") && line.ends_with("\"]") {
                        "[Date \"<date>\"]".to_string()
                    } else {
                        line.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            if text.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }

    /// The game ids registered or seen so far, in placeholder order.
    pub fn ids(&self) -> Vec<String> {
        self.ids.clone()
    }

    fn replace_ids(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (at, id) in self.ids.iter().enumerate() {
            out = out.replace(id.as_str(), &format!("<game-{}>", at + 1));
        }
        out
    }
}

fn is_game_id(s: &str) -> bool {
    s.len() == 8 && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The scanner behind [`Normalizer::json`]: copies the text, replacing
/// values by placeholders by their key and the key of the enclosing object.
struct Scan<'a> {
    text: &'a [u8],
    at: usize,
    out: String,
    found_ids: Vec<String>,
    mode: Mode,
}

/// One scanned value: its normalized text, and the raw text of a string
/// (unescaped enough for our keys and ids: the raw bytes between quotes).
struct Scanned {
    out: String,
    kind: Kind,
    raw: String,
}

#[derive(PartialEq, Eq)]
enum Kind {
    String,
    Number,
    Other,
}

type Fail = ();

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn ws(&mut self, into: &mut String) {
        while let Some(b) = self.peek() {
            if b == b' ' || b == b'\n' || b == b'\r' || b == b'\t' {
                into.push(b as char);
                self.at += 1;
            } else {
                break;
            }
        }
    }

    fn value(&mut self, key: Option<&str>, parent: Option<&str>) -> Result<(), Fail> {
        let scanned = self.scan_value(key)?;
        let placeholder = match (key, parent, &scanned.kind) {
            // A stored event's clocks: `"clock":[299997,300000]`.
            (None, Some("clock"), Kind::Number) if self.mode == Mode::Wire => {
                Some("<clock>".to_string())
            }
            _ => placeholder(key, parent, &scanned, self.mode),
        };
        if scanned.kind == Kind::String
            && matches!(key, Some("id") | Some("rematch"))
            && is_game_id(&scanned.raw)
        {
            self.found_ids.push(scanned.raw.clone());
        }
        self.out
            .push_str(placeholder.as_deref().unwrap_or(&scanned.out));
        Ok(())
    }

    /// Scans one value into its own buffer (objects normalize their members).
    fn scan_value(&mut self, key: Option<&str>) -> Result<Scanned, Fail> {
        let outer = std::mem::take(&mut self.out);
        let result = self.scan_value_inner(key);
        let inner = std::mem::replace(&mut self.out, outer);
        result.map(|(kind, raw)| Scanned {
            out: inner,
            kind,
            raw,
        })
    }

    fn scan_value_inner(&mut self, key: Option<&str>) -> Result<(Kind, String), Fail> {
        match self.peek().ok_or(())? {
            b'{' => {
                self.object(key)?;
                Ok((Kind::Other, String::new()))
            }
            b'[' => {
                self.at += 1;
                self.out.push('[');
                let mut ws = String::new();
                self.ws(&mut ws);
                self.out.push_str(&ws);
                if self.peek() == Some(b']') {
                    self.at += 1;
                    self.out.push(']');
                    return Ok((Kind::Other, String::new()));
                }
                loop {
                    // Array elements inherit the array's key as their parent.
                    self.value(None, key)?;
                    let mut ws = String::new();
                    self.ws(&mut ws);
                    self.out.push_str(&ws);
                    match self.peek().ok_or(())? {
                        b',' => {
                            self.at += 1;
                            self.out.push(',');
                            let mut ws = String::new();
                            self.ws(&mut ws);
                            self.out.push_str(&ws);
                        }
                        b']' => {
                            self.at += 1;
                            self.out.push(']');
                            return Ok((Kind::Other, String::new()));
                        }
                        _ => return Err(()),
                    }
                }
            }
            b'"' => {
                let raw = self.string()?;
                Ok((Kind::String, raw))
            }
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                while let Some(b) = self.peek() {
                    if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E') {
                        self.at += 1;
                    } else {
                        break;
                    }
                }
                let raw = std::str::from_utf8(&self.text[start..self.at]).map_err(|_| ())?;
                self.out.push_str(raw);
                Ok((Kind::Number, raw.to_string()))
            }
            _ => {
                for word in ["true", "false", "null"] {
                    if self.text[self.at..].starts_with(word.as_bytes()) {
                        self.at += word.len();
                        self.out.push_str(word);
                        return Ok((Kind::Other, word.to_string()));
                    }
                }
                Err(())
            }
        }
    }

    /// A string, copied to `out`; returns the bytes between the quotes.
    fn string(&mut self) -> Result<String, Fail> {
        let start = self.at;
        self.at += 1;
        loop {
            match self.peek().ok_or(())? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    break;
                }
                _ => self.at += 1,
            }
        }
        let whole =
            std::str::from_utf8(self.text.get(start..self.at).ok_or(())?).map_err(|_| ())?;
        self.out.push_str(whole);
        Ok(whole[1..whole.len() - 1].to_string())
    }

    /// An object: members are scanned first, then written, so that a
    /// `clock` object can look at its `running` member.
    fn object(&mut self, key: Option<&str>) -> Result<(), Fail> {
        self.at += 1;
        // (leading whitespace, key text, whitespace + colon + whitespace, value, trailing ws, separator)
        let mut members: Vec<(String, String, String, String, Scanned, String)> = Vec::new();
        let mut lead = String::new();
        self.ws(&mut lead);
        let mut close = String::new();
        if self.peek() == Some(b'}') {
            self.at += 1;
            self.out.push('{');
            self.out.push_str(&lead);
            self.out.push('}');
            return Ok(());
        }
        loop {
            let outer = std::mem::take(&mut self.out);
            let name = self.string();
            let key_text = std::mem::replace(&mut self.out, outer);
            let name = name?;
            let mut colon = String::new();
            self.ws(&mut colon);
            if self.peek() != Some(b':') {
                return Err(());
            }
            self.at += 1;
            colon.push(':');
            self.ws(&mut colon);
            // A nested object or array normalizes its own members with this
            // member's name as their parent.
            let outer = std::mem::take(&mut self.out);
            let scanned = self.scan_member(&name, key);
            self.out = outer;
            let scanned = scanned?;
            let mut trail = String::new();
            self.ws(&mut trail);
            match self.peek().ok_or(())? {
                b',' => {
                    self.at += 1;
                    members.push((lead, name, key_text, colon, scanned, trail + ","));
                    lead = String::new();
                    self.ws(&mut lead);
                }
                b'}' => {
                    self.at += 1;
                    members.push((lead, name, key_text, colon, scanned, trail));
                    close.push('}');
                    break;
                }
                _ => return Err(()),
            }
        }
        let running = members
            .iter()
            .find(|m| m.1 == "running")
            .map(|m| m.4.raw.clone());
        self.out.push('{');
        for (lead, name, key_text, colon, scanned, sep) in members {
            self.out.push_str(&lead);
            self.out.push_str(&key_text);
            self.out.push_str(&colon);
            let mut replaced = placeholder(Some(&name), key, &scanned, self.mode);
            if key == Some("clock")
                && self.mode == Mode::Stored
                && running.as_deref() != Some(name.as_str())
                && replaced.as_deref() == Some("<clock>")
            {
                replaced = None;
            }
            if scanned.kind == Kind::String
                && matches!(name.as_str(), "id" | "rematch")
                && is_game_id(&scanned.raw)
            {
                self.found_ids.push(scanned.raw.clone());
            }
            self.out
                .push_str(replaced.as_deref().unwrap_or(&scanned.out));
            self.out.push_str(&sep);
        }
        self.out.push_str(&close);
        Ok(())
    }

    fn scan_member(&mut self, name: &str, _parent: Option<&str>) -> Result<Scanned, Fail> {
        self.scan_value(Some(name))
    }
}

/// The placeholder for a value under `key` in an object under `parent`, if
/// it is volatile.
fn placeholder(
    key: Option<&str>,
    parent: Option<&str>,
    scanned: &Scanned,
    mode: Mode,
) -> Option<String> {
    let key = key?;
    match scanned.kind {
        Kind::Number => match (parent, key) {
            (_, "at_ms" | "created_ms" | "updated_ms") if mode == Mode::Wire => Some("<ms>".into()),
            (_, "first_move_ms") => Some("<first_move_ms>".into()),
            (Some("clock"), "white" | "black") => Some("<clock>".into()),
            (Some("claim_in_ms"), "white" | "black") => Some("<claim_in_ms>".into()),
            _ => None,
        },
        Kind::String if key == "token" && mode == Mode::Wire => Some("\"<token>\"".into()),
        Kind::String if key == "seat_hash" && mode == Mode::Wire => Some("\"<seat_hash>\"".into()),
        _ => None,
    }
}

/// The golden file `dir/NAME`: compares `actual` with it, or writes it when
/// blessing. On a difference, writes `NAME.actual` beside it and panics with
/// the first differing line.
pub fn check(dir: &Path, name: &str, actual: &str) {
    let path = dir.join(name);
    if std::env::var(BLESS_ENV).is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(dir).expect("golden dir");
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with {BLESS_ENV}=1 to write it from this server",
            path.display()
        )
    });
    if expected == actual {
        let _ = std::fs::remove_file(actual_path(&path));
        return;
    }
    std::fs::write(actual_path(&path), actual).expect("write actual");
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(e, a)| e != a)
        .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
    panic!(
        "{} differs from what the server sent (first at line {}):\n  golden: {}\n  actual: {}\n\
         (the whole actual text is in {}; diff them)",
        path.display(),
        line + 1,
        expected.lines().nth(line).unwrap_or("<end of file>"),
        actual.lines().nth(line).unwrap_or("<end of output>"),
        actual_path(&path).display()
    );
}

fn actual_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".actual");
    path.with_file_name(name)
}
