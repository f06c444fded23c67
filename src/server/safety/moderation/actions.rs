//! The moderators' API (`/api/mod/*`): the open reports with their context, each action
//! (dismiss, chat ban and its lifting, mark and unmark, close), a user's moderation state and
//! the log. Every handler first makes sure the caller is a moderator (401 logged out, 403
//! `not_moderator`), then reads the request. Each action is one store write that applies it,
//! logs it (who, when, what, why) and settles the related open reports.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use crate::server::domain::user::{Account, UserId};
use crate::server::game::now_ms;
use crate::server::players::account::RequireAccount;
use crate::server::store::{ModAction, ModActionKind, Report};
use crate::server::web::{ApiError, read_json_body};

use super::error::ModError;
use super::rules::{
    CONTEXT_CHAT_LINES, CONTEXT_GAMES, LOG_ROWS, OPEN_REPORTS_LISTED, ban_length, mod_reason,
};
use super::state::ModerationState;
use super::view::{self, ReportContext, ReportView};

/// The longest action body: a reason of 300 characters and a word or two.
const MAX_ACTION_BYTES: usize = 2048;

/// `{"reason", "duration"?, "mark"?}`: what every action's body may hold.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ActionBody {
    reason: String,
    #[serde(default)]
    duration: Option<String>,
    #[serde(default)]
    mark: Option<String>,
}

async fn body_of(app: &ModerationState, request: Request) -> Result<ActionBody, ApiError> {
    let body = read_json_body(request, MAX_ACTION_BYTES, app.deps.config.body_read_timeout).await?;
    Ok(serde_json::from_slice(&body).map_err(|e| ModError::Body(e.to_string()))?)
}

/// Applies `kind` to `target` as `moderator` and answers how many reports it settled.
async fn act(
    app: &ModerationState,
    moderator: &Account,
    target: UserId,
    kind: ModActionKind,
    reason: String,
) -> Result<u64, ApiError> {
    let action = ModAction {
        moderator: moderator.name.as_str().to_owned(),
        target,
        kind,
        reason,
        at_ms: now_ms(),
    };
    tracing::info!(action = action.kind.name(), moderator = %action.moderator, "moderation action");
    Ok(app
        .deps
        .store
        .moderate(action)
        .await
        .map_err(ModError::from)?)
}

fn settled(reports: u64) -> Response {
    Json(serde_json::json!({ "ok": true, "reports_handled": reports })).into_response()
}

pub(super) async fn open_reports(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
) -> Result<Response, ApiError> {
    app.moderator(me).await?;
    let store = &app.deps.store;
    let reports: Vec<Report> = store
        .open_reports(OPEN_REPORTS_LISTED)
        .await
        .map_err(ModError::from)?;
    let mut contexts: HashMap<UserId, ReportContext> = HashMap::new();
    for report in &reports {
        if contexts.contains_key(&report.reported) {
            continue;
        }
        let games = store
            .user_games(report.reported, CONTEXT_GAMES, 0)
            .await
            .map_err(ModError::from)?;
        let chat = store
            .user_chat_lines(report.reported, CONTEXT_CHAT_LINES)
            .await
            .map_err(ModError::from)?;
        contexts.insert(report.reported, view::context(&games, &chat));
    }
    let reports: Vec<ReportView> = reports
        .into_iter()
        .map(|report| {
            let context = contexts.get(&report.reported).cloned().unwrap_or_default();
            ReportView::new(report, context)
        })
        .collect();
    Ok(Json(serde_json::json!({ "reports": reports })).into_response())
}

pub(super) async fn dismiss(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
    Path(id): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    let me = app.moderator(me).await?;
    let id: i64 = id.parse().map_err(|_| ModError::NoSuchReport)?;
    let body = body_of(&app, request).await?;
    let reason = mod_reason(&body.reason).map_err(ModError::from)?;
    let report = app
        .deps
        .store
        .report(id)
        .await
        .map_err(ModError::from)?
        .ok_or(ModError::NoSuchReport)?;
    let handled = act(
        &app,
        &me,
        report.reported,
        ModActionKind::Dismiss { report: id },
        reason,
    )
    .await?;
    if handled == 0 {
        return Err(ModError::ReportNotOpen.into());
    }
    Ok(settled(handled))
}

