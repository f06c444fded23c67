//! The blocks of [`super::MemoryStore`] (issue 32): the reference the other backends are tested
//! against, as plainly as the contract reads. Names come from the users beside it.

use std::collections::BTreeMap;

use crate::server::domain::user::UserId;

/// (blocker, blocked) -> the time of the first block.
#[derive(Default)]
pub(super) struct MemoryBlocks {
    rows: BTreeMap<(UserId, UserId), i64>,
}

impl MemoryBlocks {
    pub(super) fn block(&mut self, blocker: UserId, blocked: UserId, at_ms: i64) {
        self.rows.entry((blocker, blocked)).or_insert(at_ms);
    }

    /// Every block `user` is in, either way (a deleted account).
    pub(super) fn forget(&mut self, user: UserId) {
        self.rows
            .retain(|(blocker, blocked), _| *blocker != user && *blocked != user);
    }

    pub(super) fn unblock(&mut self, blocker: UserId, blocked: UserId) -> bool {
        self.rows.remove(&(blocker, blocked)).is_some()
    }

    /// Whom `user` blocks, and since when.
    pub(super) fn of(&self, user: UserId) -> Vec<(UserId, i64)> {
        self.rows
            .iter()
            .filter(|((blocker, _), _)| *blocker == user)
            .map(|((_, blocked), &at)| (*blocked, at))
            .collect()
    }

    /// Everyone in a block with `user`, either way, sorted, each once.
    pub(super) fn relations(&self, user: UserId) -> Vec<UserId> {
        let mut out: Vec<UserId> = self
            .rows
            .keys()
            .filter_map(|&(blocker, blocked)| {
                if blocker == user {
                    Some(blocked)
                } else if blocked == user {
                    Some(blocker)
                } else {
                    None
                }
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    pub(super) fn between(&self, a: UserId, b: UserId) -> bool {
        self.rows.contains_key(&(a, b)) || self.rows.contains_key(&(b, a))
    }
}
