//! Reports (`POST /api/reports`, `GET /api/reports/mine`): a signed-in player reports another
//! (a reason, a short text, the game it concerns), at most a few open at once per day and per
//! address; the reporter sees theirs as open or handled. The reported user never sees a
//! report: no route of theirs lists one.

use std::net::SocketAddr;
use std::time::Instant;

use axum::Json;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use crate::server::game::now_ms;
use crate::server::players::account::RequireAccount;
use crate::server::store::{NewReport, Report, ReportFiled, ReportStatus};
use crate::server::web::{ApiError, read_json_body};

use super::error::ModError;
use super::rules::{
    MAX_OPEN_REPORTS, MY_REPORTS, REPORT_WINDOW_MS, report_game, report_reason, report_text,
};
use super::state::ModerationState;

/// The longest report body: the text's 500 characters (up to 4 bytes each) and the rest.
const MAX_REPORT_BYTES: usize = 4096;

/// `{"username", "reason", "text"?, "game"?}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportBody {
    username: String,
    reason: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    game: Option<String>,
}

pub(super) async fn file(
    State(app): State<ModerationState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    RequireAccount(me): RequireAccount,
    request: Request,
) -> Result<Response, ApiError> {
    let body = read_json_body(request, MAX_REPORT_BYTES, app.deps.config.body_read_timeout).await?;
    let body: ReportBody =
        serde_json::from_slice(&body).map_err(|e| ModError::Body(e.to_string()))?;
    let reason = report_reason(&body.reason).map_err(ModError::from)?;
    let text = report_text(&body.text).map_err(ModError::from)?;
    let game_id = report_game(body.game.as_deref()).map_err(ModError::from)?;
    let reported = app.user(&body.username).await?;
    if reported.account.id == me.id {
        return Err(ModError::ReportYourself.into());
    }
    let at_ms = now_ms();
    let since_ms = at_ms - REPORT_WINDOW_MS;
    // A reporter already at their limit is told so without spending the address's budget
    // (the store's check below is the one that holds when two reports race).
    let open = app
        .deps
        .store
        .reports_by(me.id, MY_REPORTS)
        .await
        .map_err(ModError::from)?
        .iter()
        .filter(|r| r.status == ReportStatus::Open && r.created_ms >= since_ms)
        .count();
    if open >= MAX_OPEN_REPORTS as usize {
        return Err(ModError::TooManyReports(MAX_OPEN_REPORTS).into());
    }
    app.report_grants
        .check(peer.ip(), Instant::now())
        .map_err(|limited| ModError::TooManyFromAddress(limited.retry_after_secs))?;
    let filed = app
        .deps
        .store
        .file_report(
            NewReport {
                reporter: me.id,
                reported: reported.account.id,
                reason,
                text,
                game_id,
                at_ms,
            },
            since_ms,
            MAX_OPEN_REPORTS,
        )
        .await
        .map_err(ModError::from)?;
    match filed {
        ReportFiled::Filed(id) => {
            tracing::info!(report = id, "report filed");
            Ok((StatusCode::CREATED, Json(serde_json::json!({ "id": id }))).into_response())
        }
        ReportFiled::TooMany => Err(ModError::TooManyReports(MAX_OPEN_REPORTS).into()),
    }
}

/// A report as its reporter sees it: whom, why, and whether it is still open (never who
/// handled it or how).
#[derive(Serialize)]
pub struct MyReport {
    pub id: i64,
    pub username: String,
    pub reason: &'static str,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    pub created_ms: i64,
    /// `open` or `handled`.
    pub status: &'static str,
}

impl From<Report> for MyReport {
    fn from(r: Report) -> MyReport {
        MyReport {
            id: r.id,
            username: r.reported_name,
            reason: r.reason.as_str(),
            text: r.text,
            game: r.game_id,
            created_ms: r.created_ms,
            status: if r.status == ReportStatus::Open {
                "open"
            } else {
                "handled"
            },
        }
    }
}

pub(super) async fn mine(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
) -> Result<Response, ApiError> {
    let reports = app
        .deps
        .store
        .reports_by(me.id, MY_REPORTS)
        .await
        .map_err(ModError::from)?;
    let reports: Vec<MyReport> = reports.into_iter().map(MyReport::from).collect();
    Ok(Json(serde_json::json!({ "reports": reports })).into_response())
}
