//! What the moderators' API sends: a report with the reported user's context (recent games and
//! chat lines), a chat ban, a row of the log.

use serde::Serialize;
use serde_json::Value;

use crate::server::domain::chat_line::ChatLine;
use crate::server::store::{ChatBan, GameListing, ModLogEntry, Report};

/// One of the reported user's recent games: its id, status, last update and the summary the
/// room keeps (players, clock, result), as `GET /api/games` sends it.
#[derive(Clone, Debug, Serialize)]
pub struct ContextGame {
    pub id: String,
    pub status: &'static str,
    pub updated_ms: i64,
    pub summary: Value,
}

#[derive(Clone, Debug, Serialize)]
pub struct ContextLine {
    pub at_ms: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    pub room: &'static str,
    pub text: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ReportContext {
    pub games: Vec<ContextGame>,
    pub chat: Vec<ContextLine>,
}

pub fn context(games: &[GameListing], chat: &[ChatLine]) -> ReportContext {
    ReportContext {
        games: games
            .iter()
            .map(|g| ContextGame {
                id: g.id.clone(),
                status: g.status.as_str(),
                updated_ms: g.updated_ms,
                summary: serde_json::from_str(&g.summary).unwrap_or(Value::Null),
            })
            .collect(),
        chat: chat
            .iter()
            .map(|l| ContextLine {
                at_ms: l.at_ms,
                game: l.game_id.clone(),
                room: l.room.as_str(),
                text: l.text.clone(),
            })
            .collect(),
    }
}

#[derive(Serialize)]
pub struct ReportView {
    pub id: i64,
    pub reporter: String,
    pub reported: String,
    pub reason: &'static str,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    pub created_ms: i64,
    pub context: ReportContext,
}

impl ReportView {
    pub fn new(r: Report, context: ReportContext) -> ReportView {
        ReportView {
            id: r.id,
            reporter: r.reporter_name,
            reported: r.reported_name,
            reason: r.reason.as_str(),
            text: r.text,
            game: r.game_id,
            created_ms: r.created_ms,
            context,
        }
    }
}

#[derive(Serialize)]
pub struct BanView {
    /// Absent: permanent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_ms: Option<i64>,
    pub reason: String,
    pub by: String,
    pub at_ms: i64,
}

impl From<ChatBan> for BanView {
    fn from(b: ChatBan) -> BanView {
        BanView {
            until_ms: b.until_ms,
            reason: b.reason,
            by: b.by,
            at_ms: b.at_ms,
        }
    }
}

#[derive(Serialize)]
pub struct LogView {
    pub id: i64,
    pub moderator: String,
    pub action: String,
    pub username: String,
    pub reason: String,
    pub at_ms: i64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub details: String,
}

impl From<ModLogEntry> for LogView {
    fn from(e: ModLogEntry) -> LogView {
        LogView {
            id: e.id,
            moderator: e.moderator,
            action: e.action,
            username: e.target_name,
            reason: e.reason,
            at_ms: e.at_ms,
            details: e.details,
        }
    }
}
