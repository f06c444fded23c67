//! The account's own controls on [`super::MemoryStore`] (issue 32): its status, its sessions,
//! a password change and a deletion, as plainly as the contract reads.

use super::MemoryInner;
use crate::server::domain::user::{AccountStatus, DELETED_LABEL, UserId};
use crate::server::store::{SessionHash, SessionRecord, erase_name, session_alive};

impl MemoryInner {
    fn user_mut(&mut self, id: UserId) -> Option<&mut crate::server::store::UserRecord> {
        self.users.values_mut().find(|u| u.account.id == id)
    }

    pub(super) fn set_status(&mut self, user: UserId, status: AccountStatus) {
        if let Some(record) = self.user_mut(user) {
            record.status = status;
        }
        if !status.is_active() {
            self.sessions.retain(|_, s| s.user != user);
        }
    }

    pub(super) fn sessions_of(&self, user: UserId, now_ms: i64) -> Vec<SessionRecord> {
        let mut sessions: Vec<SessionRecord> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.user == user && session_alive(s.last_seen_ms, now_ms))
            .map(|(hash, s)| SessionRecord {
                hash: *hash,
                created_ms: s.created_ms,
                last_seen_ms: s.last_seen_ms,
            })
            .collect();
        sessions.sort_by_key(|s| std::cmp::Reverse((s.created_ms, s.hash)));
        sessions
    }

    pub(super) fn delete_sessions_but(&mut self, user: UserId, keep: SessionHash) {
        self.sessions
            .retain(|hash, s| s.user != user || *hash == keep);
    }

    pub(super) fn set_password(&mut self, user: UserId, password_hash: String, keep: SessionHash) {
        if let Some(record) = self.user_mut(user) {
            record.password_hash = password_hash;
        }
        self.delete_sessions_but(user, keep);
    }

    /// [`crate::server::store::Store::delete_account`].
    pub(super) fn delete_account(&mut self, user: UserId) {
        let Some(record) = self.user_mut(user) else {
            return;
        };
        record.status = AccountStatus::Deleted;
        record.password_hash = String::new();
        let name = record.account.name.clone();
        self.sessions.retain(|_, s| s.user != user);
        self.settings.remove(&user);
        self.ratings.retain(|(owner, _), _| *owner != user);
        self.lessons.forget(user);
        self.puzzles.forget(user);
        // Issue 32's own rows, as in sqlite/account.rs (reports, marks and the moderation
        // log stay).
        self.blocks.forget(user);
        self.playban.forget(user);
        self.moderation.bans.remove(&user);
        self.moderation.moderators.remove(&user);
        for line in self.chat.values_mut().flatten() {
            if line.user_id == Some(user) {
                line.user_id = None;
                line.author = DELETED_LABEL.to_owned();
            }
        }
        for players in self.arena_players.values_mut() {
            for player in players.iter_mut().filter(|p| p.user == user) {
                if let Ok(label) = crate::server::domain::user::Username::parse(DELETED_LABEL) {
                    player.name = label;
                }
            }
        }
        let mut erased = Vec::new();
        for (id, (listing, events)) in self.games.iter_mut() {
            if listing.white_user != Some(user) && listing.black_user != Some(user) {
                continue;
            }
            if let Some(summary) = erase_name(&listing.summary, &name) {
                listing.summary = summary;
            }
            for event in events.iter_mut() {
                if let Some(erased) = erase_name(event, &name) {
                    *event = erased;
                }
            }
            erased.push(id.clone());
        }
        for id in erased {
            self.explorer.forget_name(&id, name.as_str());
        }
    }
}
