//! The account's live sessions (issue 32): `GET /api/account/sessions` lists them,
//! `DELETE /api/account/sessions/{id}` ends one, `POST /api/account/sessions/end-others` ends
//! every one but the request's own.
//!
//! A session is shown by an opaque id ([`public_id`]): the first 8 bytes of the SHA-256 of its
//! stored hash, in hex. Neither the cookie's secret nor the stored hash ever leaves the
//! server, and the id cannot be turned back into either; it only names a session to its owner.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::control_request::own_session;
use super::error;
use super::extract::RequireAccount;
use super::state::AccountState;
use crate::server::game::now_ms;
use crate::server::store::{SessionHash, SessionRecord};
use crate::server::web::ApiError;

/// The opaque id of a session: 16 hex digits of the SHA-256 of its hash.
pub fn public_id(hash: &SessionHash) -> String {
    let digest = Sha256::digest(hash);
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// One session as the list shows it.
fn view(session: &SessionRecord, own: &SessionHash) -> serde_json::Value {
    json!({
        "id": public_id(&session.hash),
        "created_ms": session.created_ms,
        "last_seen_ms": session.last_seen_ms,
        "current": session.hash == *own,
    })
}

/// `{"sessions": [{id, created_ms, last_seen_ms, current}]}`, the newest made first.
pub async fn list_sessions(
    State(app): State<AccountState>,
    RequireAccount(account): RequireAccount,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let own = own_session(&headers)?;
    let sessions = app
        .accounts
        .store()
        .user_sessions(account.id, now_ms())
        .await
        .map_err(error::store_failure)?;
    let list: Vec<_> = sessions.iter().map(|s| view(s, &own)).collect();
    Ok(axum::Json(json!({ "sessions": list })).into_response())
}

/// 204 once the session is gone (the request's own one too: that is a logout); 404
/// `no_such_session` when no live session of this account has the id.
pub async fn end_one(
    State(app): State<AccountState>,
    RequireAccount(account): RequireAccount,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let store = app.accounts.store();
    let sessions = store
        .user_sessions(account.id, now_ms())
        .await
        .map_err(error::store_failure)?;
    let Some(session) = sessions.iter().find(|s| public_id(&s.hash) == id) else {
        return Err(error::no_such_session());
    };
    store
        .delete_session(session.hash)
        .await
        .map_err(error::store_failure)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// 204 once every other session of the account is gone.
pub async fn end_others(
    State(app): State<AccountState>,
    RequireAccount(account): RequireAccount,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let own = own_session(&headers)?;
    app.accounts
        .store()
        .delete_other_sessions(account.id, own)
        .await
        .map_err(error::store_failure)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sessions_public_id_is_sixteen_hex_digits_that_are_not_its_hash() {
        let hash = [7u8; 32];
        let id = public_id(&hash);
        assert_eq!(id.len(), 16);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        let hash_hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        assert!(!hash_hex.contains(&id));
        assert_ne!(public_id(&[8u8; 32]), id);
    }
}
