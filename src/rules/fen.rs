//! Extended FEN (`docs/rules.md` section 5): six standard fields and an
//! optional seventh, the phase (`1`, `2` or `s`).
//!
//! The reader validates everything a game could not reach and says which
//! field is wrong and why; the writer is canonical, so an ordinary position
//! stays an ordinary six-field FEN.

use std::fmt::{self, Write};
use std::str::FromStr;

use cozy_chess::{BitBoard, Color, File, Piece, Rank, Square};

use super::board::Board;
use super::position::{CastleSide, CastlingRights, Phase, Position, Rules};

/// The FEN field an error is about.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FenField {
    Whole,
    Placement,
    Side,
    Castling,
    EnPassant,
    Halfmove,
    Fullmove,
    Phase,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::Whole => "FEN",
            FenField::Placement => "placement field",
            FenField::Side => "side-to-move field",
            FenField::Castling => "castling field",
            FenField::EnPassant => "en-passant field",
            FenField::Halfmove => "halfmove field",
            FenField::Fullmove => "fullmove field",
            FenField::Phase => "phase field",
        })
    }
}

/// Why a FEN was rejected. The message names the field and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("FEN: expected 6 or 7 space-separated fields, found {0}")]
    FieldCount(usize),
    #[error("placement field: '{0}' is not a piece letter or a digit 1-8")]
    PlacementChar(char),
    #[error("placement field: expected 8 ranks separated by '/', found {0}")]
    RankCount(usize),
    #[error("placement field: rank {rank} describes {squares} squares instead of 8")]
    RankLength { rank: usize, squares: usize },
    #[error("placement field: {color:?} has {count} kings; exactly one is needed")]
    KingCount { color: Color, count: u32 },
    #[error("placement field: a pawn stands on {0}, a first or last rank")]
    PawnOnBackRank(Square),
    #[error("side-to-move field: expected 'w' or 'b', found '{0}'")]
    Side(String),
    #[error("castling field: expected '-' or letters from KQkq in that order, found '{0}'")]
    CastlingText(String),
    #[error("castling field: right '{0}' needs the king and rook on their home squares")]
    CastlingPieces(char),
    #[error("en-passant field: '{0}' is not a square")]
    EpSquare(String),
    #[error("en-passant field: {0} is not on rank 3 or 6")]
    EpRank(Square),
    #[error("en-passant field: targets must be sorted and distinct")]
    EpOrder,
    #[error("en-passant field: {0} targets listed; at most {1} can exist here")]
    EpCount(usize, usize),
    #[error(
        "en-passant field: {0} belongs to the side to move, which only happens at its S2 (phase 2)"
    )]
    EpOwnTarget(Square),
    #[error(
        "en-passant field: {target} needs its pawn's start square {origin} empty, as the turn that made it left it"
    )]
    EpOriginOccupied { target: Square, origin: Square },
    #[error(
        "en-passant field: the opponent's target {0} is usable at S2 only after an en-passant S1, and no pawn stands where one would have captured"
    )]
    EpWithoutEnPassantFirstSubMove(Square),
    #[error("halfmove field: '{0}' is not a number of sub-moves")]
    Halfmove(String),
    #[error("fullmove field: '{0}' is not a move number of 1 or more")]
    Fullmove(String),
    #[error("phase field: expected '1', '2' or 's', found '{0}'")]
    Phase(String),
    #[error("phase field: orthodox chess has only single-move turns ('s')")]
    OrthodoxPhase,
    #[error("placement field: the side not to move is in check")]
    OpponentInCheck,
    #[error("placement field: the side to move is in check in the middle of its turn (phase 2)")]
    CheckAtSecondSubMove,
    #[error("placement field: the king is attacked by {0} pieces, which no game can reach")]
    TooManyCheckers(u32),
}

impl FenError {
    /// The field the error is about.
    pub fn field(&self) -> FenField {
        use FenError::*;
        match self {
            FieldCount(_) => FenField::Whole,
            PlacementChar(_)
            | RankCount(_)
            | RankLength { .. }
            | KingCount { .. }
            | PawnOnBackRank(_)
            | OpponentInCheck
            | CheckAtSecondSubMove
            | TooManyCheckers(_) => FenField::Placement,
            Side(_) => FenField::Side,
            CastlingText(_) | CastlingPieces(_) => FenField::Castling,
            EpSquare(_)
            | EpRank(_)
            | EpOrder
            | EpCount(..)
            | EpOwnTarget(_)
            | EpOriginOccupied { .. }
            | EpWithoutEnPassantFirstSubMove(_) => FenField::EnPassant,
            Halfmove(_) => FenField::Halfmove,
            Fullmove(_) => FenField::Fullmove,
            Phase(_) | OrthodoxPhase => FenField::Phase,
        }
    }
}

