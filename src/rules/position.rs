//! A position with its Marseillais turn state, and how one sub-move changes it.
//!
//! The turn state is what makes this variant: whose turn it is, whether the
//! mover is at its first sub-move (S1), its second (S2) or a single-sub-move
//! turn, which castling rights remain and which en-passant targets exist.
//! [`Position::play`] is the one place where the turn rules of `docs/rules.md`
//! sections 1 and 2 are applied: check on S1 ends the turn, S2 follows a
//! quiet S1, en-passant rights are created by either sub-move, survive S1 only
//! when S1 itself captured en passant, and lapse when the turn ends.

use cozy_chess::{
    BitBoard, Color, File, Piece, Rank, Square, get_bishop_moves, get_bishop_rays,
    get_knight_moves, get_pawn_attacks, get_rook_moves, get_rook_rays,
};

use super::board::Board;
use super::submove::SubMove;
use super::zobrist;

/// Which rules the position follows. Orthodox exists so that the same move
/// generator can be checked against the published perft numbers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Rules {
    /// Two sub-moves per turn (after a single-sub-move first turn when the
    /// position says so).
    Marseillais,
    /// One move per turn, ordinary en passant.
    Orthodox,
}

/// Where the side to move stands inside its turn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// A turn of one sub-move: White's first turn of a balanced game, or
    /// every turn under orthodox rules. FEN `s`.
    Single,
    /// The first sub-move (S1) of a two-sub-move turn. FEN `1`.
    First,
    /// The second sub-move (S2). FEN `2`.
    Second,
}

impl Phase {
    pub fn fen_char(self) -> char {
        match self {
            Phase::Single => 's',
            Phase::First => '1',
            Phase::Second => '2',
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// Which side of the board a king castles to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CastleSide {
    King,
    Queen,
}

/// The four castling rights as bits: White O-O, White O-O-O, Black O-O, Black O-O-O.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CastlingRights(u8);

impl CastlingRights {
    pub const NONE: CastlingRights = CastlingRights(0);
    pub const ALL: CastlingRights = CastlingRights(15);

    fn bit(color: Color, side: CastleSide) -> u8 {
        1 << (color as u8 * 2 + side as u8)
    }

    pub fn has(self, color: Color, side: CastleSide) -> bool {
        self.0 & Self::bit(color, side) != 0
    }

    pub fn with(self, color: Color, side: CastleSide) -> Self {
        CastlingRights(self.0 | Self::bit(color, side))
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub(crate) fn bits(self) -> u8 {
        self.0
    }

    /// The rights that survive a move from `from` to `to`: a king or rook
    /// leaving its home square, or a rook captured there, loses them. One
    /// table lookup per square (see [`KEPT_RIGHTS`]).
    #[inline]
    fn after_move(self, from: Square, to: Square) -> Self {
        CastlingRights(self.0 & KEPT_RIGHTS[from as usize] & KEPT_RIGHTS[to as usize])
    }
}

/// For each square, the castling-right bits a move touching it keeps:
/// every bit but those of the king or rook whose home it is.
static KEPT_RIGHTS: [u8; 64] = {
    let mut kept = [15u8; 64];
    // Bits as in `CastlingRights::bit`: White O-O 1, White O-O-O 2,
    // Black O-O 4, Black O-O-O 8.
    kept[Square::A1 as usize] = 15 & !2;
    kept[Square::E1 as usize] = 15 & !3;
    kept[Square::H1 as usize] = 15 & !1;
    kept[Square::A8 as usize] = 15 & !8;
    kept[Square::E8 as usize] = 15 & !12;
    kept[Square::H8 as usize] = 15 & !4;
    kept
};

/// Why a sub-move was refused. The position it was tried on is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the game is over: {0}")]
    GameOver(super::Outcome),
    #[error("there is no piece on {0}")]
    NoPiece(Square),
    #[error("the piece on {0} belongs to the opponent")]
    NotYourPiece(Square),
    #[error("{0} is not a legal sub-move here")]
    Illegal(SubMove),
}

/// A position at a sub-move boundary. Always consistent: built only by the
/// FEN reader (which validates) or by playing legal sub-moves.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) side: Color,
    pub(crate) phase: Phase,
    pub(crate) castling: CastlingRights,
    /// En-passant targets that exist now (see `docs/rules.md` 2.2). A target
    /// on the mover's own third rank was created by the mover's S1; one on
    /// the mover's sixth rank belongs to the opponent and may be captured.
    pub(crate) ep: BitBoard,
    pub(crate) halfmove: u32,
    pub(crate) fullmove: u32,
    pub(crate) rules: Rules,
    /// Enemy pieces giving check to the side to move.
    pub(crate) checkers: BitBoard,
    /// Zobrist hash of placement, side and castling rights, kept up to date
    /// move by move; en-passant and phase are folded in on demand.
    pub(crate) hash: u64,
}

impl Default for Position {
    fn default() -> Self {
        Position::initial()
    }
}

impl Position {
    /// The initial position of a balanced Marseillais game: White's first
    /// turn is a single sub-move.
    pub fn initial() -> Self {
        Position::standard_start(Rules::Marseillais, Phase::Single)
    }

