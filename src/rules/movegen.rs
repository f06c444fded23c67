//! Legal sub-move generation: attacks, check, pins, castling and en passant
//! across sub-moves.
//!
//! Every sub-move is legal on its own (rules 1.3): it may not leave the
//! mover's king attacked, whatever S2 might do afterwards. En passant uses
//! only the targets the turn state allows (see [`Position`]); whether a
//! capture exposes the king is decided by playing it on the occupancy, never
//! by an orthodox shortcut (case 17b: a bishop may arrive behind the pawn in
//! the same turn).

use cozy_chess::{
    BitBoard, Color, File, Piece, Rank, Square, get_between_rays, get_bishop_moves,
    get_bishop_rays, get_king_moves, get_knight_moves, get_line_rays, get_pawn_attacks,
    get_pawn_quiets, get_rook_moves, get_rook_rays,
};

use super::position::{CastleSide, Position};
use super::submove::{MAX_LEGAL_SUBMOVES, SubMove, SubMoveList};

/// Legal sub-moves with the piece that moves, for the perft loop.
pub(crate) type PieceMoveList = arrayvec::ArrayVec<(SubMove, Piece), MAX_LEGAL_SUBMOVES>;

const PROMOTIONS: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

impl Position {
    /// Pieces of `by` that attack `square`, given the occupancy `occupied`.
    pub(crate) fn attackers(&self, square: Square, by: Color, occupied: BitBoard) -> BitBoard {
        let board = &self.board;
        let diagonal = board.pieces(Piece::Bishop) | board.pieces(Piece::Queen);
        let straight = board.pieces(Piece::Rook) | board.pieces(Piece::Queen);
        ((get_pawn_attacks(square, !by) & board.pieces(Piece::Pawn))
            | (get_knight_moves(square) & board.pieces(Piece::Knight))
            | (get_bishop_moves(square, occupied) & diagonal)
            | (get_rook_moves(square, occupied) & straight)
            | (get_king_moves(square) & board.pieces(Piece::King)))
            & board.colored(by)
    }

    /// Every legal sub-move for the side to move.
    pub fn legal_submoves(&self) -> SubMoveList {
        let mut list = SubMoveList::new();
        self.generate(&mut list);
        list
    }

    /// Whether `mv` is one of the legal sub-moves.
    pub fn is_legal(&self, mv: SubMove) -> bool {
        // A sub-move of a piece the mover does not own is refused without
        // generating; otherwise this runs the full generator.
        if !self.board.colored(self.side).has(mv.from) {
            return false;
        }
        self.legal_submoves().contains(&mv)
    }

    /// Whether the side to move has any legal sub-move. Stops at the first
    /// piece that has one, without building the list (the engine asks this
    /// at every node of its search).
    pub fn has_legal_submove(&self) -> bool {
        super::generations::count_any();
        self.visit_legal(|_, targets, _| !targets.is_empty())
    }

    /// Appends every legal sub-move to `list`.
    pub fn generate(&self, list: &mut SubMoveList) {
        super::generations::count_full();
        self.visit_expanded(|mv, _| list.push(mv));
    }

    /// Appends the legal captures (en passant included) and promotions to `list`, in the
    /// order [`Position::generate`] lists them, and answers whether the side to move has any
    /// legal sub-move at all: quiescence searches only these, and needs to know whether the
    /// position is an ending, in one pass instead of a full list and a filter (the full list
    /// was a quarter of the engine's time, mostly spent on quiet sub-moves quiescence drops).
    pub fn generate_tactical(&self, list: &mut SubMoveList) -> bool {
        super::generations::count_full();
        let last_rank = Rank::Eighth.relative_to(self.side).bitboard();
        let theirs = self.board.colored(!self.side);
        let mut any = false;
        self.visit_legal(|from, targets, piece| {
            any |= !targets.is_empty();
            if piece == Piece::Pawn {
                for to in targets {
                    // A pawn's diagonal step takes something (en passant too).
                    if last_rank.has(to) {
                        for promotion in PROMOTIONS {
                            list.push(SubMove::promoting(from, to, promotion));
                        }
                    } else if to.file() != from.file() {
                        list.push(SubMove::new(from, to));
                    }
                }
            } else {
                for to in targets & theirs {
                    list.push(SubMove::new(from, to));
                }
            }
            false
        });
        any
    }