/// The standard initial position.
pub const INITIAL_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl FromStr for Position {
    type Err = FenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Position::from_fen(s, Rules::Marseillais)
    }
}

impl Position {
    /// Reads an extended FEN under the given rules.
    pub fn from_fen(fen: &str, rules: Rules) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() != 6 && fields.len() != 7 {
            return Err(FenError::FieldCount(fields.len()));
        }
        let board = parse_placement(fields[0])?;
        let side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::Side(other.to_string())),
        };
        let castling = parse_castling(fields[2], &board)?;
        let targets = parse_targets(fields[3])?;
        let halfmove: u32 = fields[4]
            .parse()
            .map_err(|_| FenError::Halfmove(fields[4].to_string()))?;
        let fullmove: u32 = fields[5]
            .parse()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| FenError::Fullmove(fields[5].to_string()))?;
        let phase = match (fields.get(6), rules) {
            (None, Rules::Orthodox) | (Some(&"s"), Rules::Orthodox) => Phase::Single,
            (Some(_), Rules::Orthodox) => return Err(FenError::OrthodoxPhase),
            (None, Rules::Marseillais) => default_phase(side, fullmove),
            (Some(&"1"), _) => Phase::First,
            (Some(&"2"), _) => Phase::Second,
            (Some(&"s"), _) => Phase::Single,
            (Some(other), _) => return Err(FenError::Phase(other.to_string())),
        };

        let mut position = Position {
            board,
            side,
            phase,
            castling,
            ep: BitBoard::EMPTY,
            halfmove,
            fullmove,
            rules,
            checkers: BitBoard::EMPTY,
            hash: 0,
        };
        position.ep = check_targets(&position, &targets)?;
        position.hash = position.hash_from_scratch();
        for color in Color::ALL {
            let count = board.colored_pieces(color, Piece::King).len();
            if count != 1 {
                return Err(FenError::KingCount { color, count });
            }
        }
        let occupied = board.occupied();
        let (Some(our_king), Some(their_king)) = (board.king(side), board.king(!side)) else {
            return Err(FenError::KingCount {
                color: side,
                count: 0,
            });
        };
        if !position.attackers(their_king, side, occupied).is_empty() {
            return Err(FenError::OpponentInCheck);
        }
        position.checkers = position.attackers(our_king, !side, occupied);
        if position.checkers.len() > 2 {
            return Err(FenError::TooManyCheckers(position.checkers.len()));
        }
        if phase == Phase::Second && position.is_check() {
            return Err(FenError::CheckAtSecondSubMove);
        }
        Ok(position)
    }

    /// The canonical extended FEN.
    pub fn fen(&self) -> String {
        let mut out = String::with_capacity(90);
        for rank in Rank::ALL.into_iter().rev() {
            let mut empty = 0;
            for file in File::ALL {
                let square = Square::new(file, rank);
                match (self.board.piece_on(square), self.board.color_on(square)) {
                    (Some(piece), Some(color)) => {
                        if empty > 0 {
                            let _ = write!(out, "{empty}");
                            empty = 0;
                        }
                        let letter = char::from(piece);
                        out.push(match color {
                            Color::White => letter.to_ascii_uppercase(),
                            Color::Black => letter,
                        });
                    }
                    _ => empty += 1,
                }
            }
            if empty > 0 {
                let _ = write!(out, "{empty}");
            }
            if rank != Rank::First {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(char::from(self.side));
        out.push(' ');
        out.push_str(&castling_text(self.castling));
        out.push(' ');
        if self.ep.is_empty() {
            out.push('-');
        } else {
            let targets: Vec<String> = self.ep.into_iter().map(|s| s.to_string()).collect();
            out.push_str(&targets.join(","));
        }
        let _ = write!(out, " {} {}", self.halfmove, self.fullmove);
        if self.rules == Rules::Marseillais && self.phase != default_phase(self.side, self.fullmove)
        {
            out.push(' ');
            out.push(self.phase.fen_char());
        }
        out
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

/// The phase a six-field FEN means: White's first move of the game is a
/// single sub-move (balanced Marseillais), every other turn starts at S1.
fn default_phase(side: Color, fullmove: u32) -> Phase {
    if side == Color::White && fullmove == 1 {
        Phase::Single
    } else {
        Phase::First
    }
}

fn parse_placement(text: &str) -> Result<Board, FenError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount(ranks.len()));
    }
    let mut board = Board::empty();
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = Rank::index(7 - i);
        let mut file = 0usize;
        for c in rank_text.chars() {
            if let Some(digit) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += digit as usize;
                continue;
            }
            let piece: Piece = c
                .to_ascii_lowercase()
                .to_string()
                .parse()
                .map_err(|_| FenError::PlacementChar(c))?;
            let color = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            if file < 8 {
                let square = Square::new(File::index(file), rank);
                if piece == Piece::Pawn && (rank == Rank::First || rank == Rank::Eighth) {
                    return Err(FenError::PawnOnBackRank(square));
                }
                board.put(square, color, piece);
            }
            file += 1;
        }
        if file != 8 {
            return Err(FenError::RankLength {
                rank: 8 - i,
                squares: file,
            });
        }
    }
    Ok(board)
}

