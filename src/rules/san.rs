//! Standard Algebraic Notation for one sub-move (`docs/rules.md` section 4):
//! the canonical writer, a tolerant reader for imports, and the strict
//! comparison `pgn check` uses to report non-standard text.
//!
//! SAN is always relative to the position the sub-move is played in:
//! disambiguation looks only at that position's legal sub-moves, and the
//! `+`/`#` mark looks at the position that follows. Because check ends a
//! Marseillais turn, a checking sub-move hands the move to the opponent, so
//! the mark is simply "the side to move afterwards is in check (and mated)".

use cozy_chess::{File, Piece, Rank, Square};

use super::position::Position;
use super::submove::SubMove;

/// Why a SAN text does not name exactly one legal sub-move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    #[error("'{0}' is not SAN")]
    Unparsable(String),
    #[error("'{0}' is not a legal sub-move here")]
    Illegal(String),
    #[error("'{0}' is ambiguous: it could be {list}", list = uci_list(.1))]
    Ambiguous(String, Vec<SubMove>),
}

/// A SAN text that names a legal sub-move but is not written the standard
/// way. The tolerant reader accepts all of these; `pgn check` reports them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SanIssue {
    #[error("'{written}' is over-disambiguated; standard SAN is '{standard}'")]
    OverDisambiguated { written: String, standard: String },
    #[error("'{written}' lacks its check mark; standard SAN is '{standard}'")]
    MissingCheckMark { written: String, standard: String },
    #[error("'{written}' has a wrong check mark; standard SAN is '{standard}'")]
    WrongCheckMark { written: String, standard: String },
    #[error("'{written}' is not standard SAN; write '{standard}'")]
    NonStandard { written: String, standard: String },
    /// `e.p.` written after a sub-move that does not take en passant (an
    /// ordinary capture, a pawn step, a piece move): the rules allow the
    /// mark only on an en-passant capture.
    #[error(
        "'{written}' is marked e.p. but is not an en-passant capture; standard SAN is '{standard}'"
    )]
    FalseEnPassantMark { written: String, standard: String },
}

/// What strict reading found wrong: either the text names no single legal
/// sub-move, or it does but not in standard form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StrictSanError {
    #[error(transparent)]
    Invalid(#[from] SanError),
    #[error(transparent)]
    Issue(#[from] SanIssue),
}

fn uci_list(moves: &[SubMove]) -> String {
    let names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    names.join(", ")
}

impl Position {
    /// The standard SAN of a legal sub-move in this position.
    pub fn san(&self, mv: SubMove) -> String {
        san(self, mv)
    }

    /// [`Position::san`] from lists the caller holds already, with no
    /// legal-move generation: `legal` is this position's legal sub-moves
    /// (for disambiguation), `after` the position `mv` leads to and
    /// `after_legal` its legal sub-moves (for the `#` mark). The server's
    /// move path has all three from [`super::Game::preview`].
    pub fn san_with(
        &self,
        mv: SubMove,
        legal: &[SubMove],
        after: &Position,
        after_legal: &[SubMove],
    ) -> String {
        let mut text = san_without_mark(self, mv, Some(legal));
        text.push_str(mark(after, after_legal.is_empty()));
        text
    }
}

/// The standard SAN of `mv`, which must be legal in `position` (for any
/// other sub-move the text is unspecified but nothing panics).
pub fn san(position: &Position, mv: SubMove) -> String {
    let mut text = san_without_mark(position, mv, None);
    text.push_str(check_mark(position, mv));
    text
}

/// `+`, `#` or nothing: what the position after `mv` shows.
fn check_mark(position: &Position, mv: SubMove) -> &'static str {
    let next = position.play_unchecked(mv);
    if !next.is_check() {
        return "";
    }
    mark(&next, !next.has_legal_submove())
}

/// The mark of a position reached by a sub-move: a check hands the move to
/// the opponent (check ends the turn), so in check with no legal sub-move
/// is checkmate, `#`; in check otherwise `+`.
fn mark(after: &Position, no_legal_submove: bool) -> &'static str {
    match (after.is_check(), no_legal_submove) {
        (false, _) => "",
        (true, true) => "#",
        (true, false) => "+",
    }
}

