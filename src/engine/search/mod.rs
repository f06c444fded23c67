//! The search over sub-moves: negamax alpha-beta with principal variation
//! search (PVS), iterative deepening, a transposition table, quiescence on
//! captures and check evasions.
//!
//! Depth counts sub-moves (plies), not turns. The one Marseillais twist is
//! the sign: a score is always from the side to move's point of view, and it
//! flips only when the side to move changes. After a quiet S1 the child is
//! S2 of the *same* side, searched with the same window and no negation;
//! after S2, a single-sub-move turn or a checking S1 (check ends the turn,
//! which [`Position::play_unchecked`] already applies) the child is the
//! opponent's, searched with the negated window as usual.
//!
//! Endings inside the search are exact: no legal sub-move at a turn start is
//! checkmate (`-MATE + ply`) if in check, else stalemate (0); no legal S2 is
//! the second-move stalemate (0). Insufficient material, the 75-move rule and
//! a repetition of a turn-start position (one repetition is enough inside the
//! search) score 0.
//!
//! The selective techniques (late-move reductions and pruning, reverse futility and futility,
//! the null move as a passed turn, aspiration windows, singular extensions) and the capture
//! and continuation histories are switched by [`Features`], each adapted to the double move;
//! one is on only once an SPRT accepted it (`docs/engine.md`, "Techniques switched by name"
//! and "Changes and their tests").

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;

use crate::rules::{Color, Phase, Piece, Position, SubMove};

pub use super::bounds::{INF, MATE, MATE_BOUND, MAX_PLY};
use super::eval::evaluate;
use super::features::{Feature, Features};
use super::level::noise;
use super::ordering::{Context, Heuristics, Picker, PieceTo, is_tactical};
use super::tt::{Bound, Tt};

/// Reverse futility: the deepest node it cuts, and its margin per sub-move of depth. The
/// opponent answers with two sub-moves, so a lead must survive a double threat: the margin is
/// a pawn per sub-move where an orthodox engine uses about 0.8.
const RFP_MAX_DEPTH: i32 = 6;
const RFP_MARGIN: i32 = 100;

/// Null move: the shallowest node it is tried at. The null child searches `depth - 4 -
/// depth / 4` sub-moves: the two sub-moves of the turn passed, and a reduction of 2 + depth/4
/// (an orthodox engine's R = 3 + depth/3 plies is about that many sub-moves of a turn).
const NMP_MIN_DEPTH: i32 = 3;

/// Late-move pruning: at depth d (sub-moves) at most `LMP_QUIETS[d]` quiet sub-moves are
/// searched at a node that is neither on the principal variation nor in check.
const LMP_QUIETS: [usize; 5] = [0, 6, 9, 14, 21];

/// Futility: the deepest S2 whose quiet sub-moves it skips, and its margin per sub-move of
/// depth. Only at S2: after a quiet S1 the same side moves again and may capture, so a quiet
/// S1's gain is not bounded by a margin; a quiet S2 hands the turn over, the orthodox case.
const FP_MAX_DEPTH: i32 = 4;
const FP_MARGIN: i32 = 80;

/// Singular extensions: the shallowest node tried, how far the table's entry may be shallower
/// than the node, and the margin below the table's score per sub-move of depth.
const SE_MIN_DEPTH: i32 = 6;
const SE_TT_DEPTH_SLACK: i32 = 3;
const SE_MARGIN: i32 = 2;

/// Aspiration: the first window's half-width around the last iteration's score (cp), and
/// the shallowest iteration that uses one.
const ASPIRATION_DELTA: i32 = 30;
const ASPIRATION_MIN_DEPTH: i32 = 5;