fn parse_castling(text: &str, board: &Board) -> Result<CastlingRights, FenError> {
    if text == "-" {
        return Ok(CastlingRights::NONE);
    }
    let order = ['K', 'Q', 'k', 'q'];
    let mut rights = CastlingRights::NONE;
    let mut next = 0;
    for c in text.chars() {
        let Some(position) = order.iter().position(|&o| o == c).filter(|&p| p >= next) else {
            return Err(FenError::CastlingText(text.to_string()));
        };
        next = position + 1;
        let (color, side) = match c {
            'K' => (Color::White, CastleSide::King),
            'Q' => (Color::White, CastleSide::Queen),
            'k' => (Color::Black, CastleSide::King),
            _ => (Color::Black, CastleSide::Queen),
        };
        let rank = Rank::First.relative_to(color);
        let rook_file = if side == CastleSide::King {
            File::H
        } else {
            File::A
        };
        let king_home = board
            .colored_pieces(color, Piece::King)
            .has(Square::new(File::E, rank));
        let rook_home = board
            .colored_pieces(color, Piece::Rook)
            .has(Square::new(rook_file, rank));
        if !king_home || !rook_home {
            return Err(FenError::CastlingPieces(c));
        }
        rights = rights.with(color, side);
    }
    Ok(rights)
}

fn parse_targets(text: &str) -> Result<Vec<Square>, FenError> {
    if text == "-" {
        return Ok(Vec::new());
    }
    let mut targets = Vec::new();
    for part in text.split(',') {
        let square: Square = part
            .parse()
            .map_err(|_| FenError::EpSquare(part.to_string()))?;
        if square.rank() != Rank::Third && square.rank() != Rank::Sixth {
            return Err(FenError::EpRank(square));
        }
        if targets
            .last()
            .is_some_and(|&last: &Square| last as usize >= square as usize)
        {
            return Err(FenError::EpOrder);
        }
        targets.push(square);
    }
    Ok(targets)
}

/// Rejects target combinations no game can reach and drops stale targets
/// (pawn gone or square occupied), as rules section 5 asks.
fn check_targets(position: &Position, targets: &[Square]) -> Result<BitBoard, FenError> {
    let mover = position.side;
    let theirs_rank = Rank::Sixth.relative_to(mover);
    let max = match (position.rules, position.phase) {
        (Rules::Orthodox, _) => 1,
        (_, Phase::Second) => 1,
        _ => 2,
    };
    if targets.len() > max {
        return Err(FenError::EpCount(targets.len(), max));
    }
    let mut owners = [BitBoard::EMPTY; 2];
    for &target in targets {
        if target.rank() == theirs_rank {
            owners[(!mover) as usize] |= target.bitboard();
        } else if position.phase == Phase::Second {
            owners[mover as usize] |= target.bitboard();
        } else {
            return Err(FenError::EpOwnTarget(target));
        }
    }
    let existing = position.existing_targets(owners[0], Color::White)
        | position.existing_targets(owners[1], Color::Black);
    check_target_history(position, existing)?;
    Ok(existing)
}