/// The SAN without its mark; `legal` is the position's legal sub-moves if
/// the caller has them (they are generated only when disambiguation needs them).
fn san_without_mark(position: &Position, mv: SubMove, legal: Option<&[SubMove]>) -> String {
    if position.is_castling(mv) {
        return if mv.to.file() == File::G {
            "O-O".into()
        } else {
            "O-O-O".into()
        };
    }
    let piece = position.board().piece_on(mv.from).unwrap_or(Piece::Pawn);
    let capture = position.is_capture(mv);
    let (file, rank) = if piece == Piece::Pawn {
        (capture, false)
    } else {
        match legal {
            Some(legal) => needed_disambiguation(position, mv, piece, legal),
            None => needed_disambiguation(position, mv, piece, &position.legal_submoves()),
        }
    };
    format_core(&Core {
        piece,
        from_file: file.then(|| mv.from.file()),
        from_rank: rank.then(|| mv.from.rank()),
        capture,
        to: mv.to,
        promotion: mv.promotion,
    })
}

/// Whether the origin file and/or rank must be written so that no other
/// legal sub-move of the same piece type to the same square matches.
fn needed_disambiguation(
    position: &Position,
    mv: SubMove,
    piece: Piece,
    legal: &[SubMove],
) -> (bool, bool) {
    let board = position.board();
    let rivals: Vec<Square> = legal
        .iter()
        .filter(|other| {
            other.to == mv.to
                && other.from != mv.from
                && board.piece_on(other.from) == Some(piece)
                && !position.is_castling(**other)
        })
        .map(|other| other.from)
        .collect();
    if rivals.is_empty() {
        (false, false)
    } else if rivals.iter().all(|s| s.file() != mv.from.file()) {
        (true, false)
    } else if rivals.iter().all(|s| s.rank() != mv.from.rank()) {
        (false, true)
    } else {
        (true, true)
    }
}

/// The parts of a non-castling SAN, without the check mark.
struct Core {
    piece: Piece,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    capture: bool,
    to: Square,
    promotion: Option<Piece>,
}

fn format_core(core: &Core) -> String {
    let mut text = String::with_capacity(8);
    if core.piece != Piece::Pawn {
        text.push(char::from(core.piece).to_ascii_uppercase());
    }
    if let Some(file) = core.from_file {
        text.push(char::from(file));
    }
    if let Some(rank) = core.from_rank {
        text.push(char::from(rank));
    }
    if core.capture {
        text.push('x');
    }
    text.push_str(&core.to.to_string());
    if let Some(promotion) = core.promotion {
        text.push('=');
        text.push(char::from(promotion).to_ascii_uppercase());
    }
    text
}

/// What the reader understood, before looking for the sub-move.
enum Parsed {
    Castle {
        king_side: bool,
        /// Written with capital letters `O` (the standard) or digit zeros
        /// (accepted by the rules), rather than anything else.
        standard_letters: bool,
    },
    Move(WrittenMove),
}

/// A piece or pawn move as written, every mark kept so that
/// [`parse_checked`] can say how it departs from standard SAN.
struct WrittenMove {
    piece: Piece,
    /// A `P` was written for a pawn.
    explicit_pawn: bool,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    capture: bool,
    /// A `-` separated origin and destination (long algebraic).
    hyphen: bool,
    to: Square,
    promotion: Option<Piece>,
    /// The promotion came without its `=` or in lower case.
    promotion_nonstandard: bool,
}

/// Parsed text plus the trailing marks that were stripped from it.
struct Reading {
    parsed: Parsed,
    /// The `+`/`#` characters written, in order.
    marks: String,
    /// An `e.p.` suffix was written.
    en_passant_mark: bool,
}

fn is_annotation(c: char) -> bool {
    matches!(c, '!' | '?')
}

/// Strips suffixes the rules allow (`!?`-style annotations, check marks,
/// `e.p.`) and parses what remains. Never panics: only ASCII is accepted.
fn read(text: &str) -> Option<Reading> {
    let mut rest = text.trim();
    if !rest.is_ascii() {
        return None;
    }
    let mut marks = String::new();
    let mut en_passant_mark = false;
    loop {
        if let Some(stripped) = rest.strip_suffix("e.p.") {
            rest = stripped.trim_end();
            en_passant_mark = true;
        } else if let Some(c) = rest.chars().last().filter(|&c| is_annotation(c)) {
            rest = &rest[..rest.len() - c.len_utf8()];
        } else if let Some(c) = rest.chars().last().filter(|&c| c == '+' || c == '#') {
            marks.insert(0, c);
            rest = &rest[..rest.len() - 1];
        } else {
            break;
        }
    }
    let parsed = parse_castle(rest).or_else(|| parse_move(rest.as_bytes()))?;
    Some(Reading {
        parsed,
        marks,
        en_passant_mark,
    })
}

