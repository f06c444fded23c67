//! The one builder of a [`Commit`]: the events a decision came to, with what the store writes
//! beside them in the same transaction (the listing row, the turn-deadline index, the rating of
//! a rated end, the opening explorer's count of a game that ends, the playban outcomes of its players), all read from one [`GameState::after`] of the state they were decided against.
//! A room's move path, its timeouts, the registry's expiry passes and a new game's creation all
//! commit through here, so a listing row can never disagree with the events it is stored with.

use crate::server::explorer;
use crate::server::game::{Checked, Event, GameState};
use crate::server::play::{project, schedule};
use crate::server::safety::playban;
use crate::server::store::{Commit, Fence, codec};

/// The commit of `events`, decided against `state` and not yet applied to it, under `fence`
/// (the lease of a cluster node; `None` on one node).
pub fn of_events(state: &GameState, events: &[Checked], fence: Option<Fence>) -> Commit {
    let encoded = events.iter().map(|c| codec::encode(c.event())).collect();
    build(
        state,
        Start::Next,
        encoded,
        events,
        state.turn_deadline_ms(),
        fence,
    )
}

/// The first commit of a new game: all its first `events`, and `state`, the game they make.
pub fn of_new_game(state: &GameState, events: &[Event]) -> Commit {
    let encoded = events.iter().map(codec::encode).collect();
    // A game that starts being played at once (a challenge, a rematch) starts its first timed
    // turn in this commit: the index had nothing for it before.
    build(state, Start::First, encoded, &[], None, None)
}

/// Where the commit's events start in the game's log.
enum Start {
    /// At the game's first event.
    First,
    /// After the events `state` has applied.
    Next,
}

/// `state` with `pending` still to apply is what the commit leaves behind; `deadline_before`
/// is what the index holds for the game before it.
fn build(
    state: &GameState,
    start: Start,
    events: Vec<String>,
    pending: &[Checked],
    deadline_before: Option<i64>,
    fence: Option<Fence>,
) -> Commit {
    let after = state.after(pending);
    Commit {
        game_id: state.id.clone(),
        first_seq: match start {
            Start::First => 0,
            Start::Next => state.version() + 1,
        },
        events,
        listing: project::listing_of(state, &after),
        rating: project::rated_end_of(state, &after),
        explorer: explorer::extract::counted_game(state, &after, pending),
        playban: playban::extract::playban_end(state, &after, pending),
        deadline: schedule::change_between(deadline_before, after.turn_deadline_ms),
        fence,
    }
}
