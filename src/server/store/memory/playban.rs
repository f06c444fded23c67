//! The playban outcomes of [`super::MemoryStore`] (issue 32): the reference the other backends
//! are tested against, as plainly as the contract reads.

use std::collections::BTreeMap;

use crate::server::domain::user::UserId;
use crate::server::store::{PlaybanEnd, PlaybanEntry, playban_order};

/// (user, game) -> (outcome, at_ms).
#[derive(Default)]
pub(super) struct MemoryPlayban {
    outcomes: BTreeMap<(UserId, String), PlaybanEntry>,
}

impl MemoryPlayban {
    /// Every outcome of `user` (a deleted account).
    pub(super) fn forget(&mut self, user: UserId) {
        self.outcomes.retain(|(owner, _), _| *owner != user);
    }

    pub(super) fn add(&mut self, end: &PlaybanEnd) -> u64 {
        let mut added = 0;
        for (user, outcome) in &end.seats {
            if let std::collections::btree_map::Entry::Vacant(slot) =
                self.outcomes.entry((*user, end.game_id.clone()))
            {
                added += 1;
                slot.insert(PlaybanEntry {
                    game_id: end.game_id.clone(),
                    outcome: *outcome,
                    at_ms: end.at_ms,
                });
            }
        }
        added
    }

    pub(super) fn of(&self, user: UserId, since_ms: i64, limit: u32) -> Vec<PlaybanEntry> {
        let mut entries: Vec<PlaybanEntry> = self
            .outcomes
            .iter()
            .filter(|((owner, _), e)| *owner == user && e.at_ms >= since_ms)
            .map(|(_, e)| e.clone())
            .collect();
        entries.sort_by(playban_order);
        let skip = entries.len().saturating_sub(limit as usize);
        entries.split_off(skip)
    }
}
