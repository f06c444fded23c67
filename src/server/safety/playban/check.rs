//! A player's pause now, read from the store at the moment it matters (no cache: every node
//! agrees), and the refusal every entrance that starts a game answers while it lasts:
//! HTTP 403 `playban` with `until_ms` and `reason` in the body, or on the lobby channel an
//! `error` `playban` whose `retry_after_secs` is the time left.
//!
//! Anonymous players are not judged: the server knows them only by seat tokens that a browser
//! drops at will (a private window, cleared storage), so a pause would bind nobody and an
//! address-wide one would pause strangers behind the same NAT (docs/fair-play.md).

use std::collections::HashSet;

use axum::http::StatusCode;

use crate::server::domain::user::{Account, UserId};
use crate::server::game::now_ms;
use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::store::{PLAYBAN_READ_LIMIT, Store, StoreError};
use crate::server::web::ApiError;

use super::rules::{Ban, WINDOW_MS, ban_at};

/// The pause `user` is under at `now_ms`, if any.
pub async fn current_ban(
    store: &dyn Store,
    user: UserId,
    now_ms: i64,
) -> Result<Option<Ban>, StoreError> {
    let entries = store
        .playban_outcomes(user, now_ms.saturating_sub(WINDOW_MS), PLAYBAN_READ_LIMIT)
        .await?;
    Ok(ban_at(&entries, now_ms))
}

/// The sentence that says why and until when.
pub fn message(ban: &Ban, now_ms: i64) -> String {
    let why = match ban.reason.as_str() {
        "sitting" => "letting your clock run out instead of playing on",
        "leave" => "leaving games",
        _ => "aborting games",
    };
    let minutes = ((ban.until_ms - now_ms).max(0) + 59_999) / 60_000;
    format!(
        "you may not start games for {minutes} more minute(s), for {why} too often (fair play, docs/fair-play.md)"
    )
}

/// `Ok` when `account` may start a game now (anonymous: always); otherwise the 403 `playban`
/// refusal. A store failure is a 503: a pause it cannot read must not silently lapse, nor
/// refuse everyone.
pub async fn refuse_banned(store: &dyn Store, account: Option<&Account>) -> Result<(), ApiError> {
    let Some(account) = account else {
        return Ok(());
    };
    let now = now_ms();
    match current_ban(store, account.id, now).await {
        Ok(None) => Ok(()),
        Ok(Some(ban)) => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::Playban,
            message(&ban, now),
        )
        .with_field("until_ms", ban.until_ms)
        .with_field("reason", ban.reason.as_str())),
        Err(error) => Err(store_failure(&error)),
    }
}

/// The lobby channel's form of [`refuse_banned`] (a pool seek): `error` `playban`, with the
/// seconds left as `retry_after_secs`.
pub async fn ban_refusal(store: &dyn Store, account: Option<&Account>) -> Result<(), Refusal> {
    let Some(account) = account else {
        return Ok(());
    };
    let now = now_ms();
    match current_ban(store, account.id, now).await {
        Ok(None) => Ok(()),
        Ok(Some(ban)) => {
            let secs = u64::try_from((ban.until_ms - now).max(0)).unwrap_or(0) / 1000 + 1;
            Err(Refusal::new(ErrorCode::Playban, message(&ban, now)).retry_after(secs))
        }
        Err(error) => {
            tracing::warn!(%error, "playban: could not read a record");
            Err(Refusal::new(
                ErrorCode::StoreFailure,
                "the game store failed; try again",
            ))
        }
    }
}

/// Which of `users` are paused at `now_ms`: those a game must not be made for without their
/// asking (an arena's pairing step). A record the store cannot read counts as paused, as a
/// pause must not lapse by a failed read; the next step reads again.
pub async fn paused_among(
    store: &dyn Store,
    users: impl IntoIterator<Item = UserId>,
    now_ms: i64,
) -> HashSet<UserId> {
    let mut paused = HashSet::new();
    for user in users {
        match current_ban(store, user, now_ms).await {
            Ok(None) => {}
            Ok(Some(_)) => {
                paused.insert(user);
            }
            Err(error) => {
                tracing::warn!(%error, "playban: could not read a record");
                paused.insert(user);
            }
        }
    }
    paused
}

fn store_failure(error: &StoreError) -> ApiError {
    tracing::warn!(%error, "playban: could not read a record");
    ApiError::from(Refusal::new(
        ErrorCode::StoreFailure,
        "the game store failed; try again",
    ))
}
