//! The puzzle set as CSV, in lichess's puzzle-database layout adapted (the shipped
//! `assets/puzzles.csv`, the generator's output, the importer's input), and the puzzle id.
//!
//! `PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags`:
//! the FEN is the position before the opponent's turn (extended FEN), Moves the line's text
//! (`e2e4,d2d4 e7e5,d8h4`, quoted since it holds commas), Themes the keys separated by one
//! space, GameUrl `/game/{id}` or `selfplay:{seed}:{n}`, OpeningTags always empty. Reading
//! checks every row whole (the line with the rules core, every theme key) and names the line
//! of the first bad one; quoting is BurntSushi's `csv` crate's, never hand-made.

use std::io;

use ::csv::{ReaderBuilder, StringRecord, Terminator, WriterBuilder};

use super::line::{LineError, PuzzleLine};
use super::theme::Theme;

/// The header of the puzzle CSV, lichess's columns.
pub const HEADER: [&str; 10] = [
    "PuzzleId",
    "FEN",
    "Moves",
    "Rating",
    "RatingDeviation",
    "Popularity",
    "NbPlays",
    "Themes",
    "GameUrl",
    "OpeningTags",
];

/// The longest puzzle id read (ours are [`ID_LENGTH`]; lichess's are 5).
pub const MAX_ID_LENGTH: usize = 16;

/// The length of the ids [`puzzle_id`] makes.
pub const ID_LENGTH: usize = 6;

/// One row of the puzzle CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvPuzzle {
    pub id: String,
    /// The position before the opponent's turn.
    pub fen: String,
    /// The line's text, the opponent's turn first.
    pub moves: String,
    pub rating: i32,
    pub deviation: i32,
    pub popularity: i32,
    pub plays: u32,
    pub themes: Vec<Theme>,
    /// `/game/{id}` or `selfplay:{seed}:{n}` (the GameUrl column).
    pub source: String,
}

/// Why a CSV text is not a puzzle set. `line` is the text's line, from 1 (the header).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    #[error("line 1: the header is not {}: {found}", HEADER.join(","))]
    Header { found: String },
    #[error("line {line}: {message}")]
    Format { line: u64, message: String },
    #[error("line {line}: the puzzle id '{id}' is not 1 to {MAX_ID_LENGTH} letters and digits")]
    Id { line: u64, id: String },
    #[error("line {line}: {column} '{text}' is not a whole number in range")]
    Number {
        line: u64,
        column: &'static str,
        text: String,
    },
    #[error("line {line}: {error}")]
    Line { line: u64, error: LineError },
    #[error("line {line}: '{key}' is not a theme")]
    Theme { line: u64, key: String },
}

/// Writes the header and the rows.
pub fn write(out: &mut impl io::Write, rows: &[CsvPuzzle]) -> io::Result<()> {
    let mut writer = WriterBuilder::new()
        .terminator(Terminator::Any(b'\n'))
        .from_writer(out);
    writer.write_record(HEADER).map_err(into_io)?;
    for row in rows {
        let themes = row
            .themes
            .iter()
            .map(|theme| theme.key())
            .collect::<Vec<_>>()
            .join(" ");
        writer
            .write_record([
                row.id.as_str(),
                &row.fen,
                &row.moves,
                &row.rating.to_string(),
                &row.deviation.to_string(),
                &row.popularity.to_string(),
                &row.plays.to_string(),
                &themes,
                &row.source,
                "",
            ])
            .map_err(into_io)?;
    }
    writer.flush()
}

/// Reads a puzzle CSV, checking every row: the header, the id, the numbers, the line (with the
/// rules core) and every theme key.
pub fn read(text: &str) -> Result<Vec<CsvPuzzle>, CsvError> {
    let mut reader = ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let header = reader.headers().map_err(format_error)?;
    if header.iter().ne(HEADER) {
        return Err(CsvError::Header {
            found: header.iter().collect::<Vec<_>>().join(","),
        });
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(format_error)?;
        rows.push(row(&record)?);
    }
    Ok(rows)
}