    /// The initial position of orthodox chess.
    pub fn initial_orthodox() -> Self {
        Position::standard_start(Rules::Orthodox, Phase::Single)
    }

    fn standard_start(rules: Rules, phase: Phase) -> Self {
        let mut position = Position {
            board: Board::standard(),
            side: Color::White,
            phase,
            castling: CastlingRights::ALL,
            ep: BitBoard::EMPTY,
            halfmove: 0,
            fullmove: 1,
            rules,
            checkers: BitBoard::EMPTY,
            hash: 0,
        };
        position.hash = position.hash_from_scratch();
        position
    }

    pub fn board(&self) -> &Board {
        &self.board
    }
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn rules(&self) -> Rules {
        self.rules
    }
    pub fn castling(&self) -> CastlingRights {
        self.castling
    }
    /// Every en-passant target that exists now, whoever owns it.
    pub fn ep_targets(&self) -> BitBoard {
        self.ep
    }
    /// Sub-moves since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }
    /// Starts at 1 and increases after each Black turn.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }
    pub fn checkers(&self) -> BitBoard {
        self.checkers
    }
    pub fn is_check(&self) -> bool {
        !self.checkers.is_empty()
    }
    /// True between turns (S1 or a single-sub-move turn is next); draws and
    /// repetitions are only judged here.
    pub fn is_turn_start(&self) -> bool {
        self.phase != Phase::Second
    }

    /// The same position under other rules (for example an orthodox perft
    /// from a FEN). The phase becomes the first phase of a turn under those rules.
    pub fn with_rules(mut self, rules: Rules) -> Self {
        self.rules = rules;
        self.phase = match (rules, self.phase) {
            (Rules::Orthodox, _) => Phase::Single,
            (Rules::Marseillais, Phase::Single) => Phase::Single,
            (Rules::Marseillais, phase) => phase,
        };
        if rules == Rules::Orthodox {
            // A target the mover made on its own S1 has no meaning in a
            // one-move turn; only the opponent's targets stay.
            self.ep &= Rank::Sixth.relative_to(self.side).bitboard();
        }
        self
    }

    /// Zobrist hash of everything that makes the position: placement, side,
    /// castling, phase and en-passant targets.
    pub fn hash(&self) -> u64 {
        let mut hash = self.hash ^ zobrist::phase(self.phase.index());
        for target in self.ep {
            hash ^= zobrist::ep(target);
        }
        hash
    }

    /// The key under which repetitions are counted (`docs/rules.md` 3):
    /// placement, side, castling rights and the en-passant captures that are
    /// actually legal, so a target no pawn can take does not make a new position.
    pub fn repetition_key(&self) -> u64 {
        self.repetition_key_given(&self.legal_submoves())
    }

    /// [`Position::repetition_key`] given this position's legal sub-moves,
    /// for a caller that holds them already.
    pub(crate) fn repetition_key_given(&self, legal: &[SubMove]) -> u64 {
        // The phase matters too: a one-sub-move turn is not the same
        // position as a two-sub-move turn on the same board.
        let mut hash = self.hash ^ zobrist::phase(self.phase.index());
        for &mv in legal {
            if self.is_en_passant(mv) {
                hash ^= zobrist::ep(mv.from) ^ zobrist::ep(mv.to).rotate_left(17);
            }
        }
        hash
    }

    /// The placement/side/castling hash computed from nothing; equal to the
    /// incrementally kept one in every reachable position.
    pub fn hash_from_scratch(&self) -> u64 {
        let mut hash = zobrist::side(self.side) ^ zobrist::castling(self.castling.bits());
        for color in Color::ALL {
            for piece in Piece::ALL {
                for square in self.board.colored_pieces(color, piece) {
                    hash ^= zobrist::piece(color, piece, square);
                }
            }
        }
        hash
    }

    /// The incrementally kept placement/side/castling hash.
    pub fn incremental_hash(&self) -> u64 {
        self.hash
    }

    /// Whether `mv` takes a pawn en passant here (the pawn moves diagonally
    /// onto an empty square, which can only be an existing target).
    pub fn is_en_passant(&self, mv: SubMove) -> bool {
        self.board
            .colored_pieces(self.side, Piece::Pawn)
            .has(mv.from)
            && mv.from.file() != mv.to.file()
            && !self.board.occupied().has(mv.to)
    }

