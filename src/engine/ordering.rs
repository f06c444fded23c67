//! Move ordering: the transposition-table move first, then captures by
//! MVV-LVA (most valuable victim, least valuable attacker) and promotions,
//! then the two killer moves of the ply, then quiet moves by history.
//!
//! Alpha-beta cuts most when the best move comes first; these are the
//! classic cheap predictors. Killers and history are per side to move and
//! per ply in sub-moves: a quiet sub-move that refuted a line at S2 is often
//! the refutation of the sibling lines too.

use crate::rules::{Color, Piece, Position, SubMove, SubMoveList};

use super::bounds::MAX_PLY;
use super::eval::VALUE;

const TT_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 26;
const KILLER_1: i32 = 1 << 25;
const KILLER_2: i32 = KILLER_1 - 1;
const HISTORY_MAX: i32 = 1 << 20;

/// What the search learns about quiet moves while it runs.
pub struct Heuristics {
    killers: [[Option<SubMove>; 2]; MAX_PLY + 1],
    history: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: [[None; 2]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl Heuristics {
    pub fn clear(&mut self) {
        *self = Heuristics::default();
    }

    /// Between searches: killers belong to the old root, history is halved.
    pub fn age(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 1];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 2;
                }
            }
        }
    }

    /// A quiet move caused a beta cut-off at `ply` with `depth` left;
    /// the quiet moves tried before it did not.
    pub fn reward(&mut self, side: Color, ply: usize, mv: SubMove, depth: i32, tried: &[SubMove]) {
        let killers = &mut self.killers[ply.min(MAX_PLY)];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let bonus = (depth * depth).min(400);
        let table = &mut self.history[side as usize];
        update(&mut table[mv.from as usize][mv.to as usize], bonus);
        for other in tried {
            if *other != mv {
                update(&mut table[other.from as usize][other.to as usize], -bonus);
            }
        }
    }
}

/// History with gravity: values stay within ±HISTORY_MAX.
fn update(entry: &mut i32, bonus: i32) {
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
}

/// Whether `mv` is a capture or a promotion (what quiescence searches).
pub fn is_tactical(pos: &Position, mv: SubMove) -> bool {
    mv.promotion.is_some() || pos.is_capture(mv)
}

/// MVV-LVA score of a tactical move.
fn mvv_lva(pos: &Position, mv: SubMove) -> i32 {
    let board = pos.board();
    let victim = board.piece_on(mv.to).map_or(
        // En passant takes a pawn; a quiet promotion takes nothing.
        if pos.is_en_passant(mv) { VALUE[0] } else { 0 },
        |p| VALUE[p as usize],
    );
    let attacker = board.piece_on(mv.from).unwrap_or(Piece::Pawn);
    let promo = mv.promotion.map_or(0, |p| VALUE[p as usize]);
    victim * 16 + promo * 8 - VALUE[attacker as usize] / 10
}

/// A list of moves with scores, handed out best first (selection sort: the
/// search usually stops after a few moves, so sorting all is wasted work).
pub struct Picker {
    moves: SubMoveList,
    scores: arrayvec::ArrayVec<i32, 256>,
    next: usize,
}

impl Picker {
    pub fn new(
        pos: &Position,
        moves: SubMoveList,
        tt_move: Option<SubMove>,
        heur: &Heuristics,
        ply: usize,
    ) -> Picker {
        let killers = heur.killers[ply.min(MAX_PLY)];
        let history = &heur.history[pos.side_to_move() as usize];
        let scores = moves
            .iter()
            .map(|&mv| {
                if Some(mv) == tt_move {
                    TT_MOVE
                } else if is_tactical(pos, mv) {
                    CAPTURE + mvv_lva(pos, mv)
                } else if Some(mv) == killers[0] {
                    KILLER_1
                } else if Some(mv) == killers[1] {
                    KILLER_2
                } else {
                    history[mv.from as usize][mv.to as usize]
                }
            })
            .collect();
        Picker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Only the tactical moves, by MVV-LVA (quiescence).
    pub fn tactical(pos: &Position, all: &SubMoveList) -> Picker {
        let mut moves = SubMoveList::new();
        let mut scores = arrayvec::ArrayVec::new();
        for &mv in all {
            if is_tactical(pos, mv) {
                moves.push(mv);
                scores.push(mvv_lva(pos, mv));
            }
        }
        Picker {
            moves,
            scores,
            next: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

impl Iterator for Picker {
    type Item = SubMove;

    fn next(&mut self) -> Option<SubMove> {
        if self.next >= self.moves.len() {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..self.moves.len() {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}