fn parse_castle(text: &str) -> Option<Parsed> {
    let (king_side, standard_letters) = match text {
        "O-O" | "0-0" => (true, true),
        "O-O-O" | "0-0-0" => (false, true),
        "o-o" => (true, false),
        "o-o-o" => (false, false),
        _ => return None,
    };
    Some(Parsed::Castle {
        king_side,
        standard_letters,
    })
}

fn piece_of(byte: u8) -> Option<Piece> {
    Some(match byte {
        b'K' => Piece::King,
        b'Q' => Piece::Queen,
        b'R' => Piece::Rook,
        b'B' => Piece::Bishop,
        b'N' => Piece::Knight,
        b'P' => Piece::Pawn,
        _ => return None,
    })
}

fn promotion_of(byte: u8) -> Option<Piece> {
    match byte.to_ascii_uppercase() {
        b'Q' => Some(Piece::Queen),
        b'R' => Some(Piece::Rook),
        b'B' => Some(Piece::Bishop),
        b'N' => Some(Piece::Knight),
        _ => None,
    }
}

fn file_of(byte: u8) -> Option<File> {
    File::try_from(char::from(byte)).ok()
}

fn rank_of(byte: u8) -> Option<Rank> {
    Rank::try_from(char::from(byte)).ok()
}

/// `[piece] [file] [rank] [x|:|-] square [[=]promotion]`, all ASCII.
fn parse_move(bytes: &[u8]) -> Option<Parsed> {
    let (piece, explicit_pawn, mut body) = match bytes.first().copied().and_then(piece_of) {
        Some(piece) => (piece, piece == Piece::Pawn, &bytes[1..]),
        None => (Piece::Pawn, false, bytes),
    };
    let mut promotion = None;
    let mut promotion_nonstandard = false;
    if let [head @ .., before, last] = body
        && let Some(p) = promotion_of(*last)
    {
        if *before == b'=' {
            promotion = Some(p);
            promotion_nonstandard = last.is_ascii_lowercase();
            body = head;
        } else if rank_of(*before).is_some() {
            promotion = Some(p);
            promotion_nonstandard = true;
            body = &body[..body.len() - 1];
        }
    }
    let [prefix @ .., file, rank] = body else {
        return None;
    };
    let to = Square::new(file_of(*file)?, rank_of(*rank)?);
    let (prefix, capture, hyphen) = match prefix {
        [head @ .., b'x' | b':'] => (head, true, false),
        [head @ .., b'-'] => (head, false, true),
        _ => (prefix, false, false),
    };
    let (from_file, from_rank) = match prefix {
        [] => (None, None),
        [a] => match (file_of(*a), rank_of(*a)) {
            (Some(f), _) => (Some(f), None),
            (None, Some(r)) => (None, Some(r)),
            (None, None) => return None,
        },
        [a, b] => (Some(file_of(*a)?), Some(rank_of(*b)?)),
        _ => return None,
    };
    Some(Parsed::Move(WrittenMove {
        piece,
        explicit_pawn,
        from_file,
        from_rank,
        capture,
        hyphen,
        to,
        promotion,
        promotion_nonstandard,
    }))
}

/// The legal sub-moves matching what was read; capture marks are ignored
/// (a missing or extra `x` is tolerated).
fn candidates(position: &Position, parsed: &Parsed) -> Vec<SubMove> {
    let board = position.board();
    position
        .legal_submoves()
        .into_iter()
        .filter(|&mv| match *parsed {
            Parsed::Castle { king_side, .. } => {
                position.is_castling(mv) && (mv.to.file() == File::G) == king_side
            }
            Parsed::Move(ref written) => {
                board.piece_on(mv.from) == Some(written.piece)
                    && mv.to == written.to
                    && written.from_file.is_none_or(|f| mv.from.file() == f)
                    && written.from_rank.is_none_or(|r| mv.from.rank() == r)
                    && (written.promotion.is_none() || mv.promotion == written.promotion)
            }
        })
        .collect()
}