    /// Whether `mv` captures something (en passant included).
    pub fn is_capture(&self, mv: SubMove) -> bool {
        self.board.colored(!self.side).has(mv.to) || self.is_en_passant(mv)
    }

    /// Whether `mv` is a castling move (the king steps two files).
    pub fn is_castling(&self, mv: SubMove) -> bool {
        self.board
            .colored_pieces(self.side, Piece::King)
            .has(mv.from)
            && (mv.from.file() as i8 - mv.to.file() as i8).abs() == 2
    }

    /// Plays a legal sub-move and returns the next position; `self` is left
    /// as it was. The error says why the sub-move was refused.
    pub fn play(&self, mv: SubMove) -> Result<Position, PlayError> {
        // One generation serves both the ending check and the membership test.
        let legal = self.legal_submoves();
        if let Some(outcome) = self.board_outcome_given(&legal) {
            return Err(PlayError::GameOver(outcome));
        }
        match self.board.color_on(mv.from) {
            None => return Err(PlayError::NoPiece(mv.from)),
            Some(color) if color != self.side => return Err(PlayError::NotYourPiece(mv.from)),
            Some(_) => {}
        }
        if !legal.contains(&mv) {
            return Err(PlayError::Illegal(mv));
        }
        Ok(self.play_unchecked(mv))
    }

    /// Plays a sub-move known to be legal (one of [`Position::legal_submoves`]).
    /// Given anything else the result is unspecified but memory-safe.
    #[inline]
    pub fn play_unchecked(&self, mv: SubMove) -> Position {
        let mut next = *self;
        next.play_in_place(mv);
        next
    }

    /// [`Position::play_unchecked`] on `self`. The perft loop copies the
    /// parent and plays into the copy: building the child where the caller
    /// keeps it avoids copying the finished position once more, a copy that
    /// also read back the one-byte fields just written (a store-forwarding
    /// stall that perf found in a quarter of `play_unchecked`'s samples).
    #[inline(always)]
    pub fn play_in_place(&mut self, mv: SubMove) {
        let Some(moved) = self.board.piece_on(mv.from) else {
            debug_assert!(false, "play_unchecked: no piece on {}", mv.from);
            return;
        };
        self.play_in_place_moved(mv, moved);
    }

    /// [`Position::play_in_place`] given the piece on `mv.from`, which the
    /// generator knows (the perft loop saves reading it back from the board).
    #[inline(always)]
    pub(crate) fn play_in_place_moved(&mut self, mv: SubMove, moved: Piece) {
        let next = self;
        let us = next.side;
        let them = !us;
        let captured = next.board.piece_on(mv.to);
        let en_passant =
            moved == Piece::Pawn && captured.is_none() && mv.from.file() != mv.to.file();

        if let Some(piece) = captured {
            next.remove_piece(mv.to, them, piece);
        }
        if en_passant {
            next.remove_piece(Square::new(mv.to.file(), mv.from.rank()), them, Piece::Pawn);
        }
        let placed = mv.promotion.unwrap_or(moved);
        // One update of our colour's bitboard and one of the hash for both
        // squares, after the capture has emptied `to`.
        next.board.relocate(mv.from, mv.to, us, moved, placed);
        next.hash ^= zobrist::piece(us, moved, mv.from) ^ zobrist::piece(us, placed, mv.to);
        // The squares whose change may let one of our sliders see their king.
        let mut touched = mv.from.bitboard() | mv.to.bitboard();
        if en_passant {
            touched |= Square::new(mv.to.file(), mv.from.rank()).bitboard();
        }
        if moved == Piece::King && (mv.from.file() as i8 - mv.to.file() as i8).abs() == 2 {
            let (rook_from, rook_to) = if mv.to.file() == File::G {
                (File::H, File::F)
            } else {
                (File::A, File::D)
            };
            let rank = mv.from.rank();
            let (rook_from, rook_to) = (Square::new(rook_from, rank), Square::new(rook_to, rank));
            next.remove_piece(rook_from, us, Piece::Rook);
            next.put_piece(rook_to, us, Piece::Rook);
            touched |= rook_from.bitboard() | rook_to.bitboard();
        }
        let rights = next.castling.after_move(mv.from, mv.to);
        if rights != next.castling {
            next.set_castling(rights);
        }

        // Saturating: a FEN may carry any u32, and bad input never panics.
        next.halfmove = if moved == Piece::Pawn || captured.is_some() {
            0
        } else {
            next.halfmove.saturating_add(1)
        };

        let double_step = (moved == Piece::Pawn
            && (mv.from.rank() as i8 - mv.to.rank() as i8).abs() == 2)
            .then(|| Square::new(mv.from.file(), Rank::Third.relative_to(us)));

        let their_king_attackers = match next.board.colored_pieces(them, Piece::King).next_square()
        {
            Some(king) => next.checkers_after(king, us, placed, mv.to, touched),
            None => BitBoard::EMPTY,
        };
        let turn_ends = match next.phase {
            Phase::Single | Phase::Second => true,
            Phase::First => !their_king_attackers.is_empty(),
        };

        if turn_ends {
            // What the opponent may take next turn: targets this side made
            // on its S1 that still exist, and the one a double step makes now.
            // The opponent's own rights from before lapse (rules 2.4).
            // The target a double step makes now always exists (the square
            // it passed is empty, the pawn stands beyond it); only S1's need
            // checking, and only at S2.
            let made_on_first = if next.phase == Phase::Second {
                next.ep & Rank::Third.relative_to(us).bitboard()
            } else {
                BitBoard::EMPTY
            };
            let mut targets = if made_on_first.is_empty() {
                BitBoard::EMPTY
            } else {
                next.existing_targets(made_on_first, us)
            };
            if let Some(target) = double_step {
                targets |= target.bitboard();
            }
            next.ep = targets;
            next.side = them;
            next.hash ^= zobrist::side(Color::Black);
            if us == Color::Black {
                next.fullmove = next.fullmove.saturating_add(1);
            }
            next.phase = match next.rules {
                Rules::Marseillais => Phase::First,
                Rules::Orthodox => Phase::Single,
            };
            next.checkers = their_king_attackers;
        } else {
            // S2 follows. Only an en-passant S1 keeps the opponent's other
            // target usable (rules 2.3); a double step on S1 makes a target
            // for the opponent's next turn.
            next.ep = if en_passant {
                next.existing_targets(next.ep & !mv.to.bitboard(), them)
            } else if let Some(target) = double_step {
                target.bitboard()
            } else {
                BitBoard::EMPTY
            };
            next.phase = Phase::Second;
            next.checkers = BitBoard::EMPTY;
        }
    }

