//! What the writer knows of each game's log without asking SQLite: the sequence number its next
//! event must have. The writer is the database's only writer, so once it has written a game's
//! events it knows the answer until it writes again; the sequence check of a commit
//! (its `first_seq` must be exactly that number) is then a map lookup instead of a `SELECT`.
//!
//! Measured at saturation (docs/performance.md, issue 9): the writer's `SELECT` per commit
//! and the savepoint around it were about a third of its statements. The map only ever
//! learns from transactions that committed ([`NextSeqs::learn`] takes a batch's staged
//! numbers after its `COMMIT`), so it can lag behind the disk (a batch reported as failed whose
//! `COMMIT` did reach the disk) but never run ahead of it; a lagging entry makes the insert hit
//! the `(game_id, seq)` primary key, and the batch is written again with the checks read from
//! the database. It is cleared then, and whenever it grows past [`MAX_GAMES`].

use std::collections::HashMap;

/// Games remembered at most; past this the map starts over (each game then costs one `SELECT`
/// at its next commit). 65,536 games is a few MiB at most, and far more than are live at once.
pub(super) const MAX_GAMES: usize = 65_536;

/// The next sequence number of games whose log this writer has read or written.
#[derive(Debug, Default)]
pub(super) struct NextSeqs {
    next: HashMap<String, u64>,
}

impl NextSeqs {
    /// The next sequence number of `game`, if known.
    pub(super) fn get(&self, game: &str) -> Option<u64> {
        self.next.get(game).copied()
    }

    /// Takes what a committed batch wrote: `game`'s next number is `next`.
    pub(super) fn learn(&mut self, staged: impl IntoIterator<Item = (String, u64)>) {
        for (game, next) in staged {
            if self.next.len() >= MAX_GAMES && !self.next.contains_key(&game) {
                self.next.clear();
            }
            self.next.insert(game, next);
        }
    }

    /// Forgets everything: after a batch whose outcome on disk is not known for sure.
    pub(super) fn forget(&mut self) {
        self.next.clear();
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.next.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_learned_number_is_returned_and_replaced_by_a_later_one() {
        let mut seqs = NextSeqs::default();
        assert_eq!(seqs.get("g"), None);
        seqs.learn([("g".to_owned(), 3)]);
        assert_eq!(seqs.get("g"), Some(3));
        seqs.learn([("g".to_owned(), 5)]);
        assert_eq!(seqs.get("g"), Some(5));
        seqs.forget();
        assert_eq!(seqs.get("g"), None);
    }

    #[test]
    fn the_map_starts_over_past_its_bound_and_keeps_the_newest_game() {
        let mut seqs = NextSeqs::default();
        seqs.learn((0..MAX_GAMES).map(|i| (format!("g{i}"), 1)));
        assert_eq!(seqs.len(), MAX_GAMES);
        seqs.learn([("g0".to_owned(), 2)]);
        assert_eq!(seqs.len(), MAX_GAMES, "a known game does not clear the map");
        seqs.learn([("new".to_owned(), 7)]);
        assert_eq!(seqs.len(), 1);
        assert_eq!(seqs.get("new"), Some(7));
        assert_eq!(seqs.get("g0"), None);
    }
}
