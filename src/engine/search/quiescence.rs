//! Quiescence: the search past its depth, on captures and promotions (and every evasion for a
//! few plies in check) until the position is quiet, so that a leaf is never scored in the
//! middle of an exchange.

use crate::rules::{Position, SubMoveList};

use super::{INF, MAX_PLY, Search, terminal_score};
use crate::engine::ordering::{Context, Picker};

/// How many plies of check evasions quiescence follows.
const QS_EVASION_PLIES: usize = 6;

impl Search<'_> {
    /// Captures and promotions (all evasions when in check) until the
    /// position is quiet. Standing pat is allowed at S1 and at S2 alike:
    /// the mover is never forced to capture.
    pub(super) fn quiesce(
        &mut self,
        pos: &Position,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        qply: usize,
    ) -> i32 {
        self.pv[ply].clear();
        if self.out_of_budget() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if pos.is_turn_start() && pos.is_insufficient_material() {
            return 0;
        }
        let evading = pos.is_check() && qply < QS_EVASION_PLIES;
        // Every evasion when evading; otherwise only the tactical sub-moves are generated
        // (with the answer to whether there is any sub-move, for the endings).
        let mut moves = SubMoveList::new();
        let any = if evading {
            pos.generate(&mut moves);
            !moves.is_empty()
        } else {
            pos.generate_tactical(&mut moves)
        };
        if !any {
            return terminal_score(pos, ply);
        }
        if ply >= MAX_PLY - 1 {
            return self.eval(pos);
        }
        let mut best;
        let picker = if evading {
            best = -INF;
            let context = Context {
                ply,
                previous: [None; 2],
                features: self.features,
            };
            Picker::new(pos, moves, None, self.heur, &context)
        } else {
            let stand = self.eval(pos);
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
            Picker::tactical(pos, moves, self.heur, self.features)
        };
        let side = pos.side_to_move();
        for mv in picker {
            let child = pos.play_unchecked(mv);
            let score = if child.side_to_move() == side {
                self.quiesce(&child, ply + 1, alpha, beta, qply + 1)
            } else {
                -self.quiesce(&child, ply + 1, -beta, -alpha, qply + 1)
            };
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