    /// [`Position::generate`] with the moving piece beside each sub-move,
    /// for [`Position::play_in_place_moved`]: the perft loop plays every
    /// sub-move it generates, and the generator knows the piece already.
    pub(crate) fn generate_with_pieces(&self, list: &mut PieceMoveList) {
        super::generations::count_full();
        self.visit_expanded(|mv, piece| list.push((mv, piece)));
    }

    /// Every legal sub-move with its piece, promotions expanded, in list order.
    #[inline(always)]
    fn visit_expanded(&self, mut push: impl FnMut(SubMove, Piece)) {
        let last_rank = Rank::Eighth.relative_to(self.side).bitboard();
        self.visit_legal(|from, targets, piece| {
            if piece == Piece::Pawn && !(targets & last_rank).is_empty() {
                for to in targets {
                    if last_rank.has(to) {
                        for promotion in PROMOTIONS {
                            push(SubMove::promoting(from, to, promotion), piece);
                        }
                    } else {
                        push(SubMove::new(from, to), piece);
                    }
                }
            } else {
                for to in targets {
                    push(SubMove::new(from, to), piece);
                }
            }
            false
        });
    }

    /// The one legal-move generator: hands `visit` each piece's legal
    /// targets as a set (`from`, targets, the moving piece; a pawn's
    /// targets on the last rank are four promotions each), in the order
    /// [`Position::generate`] lists them, and stops as soon as `visit`
    /// returns true; returns whether it stopped. The cozy-chess
    /// `generate_moves(|moves| -> bool)` shape: [`Position::has_legal_submove`]
    /// stops at the first piece with a move, and the list builder pays
    /// nothing for the callback (it is inlined into each caller).
    #[inline(always)]
    fn visit_legal(&self, mut visit: impl FnMut(Square, BitBoard, Piece) -> bool) -> bool {
        let us = self.side;
        let them = !us;
        let board = &self.board;
        let Some(king) = board.king(us) else {
            return false;
        };
        let occupied = board.occupied();
        let ours = board.colored(us);
        let theirs = board.colored(them);

        // King steps: the king's own square is removed from the occupancy so
        // that it cannot hide behind itself from a slider.
        let without_king = occupied ^ king.bitboard();
        let mut safe = BitBoard::EMPTY;
        for to in get_king_moves(king) & !ours {
            if self.attackers(to, them, without_king).is_empty() {
                safe |= to.bitboard();
            }
        }
        if visit(king, safe, Piece::King) {
            return true;
        }
        if self.checkers.len() >= 2 {
            return false;
        }
        let target = match self.checkers.next_square() {
            None => !ours,
            Some(checker) => get_between_rays(king, checker) | checker.bitboard(),
        };
        if self.checkers.is_empty() && self.visit_castling(king, &mut visit) {
            return true;
        }

        let pinned = self.pinned(king);
        let pin_line = |square: Square| {
            if pinned.has(square) {
                get_line_rays(king, square)
            } else {
                BitBoard::FULL
            }
        };

        for from in board.colored_pieces(us, Piece::Knight) & !pinned {
            if visit(from, get_knight_moves(from) & target, Piece::Knight) {
                return true;
            }
        }
        let diagonal = (board.pieces(Piece::Bishop) | board.pieces(Piece::Queen)) & ours;
        for from in diagonal {
            let targets = get_bishop_moves(from, occupied) & target & pin_line(from);
            let piece = if board.pieces(Piece::Bishop).has(from) {
                Piece::Bishop
            } else {
                Piece::Queen
            };
            if visit(from, targets, piece) {
                return true;
            }
        }
        let straight = (board.pieces(Piece::Rook) | board.pieces(Piece::Queen)) & ours;
        for from in straight {
            let targets = get_rook_moves(from, occupied) & target & pin_line(from);
            let piece = if board.pieces(Piece::Rook).has(from) {
                Piece::Rook
            } else {
                Piece::Queen
            };
            if visit(from, targets, piece) {
                return true;
            }
        }

        for from in board.colored_pieces(us, Piece::Pawn) {
            let targets = (get_pawn_quiets(from, us, occupied)
                | (get_pawn_attacks(from, us) & theirs))
                & target
                & pin_line(from);
            if visit(from, targets, Piece::Pawn) {
                return true;
            }
        }

        self.visit_en_passant(king, &mut visit)
    }

