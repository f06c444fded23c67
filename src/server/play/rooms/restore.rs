//! Games that outlive a process or their players: startup recovery (the schedule's index, the
//! expired games ended, every game being played rebuilt), the sweeper that ends stale open
//! games, and the correspondence schedule's wake-ups.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::server::game::expiry::millis;
use crate::server::game::{Decided, GameState, Input, now_ms};
use crate::server::per_client::games::GameKind;
use crate::server::play::commit;
use crate::server::play::schedule::{WakeGame, change_between};
use crate::server::store::{Commit, DeadlineChange, GameStatus, StoreError};

use super::{Rooms, replay_stored};

/// Open games read from the store per expiry page.
const EXPIRY_PAGE: u32 = 256;

/// Pages per expiry pass: bounds one pass (the next pass goes on where it stopped).
const EXPIRY_PAGES: usize = 64;

impl Rooms {
    /// Startup: reads the store's turn-deadline index into the schedule, ends the expired
    /// games in one pass without keeping them in memory, and rebuilds every other live game
    /// being played. Open games stay in the store until someone asks for one (they have no
    /// timers); so do correspondence games being played (the schedule loads one when its
    /// deadline comes). Returns how many games were rebuilt.
    pub async fn restore_unfinished(&self) -> Result<usize, StoreError> {
        let deadlines = self.store.turn_deadlines().await?;
        let scheduled = deadlines.len();
        let skipped = self.schedule.load(deadlines);
        if skipped > 0 {
            tracing::warn!(
                skipped,
                "turn deadlines of ids that are no game id were skipped"
            );
        }
        if scheduled > 0 {
            tracing::info!(scheduled, "correspondence deadlines scheduled");
        }
        let expired_open = self.expire_stale_open().await?;
        if self.cluster.get().is_some() {
            // Several nodes: the games being played are owned by the nodes that run them;
            // those whose owner is gone are adopted by the orphan sweep.
            if expired_open > 0 {
                tracing::info!(expired_open, "expired games ended at startup");
            }
            return Ok(0);
        }
        self.restore_open_holds().await?;
        let games = self.store.load_playing().await?;
        let now = Instant::now();
        let at = now_ms();
        let mut count = 0;
        // Issued together, so that the store writes them in one batch.
        let mut endings = Vec::new();
        for (listing, texts) in games {
            match replay_stored(&listing.id, &texts, &self.config, now) {
                // A correspondence game the index does not hold (the store filters indexed
                // ones out): scheduled from its log, not kept in memory.
                Ok((state, _)) if state.days_per_turn().is_some() => {
                    let change = change_between(None, state.turn_deadline_ms());
                    self.schedule.apply(&listing.id, change);
                }
                Ok((state, recent)) => match self.expiry_commit(&state, at) {
                    Some(commit) => {
                        let deadline = commit.deadline;
                        endings.push((listing.id, deadline, self.store.commit(commit)))
                    }
                    None => {
                        if let Some(computer) = state.computer()
                            && let Some(player) = state.user(!computer.color)
                        {
                            let games = &self.clients.games;
                            games.restored(&listing.id, GameKind::Computer, player.id);
                        }
                        self.install(state, recent, None);
                        count += 1;
                    }
                },
                Err(error) => {
                    tracing::error!(game = %listing.id, %error, "skipping a game that does not replay")
                }
            }
        }
        let expired_idle = endings.len();
        for (id, deadline, ending) in endings {
            // The game stays unfinished in the store; its room ends it when it is next loaded.
            match ending.await {
                Ok(()) => self.schedule.apply(&id, deadline),
                Err(error) => tracing::warn!(game = %id, %error, "could not end an expired game"),
            }
        }
        if expired_open + expired_idle > 0 {
            tracing::info!(expired_open, expired_idle, "expired games ended at startup");
        }
        Ok(count)
    }

    /// One node, at startup: the open games of the store hold their creator's account's slot
    /// again (their address is not stored: [`crate::server::per_client::games`]). On several
    /// nodes no node does: each counts the games made on it.
    async fn restore_open_holds(&self) -> Result<(), StoreError> {
        let mut offset = 0;
        loop {
            let page = self
                .store
                .load_stale(GameStatus::Open, i64::MAX, EXPIRY_PAGE, offset)
                .await?;
            for (listing, _) in &page {
                if let Some(creator) = listing.white_user.or(listing.black_user) {
                    let games = &self.clients.games;
                    games.restored(&listing.id, GameKind::Open, creator);
                }
            }
            if page.len() < EXPIRY_PAGE as usize {
                return Ok(());
            }
            offset += EXPIRY_PAGE;
        }
    }

