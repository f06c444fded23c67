//! The moderation tables of [`super::MemoryStore`] (issue 32): the reference the other
//! backends are tested against, as plainly as the contract reads. Names are joined in by the
//! caller ([`super::MemoryInner`] knows the users).

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::server::domain::user::UserId;
use crate::server::store::{
    ChatBan, MarkRecord, ModAction, ModActionKind, ModLogEntry, NewReport, ReportFiled,
    ReportStatus,
};

/// A report as kept: [`crate::server::store::Report`] without the names.
#[derive(Clone)]
pub(super) struct KeptReport {
    pub(super) new: NewReport,
    pub(super) status: ReportStatus,
    pub(super) handled_by: Option<String>,
    pub(super) handled_ms: Option<i64>,
}

#[derive(Default)]
pub(super) struct MemoryModeration {
    pub(super) moderators: HashSet<UserId>,
    /// By id; ids given in order from 1.
    pub(super) reports: BTreeMap<i64, KeptReport>,
    pub(super) marks: HashMap<UserId, MarkRecord>,
    pub(super) bans: HashMap<UserId, ChatBan>,
    /// Oldest first; `target_name` filled in when read.
    pub(super) log: Vec<ModLogEntry>,
}

impl MemoryModeration {
    pub(super) fn file(&mut self, report: NewReport, since_ms: i64, max_open: u32) -> ReportFiled {
        let open = self
            .reports
            .values()
            .filter(|r| {
                r.new.reporter == report.reporter
                    && r.status == ReportStatus::Open
                    && r.new.at_ms >= since_ms
            })
            .count();
        if open >= max_open as usize {
            return ReportFiled::TooMany;
        }
        let id = self.reports.keys().next_back().map_or(1, |last| last + 1);
        self.reports.insert(
            id,
            KeptReport {
                new: report,
                status: ReportStatus::Open,
                handled_by: None,
                handled_ms: None,
            },
        );
        ReportFiled::Filed(id)
    }

    pub(super) fn moderate(&mut self, action: ModAction) -> u64 {
        let mut settled = 0;
        match &action.kind {
            ModActionKind::Dismiss { report } => match self.reports.get_mut(report) {
                Some(r) if r.status == ReportStatus::Open && r.new.reported == action.target => {
                    r.status = ReportStatus::Dismissed;
                    r.handled_by = Some(action.moderator.clone());
                    r.handled_ms = Some(action.at_ms);
                    settled = 1;
                }
                _ => return 0,
            },
            ModActionKind::ChatBan { until_ms } => {
                self.bans.insert(
                    action.target,
                    ChatBan {
                        until_ms: *until_ms,
                        reason: action.reason.clone(),
                        by: action.moderator.clone(),
                        at_ms: action.at_ms,
                    },
                );
            }
            ModActionKind::LiftChatBan => {
                self.bans.remove(&action.target);
            }
            ModActionKind::Mark(mark) => {
                self.marks.insert(
                    action.target,
                    MarkRecord {
                        mark: *mark,
                        at_ms: action.at_ms,
                        by: action.moderator.clone(),
                    },
                );
            }
            ModActionKind::Unmark => {
                self.marks.remove(&action.target);
            }
            ModActionKind::Close => {}
            ModActionKind::GrantMod => {
                self.moderators.insert(action.target);
            }
            ModActionKind::RevokeMod => {
                self.moderators.remove(&action.target);
            }
        }
        if action.kind.acts_on_reports() {
            for r in self.reports.values_mut() {
                if r.new.reported == action.target && r.status == ReportStatus::Open {
                    r.status = ReportStatus::Acted;
                    r.handled_by = Some(action.moderator.clone());
                    r.handled_ms = Some(action.at_ms);
                    settled += 1;
                }
            }
        }
        let id = self.log.last().map_or(1, |last| last.id + 1);
        self.log.push(ModLogEntry {
            id,
            moderator: action.moderator,
            action: action.kind.name().to_owned(),
            target: action.target,
            target_name: String::new(),
            reason: action.reason,
            at_ms: action.at_ms,
            details: action.kind.details(),
        });
        settled
    }
}