/// Rejects existing targets that the turn which made them could not have
/// left behind. Two targets at S1 are the opponent's whole turn (two double
/// steps), so both start squares are empty; a target at S2 comes from this
/// turn's S1: the mover's own double step (its start square is empty) or,
/// for the opponent's target, an en-passant S1, whose pawn now stands on the
/// mover's sixth rank with the square it passed and the square it cleared
/// both empty. Without this a FEN could grant an en-passant S2 that rules
/// 2.3 forbids.
fn check_target_history(position: &Position, existing: BitBoard) -> Result<(), FenError> {
    let mover = position.side;
    let occupied = position.board.occupied();
    let origin_empty = |target: Square| {
        let step = if target.rank() == Rank::Third { -1 } else { 1 };
        match target.try_offset(0, step) {
            Some(origin) if occupied.has(origin) => {
                Err(FenError::EpOriginOccupied { target, origin })
            }
            _ => Ok(()),
        }
    };
    match position.phase {
        Phase::Second => {
            let their_rank = Rank::Sixth.relative_to(mover);
            for target in existing {
                origin_empty(target)?;
                if target.rank() != their_rank {
                    continue;
                }
                let capturers =
                    position.board.colored_pieces(mover, Piece::Pawn) & their_rank.bitboard();
                let captured_en_passant = capturers.into_iter().any(|pawn| {
                    pawn.file() != target.file()
                        && [pawn.try_offset(0, 1), pawn.try_offset(0, -1)]
                            .into_iter()
                            .all(|square| square.is_some_and(|s| !occupied.has(s)))
                });
                if !captured_en_passant {
                    return Err(FenError::EpWithoutEnPassantFirstSubMove(target));
                }
            }
        }
        _ if existing.len() == 2 => {
            for target in existing {
                origin_empty(target)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn castling_text(rights: CastlingRights) -> String {
    let mut out = String::new();
    for (color, side, letter) in [
        (Color::White, CastleSide::King, 'K'),
        (Color::White, CastleSide::Queen, 'Q'),
        (Color::Black, CastleSide::King, 'k'),
        (Color::Black, CastleSide::Queen, 'q'),
    ] {
        if rights.has(color, side) {
            out.push(letter);
        }
    }
    if out.is_empty() {
        out.push('-');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_position_is_the_ordinary_six_field_fen() {
        assert_eq!(Position::initial().fen(), INITIAL_FEN);
        let parsed: Position = INITIAL_FEN.parse().unwrap();
        assert_eq!(parsed, Position::initial());
        assert_eq!(parsed.phase(), Phase::Single);
    }

    #[test]
    fn phase_defaults_to_first_except_whites_first_move() {
        let p: Position = "4k3/8/8/8/8/8/8/4K3 b - - 0 1".parse().unwrap();
        assert_eq!(p.phase(), Phase::First);
        assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
        let p: Position = "4k3/8/8/8/8/8/8/4K3 w - - 0 1 1".parse().unwrap();
        assert_eq!(p.phase(), Phase::First);
        assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1 1");
    }

    #[test]
    fn errors_name_the_field_and_the_reason() {
        let cases = [
            ("8/8/8 w - - 0 1", FenField::Placement),
            ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", FenField::Side),
            ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", FenField::Castling),
            ("4k3/8/8/8/8/8/8/4K3 w - e4 0 1", FenField::EnPassant),
            ("4k3/8/8/8/8/8/8/4K3 w - - x 1", FenField::Halfmove),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", FenField::Fullmove),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 3", FenField::Phase),
            ("4k3/8/8/8/8/8/8/4K3 w - -", FenField::Whole),
            ("4k3/8/8/8/8/8/8/4KK2 w - - 0 1", FenField::Placement),
            ("4k3/4R3/8/8/8/8/8/4K3 w - - 0 1", FenField::Placement),
        ];
        for (fen, field) in cases {
            let err = fen.parse::<Position>().unwrap_err();
            assert_eq!(err.field(), field, "{fen}: {err}");
            assert!(err.to_string().contains(&field.to_string()), "{err}");
        }
    }

    #[test]
    fn en_passant_field_rejects_unreachable_combinations() {
        // Three targets.
        let fen = "4k3/8/8/p1p1p3/8/8/8/4K3 w - a6,c6,e6 0 5";
        assert_eq!(
            fen.parse::<Position>().unwrap_err(),
            FenError::EpCount(3, 2)
        );
        // The mover's own target at S1.
        let fen = "4k3/8/8/8/4P3/8/8/4K3 w - e3 0 5";
        assert_eq!(
            fen.parse::<Position>().unwrap_err(),
            FenError::EpOwnTarget(Square::E3)
        );
        // Two targets at S2.
        let fen = "4k3/8/8/p1p5/8/8/8/4K3 w - a6,c6 0 5 2";
        assert!(matches!(
            fen.parse::<Position>(),
            Err(FenError::EpCount(2, 1))
        ));
        // Unsorted.
        let fen = "4k3/8/8/p1p5/8/8/8/4K3 w - c6,a6 0 5";
        assert_eq!(fen.parse::<Position>().unwrap_err(), FenError::EpOrder);
    }

    #[test]
    fn stale_en_passant_targets_are_ignored() {
        // No pawn on d5 behind d6: the target does not exist.
        let p: Position = "4k3/8/8/8/8/8/8/4K3 w - d6 0 5".parse().unwrap();
        assert!(p.ep_targets().is_empty());
        assert_eq!(p.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 5");
    }

    #[test]
    fn two_targets_round_trip_sorted() {
        let fen = "4k3/8/8/3pPp2/8/8/8/4K3 w - d6,f6 0 5";
        let p: Position = fen.parse().unwrap();
        assert_eq!(p.fen(), fen);
    }
}