    /// Our pieces (`us`, who just moved) that attack their `king`, derived
    /// from the sub-move instead of from every piece: before it nothing of
    /// ours attacked their king (they would have been in check on our move,
    /// which no accepted position or legal sub-move allows), so a checker is
    /// the piece just placed on `to` giving check itself, or a slider whose
    /// line to the king runs through a square the sub-move changed
    /// (`touched`: from, to, the en-passant victim, the castling rook's
    /// squares). The slider lookups run only when such a square lies on a
    /// diagonal or line of the king. Equal to `attackers(king, us, ..)`.
    #[inline(always)]
    fn checkers_after(
        &self,
        king: Square,
        us: Color,
        placed: Piece,
        to: Square,
        touched: BitBoard,
    ) -> BitBoard {
        let board = &self.board;
        let ours = board.colored(us);
        let mut checkers = match placed {
            Piece::Pawn => get_pawn_attacks(king, !us) & to.bitboard(),
            Piece::Knight => get_knight_moves(king) & to.bitboard(),
            _ => BitBoard::EMPTY,
        };
        let occupied = board.occupied();
        if !(get_bishop_rays(king) & touched).is_empty() {
            let diagonal = (board.pieces(Piece::Bishop) | board.pieces(Piece::Queen)) & ours;
            checkers |= get_bishop_moves(king, occupied) & diagonal;
        }
        if !(get_rook_rays(king) & touched).is_empty() {
            let straight = (board.pieces(Piece::Rook) | board.pieces(Piece::Queen)) & ours;
            checkers |= get_rook_moves(king, occupied) & straight;
        }
        checkers
    }

    /// Keeps the targets of `owner` that still exist (rules 2.2): the square
    /// is empty and the pawn that passed over it still stands just beyond it.
    pub(crate) fn existing_targets(&self, targets: BitBoard, owner: Color) -> BitBoard {
        let occupied = self.board.occupied();
        let pawns = self.board.colored_pieces(owner, Piece::Pawn);
        targets
            .into_iter()
            .filter(|&target| {
                let beyond = match owner {
                    Color::White => target.try_offset(0, 1),
                    Color::Black => target.try_offset(0, -1),
                };
                !occupied.has(target) && beyond.is_some_and(|square| pawns.has(square))
            })
            .collect()
    }

    pub(crate) fn put_piece(&mut self, square: Square, color: Color, piece: Piece) {
        self.board.put(square, color, piece);
        self.hash ^= zobrist::piece(color, piece, square);
    }

    pub(crate) fn remove_piece(&mut self, square: Square, color: Color, piece: Piece) {
        self.board.remove(square, color, piece);
        self.hash ^= zobrist::piece(color, piece, square);
    }

    fn set_castling(&mut self, rights: CastlingRights) {
        self.hash ^= zobrist::castling(self.castling.bits()) ^ zobrist::castling(rights.bits());
        self.castling = rights;
    }
}
