//! What is no feature's: the client's shell at `/` and its files under `/static/`, and the
//! operators' routes `/healthz` and `/metrics`.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::server::deps::Deps;
use crate::server::play::rooms::Rooms;
use crate::server::store::GameStatus;
use crate::server::web::{ApiError, assets};

/// What the operators' routes read: the store, the live games, the bus.
#[derive(Clone)]
pub struct SiteState {
    pub deps: Deps,
    pub rooms: Arc<Rooms>,
}

pub fn router(state: SiteState) -> Router {
    Router::new()
        .route("/", get(index))
        // `{*file}`: the catalogues live one folder down (`/static/i18n/fr.json`).
        .route("/static/{*file}", get(static_file))
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .with_state(state)
}

async fn index() -> Response {
    assets::index_page()
}

async fn static_file(Path(file): Path<String>) -> Result<Response, ApiError> {
    let (content_type, bytes) = assets::find(&file).ok_or_else(|| ApiError::not_found("file"))?;
    Ok(([(header::CONTENT_TYPE, content_type)], bytes).into_response())
}

/// How long `/healthz` waits for each dependency.
const HEALTH_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// `/healthz`: the store and (several nodes) the bus. 200 with `"status":"ok"` when both
/// answer, 503 `"degraded"` otherwise (`"bus":"none"` on one node).
async fn healthz(State(app): State<SiteState>) -> Response {
    let store_ok = matches!(
        tokio::time::timeout(HEALTH_WAIT, app.deps.store.list(GameStatus::Open, 1, 0)).await,
        Ok(Ok(_))
    );
    let bus = match app.rooms.cluster.get() {
        None => "none",
        Some(link) => match tokio::time::timeout(HEALTH_WAIT, link.bus.ping()).await {
            Ok(Ok(_)) => "ok",
            _ => "down",
        },
    };
    let ok = store_ok && bus != "down";
    let body = json!({
        "status": if ok { "ok" } else { "degraded" },
        "store": if store_ok { "ok" } else { "down" },
        "bus": bus,
    });
    let status = if ok {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, axum::Json(body)).into_response()
}

async fn metrics(State(app): State<SiteState>) -> Response {
    let mut text = app.deps.metrics.render(app.rooms.live_games());
    if let Some(link) = app.rooms.cluster.get() {
        let owned = app.rooms.owned_rooms().len();
        app.deps
            .metrics
            .leases
            .render(&mut text, owned, link.relays());
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}
