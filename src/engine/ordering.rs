//! Move ordering: the transposition-table move first, then captures by
//! MVV-LVA (most valuable victim, least valuable attacker) and promotions,
//! then the two killer moves of the ply, then quiet moves by history.
//!
//! Alpha-beta cuts most when the best move comes first; these are the
//! classic cheap predictors. Killers and history are per side to move and
//! per ply in sub-moves: a quiet sub-move that refuted a line at S2 is often
//! the refutation of the sibling lines too.
//!
//! Two more tables are kept, each used only when its technique is switched on
//! ([`Feature::CaptureHistory`], [`Feature::ContinuationHistory`]): capture history (which
//! captures of this piece to this square of that victim cut) and continuation history (which
//! quiet sub-move cut after the one played one and two sub-moves before: at S2 those are
//! the mover's own S1 and the opponent's last sub-move, so the table learns both the
//! follow-up of a plan and the answer to a threat).

use crate::rules::{Piece, Position, SubMove, SubMoveList};

use super::bounds::MAX_PLY;
use super::eval::VALUE;
use super::features::{Feature, Features};

const TT_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 26;
const KILLER_1: i32 = 1 << 25;
const KILLER_2: i32 = KILLER_1 - 1;
const HISTORY_MAX: i32 = 1 << 20;
/// Capture and continuation history stay within ±this; divided by [`CAPTURE_HISTORY_DIV`]
/// a capture's history moves it by at most a pawn-for-knight difference of MVV-LVA.
const SIDE_HISTORY_MAX: i32 = 1 << 14;
const CAPTURE_HISTORY_DIV: i32 = 8;

/// A piece of a colour on a square: what a sub-move is remembered by in the history tables
/// (the moved piece and its destination). `index` is in `0..PIECE_TO`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTo(u16);

const PIECE_TO: usize = 2 * 6 * 64;

impl PieceTo {
    /// The sub-move `mv` of `pos` (before it is played).
    pub fn of(pos: &Position, mv: SubMove) -> PieceTo {
        let piece = pos.board().piece_on(mv.from).unwrap_or(Piece::Pawn);
        let coloured = pos.side_to_move() as usize * 6 + piece as usize;
        PieceTo((coloured * 64 + mv.to as usize) as u16)
    }

    fn index(self) -> usize {
        self.0 as usize
    }
}

/// The sub-moves played one and two plies before a node (none at the root's edge).
pub type Previous = [Option<PieceTo>; 2];

/// What the search learns about moves while it runs.
pub struct Heuristics {
    killers: [[Option<SubMove>; 2]; MAX_PLY + 1],
    history: Box<[[[i32; 64]; 64]; 2]>,
    /// `[piece-to of the capture][victim]`.
    capture: Box<[[i16; 6]]>,
    /// `[piece-to before][piece-to of the quiet sub-move]`, flattened (1.2 MB).
    continuation: Box<[i16]>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: [[None; 2]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 2]),
            capture: vec![[0; 6]; PIECE_TO].into_boxed_slice(),
            continuation: vec![0; PIECE_TO * PIECE_TO].into_boxed_slice(),
        }
    }
}

/// Where a node's moves are ordered: its ply, the sub-moves before it and the techniques on.
#[derive(Clone, Copy, Debug)]
pub struct Context {
    pub ply: usize,
    pub previous: Previous,
    pub features: Features,
}

impl Heuristics {
    pub fn clear(&mut self) {
        *self = Heuristics::default();
    }

