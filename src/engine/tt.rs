//! The transposition table: one entry per bucket, keyed by the full Zobrist
//! hash of [`crate::rules::Position::hash`], which already folds in the phase
//! (S1, S2 or single) and the live en-passant targets. Two positions with the
//! same board but a different phase are different search nodes (at S1 the
//! mover has two sub-moves to come, at S2 one), so the phase must be in the key.

use crate::rules::SubMove;

use super::bounds::{MATE, MATE_BOUND};

/// What a stored score says about the true value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// The true score.
    Exact,
    /// The true score is at least this (the search failed high).
    Lower,
    /// The true score is at most this (the search failed low).
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: u64,
    pub mv: Option<SubMove>,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    generation: u8,
}

/// A fixed-size table; its size is set in megabytes (UCI `Hash`).
pub struct Tt {
    entries: Vec<Option<Entry>>,
    generation: u8,
}

impl Tt {
    pub const DEFAULT_MB: usize = 16;
    pub const MAX_MB: usize = 1024;

    pub fn new(megabytes: usize) -> Tt {
        let bytes = megabytes.clamp(1, Self::MAX_MB) * 1024 * 1024;
        let count = (bytes / std::mem::size_of::<Option<Entry>>()).max(1024);
        Tt {
            entries: vec![None; count],
            generation: 0,
        }
    }

    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
        self.generation = 0;
    }

    /// A new search starts: older entries become the first to be replaced.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    fn index(&self, key: u64) -> usize {
        // Multiply-shift maps the key uniformly onto the table length.
        ((key as u128 * self.entries.len() as u128) >> 64) as usize
    }

    /// The entry for `key`, with a mate score made relative to `ply` again.
    pub fn probe(&self, key: u64, ply: usize) -> Option<Entry> {
        let entry = self.entries[self.index(key)]?;
        if entry.key != key {
            return None;
        }
        Some(Entry {
            score: score_from_tt(entry.score, ply),
            ..entry
        })
    }

    pub fn store(
        &mut self,
        key: u64,
        ply: usize,
        mv: Option<SubMove>,
        score: i32,
        depth: i32,
        bound: Bound,
    ) {
        let index = self.index(key);
        let generation = self.generation;
        let slot = &mut self.entries[index];
        // Same position: keep the deeper result unless this one is exact
        // or nearly as deep. Another position: replace entries of older
        // searches, or shallower ones.
        let replace = match slot {
            None => true,
            Some(old) if old.key == key => depth as i16 >= old.depth - 1 || bound == Bound::Exact,
            Some(old) => old.generation != generation || depth as i16 >= old.depth,
        };
        if !replace {
            return;
        }
        // Keep the old move when this search found none (a fail-low).
        let mv = mv.or_else(|| slot.filter(|old| old.key == key).and_then(|old| old.mv));
        *slot = Some(Entry {
            key,
            mv,
            score: score_to_tt(score, ply),
            depth: depth.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            bound,
            generation,
        });
    }
}

/// Mate scores are stored as distance from the stored node, not from the
/// root, so that they stay exact when the node is reached at another ply.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        (score - ply as i32).min(MATE)
    } else if score <= -MATE_BOUND {
        (score + ply as i32).max(-MATE)
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_are_stored_relative_to_the_node() {
        let mut tt = Tt::new(1);
        // Mate found 5 plies below a node at ply 3: MATE - 8 from the root.
        tt.store(42, 3, None, MATE - 8, 4, Bound::Exact);
        let at_ply_1 = tt.probe(42, 1).unwrap();
        assert_eq!(at_ply_1.score, MATE - 6);
    }
}