    /// Several nodes: the games this node counts for their creators (made here) that no room
    /// of this node runs may have been joined or ended on another node, which this node was not
    /// told: each is read from the store, and gives its slot back if it left what it held.
    pub async fn settle_game_holds(&self) {
        for id in self.clients.games.held_games() {
            let runs_here = self
                .map
                .get(&id)
                .is_some_and(|room| !room.relay && !room.is_closed());
            if runs_here {
                continue;
            }
            match self.store.load_game(&id).await {
                Ok(Some((listing, _))) => self.clients.games.follow(&id, listing.status),
                Ok(None) => self.clients.games.forget(&id),
                Err(error) => {
                    tracing::warn!(game = %id, %error, "could not read a held game's status");
                    return;
                }
            }
        }
    }

    /// The commit of what time passing imposes on `state` at `at` (its expiry, in practice:
    /// a game not in memory has no running clock), as the core decides it; `None` if
    /// nothing is due.
    pub(super) fn expiry_commit(&self, state: &GameState, at: i64) -> Option<Commit> {
        let house = self.config.house_rules();
        match state.decide(Input::Tick, &house, Instant::now(), at) {
            Ok(Decided::Events(events)) => Some(commit::of_events(state, &events, None)),
            _ => None,
        }
    }

    /// Ends, straight in the store, the open games past their time to live that are not in
    /// memory (a live room ends its own game at its timer). Returns how many were ended.
    ///
    /// A game loaded into a room meanwhile is safe: the first of the two commits wins the
    /// sequence check and the room follows the store.
    pub async fn expire_stale_open(&self) -> Result<usize, StoreError> {
        let now = Instant::now();
        let at = now_ms();
        let cutoff = at.saturating_sub(millis(self.config.open_game_ttl));
        let mut ended = 0;
        let mut offset = 0;
        for _ in 0..EXPIRY_PAGES {
            let page = self
                .store
                .load_stale(GameStatus::Open, cutoff, EXPIRY_PAGE, offset)
                .await?;
            let full = page.len() == EXPIRY_PAGE as usize;
            let mut endings = Vec::new();
            for (listing, texts) in page {
                let commit = if self.map.contains_key(&listing.id) {
                    None
                } else {
                    replay_stored(&listing.id, &texts, &self.config, now)
                        .ok()
                        .and_then(|(state, _)| self.expiry_commit(&state, at))
                };
                match commit {
                    Some(commit) => {
                        let game = (commit.game_id.clone(), commit.deadline);
                        endings.push((game, self.store.commit(commit)))
                    }
                    // Stays in the stale set: the next page starts after it.
                    None => offset += 1,
                }
            }
            for ((game, deadline), ending) in endings {
                match ending.await {
                    Ok(()) => {
                        self.schedule.apply(&game, deadline);
                        self.clients.games.follow(&game, GameStatus::Finished);
                        ended += 1;
                    }
                    Err(error) => {
                        tracing::warn!(%error, "could not end an expired open game");
                        offset += 1;
                    }
                }
            }
            if !full {
                break;
            }
        }
        Ok(ended)
    }

    /// The schedule found game `id` due: loads its room (from the store if it retired), whose
    /// timer then flags it through the ordinary timeout path. A failure is logged; the
    /// schedule comes back to the game later ([`crate::server::play::schedule::RECHECK`]).
    pub async fn wake_for_deadline(&self, id: &str) {
        match self.get(id).await {
            Ok(Some(_)) => {}
            Ok(None) => {
                tracing::warn!(game = id, "a scheduled game is not in the store");
                self.schedule.apply(id, DeadlineChange::Cleared);
            }
            Err(_) => tracing::warn!(game = id, "could not load a game whose deadline is due"),
        }
    }

    /// Starts the task of the correspondence schedule (until shutdown).
    pub fn spawn_schedule(self: &Arc<Self>) {
        self.schedule
            .spawn(Arc::clone(self) as Arc<dyn WakeGame>, self.shutdown.clone());
    }

    /// Runs [`Rooms::expire_stale_open`] (and on several nodes [`Rooms::settle_game_holds`])
    /// every quarter of the open-game time to live (between 0.1 s and 60 s) until shutdown.
    pub fn spawn_sweeper(self: &Arc<Self>) {
        let rooms = Arc::clone(self);
        let mut shutdown = self.shutdown.clone();
        let period = (self.config.open_game_ttl / 4)
            .clamp(Duration::from_millis(100), Duration::from_secs(60));
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = shutdown.changed() => break,
                    _ = tokio::time::sleep(period) => {
                        if let Err(error) = rooms.expire_stale_open().await {
                            tracing::warn!(%error, "expiring open games failed");
                        }
                        if rooms.cluster.get().is_some() {
                            rooms.settle_game_holds().await;
                        }
                    }
                }
            }
        });
    }
}
