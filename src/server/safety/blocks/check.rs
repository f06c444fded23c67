//! The reads other rooms make where a block applies, each read from the store at that moment
//! (docs/protocol.md, "Blocks"): a challenge or a join between two accounts ([`refuse_between`]),
//! a pool seek ([`pool_blocking`]), an arena's pairs ([`blocked_pairs`]), a chat line's author or
//! reader ([`relations`]), the profile's `blocked` ([`viewer_blocks`]).

use std::collections::HashSet;

use super::error::not_possible;
use super::rules::Relations;
use crate::server::domain::user::UserId;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::store::{Store, StoreError};

fn store_refusal(error: StoreError) -> Refusal {
    tracing::warn!(%error, "blocks could not be read");
    Refusal::new(ErrorCode::StoreFailure, "the store failed; try again")
}

/// `not_possible` if either of `a` and `b` blocks the other; a store failure refuses too (it
/// must not let a blocked user through).
pub async fn refuse_between(store: &dyn Store, a: UserId, b: UserId) -> Result<(), Refusal> {
    if a == b {
        return Ok(());
    }
    match store.blocked_between(a, b).await {
        Ok(false) => Ok(()),
        Ok(true) => Err(not_possible()),
        Err(error) => Err(store_refusal(error)),
    }
}

/// `user`'s relations either way; [`Relations::Unknown`] when the store fails.
pub async fn relations(store: &dyn Store, user: Option<UserId>) -> Relations {
    let Some(user) = user else {
        return Relations::None;
    };
    match store.block_relations(user).await {
        Ok(rows) => Relations::of(&rows),
        Err(error) => {
            tracing::warn!(%error, "block relations could not be read: hiding what they could");
            Relations::Unknown(Some(user))
        }
    }
}

/// The relations of every account among `users` (each read once), as one.
pub async fn relations_of_all(store: &dyn Store, users: &[UserId]) -> Relations {
    let mut seen = HashSet::new();
    let mut all = Relations::None;
    for &user in users {
        if seen.insert(user) {
            all = all.union(relations(store, Some(user)).await);
        }
    }
    all
}

/// The accounts a seek of `user` must never be paired with (its relations either way), added
/// to `blocking`; a store failure refuses the seek.
pub async fn pool_blocking(
    store: &dyn Store,
    user: Option<UserId>,
    mut blocking: HashSet<UserId>,
) -> Result<HashSet<UserId>, Refusal> {
    if let Some(user) = user {
        let rows = store.block_relations(user).await.map_err(store_refusal)?;
        blocking.extend(rows.into_iter().map(|r| r.user));
    }
    Ok(blocking)
}

/// The pairs among `pairs` with a block between them (each as given); a pair whose block could
/// not be read counts as blocked.
pub async fn blocked_pairs(
    store: &dyn Store,
    pairs: &[(UserId, UserId)],
) -> HashSet<(UserId, UserId)> {
    let mut blocked = HashSet::new();
    for &(a, b) in pairs {
        if store.blocked_between(a, b).await.unwrap_or(true) {
            blocked.insert((a, b));
        }
    }
    blocked
}

/// Whether `viewer` blocks `target` (the profile's `blocked`): the viewer's own list only, so
/// that nobody learns whether they are blocked.
pub async fn viewer_blocks(
    store: &dyn Store,
    viewer: Option<UserId>,
    target: UserId,
) -> Result<bool, StoreError> {
    let Some(viewer) = viewer else {
        return Ok(false);
    };
    Ok(store
        .blocks_of(viewer)
        .await?
        .iter()
        .any(|entry| entry.user == target))
}
