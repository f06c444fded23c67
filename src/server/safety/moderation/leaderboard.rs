//! `GET /api/leaderboard?speed=blitz`: the best rated players of a speed, leaving out marked
//! players (a mark's effect: they are on no leaderboard) and, once accounts have statuses,
//! closed and deleted ones. Open to everyone, like a profile.

use axum::Json;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use crate::server::domain::rating::RatingView;
use crate::server::game::speed::Speed;
use crate::server::web::ApiError;

use super::error::ModError;
use super::state::ModerationState;

/// Rows a leaderboard shows.
pub const LEADERBOARD_ROWS: u32 = 50;
/// Rated games of the speed a player needs to be listed: one (a small server's board would
/// be empty for weeks behind lichess's "not provisional" rule; a provisional rating is shown
/// with its `?`, as everywhere).
pub const LEADERBOARD_MIN_GAMES: u32 = 1;

#[derive(Deserialize)]
pub(super) struct BoardQuery {
    #[serde(default)]
    speed: Option<String>,
}

#[derive(Serialize)]
struct Row {
    username: String,
    rating: RatingView,
    games: u32,
}

pub(super) async fn board(
    State(app): State<ModerationState>,
    Query(query): Query<BoardQuery>,
) -> Result<Response, ApiError> {
    let asked = query.speed.unwrap_or_else(|| "blitz".to_owned());
    let speed = Speed::parse(&asked).ok_or_else(|| {
        ModError::Body(format!(
            "unknown speed {:?}",
            asked.chars().take(20).collect::<String>()
        ))
    })?;
    let rows = app
        .deps
        .store
        .leaderboard(speed, LEADERBOARD_MIN_GAMES, LEADERBOARD_ROWS)
        .await
        .map_err(ModError::from)?;
    let players: Vec<Row> = rows
        .into_iter()
        .map(|r| Row {
            username: r.name,
            rating: r.rating.view(),
            games: r.rating.games,
        })
        .collect();
    Ok(Json(serde_json::json!({ "speed": speed.as_str(), "players": players })).into_response())
}
