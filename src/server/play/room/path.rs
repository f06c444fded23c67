//! The move path after the decision: commit, then apply, project and publish; and the way back
//! to the store's truth when the store holds something else than the room expected.

use std::time::Instant;

use tokio_tungstenite::tungstenite::Utf8Bytes;

use super::fanout::ConnId;
use super::history::replay_history;
use super::{RoomTask, ack_msg};
use crate::server::game::{Checked, Event};
use crate::server::play::commit;
use crate::server::play::project;
use crate::server::play::protocol::{ErrorCode, Refusal, ServerMsg};
use crate::server::store::{Commit, DeadlineChange, GameStatus, StoreError, codec};

impl RoomTask {
    /// The move path after the decision: commits `events` (with `also`, other games' commits
    /// such as a rematch's new game, in the same atomic store commit), and only once they are
    /// durable applies them, projects each to its public message, acknowledges the move and
    /// publishes. On a store failure nothing was applied, so nothing is undone: the actor
    /// gets `store_failure` and may send the same ack id again.
    pub(super) async fn commit_and_publish(
        &mut self,
        events: Vec<Checked>,
        now: Instant,
        ack: Option<(ConnId, Option<String>)>,
        also: Vec<Commit>,
    ) -> Result<(), Refusal> {
        let commit = commit::of_events(&self.state, &events, self.fence.clone());
        let rated = commit.rating.is_some();
        // What the schedule follows once the commit is durable: this game's and the other
        // games' of the unit (a rematch that starts at once).
        let deadlines: Vec<(String, DeadlineChange)> = std::iter::once(&commit)
            .chain(&also)
            .filter(|c| c.deadline != DeadlineChange::Unchanged)
            .map(|c| (c.game_id.clone(), c.deadline))
            .collect();
        let started = Instant::now();
        let result = if also.is_empty() {
            self.deps.store.commit(commit).await
        } else {
            let mut all = vec![commit];
            all.extend(also);
            self.deps.store.commit_all(all).await
        };
        self.deps.metrics.commit_latency.observe(started.elapsed());
        if let Err(error) = result {
            tracing::warn!(game = %self.state.id, %error, "commit failed");
            if matches!(error, StoreError::Fenced { .. }) {
                // Another node owns the game now: nothing was written, and this room must
                // not write again. It stops; its subscribers reconnect to the new owner.
                self.deps
                    .metrics
                    .leases
                    .lost
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.moved.store(true, std::sync::atomic::Ordering::Relaxed);
            } else if matches!(error, StoreError::Conflict { .. }) {
                // The store holds more than the room expected (an earlier commit reported
                // as failed did reach the disk, or another writer): the store wins.
                self.reload().await;
            }
            return Err(Refusal::new(
                ErrorCode::StoreFailure,
                "the game could not be saved; nothing was changed, try again",
            ));
        }
        for (game, change) in deadlines {
            self.deps.host.turn_deadline(&game, change);
        }
        self.snapshot = None;
        let status = self.state.status();
        let mut messages = Vec::with_capacity(events.len());
        let mut turn_may_change = false;
        for checked in events {
            let v = self.state.version() + 1;
            let event = checked.event().clone();
            turn_may_change |= matches!(
                event,
                Event::Move { .. }
                    | Event::Joined { .. }
                    | Event::Takeback { .. }
                    | Event::End { .. }
            );
            self.state.apply(checked, now);
            if let Event::End { outcome, .. } = &event {
                tracing::info!(game = %self.state.id, winner = ?outcome.winner(), reason = %outcome.reason(), "game over");
            }
            if let Some(msg) = project::event(&self.state, &event, v, now) {
                messages.push((v, Utf8Bytes::from(msg.to_text())));
            }
        }
        // Before the events go out: a socket that has written them reads the new flag, and
        // a client told of a join or an end may make its next game at once.
        self.follow_lag_pings();
        self.follow_status(status);
        if let Some((conn, id)) = ack {
            let v = messages.first().map_or(self.state.version(), |(v, _)| *v);
            self.send_to(conn, &ack_msg(id, v));
        }
        for (v, text) in messages {
            self.history.push(v, text.clone());
            self.broadcast(text);
        }
        if turn_may_change {
            self.tell_turn_changed();
        }
        if rated {
            self.publish_ratings().await;
        }
        Ok(())
    }

