//! The reference opponent of the match harness: vchess.club's algorithm for
//! Marseillais as the issue describes it. It tries every pair of its own
//! sub-moves (one sub-move when S1 gives check, or at S2 or in a single
//! turn), answers each with the opponent's best single reply sub-move, and
//! scores the result by material only (p 1, n 3, b 3, r 5, q 7), choosing at
//! random among equal scores. Checkmating the opponent scores best;
//! stalemates score 0. Deterministic given its seed.

use crate::rules::{Color, Phase, Piece, Position, SubMove};

use super::level::splitmix;

const VALUES: [i32; 6] = [1, 3, 3, 5, 7, 0];
const WIN: i32 = 1_000;

/// The vchess player: a seeded generator and the S2 of the pair it chose.
pub struct Vchess {
    rng: u64,
    plan: Option<(u64, SubMove)>,
}

impl Vchess {
    pub fn new(seed: u64) -> Vchess {
        Vchess {
            rng: seed,
            plan: None,
        }
    }

    fn random(&mut self, n: usize) -> usize {
        self.rng = splitmix(self.rng);
        (self.rng % n as u64) as usize
    }

    /// The sub-move vchess plays in `pos`; `None` when there is none.
    pub fn choose(&mut self, pos: &Position) -> Option<SubMove> {
        if pos.phase() == Phase::Second
            && let Some((expect, mv)) = self.plan.take()
            && expect == pos.hash()
            && pos.is_legal(mv)
        {
            return Some(mv);
        }
        self.plan = None;
        let us = pos.side_to_move();
        let mut best = i32::MIN;
        let mut choices: Vec<(SubMove, Option<(u64, SubMove)>)> = Vec::new();
        for s1 in pos.legal_submoves() {
            let after = pos.play_unchecked(s1);
            let candidates: Vec<(i32, Option<(u64, SubMove)>)> = if after.side_to_move() == us {
                let seconds = after.legal_submoves();
                if seconds.is_empty() {
                    vec![(0, None)]
                } else {
                    seconds
                        .iter()
                        .map(|&s2| {
                            let end = after.play_unchecked(s2);
                            (reply_score(&end, us), Some((after.hash(), s2)))
                        })
                        .collect()
                }
            } else {
                vec![(reply_score(&after, us), None)]
            };
            for (score, plan) in candidates {
                if score > best {
                    best = score;
                    choices.clear();
                }
                if score == best {
                    choices.push((s1, plan));
                }
            }
        }
        if choices.is_empty() {
            return None;
        }
        let (mv, plan) = choices[self.random(choices.len())];
        self.plan = plan;
        Some(mv)
    }
}

/// Material of `us` minus the opponent's after the opponent's best single
/// sub-move in `pos` (where the opponent is to move).
fn reply_score(pos: &Position, us: Color) -> i32 {
    let replies = pos.legal_submoves();
    if replies.is_empty() {
        return if pos.is_check() { WIN } else { 0 };
    }
    replies
        .iter()
        .map(|&r| material(&pos.play_unchecked(r), us))
        .min()
        .unwrap_or(0)
}

fn material(pos: &Position, us: Color) -> i32 {
    let board = pos.board();
    let mut score = 0;
    for piece in Piece::ALL {
        let v = VALUES[piece as usize];
        score += v * board.colored_pieces(us, piece).len() as i32;
        score -= v * board.colored_pieces(!us, piece).len() as i32;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn vchess_takes_a_free_queen() {
        let pos =
            Position::from_fen("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 5", Rules::Marseillais).unwrap();
        let mv = Vchess::new(1).choose(&pos).unwrap();
        // Rd2xd5 at once or as S2 after a quiet S1: either way the queen goes.
        let after = pos.play_unchecked(mv);
        assert!(mv.to.to_string() == "d5" || after.side_to_move() == Color::White);
    }
}
