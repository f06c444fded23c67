//! The puzzles of [`super::MemoryStore`]: the reference the other backends are tested
//! against, written as plainly as the contract reads (scans and sorts, no index).

use std::collections::{BTreeMap, HashMap};

use crate::server::domain::rating::Rating;
use crate::server::domain::user::UserId;
use crate::server::store::puzzle::rating_key;
use crate::server::store::{
    PuzzleAttempt, PuzzlePlayer, PuzzleRecord, PuzzleRound, RoundOutcome, StoreError, rate_round,
};

/// A stored round: the round and the player's rating after it.
struct StoredRound {
    round: PuzzleRound,
    rating_after: f64,
}

#[derive(Default)]
pub(super) struct MemoryPuzzles {
    /// By id, so that iteration is the id order.
    puzzles: BTreeMap<String, PuzzleRecord>,
    players: HashMap<UserId, PuzzlePlayer>,
    rounds: HashMap<(UserId, String), StoredRound>,
}

impl MemoryPuzzles {
    /// Forgets the user's puzzle rating and rounds (a deleted account, issue 32).
    pub(super) fn forget(&mut self, user: UserId) {
        self.players.remove(&user);
        self.rounds.retain(|(owner, _), _| *owner != user);
    }

    /// Stores the puzzles not stored yet (themes already prepared); how many.
    pub(super) fn import(&mut self, puzzles: Vec<PuzzleRecord>) -> u64 {
        let mut inserted = 0;
        for puzzle in puzzles {
            if !self.puzzles.contains_key(&puzzle.id) {
                self.puzzles.insert(puzzle.id.clone(), puzzle);
                inserted += 1;
            }
        }
        inserted
    }

    pub(super) fn get(&self, id: &str) -> Option<PuzzleRecord> {
        self.puzzles.get(id).cloned()
    }

    fn candidates<'a>(
        &'a self,
        user: Option<UserId>,
        theme: Option<&'a str>,
    ) -> impl Iterator<Item = &'a PuzzleRecord> + 'a {
        self.puzzles.values().filter(move |p| {
            theme.is_none_or(|t| p.themes.iter().any(|k| k == t))
                && user.is_none_or(|u| !self.rounds.contains_key(&(u, p.id.clone())))
        })
    }

    pub(super) fn near(
        &self,
        user: Option<UserId>,
        theme: Option<&str>,
        target: i32,
    ) -> Option<PuzzleRecord> {
        let target = i64::from(target);
        let key = |p: &&PuzzleRecord| (rating_key(p.rating.rating), p.id.clone());
        let above = self
            .candidates(user, theme)
            .filter(|p| rating_key(p.rating.rating) >= target)
            .min_by_key(key);
        above
            .or_else(|| {
                self.candidates(user, theme)
                    .filter(|p| rating_key(p.rating.rating) < target)
                    .max_by_key(key)
            })
            .cloned()
    }

    pub(super) fn after(&self, theme: Option<&str>, after: Option<&str>) -> Option<PuzzleRecord> {
        let next = self
            .candidates(None, theme)
            .find(|p| after.is_none_or(|a| p.id.as_str() > a));
        next.or_else(|| self.candidates(None, theme).next())
            .cloned()
    }

    pub(super) fn themes(&self) -> Vec<(String, u64)> {
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for puzzle in self.puzzles.values() {
            for theme in &puzzle.themes {
                *counts.entry(theme.clone()).or_default() += 1;
            }
        }
        counts.into_iter().collect()
    }

    pub(super) fn count(&self) -> u64 {
        self.puzzles.len() as u64
    }

    pub(super) fn player(&self, user: UserId) -> Option<PuzzlePlayer> {
        self.players.get(&user).copied()
    }

    /// Every check before any change, so a refused round changes nothing.
    pub(super) fn record(&mut self, round: PuzzleRound) -> Result<RoundOutcome, StoreError> {
        let key = (round.user, round.puzzle.clone());
        if self.rounds.contains_key(&key) {
            return Ok(RoundOutcome::Repeated);
        }
        let Some(puzzle) = self.puzzles.get_mut(&round.puzzle) else {
            return Err(StoreError::Io(format!("no puzzle {}", round.puzzle)));
        };
        let player = self.players.entry(round.user).or_insert(PuzzlePlayer {
            rating: Rating::INITIAL,
            solved: 0,
            failed: 0,
        });
        let (player_before, puzzle_before) = (player.rating, puzzle.rating);
        let (player_after, puzzle_after) = rate_round(player_before, puzzle_before, round.solved);
        player.rating = player_after;
        if round.solved {
            player.solved += 1;
        } else {
            player.failed += 1;
        }
        puzzle.rating = puzzle_after;
        puzzle.plays = puzzle.plays.saturating_add(1);
        self.rounds.insert(
            key,
            StoredRound {
                round,
                rating_after: player_after.rating,
            },
        );
        Ok(RoundOutcome::Rated {
            player_before,
            player_after,
            puzzle_before,
            puzzle_after,
        })
    }

    pub(super) fn attempts(&self, user: UserId, limit: u32) -> Vec<PuzzleAttempt> {
        let mut rounds: Vec<&StoredRound> = self
            .rounds
            .values()
            .filter(|r| r.round.user == user)
            .collect();
        rounds.sort_by(|a, b| {
            (b.round.at_ms, &b.round.puzzle).cmp(&(a.round.at_ms, &a.round.puzzle))
        });
        rounds
            .into_iter()
            .take(limit as usize)
            .map(|r| PuzzleAttempt {
                puzzle: r.round.puzzle.clone(),
                solved: r.round.solved,
                at_ms: r.round.at_ms,
                rating_after: r.rating_after,
                themes: self
                    .puzzles
                    .get(&r.round.puzzle)
                    .map(|p| p.themes.clone())
                    .unwrap_or_default(),
            })
            .collect()
    }

    pub(super) fn export(&self, after: Option<&str>, limit: u32) -> Vec<PuzzleRecord> {
        self.puzzles
            .values()
            .filter(|p| after.is_none_or(|a| p.id.as_str() > a))
            .take(limit as usize)
            .cloned()
            .collect()
    }
}