    /// Between searches: killers belong to the old root, history is halved (the capture and
    /// continuation tables only when their technique was used: halving 1.2 MB is not free
    /// for the 30-node searches of level 1).
    pub fn age(&mut self, features: Features) {
        self.killers = [[None; 2]; MAX_PLY + 1];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 2;
                }
            }
        }
        if features.has(Feature::CaptureHistory) {
            self.capture.iter_mut().flatten().for_each(|h| *h /= 2);
        }
        if features.has(Feature::ContinuationHistory) {
            self.continuation.iter_mut().for_each(|h| *h /= 2);
        }
    }

    /// A quiet move `mv` (`piece_to`) caused a beta cut-off with `depth` left; the quiet moves
    /// tried before it did not.
    pub fn reward(
        &mut self,
        pos: &Position,
        context: &Context,
        mv: SubMove,
        depth: i32,
        tried: &[SubMove],
    ) {
        let killers = &mut self.killers[context.ply.min(MAX_PLY)];
        if killers[0] != Some(mv) {
            killers[1] = killers[0];
            killers[0] = Some(mv);
        }
        let bonus = (depth * depth).min(400);
        let table = &mut self.history[pos.side_to_move() as usize];
        update(
            &mut table[mv.from as usize][mv.to as usize],
            bonus,
            HISTORY_MAX,
        );
        for other in tried {
            if *other != mv {
                update(
                    &mut table[other.from as usize][other.to as usize],
                    -bonus,
                    HISTORY_MAX,
                );
            }
        }
        if context.features.has(Feature::ContinuationHistory) {
            for before in context.previous.into_iter().flatten() {
                let row = &mut self.continuation[before.index() * PIECE_TO..][..PIECE_TO];
                update16(&mut row[PieceTo::of(pos, mv).index()], bonus * 8);
                for other in tried {
                    if *other != mv {
                        update16(&mut row[PieceTo::of(pos, *other).index()], -bonus * 8);
                    }
                }
            }
        }
    }

    /// A beta cut-off at a node where `captures` were tried, the last of them `cut` if the
    /// cut was a capture's: it is rewarded and the others punished.
    pub fn reward_captures(
        &mut self,
        pos: &Position,
        cut: Option<SubMove>,
        depth: i32,
        captures: &[SubMove],
    ) {
        let bonus = (depth * depth).min(400) * 8;
        for &mv in captures {
            let sign = if Some(mv) == cut { 1 } else { -1 };
            let slot = &mut self.capture[PieceTo::of(pos, mv).index()][victim(pos, mv) as usize];
            update16(slot, sign * bonus);
        }
    }

    fn capture_score(&self, pos: &Position, mv: SubMove) -> i32 {
        i32::from(self.capture[PieceTo::of(pos, mv).index()][victim(pos, mv) as usize])
            / CAPTURE_HISTORY_DIV
    }

    fn continuation_score(&self, pos: &Position, previous: &Previous, mv: SubMove) -> i32 {
        let this = PieceTo::of(pos, mv).index();
        previous
            .iter()
            .flatten()
            .map(|before| i32::from(self.continuation[before.index() * PIECE_TO + this]))
            .sum()
    }
}

/// History with gravity: values stay within ±`max`.
fn update(entry: &mut i32, bonus: i32, max: i32) {
    *entry += bonus - *entry * bonus.abs() / max;
}

fn update16(entry: &mut i16, bonus: i32) {
    let mut value = i32::from(*entry);
    update(
        &mut value,
        bonus.clamp(-SIDE_HISTORY_MAX, SIDE_HISTORY_MAX),
        SIDE_HISTORY_MAX,
    );
    *entry = value.clamp(-SIDE_HISTORY_MAX, SIDE_HISTORY_MAX) as i16;
}

