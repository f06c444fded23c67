//! The account's own controls (issue 32; docs/protocol.md, "Account controls"): the routes of
//! the `/account` page, each in a module of its own: `password_change.rs`, `session_list.rs`,
//! `deletion.rs`, `archive.rs` and `page.rs`, over what they share (`control_request.rs`).
//! This module only gathers their routes.

use axum::Router;
use axum::routing::{delete, get, post};

use super::state::AccountState;

/// The routes, merged by the composition root (src/server/mod.rs).
pub fn router(state: AccountState) -> Router {
    Router::new()
        .route("/account", get(super::page::page))
        .route(
            "/api/account/password",
            post(super::password_change::change_password),
        )
        .route(
            "/api/account/sessions",
            get(super::session_list::list_sessions),
        )
        .route(
            "/api/account/sessions/end-others",
            post(super::session_list::end_others),
        )
        .route(
            "/api/account/sessions/{id}",
            delete(super::session_list::end_one),
        )
        .route("/api/account/delete", post(super::deletion::delete_account))
        .route("/api/account/archive", get(super::archive::archive))
        .with_state(state)
}
