//! What the store keeps for fair play by rule (playban; SQLite schema v11, Postgres v8; issue
//! 32): each finished game's outcome for each account seated in it, good or bad, keyed by
//! (user, game) so that a game counts once per player whatever replays or restarts happen.
//! Which games count and what a ban is are the playban room's rules
//! (`crate::server::safety::playban`); the store only keeps the outcomes, written in the same
//! transaction as the commit that ends the game ([`super::Commit::playban`]) or by
//! [`super::Store::record_playban`].

use crate::server::domain::user::UserId;

/// Most outcomes [`super::Store::playban_outcomes`] returns: the newest of the window asked
/// for. The rules look at far fewer (a record is its last 20); a player of a hundred games a
/// day still fits in a week.
pub const PLAYBAN_READ_LIMIT: u32 = 1000;

/// What a finished game says of one player's conduct (the rules decide which).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaybanOutcome {
    /// Played the game out (or lost it fairly).
    Good,
    /// Aborted a game the opponent was ready to play, or never played their first move.
    Abort,
    /// Let their clock run out instead of moving or resigning.
    Sitting,
    /// Left the game: lost it by the opponent's abandonment claim.
    Leave,
}

impl PlaybanOutcome {
    pub const ALL: [PlaybanOutcome; 4] = [
        PlaybanOutcome::Good,
        PlaybanOutcome::Abort,
        PlaybanOutcome::Sitting,
        PlaybanOutcome::Leave,
    ];

    /// The text stored (and sent as a ban's reason).
    pub fn as_str(self) -> &'static str {
        match self {
            PlaybanOutcome::Good => "good",
            PlaybanOutcome::Abort => "abort",
            PlaybanOutcome::Sitting => "sitting",
            PlaybanOutcome::Leave => "leave",
        }
    }

    /// The inverse of [`PlaybanOutcome::as_str`].
    pub fn parse(text: &str) -> Option<PlaybanOutcome> {
        PlaybanOutcome::ALL.into_iter().find(|o| o.as_str() == text)
    }

    pub fn is_bad(self) -> bool {
        self != PlaybanOutcome::Good
    }
}

/// The outcomes of one finished game, one per account judged (none for an anonymous seat or
/// the computer's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaybanEnd {
    pub game_id: String,
    /// When the game ended (Unix ms): the outcome's time.
    pub at_ms: i64,
    pub seats: Vec<(UserId, PlaybanOutcome)>,
}

/// One stored outcome of a user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaybanEntry {
    pub game_id: String,
    pub outcome: PlaybanOutcome,
    pub at_ms: i64,
}

/// Orders a user's outcomes oldest first, then by game id (two games ended in one ms).
pub fn entry_order(a: &PlaybanEntry, b: &PlaybanEntry) -> std::cmp::Ordering {
    a.at_ms
        .cmp(&b.at_ms)
        .then_with(|| a.game_id.cmp(&b.game_id))
}