/// Tolerant reading: the legal sub-move `text` names in `position`.
///
/// Accepts `0-0`, an `e.p.` suffix, a missing or extra `x`, a missing,
/// extra or wrong `+`/`#`, over-disambiguation (`Ng1f3`), promotion with or
/// without `=`, and trailing `!`/`?` annotations. Any `&str` is safe.
pub fn parse(position: &Position, text: &str) -> Result<SubMove, SanError> {
    let reading = read(text).ok_or_else(|| SanError::Unparsable(text.to_string()))?;
    let mut found = candidates(position, &reading.parsed);
    match found.len() {
        0 => Err(SanError::Illegal(text.to_string())),
        1 => Ok(found.remove(0)),
        _ => Err(SanError::Ambiguous(text.to_string(), found)),
    }
}

/// Reads like [`parse`] and also lists how the text departs from standard
/// SAN (`0-0`, and `e.p.` on an en-passant capture, are allowed by the
/// rules and not reported; `e.p.` on any other sub-move is).
pub fn parse_checked(
    position: &Position,
    text: &str,
) -> Result<(SubMove, Vec<SanIssue>), SanError> {
    let mv = parse(position, text)?;
    let Some(reading) = read(text) else {
        return Err(SanError::Unparsable(text.to_string()));
    };
    let legal = position.legal_submoves();
    let standard_core = san_without_mark(position, mv, Some(&legal));
    let mut standard = standard_core.clone();
    standard.push_str(check_mark(position, mv));
    let standard_mark = &standard[standard_core.len()..];
    let written = text.to_string();
    let mut issues = Vec::new();
    match reading.parsed {
        Parsed::Castle {
            standard_letters, ..
        } => {
            if !standard_letters {
                issues.push(SanIssue::NonStandard {
                    written: written.clone(),
                    standard: standard.clone(),
                });
            }
        }
        Parsed::Move(parts) => {
            let capture_right = parts.capture == position.is_capture(mv);
            let (need_file, need_rank) = if position.is_castling(mv) {
                (false, false)
            } else if parts.piece == Piece::Pawn {
                (position.is_capture(mv), false)
            } else {
                needed_disambiguation(position, mv, parts.piece, &legal)
            };
            let written_core = format_core(&Core {
                piece: parts.piece,
                from_file: parts.from_file,
                from_rank: parts.from_rank,
                capture: position.is_capture(mv),
                to: parts.to,
                promotion: parts.promotion,
            });
            let covers = (parts.from_file.is_some() || !need_file)
                && (parts.from_rank.is_some() || !need_rank);
            let form_ok = capture_right
                && !parts.hyphen
                && !parts.explicit_pawn
                && !parts.promotion_nonstandard
                && !position.is_castling(mv);
            if form_ok && written_core != standard_core && covers {
                issues.push(SanIssue::OverDisambiguated {
                    written: written.clone(),
                    standard: standard.clone(),
                });
            } else if !form_ok || written_core != standard_core {
                issues.push(SanIssue::NonStandard {
                    written: written.clone(),
                    standard: standard.clone(),
                });
            }
        }
    }
    if reading.en_passant_mark && !position.is_en_passant(mv) {
        issues.push(SanIssue::FalseEnPassantMark {
            written: written.clone(),
            standard: standard.clone(),
        });
    }
    if reading.marks != standard_mark {
        let issue = if reading.marks.is_empty() {
            SanIssue::MissingCheckMark { written, standard }
        } else {
            SanIssue::WrongCheckMark { written, standard }
        };
        issues.push(issue);
    }
    Ok((mv, issues))
}

/// Strict reading: the sub-move, or the first reason the text is not
/// standard SAN for a legal sub-move here.
pub fn parse_strict(position: &Position, text: &str) -> Result<SubMove, StrictSanError> {
    let (mv, issues) = parse_checked(position, text)?;
    match issues.into_iter().next() {
        None => Ok(mv),
        Some(issue) => Err(issue.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_knight_move_is_written_without_disambiguation() {
        let start = Position::initial();
        let mv: SubMove = "g1f3".parse().unwrap();
        assert_eq!(start.san(mv), "Nf3");
        assert_eq!(parse(&start, "Nf3"), Ok(mv));
    }

    #[test]
    fn non_ascii_text_is_unparsable_not_a_panic() {
        let start = Position::initial();
        for text in ["é4", "Nf3é", "e4+é", "", "+", "=Q", "x", "O-O-O-O", "Ñ"] {
            assert!(parse(&start, text).is_err(), "{text}");
        }
    }
}