    /// Own pieces that stand alone between our king and an enemy slider.
    fn pinned(&self, king: Square) -> BitBoard {
        let board = &self.board;
        let them = !self.side;
        let occupied = board.occupied();
        let snipers = ((get_rook_rays(king)
            & (board.pieces(Piece::Rook) | board.pieces(Piece::Queen)))
            | (get_bishop_rays(king) & (board.pieces(Piece::Bishop) | board.pieces(Piece::Queen))))
            & board.colored(them);
        let mut pinned = BitBoard::EMPTY;
        for sniper in snipers {
            let between = get_between_rays(king, sniper) & occupied;
            if between.len() == 1 {
                pinned |= between & board.colored(self.side);
            }
        }
        pinned
    }

    /// Visits each castling move (king side first), given that the king is
    /// not in check; stops when `visit` returns true.
    #[inline(always)]
    fn visit_castling(
        &self,
        king: Square,
        visit: &mut impl FnMut(Square, BitBoard, Piece) -> bool,
    ) -> bool {
        let us = self.side;
        let home = Square::new(File::E, Rank::First.relative_to(us));
        if king != home || (self.castling.bits() & castling_bits(us)) == 0 {
            return false;
        }
        let occupied = self.board.occupied();
        let rank = home.rank();
        for side in [CastleSide::King, CastleSide::Queen] {
            if !self.castling.has(us, side) {
                continue;
            }
            let (rook_file, king_to, passes) = match side {
                CastleSide::King => (File::H, File::G, [File::F, File::G]),
                CastleSide::Queen => (File::A, File::C, [File::D, File::C]),
            };
            let rook = Square::new(rook_file, rank);
            if !self.board.colored_pieces(us, Piece::Rook).has(rook) {
                continue;
            }
            if !(get_between_rays(home, rook) & occupied).is_empty() {
                continue;
            }
            let safe = passes.iter().all(|&file| {
                self.attackers(Square::new(file, rank), !us, occupied)
                    .is_empty()
            });
            if safe && visit(home, Square::new(king_to, rank).bitboard(), Piece::King) {
                return true;
            }
        }
        false
    }

    /// En passant on the targets this sub-move may use: only the opponent's
    /// (on the mover's sixth rank); the turn state has already dropped those
    /// the rules forbid. Legality is decided by playing the capture on the
    /// occupancy and looking at the king. Stops when `visit` returns true.
    #[inline(always)]
    fn visit_en_passant(
        &self,
        king: Square,
        visit: &mut impl FnMut(Square, BitBoard, Piece) -> bool,
    ) -> bool {
        let us = self.side;
        let them = !us;
        let usable = self.ep & Rank::Sixth.relative_to(us).bitboard();
        if usable.is_empty() {
            return false;
        }
        let occupied = self.board.occupied();
        for target in usable {
            let victim = Square::new(target.file(), Rank::Fifth.relative_to(us));
            if !self.board.colored_pieces(them, Piece::Pawn).has(victim) || occupied.has(target) {
                continue;
            }
            let capturers =
                get_pawn_attacks(target, them) & self.board.colored_pieces(us, Piece::Pawn);
            for from in capturers {
                let after = (occupied ^ from.bitboard() ^ victim.bitboard()) | target.bitboard();
                let attackers = self.attackers(king, them, after) & !victim.bitboard();
                if attackers.is_empty() && visit(from, target.bitboard(), Piece::Pawn) {
                    return true;
                }
            }
        }
        false
    }
}

/// The castling-right bits of `color` (as in `CastlingRights`).
fn castling_bits(color: Color) -> u8 {
    match color {
        Color::White => 3,
        Color::Black => 12,
    }
}
