//! `GET /api/account/archive` (issue 32): the account's data as one zip file, for its owner:
//! `profile.json` (name, creation time, ratings, rating history), `settings.json` (the saved
//! settings, `{}` when none) and `games/{id}.pgn`, every game the account was seated in, by
//! the same writer as `GET /game/{id}.pgn`. Never the password hash, never a session.
//!
//! Built in memory, compressed as it goes (a game's PGN deflates to a few hundred bytes), so
//! the answer costs about as much memory as its size; the store is read a page of games at a
//! time. Expensive (every game is replayed), so each account has a small allowance
//! ([`super::service::ARCHIVE_BURST`], one more an hour).

use std::io::{Cursor, Write};

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use zip::ZipWriter;
use zip::write::SimpleFileOptions;

use super::error;
use super::extract::RequireAccount;
use super::routes::account_json;
use super::state::AccountState;
use crate::server::domain::user::Account;
use crate::server::players::profile::pgn_of_stored;
use crate::server::store::{RatedGame, Store, StoreError};
use crate::server::web::ApiError;

/// Listing rows read per page.
const PAGE: u32 = 100;
/// The rating history's bound: far more rated games than anyone plays.
const MAX_HISTORY: u32 = 1_000_000;

/// Why an archive could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the archive could not be written: {0}")]
    Zip(String),
}

impl From<zip::result::ZipError> for ArchiveError {
    fn from(e: zip::result::ZipError) -> Self {
        ArchiveError::Zip(e.to_string())
    }
}

impl From<std::io::Error> for ArchiveError {
    fn from(e: std::io::Error) -> Self {
        ArchiveError::Zip(e.to_string())
    }
}

pub async fn archive(
    State(app): State<AccountState>,
    RequireAccount(account): RequireAccount,
) -> Result<Response, ApiError> {
    app.accounts.take_archive(account.id)?;
    let store = app.accounts.store();
    let bytes = build(store.as_ref(), &account, app.deps.config.first_move)
        .await
        .map_err(error::store_failure)?;
    let disposition = format!(
        "attachment; filename=\"marseillais-{}.zip\"",
        account.name.as_str()
    );
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}

/// The archive's bytes.
pub async fn build(
    store: &dyn Store,
    account: &Account,
    first_move: std::time::Duration,
) -> Result<Vec<u8>, ArchiveError> {
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));

    let created_ms = store
        .user_by_id(account.id)
        .await?
        .map_or(0, |user| user.created_ms);
    let ratings = store.ratings(account.id).await?;
    let history = store.rating_history(account.id, None, MAX_HISTORY).await?;
    let mut profile = account_json(account, &ratings);
    if let Value::Object(map) = &mut profile {
        map.insert("created_ms".into(), json!(created_ms));
        map.insert(
            "rating_history".into(),
            Value::Array(history.iter().map(|g| history_entry(account, g)).collect()),
        );
    }
    zip.start_file("profile.json", options)?;
    zip.write_all(&pretty(&profile))?;

    let settings = match store.account_settings(account.id).await? {
        Some(text) => serde_json::from_str(&text).unwrap_or_else(|_| json!({})),
        None => json!({}),
    };
    zip.start_file("settings.json", options)?;
    zip.write_all(&pretty(&settings))?;

    let mut offset = 0;
    let mut written = std::collections::HashSet::new();
    loop {
        let page = store.user_games(account.id, PAGE, offset).await?;
        let read = u32::try_from(page.len()).unwrap_or(u32::MAX);
        for listing in page {
            // A row that moved down a page while reading (a game updated meanwhile) once.
            if !written.insert(listing.id.clone()) {
                continue;
            }
            let Some((_, events)) = store.load_game(&listing.id).await? else {
                continue;
            };
            let id = listing.id.clone();
            let pgn = tokio::task::spawn_blocking(move || pgn_of_stored(&id, &events, first_move))
                .await
                .map_err(|e| ArchiveError::Zip(format!("the PGN task failed: {e}")))?;
            if let Some(pgn) = pgn {
                zip.start_file(format!("games/{}.pgn", listing.id), options)?;
                zip.write_all(pgn.as_bytes())?;
            }
        }
        if read < PAGE {
            break;
        }
        offset = offset.saturating_add(read);
    }
    Ok(zip.finish()?.into_inner())
}

fn pretty(value: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(value).unwrap_or_default()
}

/// One rated game of the history, from the account's side.
fn history_entry(account: &Account, game: &RatedGame) -> Value {
    let white = game.white == account.id;
    let (before, after) = if white {
        (game.white_before, game.white_after)
    } else {
        (game.black_before, game.black_after)
    };
    json!({
        "game": game.game_id,
        "speed": game.speed.as_str(),
        "ended_ms": game.ended_ms,
        "color": if white { "white" } else { "black" },
        "rating_before": before.rating.round(),
        "rating_after": after.rating.round(),
    })
}