pub(super) async fn chat_ban(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
    Path(name): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    let me = app.moderator(me).await?;
    let body = body_of(&app, request).await?;
    let reason = mod_reason(&body.reason).map_err(ModError::from)?;
    let length = ban_length(body.duration.as_deref().unwrap_or("")).map_err(ModError::from)?;
    let target = app.user(&name).await?;
    let kind = ModActionKind::ChatBan {
        until_ms: length.until(now_ms()),
    };
    let handled = act(&app, &me, target.account.id, kind, reason).await?;
    Ok(settled(handled))
}

pub(super) async fn lift_chat_ban(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
    Path(name): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    simple(app, me, name, request, ModActionKind::LiftChatBan).await
}

pub(super) async fn mark(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
    Path(name): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    let me = app.moderator(me).await?;
    let body = body_of(&app, request).await?;
    let reason = mod_reason(&body.reason).map_err(ModError::from)?;
    let asked = body.mark.unwrap_or_default();
    let mark = crate::server::store::Mark::parse(&asked)
        .ok_or_else(|| super::rules::InputError::Mark(asked.chars().take(40).collect()))
        .map_err(ModError::from)?;
    let target = app.user(&name).await?;
    let handled = act(
        &app,
        &me,
        target.account.id,
        ModActionKind::Mark(mark),
        reason,
    )
    .await?;
    Ok(settled(handled))
}

pub(super) async fn unmark(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
    Path(name): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    simple(app, me, name, request, ModActionKind::Unmark).await
}

pub(super) async fn close(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
    Path(name): Path<String>,
    request: Request,
) -> Result<Response, ApiError> {
    simple(app, me, name, request, ModActionKind::Close).await
}

/// An action whose body is only its reason.
async fn simple(
    app: ModerationState,
    me: Account,
    name: String,
    request: Request,
    kind: ModActionKind,
) -> Result<Response, ApiError> {
    let me = app.moderator(me).await?;
    let body = body_of(&app, request).await?;
    let reason = mod_reason(&body.reason).map_err(ModError::from)?;
    let target = app.user(&name).await?;
    if kind == ModActionKind::Close {
        super::close::close_account(&app, target.account.id).await?;
    }
    let handled = act(&app, &me, target.account.id, kind, reason).await?;
    Ok(settled(handled))
}

/// `GET /api/mod/users/{name}`: what moderation holds on a user now.
#[derive(Serialize)]
struct UserState {
    username: String,
    moderator: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    mark: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    chat_ban: Option<view::BanView>,
}

pub(super) async fn user_state(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    app.moderator(me).await?;
    let target = app.user(&name).await?;
    let store = &app.deps.store;
    let id = target.account.id;
    let moderator = store.is_moderator(id).await.map_err(ModError::from)?;
    let mark = store.user_mark(id).await.map_err(ModError::from)?;
    let ban = store.chat_ban(id, now_ms()).await.map_err(ModError::from)?;
    Ok(Json(UserState {
        username: target.account.name.as_str().to_owned(),
        moderator,
        mark: mark.map(|m| m.mark.as_str()),
        chat_ban: ban.map(view::BanView::from),
    })
    .into_response())
}

pub(super) async fn log(
    State(app): State<ModerationState>,
    RequireAccount(me): RequireAccount,
) -> Result<Response, ApiError> {
    app.moderator(me).await?;
    let rows = app
        .deps
        .store
        .mod_log(LOG_ROWS)
        .await
        .map_err(ModError::from)?;
    let rows: Vec<view::LogView> = rows.into_iter().map(view::LogView::from).collect();
    Ok(Json(serde_json::json!({ "log": rows })).into_response())
}