    /// Tells the host when the game's status is no longer `before` (a join, an end).
    fn follow_status(&self, before: GameStatus) {
        let now = self.state.status();
        if now != before {
            self.deps.host.status_changed(&self.state.id, now);
        }
    }

    /// In a correspondence game: its seated accounts' `your_turn` lists may have changed.
    /// Live games are left out (their turns are seconds long; "My games" lists whose turn it
    /// is for correspondence games only, from the listing).
    fn tell_turn_changed(&self) {
        if !matches!(
            self.state.time_control(),
            Some(crate::server::game::TimeControl::Correspondence { .. })
        ) {
            return;
        }
        let users: Vec<_> = crate::rules::Color::ALL
            .iter()
            .filter_map(|c| self.state.user(*c).map(|u| u.id))
            .collect();
        if !users.is_empty() {
            self.deps.host.turn_changed(&users);
        }
    }

    /// Reads the rating changes the store made with a rated game's end and tells everyone
    /// (`ratings`); later `state`s carry them too. The rating itself is already durable: a
    /// failed read only delays the news until the room is next loaded.
    pub(super) async fn publish_ratings(&mut self) {
        let store = std::sync::Arc::clone(&self.deps.store);
        let id = self.state.id.clone();
        match store.game_rating(&id).await {
            Ok(Some(rated)) => {
                let msg = project::ratings_msg(&rated);
                self.ratings = Some(msg);
                self.snapshot = None;
                self.broadcast(Utf8Bytes::from(ServerMsg::Ratings(msg).to_text()));
            }
            Ok(None) => tracing::warn!(game = %id, "a rated game's end has no rating in the store"),
            Err(error) => {
                tracing::warn!(game = %id, %error, "could not read a rated game's rating")
            }
        }
    }

    /// When a room starts for a finished rated game: its rating changes, for its `state`.
    pub(super) async fn load_ratings(&mut self) {
        if !(self.state.rated && self.state.is_finished()) {
            return;
        }
        let store = std::sync::Arc::clone(&self.deps.store);
        match store.game_rating(&self.state.id).await {
            Ok(rated) => self.ratings = rated.as_ref().map(project::ratings_msg),
            Err(error) => {
                tracing::warn!(game = %self.state.id, %error, "could not read a rated game's rating")
            }
        }
    }

    /// Rebuilds the state from the store's committed events, keeping the live clocks when the
    /// store holds the version the room had. If it holds more or less, the store is the truth:
    /// the room adopts it and sends every subscriber a fresh snapshot. If the game cannot be
    /// read back at all, the room retires (its sockets close with "game retired", clients
    /// reconnect and the game is loaded again).
    pub(super) async fn reload(&mut self) {
        self.snapshot = None;
        let id = self.state.id.clone();
        let committed = self.state.version();
        let live = self.state.live_parts();
        let loaded = match self.deps.store.load_game(&id).await {
            Ok(Some((_, texts))) => texts
                .iter()
                .map(|t| codec::decode(t).map_err(|e| e.to_string()))
                .collect::<Result<Vec<Event>, String>>()
                .and_then(|events| {
                    replay_history(&id, &events, self.deps.config.first_move, Instant::now())
                        .map_err(|e| e.to_string())
                }),
            Ok(None) => Err("the game is not in the store".to_string()),
            Err(e) => Err(e.to_string()),
        };
        let (mut state, recent) = match loaded {
            Ok(replayed) => replayed,
            Err(error) => {
                tracing::error!(game = %id, %error, "cannot reload the game; retiring the room");
                self.broken = true;
                return;
            }
        };
        state.set_downtime(self.state.downtime());
        state.set_lag_compensation(self.deps.config.lag_compensation.is_on());
        if state.version() == committed {
            state.restore_live_parts(live);
            self.state = state;
            return;
        }
        tracing::warn!(game = %id, room = committed, store = state.version(), "the store and the room disagreed; the room follows the store");
        let status = self.state.status();
        self.state = state;
        self.follow_status(status);
        self.follow_lag_pings();
        self.history.clear();
        for (v, text) in recent {
            self.history.push(v, Utf8Bytes::from(text));
        }
        for conn in self.crowd.conns() {
            self.resync(conn, None);
        }
    }
}
