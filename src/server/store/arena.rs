//! What the store keeps of arena tournaments (SQLite schema v7, Postgres v4; issue 29): each
//! arena's row and each player's entry. An arena's games are the games rows that name it
//! ([`super::GameListing::arena`]), so its scores need no table of their own: they are read
//! from the games, each as durable as the commit that ended it.

use crate::server::domain::user::{UserId, Username};

/// An arena as stored. `terms` is a JSON object owned by the arena room (its clock, name,
/// rules), opaque to the store like a game's summary; the instants the lists order by are
/// columns of their own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaRecord {
    pub id: String,
    /// The account that made it; `None` for the server's own schedule.
    pub creator: Option<UserId>,
    pub terms: String,
    /// Unix milliseconds.
    pub starts_ms: i64,
    pub ends_ms: i64,
    pub created_ms: i64,
}

/// A player's entry in an arena: one per player who ever joined. Withdrawing sets
/// `withdrawn`, joining again clears it; `joined_ms` and `rating` stay those of the first join
/// (the standings' last tie-break is who joined first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaPlayer {
    pub user: UserId,
    /// Their name (kept with the entry, so that the standings need no read per player).
    pub name: Username,
    pub joined_ms: i64,
    /// Their rating at the arena's speed when they first joined.
    pub rating: i32,
    pub withdrawn: bool,
}

/// Which arenas [`super::Store::arenas`] lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArenaRange {
    /// Not over at `now_ms` (upcoming or running): soonest start first.
    Unfinished { now_ms: i64 },
    /// Over at `now_ms`: the last to end first.
    Finished { now_ms: i64 },
}

/// Orders a list of arenas the way [`super::Store::arenas`] returns `range` (by id when two
/// share an instant, so that every backend agrees).
pub fn range_order(range: ArenaRange, a: &ArenaRecord, b: &ArenaRecord) -> std::cmp::Ordering {
    match range {
        ArenaRange::Unfinished { .. } => a.starts_ms.cmp(&b.starts_ms).then(a.id.cmp(&b.id)),
        ArenaRange::Finished { .. } => b.ends_ms.cmp(&a.ends_ms).then(b.id.cmp(&a.id)),
    }
}

impl ArenaRange {
    pub fn holds(self, arena: &ArenaRecord) -> bool {
        match self {
            ArenaRange::Unfinished { now_ms } => arena.ends_ms > now_ms,
            ArenaRange::Finished { now_ms } => arena.ends_ms <= now_ms,
        }
    }
}