/// One search's working state; lives for one `go`.
pub struct Search<'a> {
    pub tt: &'a mut Tt,
    pub heur: &'a mut Heuristics,
    pub stop: &'a AtomicBool,
    pub start: Instant,
    pub hard: Option<Duration>,
    pub max_nodes: Option<u64>,
    pub noise: i32,
    pub seed: u64,
    pub features: Features,
    pub nodes: u64,
    pub seldepth: usize,
    pub aborted: bool,
    /// Aborting is only allowed once depth 1 is complete, so that every
    /// search has a move.
    can_abort: bool,
    /// Hashes of the game's positions before the root and of the path, one
    /// per sub-move; 0 for positions in the middle of a turn.
    path: Vec<u64>,
    pv: Vec<ArrayVec<SubMove, MAX_PLY>>,
    /// The best root score among fully searched root moves this iteration.
    root_partial_score: i32,
    /// The last completed iteration's score, around which the next one aspires.
    last_score: Option<i32>,
    /// The path length at the innermost null move: repetitions are not looked for across
    /// a passed turn, and a null move does not answer a null move.
    null_floor: usize,
    /// Root sub-moves left out of the search ([`Search::exclude_at_root`]): what finds the
    /// second-best turn for the puzzle generator. Empty for every ordinary search.
    excluded: Vec<SubMove>,
    /// The sub-move played at each ply of the current line (for continuation history).
    played: [Option<PieceTo>; MAX_PLY + 1],
    /// The table's move left out at a ply while a singular extension tests it.
    singular_skip: [Option<SubMove>; MAX_PLY + 1],
}

/// The result of one completed (or usefully interrupted) iteration.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: i32,
    pub score: i32,
    pub pv: Vec<SubMove>,
}

