//! Blocks between accounts (issue 32; `crate::server::safety::blocks`): the value
//! [`super::Store::blocks_of`] lists. The table is `blocks` (SQLite schema
//! v11, Postgres v8): one row per (blocker, blocked), with an index on `blocked` so that
//! "everyone in a block with this user, either way" is two index ranges.

use crate::server::domain::user::UserId;

/// One account a user blocks, as their list shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockEntry {
    pub user: UserId,
    /// The blocked account's username, as spelled at registration.
    pub name: String,
    /// Unix ms of the block (a second block of the same user keeps the first time).
    pub at_ms: i64,
}

/// An account in a block with a given user, either way (who blocks them, or whom they block).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BlockRelation {
    pub user: UserId,
    pub name: String,
}

/// The order [`super::Store::blocks_of`] lists in: newest first, then by name.
pub fn entry_order(a: &BlockEntry, b: &BlockEntry) -> std::cmp::Ordering {
    b.at_ms.cmp(&a.at_ms).then_with(|| a.name.cmp(&b.name))
}