/// One record, checked.
fn row(record: &StringRecord) -> Result<CsvPuzzle, CsvError> {
    let line = record.position().map_or(0, ::csv::Position::line);
    let field = |index: usize| record.get(index).unwrap_or("");
    let id = field(0);
    if id.is_empty() || id.len() > MAX_ID_LENGTH || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(CsvError::Id {
            line,
            id: id.to_string(),
        });
    }
    let (fen, moves) = (field(1), field(2));
    PuzzleLine::parse(fen, moves).map_err(|error| CsvError::Line { line, error })?;
    let number = |index: usize| {
        let text = field(index);
        text.parse::<i64>().map_err(|_| CsvError::Number {
            line,
            column: HEADER[index],
            text: text.to_string(),
        })
    };
    let small = |index: usize| {
        i32::try_from(number(index)?).map_err(|_| CsvError::Number {
            line,
            column: HEADER[index],
            text: field(index).to_string(),
        })
    };
    let plays = u32::try_from(number(6)?).map_err(|_| CsvError::Number {
        line,
        column: HEADER[6],
        text: field(6).to_string(),
    })?;
    let themes = field(7)
        .split(' ')
        .filter(|key| !key.is_empty())
        .map(|key| {
            Theme::from_key(key).ok_or_else(|| CsvError::Theme {
                line,
                key: key.to_string(),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(CsvPuzzle {
        id: id.to_string(),
        fen: fen.to_string(),
        moves: moves.to_string(),
        rating: small(3)?,
        deviation: small(4)?,
        popularity: small(5)?,
        plays,
        themes,
        source: field(8).to_string(),
    })
}

/// A CSV-level error (bad UTF-8, a row of the wrong length) with its line.
fn format_error(error: ::csv::Error) -> CsvError {
    let line = error.position().map_or(1, ::csv::Position::line);
    CsvError::Format {
        line,
        message: error.to_string(),
    }
}

/// The writer's errors are I/O errors, or (never for string records) serialisation ones.
fn into_io(error: ::csv::Error) -> io::Error {
    match error.into_kind() {
        ::csv::ErrorKind::Io(error) => error,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// The id alphabet, lichess's: digits, then lower and upper case letters.
const ALPHABET: &[u8; 62] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// A stable id of [`ID_LENGTH`] characters `[0-9a-zA-Z]` for a puzzle: FNV-1a (64 bits) over
/// the solver's start position written as FEN without its move counters (placement, side,
/// castling, en-passant targets, phase), in base 62. The same solver position is the same id
/// whatever the opponent's turn before it or the counters, so the id is the set's dedup key.
/// It never depends on Rust's randomised hasher nor on our Zobrist keys. A text that is not a
/// line is hashed as it stands (`fen`, a space, `moves`). 62^6 ids: two of 10,000 puzzles
/// share one with a chance under 0.1%; the store keeps the first.
pub fn puzzle_id(fen: &str, moves: &str) -> String {
    let key = match PuzzleLine::parse(fen, moves) {
        Ok(line) => position_key(&line.solver_start().fen()),
        Err(_) => format!("{fen} {moves}"),
    };
    let mut hash = fnv1a(key.as_bytes()) % 62u64.pow(ID_LENGTH as u32);
    let mut id = [b'0'; ID_LENGTH];
    for slot in id.iter_mut().rev() {
        *slot = ALPHABET[(hash % 62) as usize];
        hash /= 62;
    }
    id.iter().map(|&b| char::from(b)).collect()
}

/// An extended FEN without its halfmove and fullmove counters (its phase kept).
fn position_key(fen: &str) -> String {
    let fields: Vec<&str> = fen.split(' ').collect();
    let mut key: Vec<&str> = fields.iter().take(4).copied().collect();
    key.extend(fields.get(6).copied());
    key.join(" ")
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests;