impl<'a> Search<'a> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        tt: &'a mut Tt,
        heur: &'a mut Heuristics,
        stop: &'a AtomicBool,
        hard: Option<Duration>,
        max_nodes: Option<u64>,
        noise: i32,
        seed: u64,
        features: Features,
        history: Vec<u64>,
    ) -> Search<'a> {
        Search {
            tt,
            heur,
            stop,
            start: Instant::now(),
            hard,
            max_nodes,
            noise,
            seed,
            features,
            nodes: 0,
            seldepth: 0,
            aborted: false,
            can_abort: false,
            path: history,
            pv: vec![ArrayVec::new(); MAX_PLY + 2],
            root_partial_score: -INF,
            last_score: None,
            null_floor: 0,
            excluded: Vec::new(),
            played: [None; MAX_PLY + 1],
            singular_skip: [None; MAX_PLY + 1],
        }
    }

    /// Leaves `moves` out at the root: the search answers the best of the others. The root's
    /// score is then not the position's, so it is not stored in the table (a later search that
    /// meets the position inside its tree must not read it); everything below the root is
    /// searched and stored as usual. The caller keeps at least one legal root move.
    pub fn exclude_at_root(&mut self, moves: &[SubMove]) {
        self.excluded = moves.to_vec();
    }

    /// One iteration at `depth` sub-moves from `root`. `None` when it was
    /// aborted before any root move was searched to the end.
    pub fn iterate(&mut self, root: &Position, depth: i32) -> Option<Iteration> {
        self.can_abort = depth > 1;
        self.seldepth = 0;
        let score = match self.last_score {
            Some(last)
                if self.features.has(Feature::Aspiration)
                    && depth >= ASPIRATION_MIN_DEPTH
                    && last.abs() < MATE_BOUND =>
            {
                self.aspire(root, depth, last)
            }
            _ => {
                self.root_partial_score = -INF;
                self.negamax(root, depth, 0, -INF, INF)
            }
        };
        if !self.aborted {
            self.last_score = Some(score);
        }
        let pv: Vec<SubMove> = self.pv[0].iter().copied().collect();
        if pv.is_empty() {
            return None;
        }
        // An aborted iteration still has a usable best move: every root move
        // that updated the PV was searched to the end. Its score is the
        // best among those, so it is reported as well.
        let score = if self.aborted {
            self.root_partial_score
        } else {
            score
        };
        Some(Iteration { depth, score, pv })
    }

    /// The root searched in a window around `last`, widened (doubling) on the side it fails
    /// until the score falls inside: most iterations end in the first, narrow window.
    fn aspire(&mut self, root: &Position, depth: i32, last: i32) -> i32 {
        let mut delta = ASPIRATION_DELTA;
        let (mut alpha, mut beta) = (last - delta, last + delta);
        loop {
            self.root_partial_score = -INF;
            let score = self.negamax(root, depth, 0, alpha, beta);
            if self.aborted {
                return score;
            }
            delta = delta.saturating_mul(2);
            // Bounded: delta doubles until a bound reaches the infinite one.
            if score <= alpha && alpha > -INF {
                alpha = alpha.saturating_sub(delta).max(-INF);
            } else if score >= beta && beta < INF {
                beta = beta.saturating_add(delta).min(INF);
            } else {
                return score;
            }
        }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if !self.can_abort {
            return false;
        }
        if self.max_nodes.is_some_and(|max| self.nodes >= max) {
            self.aborted = true;
        } else if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            } else if let Some(hard) = self.hard
                && self.start.elapsed() >= hard
            {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// The evaluation plus the level's noise, for the side to move.
    fn eval(&self, pos: &Position) -> i32 {
        let base = evaluate(pos);
        if self.noise == 0 {
            return base;
        }
        let n = noise(pos.incremental_hash(), self.seed, self.noise);
        match pos.side_to_move() {
            crate::rules::Color::White => base + n,
            crate::rules::Color::Black => base - n,
        }
    }

    /// Whether `key` (a turn start) already stood at a turn start since the
    /// last capture or pawn move, in the game or on the path.
    fn is_repetition(&self, key: u64, halfmove: u32) -> bool {
        let n = self.path.len();
        let back = (halfmove as usize).min(n - self.null_floor);
        self.path[n - back..].iter().rev().any(|&k| k == key)
    }

    #[allow(clippy::too_many_arguments)]
    fn child(
        &mut self,
        child: &Position,
        same_side: bool,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if same_side {
            self.negamax(child, depth, ply, alpha, beta)
        } else {
            -self.negamax(child, depth, ply, -beta, -alpha)
        }
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.pv[ply].clear();
        if self.out_of_budget() {
            return 0;
        }
        self.nodes += 1;
        let key = pos.hash();
        let turn_start = pos.is_turn_start();
        if ply > 0
            && turn_start
            && (pos.is_insufficient_material()
                || pos.halfmove_clock() >= 150
                || self.is_repetition(key, pos.halfmove_clock()))
        {
            return 0;
        }
        // Sub-moves are listed only once the node is searched: a node the table, reverse
        // futility or the null move cuts never generates them. Every other early return asks
        // first whether the node is an ending, which scores exactly as before any pruning (the
        // tree is the one a list at the top would give, node for node). A node restricted by a
        // singular test or root exclusions lists them at once: it needs them to know what is
        // left.
        let skip = self.singular_skip[ply];
        // Root exclusions apply at the root only (a singular test deeper down must not drop
        // them from its node); either kind of restriction keeps the node out of the table.
        let excluding = ply == 0 && !self.excluded.is_empty();
        let restricted = excluding || skip.is_some();
        let mut listed = None;
        if restricted {
            let mut moves = pos.legal_submoves();
            if moves.is_empty() {
                return terminal_score(pos, ply);
            }
            if let Some(skipped) = skip {
                // A singular test: the node without its table move (what the parent measures).
                moves.retain(|mv| *mv != skipped);
                if moves.is_empty() {
                    return alpha;
                }
            }
            if excluding {
                moves.retain(|mv| !self.excluded.contains(mv));
                if moves.is_empty() {
                    return -INF;
                }
            }
            listed = Some(moves);
        }
        // What a node without a legal sub-move scores, if it is one: asked only before a return
        // that would otherwise take its place (the ply limit, mate distance, reverse futility,
        // the null move), so a node searched in full asks nothing more.
        let ending = |pos: &Position| {
            (listed.is_none() && !pos.has_legal_submove()).then(|| terminal_score(pos, ply))
        };
        if ply >= MAX_PLY - 1 {
            return ending(pos).unwrap_or_else(|| self.eval(pos));
        }
        let in_check = pos.is_check();
        // Check extension: a check costs the checker its whole turn (check
        // ends the turn), so following it is cheap and finds mates.
        let depth = if in_check && ply < MAX_PLY / 2 {
            depth + 1
        } else {
            depth
        };
        if depth <= 0 {
            // Quiescence finds the ending itself, from the same lists.
            return self.quiesce(pos, ply, alpha, beta, 0);
        }
        // Mate-distance pruning: no line from here beats a mate already found closer.
        let mate_here = MATE - ply as i32;
        let (alpha_md, beta_md) = (alpha.max(-mate_here), beta.min(mate_here - 1));
        if ply > 0 && alpha_md >= beta_md {
            return ending(pos).unwrap_or(alpha_md);
        }
        let pv_node = beta - alpha > 1;
        let entry = self.tt.probe(key, ply);
        // The table holds no ending (they return before the store below), so its cut needs
        // no list.
        if let Some(e) = entry
            && ply > 0
            && !pv_node
            && skip.is_none()
            && e.depth as i32 >= depth
        {
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => e.score >= beta,
                Bound::Upper => e.score <= alpha,
            };
            if cut {
                return e.score;
            }
        }

        let side = pos.side_to_move();
        let prunable =
            !pv_node && !in_check && ply > 0 && skip.is_none() && beta.abs() < MATE_BOUND;
        let static_eval = if prunable { Some(self.eval(pos)) } else { None };
        if let Some(eval) = static_eval {
            // Reverse futility: so far above beta that the opponent's best turn will not bring
            // it back.
            if self.features.has(Feature::ReverseFutility)
                && depth <= RFP_MAX_DEPTH
                && eval - RFP_MARGIN * depth >= beta
            {
                return ending(pos).unwrap_or(eval);
            }
            // Null move: pass the whole turn; if the opponent's turn played at once still
            // leaves us at beta, a real turn of ours would too. Not in pawn endings (zugzwang).
            if self.features.has(Feature::NullMove)
                && pos.phase() == Phase::First
                && depth >= NMP_MIN_DEPTH
                && eval >= beta
                && self.path.len() > self.null_floor
                && has_pieces(pos, side)
            {
                if let Some(score) = ending(pos) {
                    return score;
                }
                if let Some(passed) = pos.pass_turn() {
                    let reduced = depth - 4 - depth / 4;
                    self.path.push(0);
                    let floor = std::mem::replace(&mut self.null_floor, self.path.len());
                    let score = -self.negamax(&passed, reduced, ply + 1, -beta, -beta + 1);
                    self.null_floor = floor;
                    self.path.pop();
                    if self.aborted {
                        return 0;
                    }
                    if score >= beta {
                        return if score >= MATE_BOUND { beta } else { score };
                    }
                }
            }
        }
        let moves = match listed {
            Some(moves) => moves,
            None => {
                let moves = pos.legal_submoves();
                if moves.is_empty() {
                    return terminal_score(pos, ply);
                }
                moves
            }
        };
        let tt_move = entry.and_then(|e| e.mv).filter(|m| moves.contains(m));
        let lmp_quiets = if self.features.has(Feature::LateMovePruning) && prunable {
            LMP_QUIETS.get(depth as usize).copied()
        } else {
            None
        };
        let futile = self.features.has(Feature::Futility)
            && pos.phase() == Phase::Second
            && depth <= FP_MAX_DEPTH
            && static_eval.is_some_and(|eval| eval + FP_MARGIN * depth <= alpha);

        // Singular extension: when every sub-move but the table's falls short of its score by
        // a margin, the table's is the only move here and is searched a sub-move deeper; when
        // even the others reach beta, the node is cut (several moves refute it).
        let mut singular = None;
        if self.features.has(Feature::Singular)
            && ply > 0
            && skip.is_none()
            && depth >= SE_MIN_DEPTH
            && let Some(mv) = tt_move
            && let Some(e) = entry
            && e.bound != Bound::Upper
            && e.depth as i32 >= depth - SE_TT_DEPTH_SLACK
            && e.score.abs() < MATE_BOUND
        {
            let singular_beta = e.score - SE_MARGIN * depth;
            self.singular_skip[ply] = Some(mv);
            let score = self.negamax(pos, (depth - 1) / 2, ply, singular_beta - 1, singular_beta);
            self.singular_skip[ply] = None;
            self.pv[ply].clear();
            if self.aborted {
                return 0;
            }
            if score < singular_beta {
                singular = Some(mv);
            } else if singular_beta >= beta && !pv_node {
                return singular_beta;
            }
        }

        let alpha_orig = alpha;
        self.path.push(if turn_start { key } else { 0 });
        let mut best = -INF;
        let mut best_move = None;
        let mut quiets: ArrayVec<SubMove, 256> = ArrayVec::new();
        let mut captures: ArrayVec<SubMove, 256> = ArrayVec::new();
        let context = Context {
            ply,
            previous: [
                ply.checked_sub(1).and_then(|p| self.played[p]),
                ply.checked_sub(2).and_then(|p| self.played[p]),
            ],
            features: self.features,
        };
        let picker = Picker::new(pos, moves, tt_move, self.heur, &context);
        for (i, mv) in picker.enumerate() {
            let tactical = is_tactical(pos, mv);
            // Pruned without being played: asking whether it gives check costs less than
            // making it (late-move pruning made every skipped sub-move: 2.89 -> 2.20 Mnps).
            if !tactical
                && best > -MATE_BOUND
                && (futile || lmp_quiets.is_some_and(|most| quiets.len() >= most))
                && !pos.gives_check(mv)
            {
                continue;
            }
            let child = pos.play_unchecked(mv);
            let same = child.side_to_move() == side;
            self.played[ply] = Some(PieceTo::of(pos, mv));
            let score = if i == 0 {
                let extension = i32::from(singular == Some(mv));
                self.child(&child, same, depth - 1 + extension, ply + 1, alpha, beta)
            } else {
                let reduction = if self.features.has(Feature::Lmr)
                    && depth >= 3
                    && i >= 3
                    && !tactical
                    && !in_check
                    && !child.is_check()
                {
                    let r = lmr_reduction(depth, i) - i32::from(pv_node);
                    r.clamp(0, depth - 2)
                } else {
                    0
                };
                let mut s = self.child(
                    &child,
                    same,
                    depth - 1 - reduction,
                    ply + 1,
                    alpha,
                    alpha + 1,
                );
                if s > alpha && reduction > 0 && !self.aborted {
                    s = self.child(&child, same, depth - 1, ply + 1, alpha, alpha + 1);
                }
                if s > alpha && s < beta && !self.aborted {
                    s = self.child(&child, same, depth - 1, ply + 1, alpha, beta);
                }
                s
            };
            if self.aborted {
                self.path.pop();
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    let line = &mut head[ply];
                    line.clear();
                    line.push(mv);
                    for &m in tail[0].iter().take(MAX_PLY - 1) {
                        line.push(m);
                    }
                    if ply == 0 {
                        self.root_partial_score = score;
                    }
                    if score >= beta {
                        if !tactical {
                            self.heur.reward(pos, &context, mv, depth, &quiets);
                        }
                        if self.features.has(Feature::CaptureHistory) {
                            if tactical {
                                captures.push(mv);
                            }
                            let cut = Some(mv).filter(|_| tactical);
                            self.heur.reward_captures(pos, cut, depth, &captures);
                        }
                        break;
                    }
                }
            }
            if tactical {
                captures.push(mv);
            } else {
                quiets.push(mv);
            }
        }
        self.path.pop();
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if !restricted {
            self.tt.store(key, ply, best_move, best, depth, bound);
        }
        best
    }
}

/// How many sub-moves a quiet sub-move late in the order is reduced by: the logarithmic rule
/// of the strongest engines, `0.75 + ln(depth) ln(index) / 2.25`, in sub-moves.
fn lmr_reduction(depth: i32, index: usize) -> i32 {
    let (d, i) = (f64::from(depth.max(1)), index.max(1) as f64);
    (0.75 + d.ln() * i.ln() / 2.25) as i32
}

/// Whether `side` has a piece other than pawns and its king: a side with only pawns is where
/// zugzwang lives, and passing would be a lie there.
fn has_pieces(pos: &Position, side: Color) -> bool {
    [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen]
        .into_iter()
        .any(|piece| !pos.board().colored_pieces(side, piece).is_empty())
}

/// The exact score of a position without legal sub-moves, for its mover.
pub fn terminal_score(pos: &Position, ply: usize) -> i32 {
    if pos.phase() == Phase::Second {
        // No legal S2 after a non-checking S1: second-move stalemate.
        0
    } else if pos.is_check() {
        -(MATE - ply as i32)
    } else {
        0
    }
}

mod quiescence;
#[cfg(test)]
mod tests;