/// The piece a capture takes (a pawn for en passant and for a quiet promotion's slot).
fn victim(pos: &Position, mv: SubMove) -> Piece {
    pos.board().piece_on(mv.to).unwrap_or(Piece::Pawn)
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
        context: &Context,
    ) -> Picker {
        let killers = heur.killers[context.ply.min(MAX_PLY)];
        let history = &heur.history[pos.side_to_move() as usize];
        let capture_history = context.features.has(Feature::CaptureHistory);
        let continuation = context.features.has(Feature::ContinuationHistory);
        let scores = moves
            .iter()
            .map(|&mv| {
                if Some(mv) == tt_move {
                    TT_MOVE
                } else if is_tactical(pos, mv) {
                    let learnt = if capture_history {
                        heur.capture_score(pos, mv)
                    } else {
                        0
                    };
                    CAPTURE + mvv_lva(pos, mv) + learnt
                } else if Some(mv) == killers[0] {
                    KILLER_1
                } else if Some(mv) == killers[1] {
                    KILLER_2
                } else if continuation {
                    history[mv.from as usize][mv.to as usize]
                        + heur.continuation_score(pos, &context.previous, mv) * 16
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

    /// The tactical sub-moves (as `Position::generate_tactical` lists them), by MVV-LVA and
    /// capture history when on (quiescence).
    pub fn tactical(
        pos: &Position,
        moves: SubMoveList,
        heur: &Heuristics,
        features: Features,
    ) -> Picker {
        let capture_history = features.has(Feature::CaptureHistory);
        let scores = moves
            .iter()
            .map(|&mv| {
                let learnt = if capture_history {
                    heur.capture_score(pos, mv)
                } else {
                    0
                };
                mvv_lva(pos, mv) + learnt
            })
            .collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rules, san};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, Rules::Marseillais).unwrap()
    }

    fn first(picker: Picker) -> Option<SubMove> {
        picker.into_iter().next()
    }

    #[test]
    fn a_quiet_sub_move_that_cut_after_another_comes_first_after_that_one_again() {
        let start = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let (knight, pawn) = (
            san::parse(&start, "Nf3").unwrap(),
            san::parse(&start, "a3").unwrap(),
        );
        let after = |text: &str| Some(PieceTo::of(&start, san::parse(&start, text).unwrap()));
        let features = Features::NONE.with(Feature::ContinuationHistory, true);
        let context = |before: &str| Context {
            ply: 3,
            previous: [after(before), None],
            features,
        };
        let mut heur = Heuristics::default();
        // The same reward in the plain history for both: only the sub-move before tells them
        // apart.
        heur.reward(
            &start,
            &Context {
                ply: 1,
                ..context("e4")
            },
            knight,
            6,
            &[],
        );
        heur.reward(
            &start,
            &Context {
                ply: 1,
                ..context("d4")
            },
            pawn,
            6,
            &[],
        );
        let order = |before: &str| {
            first(Picker::new(
                &start,
                start.legal_submoves(),
                None,
                &heur,
                &context(before),
            ))
        };
        assert_eq!(order("e4"), Some(knight));
        assert_eq!(order("d4"), Some(pawn));
    }

    #[test]
    fn a_capture_that_cut_comes_before_an_equal_capture_that_did_not() {
        let board = pos("4k3/8/2p1p3/8/3N4/8/8/4K3 w - - 0 1");
        let left = san::parse(&board, "Nxc6").unwrap();
        let right = san::parse(&board, "Nxe6").unwrap();
        let features = Features::NONE.with(Feature::CaptureHistory, true);
        for (cut, other) in [(left, right), (right, left)] {
            let mut heur = Heuristics::default();
            heur.reward_captures(&board, Some(cut), 6, &[other, cut]);
            let moves = board.legal_submoves();
            let mut tactical = SubMoveList::new();
            board.generate_tactical(&mut tactical);
            assert_eq!(
                first(Picker::tactical(&board, tactical.clone(), &heur, features)),
                Some(cut)
            );
            let plain = first(Picker::tactical(&board, tactical, &heur, Features::NONE));
            let context = Context {
                ply: 0,
                previous: [None; 2],
                features,
            };
            let ordered = first(Picker::new(&board, moves, None, &heur, &context));
            assert_eq!(ordered, Some(cut));
            // Off, the table is not read: the two captures keep their generation order.
            assert_eq!(plain, Some(left));
        }
    }
}
