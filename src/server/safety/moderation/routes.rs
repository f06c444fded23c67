//! The moderation room's routes (docs/protocol.md, "Moderation"): the page `/mod`, reports
//! (`/api/reports`, any signed-in account), the moderators' API (`/api/mod/*`: 401 logged
//! out, 403 `not_moderator` for everyone else, checked before anything of the request is
//! read) and the leaderboard. The handlers are in reports.rs, actions.rs and leaderboard.rs.

use axum::Router;
use axum::response::Response;
use axum::routing::{get, post};

use crate::server::web::assets;

use super::state::ModerationState;
use super::{actions, leaderboard, reports};

/// Every moderator route, for the test that tries each one logged out and as a plain user.
pub const MOD_ROUTES: [(&str, &str); 9] = [
    ("GET", "/api/mod/reports"),
    ("POST", "/api/mod/reports/{id}/dismiss"),
    ("POST", "/api/mod/users/{name}/chat-ban"),
    ("POST", "/api/mod/users/{name}/lift-chat-ban"),
    ("POST", "/api/mod/users/{name}/mark"),
    ("POST", "/api/mod/users/{name}/unmark"),
    ("POST", "/api/mod/users/{name}/close"),
    ("GET", "/api/mod/users/{name}"),
    ("GET", "/api/mod/log"),
];

pub fn router(state: ModerationState) -> Router {
    Router::new()
        .route("/mod", get(page))
        .route("/leaderboard", get(page))
        .route("/api/reports", post(reports::file))
        .route("/api/reports/mine", get(reports::mine))
        .route("/api/mod/reports", get(actions::open_reports))
        .route("/api/mod/reports/{id}/dismiss", post(actions::dismiss))
        .route("/api/mod/users/{name}/chat-ban", post(actions::chat_ban))
        .route(
            "/api/mod/users/{name}/lift-chat-ban",
            post(actions::lift_chat_ban),
        )
        .route("/api/mod/users/{name}/mark", post(actions::mark))
        .route("/api/mod/users/{name}/unmark", post(actions::unmark))
        .route("/api/mod/users/{name}/close", post(actions::close))
        .route("/api/mod/users/{name}", get(actions::user_state))
        .route("/api/mod/log", get(actions::log))
        .route("/api/leaderboard", get(leaderboard::board))
        .with_state(state)
}

async fn page() -> Response {
    assets::index_page()
}
