//! What the store keeps of moderation (SQLite schema v11, Postgres v8; issue 32): moderators,
//! reports, marks (engine, booster), chat bans and the moderation log. The values here are
//! plain data; what they mean for players (who may act, how long a ban lasts, what a report's
//! limit is) is the moderation room's (`crate::server::safety::moderation`). One write,
//! [`ModAction`], applies an action, logs it and settles the related reports in ONE
//! transaction, so the log never misses an action and an action never misses its log.

use crate::server::domain::user::UserId;

/// Why a report was filed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReportReason {
    Cheating,
    AbusiveChat,
    Sandbagging,
    RatingManipulation,
    Other,
}

impl ReportReason {
    pub const ALL: [ReportReason; 5] = [
        ReportReason::Cheating,
        ReportReason::AbusiveChat,
        ReportReason::Sandbagging,
        ReportReason::RatingManipulation,
        ReportReason::Other,
    ];

    /// As stored and sent.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportReason::Cheating => "cheating",
            ReportReason::AbusiveChat => "abusive_chat",
            ReportReason::Sandbagging => "sandbagging",
            ReportReason::RatingManipulation => "rating_manipulation",
            ReportReason::Other => "other",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// Where a report stands: open until a moderator dismisses it or acts on its user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReportStatus {
    Open,
    Dismissed,
    Acted,
}

impl ReportStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReportStatus::Open => "open",
            ReportStatus::Dismissed => "dismissed",
            ReportStatus::Acted => "acted",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Open, Self::Dismissed, Self::Acted]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// A report to file. `text` is already checked (at most the room's limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReport {
    pub reporter: UserId,
    pub reported: UserId,
    pub reason: ReportReason,
    pub text: String,
    pub game_id: Option<String>,
    pub at_ms: i64,
}

/// A stored report, with both users' names (read through a join: a name is never copied).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub id: i64,
    pub reporter: UserId,
    pub reporter_name: String,
    pub reported: UserId,
    pub reported_name: String,
    pub reason: ReportReason,
    pub text: String,
    pub game_id: Option<String>,
    pub created_ms: i64,
    pub status: ReportStatus,
    /// The moderator who settled it, by name, and when.
    pub handled_by: Option<String>,
    pub handled_ms: Option<i64>,
}

/// The answer to [`super::Store::file_report`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFiled {
    /// Stored under this id.
    Filed(i64),
    /// The reporter already has the most open reports allowed since the given time: nothing
    /// was stored.
    TooMany,
}

/// A moderator's mark on a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mark {
    Engine,
    Booster,
}

impl Mark {
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Engine => "engine",
            Mark::Booster => "booster",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "engine" => Some(Mark::Engine),
            "booster" => Some(Mark::Booster),
            _ => None,
        }
    }
}

/// A stored mark: what, when and by whom (a moderator's name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkRecord {
    pub mark: Mark,
    pub at_ms: i64,
    pub by: String,
}

/// A chat ban as stored. `until_ms` `None`: permanent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatBan {
    pub until_ms: Option<i64>,
    pub reason: String,
    pub by: String,
    pub at_ms: i64,
}

impl ChatBan {
    /// Whether the ban still holds at `now_ms` (a ban ends at its `until_ms`, exclusive).
    pub fn holds_at(&self, now_ms: i64) -> bool {
        self.until_ms.is_none_or(|until| now_ms < until)
    }
}

/// What a moderator (or the console) does to a user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModActionKind {
    /// Settles one open report as dismissed (nothing else changes). The action's `target` is
    /// the reported user.
    Dismiss {
        report: i64,
    },
    /// Replaces any chat ban of the user. `until_ms` `None`: permanent.
    ChatBan {
        until_ms: Option<i64>,
    },
    LiftChatBan,
    /// Replaces any mark of the user.
    Mark(Mark),
    Unmark,
    /// Logs the closing of an account (the status itself is `set_account_status`'s).
    Close,
    GrantMod,
    RevokeMod,
}

impl ModActionKind {
    /// The log's `action` column.
    pub fn name(&self) -> &'static str {
        match self {
            ModActionKind::Dismiss { .. } => "dismiss",
            ModActionKind::ChatBan { .. } => "chat_ban",
            ModActionKind::LiftChatBan => "lift_chat_ban",
            ModActionKind::Mark(_) => "mark",
            ModActionKind::Unmark => "unmark",
            ModActionKind::Close => "close",
            ModActionKind::GrantMod => "grant_mod",
            ModActionKind::RevokeMod => "revoke_mod",
        }
    }

    /// The log's `details` column: what the action's name does not say.
    pub fn details(&self) -> String {
        match self {
            ModActionKind::Dismiss { report } => format!("report {report}"),
            ModActionKind::ChatBan { until_ms: None } => "permanent".to_owned(),
            ModActionKind::ChatBan {
                until_ms: Some(until),
            } => format!("until {until}"),
            ModActionKind::Mark(mark) => mark.as_str().to_owned(),
            _ => String::new(),
        }
    }

    /// Whether the action settles the target's open reports as acted upon (a sanction does;
    /// lifting one, or the role's changes, do not; a dismissal settles its one report).
    pub fn acts_on_reports(&self) -> bool {
        matches!(
            self,
            ModActionKind::ChatBan { .. } | ModActionKind::Mark(_) | ModActionKind::Close
        )
    }
}

/// One action, as [`super::Store::moderate`] applies and logs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModAction {
    /// The moderator's name, or `console` for the command line.
    pub moderator: String,
    pub target: UserId,
    pub kind: ModActionKind,
    pub reason: String,
    pub at_ms: i64,
}

/// The name the command line acts under in the log.
pub const CONSOLE: &str = "console";

/// A row of the moderation log, with the target's name (a join).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModLogEntry {
    pub id: i64,
    pub moderator: String,
    pub action: String,
    pub target: UserId,
    pub target_name: String,
    pub reason: String,
    pub at_ms: i64,
    pub details: String,
}

/// A row of a leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaderboardRow {
    pub user: UserId,
    pub name: String,
    pub rating: crate::server::domain::rating::Rating,
}
