//! All live games: `DashMap<GameId, Arc<Room>>`. Creates games, finds a game
//! (loading it from the store when it is not in memory, e.g. a finished game
//! whose room retired), rebuilds every game being played at startup, ends
//! expired games that are not in memory ([`super::expiry`]), and forgets
//! rooms that retire.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dashmap::DashMap;
use serde::Deserialize;
use tokio::sync::watch;

use super::config::Config;
use super::events::{ClockSpec, Event, Variant, now_ms};
use super::expiry::{Expiry, millis};
use super::ids;
use super::metrics::Metrics;
use super::protocol::{ErrorCode, Refusal, Side};
use super::room::{Room, SeatGrant};
use super::state::GameState;
use super::store::{Commit, GameStatus, Store, StoreError};
use crate::rules::{Color, Position, Rules};

/// A `POST /api/games` body; every field optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    pub color: Option<ColorChoice>,
    pub clock: Option<ClockSpec>,
    pub fen: Option<String>,
    pub variant: Option<Variant>,
    /// `false`: a private game, in no listing, reachable by its id (invite link) only.
    pub listed: Option<bool>,
}

/// A new game's state, built and checked but not yet stored: commit its [`Commit`], then
/// [`Rooms::install_new`] it.
pub struct NewRoom {
    state: GameState,
    recent: Vec<(u64, String)>,
}

impl NewRoom {
    pub fn id(&self) -> &str {
        &self.state.id
    }
}

/// Open games read from the store per expiry page.
const EXPIRY_PAGE: u32 = 256;

/// Pages per expiry pass: bounds one pass (the next pass goes on where it stopped).
const EXPIRY_PAGES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

/// The initial position with White's first turn of two sub-moves.
const MARSEILLAIS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1";

pub struct Rooms {
    map: DashMap<String, Arc<Room>>,
    pub store: Arc<dyn Store>,
    pub config: Arc<Config>,
    pub metrics: Arc<Metrics>,
    shutdown: watch::Receiver<bool>,
    next_instance: AtomicU64,
}

fn store_refusal(error: StoreError) -> Refusal {
    tracing::warn!(%error, "store failure");
    Refusal::new(ErrorCode::StoreFailure, "the game store failed; try again")
}

impl Rooms {
    pub fn new(
        store: Arc<dyn Store>,
        config: Arc<Config>,
        metrics: Arc<Metrics>,
        shutdown: watch::Receiver<bool>,
    ) -> Arc<Rooms> {
        Arc::new(Rooms {
            map: DashMap::new(),
            store,
            config,
            metrics,
            shutdown,
            next_instance: AtomicU64::new(1),
        })
    }

    pub fn live_games(&self) -> usize {
        self.map.len()
    }

    /// Forgets a room, unless a newer room for the same game replaced it.
    pub fn remove(&self, id: &str, instance: u64) {
        self.map.remove_if(id, |_, room| room.instance == instance);
    }

    /// Starts a room for `state` unless one is already live (then that one wins).
    fn install(self: &Arc<Self>, state: GameState, recent: Vec<(u64, String)>) -> Arc<Room> {
        let id = state.id.clone();
        let entry = self.map.entry(id);
        let room = entry.or_insert_with(|| {
            let instance = self.next_instance.fetch_add(1, Ordering::Relaxed);
            Room::spawn(
                Arc::clone(self),
                state,
                recent,
                instance,
                self.shutdown.clone(),
            )
        });
        Arc::clone(room.value())
    }

    /// The live room of a game, loading it from the store if needed; `None`
    /// for an unknown id.
    pub async fn get(self: &Arc<Self>, id: &str) -> Result<Option<Arc<Room>>, Refusal> {
        if !ids::is_game_id(id) {
            return Ok(None);
        }
        let live = self.map.get(id).map(|room| Arc::clone(room.value()));
        if let Some(room) = live {
            if !room.is_closed() {
                return Ok(Some(room));
            }
            // A room retires (or gives up) by removing itself from the map
            // first, and shutdown stops everything: a stopped room still in
            // the map died, i.e. its task panicked outside the guard of
            // `RoomTask::handle_guarded`. Forget it and start the game
            // again from the store, so that a bug never leaves a game
            // unplayable until the next restart.
            if !*self.shutdown.borrow() {
                tracing::error!(
                    game = id,
                    room = room.instance,
                    "the game's room task died; restarting it from the store"
                );
                self.metrics.rooms_restarted.fetch_add(1, Ordering::Relaxed);
            }
            self.remove(id, room.instance);
        }
        let Some((_, events)) = self.store.load_game(id).await.map_err(store_refusal)? else {
            return Ok(None);
        };
        let (state, recent) =
            GameState::replay(id, &events, self.config.first_move, Instant::now()).map_err(
                |error| {
                    tracing::error!(game = id, %error, "stored game does not replay");
                    Refusal::new(ErrorCode::StoreFailure, "the stored game is damaged")
                },
            )?;
        Ok(Some(self.install(state, recent)))
    }

    pub fn expiry(&self) -> Expiry {
        Expiry::from_config(&self.config)
    }

    /// Startup: ends the expired games in one pass without keeping them in memory, and
    /// rebuilds every other game being played. Open games stay in the store until someone asks
    /// for one (they have no timers). Returns how many games were rebuilt.
    pub async fn restore_unfinished(self: &Arc<Self>) -> Result<usize, StoreError> {
        let expired_open = self.expire_stale_open().await?;
        let games = self.store.load_playing().await?;
        let now = Instant::now();
        let at = now_ms();
        let mut count = 0;
        // Issued together, so that the store writes them in one batch.
        let mut endings = Vec::new();
        for (listing, events) in games {
            match GameState::replay(&listing.id, &events, self.config.first_move, now) {
                Ok((mut state, recent)) => match self.expiry_commit(&mut state, now, at) {
                    Some(commit) => endings.push((listing.id, self.store.commit(commit))),
                    None => {
                        self.install(state, recent);
                        count += 1;
                    }
                },
                Err(error) => {
                    tracing::error!(game = %listing.id, %error, "skipping a game that does not replay")
                }
            }
        }
        let expired_idle = endings.len();
        for (id, ending) in endings {
            // The game stays unfinished in the store; its room ends it when it is next loaded.
            if let Err(error) = ending.await {
                tracing::warn!(game = %id, %error, "could not end an expired game");
            }
        }
        if expired_open + expired_idle > 0 {
            tracing::info!(expired_open, expired_idle, "expired games ended at startup");
        }
        Ok(count)
    }

    /// The commit that ends `state` by expiry at `at`, applied to `state`; `None` if it has
    /// not expired.
    fn expiry_commit(&self, state: &mut GameState, now: Instant, at: i64) -> Option<Commit> {
        let event = self.expiry().due_event(state, at)?;
        let first_seq = state.version() + 1;
        if let Err(error) = state.apply(&event, now) {
            tracing::error!(game = %state.id, %error, "cannot expire a game");
            return None;
        }
        Some(Commit {
            game_id: state.id.clone(),
            first_seq,
            events: vec![event.to_json()],
            listing: state.listing(),
        })
    }

    /// Ends, straight in the store, the open games past their time to live that are not in
    /// memory (a live room ends its own game at its timer). Returns how many were ended.
    ///
    /// A game loaded into a room meanwhile is safe: the first of the two commits wins the
    /// sequence check and the room follows the store.
    pub async fn expire_stale_open(self: &Arc<Self>) -> Result<usize, StoreError> {
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
            for (listing, events) in page {
                let commit = if self.map.contains_key(&listing.id) {
                    None
                } else {
                    GameState::replay(&listing.id, &events, self.config.first_move, now)
                        .ok()
                        .and_then(|(mut state, _)| self.expiry_commit(&mut state, now, at))
                };
                match commit {
                    Some(commit) => endings.push(self.store.commit(commit)),
                    // Stays in the stale set: the next page starts after it.
                    None => offset += 1,
                }
            }
            for ending in endings {
                match ending.await {
                    Ok(()) => ended += 1,
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

    /// Runs [`Rooms::expire_stale_open`] every quarter of the open-game time to live (between
    /// 0.1 s and 60 s) until shutdown.
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
                    }
                }
            }
        });
    }

    /// Creates a game from an HTTP request.
    pub async fn create(self: &Arc<Self>, request: NewGame) -> Result<SeatGrant, Refusal> {
        let bad = |message: String| Refusal::new(ErrorCode::BadRequest, message);
        if let Some(clock) = request.clock {
            if clock.base_secs > 10_800 || clock.increment_secs > 180 {
                return Err(bad(
                    "clock: base_secs at most 10800, increment_secs at most 180".into(),
                ));
            }
            if clock.base_secs == 0 && clock.increment_secs == 0 {
                return Err(bad(
                    "clock: base_secs and increment_secs cannot both be 0".into()
                ));
            }
        }
        let variant = request.variant.unwrap_or(Variant::Balanced);
        let start = match &request.fen {
            Some(fen) => {
                Position::from_fen(fen, Rules::Marseillais).map_err(|e| bad(format!("fen: {e}")))?
            }
            None => match variant {
                Variant::Balanced => Position::initial(),
                Variant::Marseillais => Position::from_fen(MARSEILLAIS_FEN, Rules::Marseillais)
                    .map_err(|e| bad(format!("fen: {e}")))?,
            },
        };
        if let Some(outcome) = start.board_outcome() {
            return Err(bad(format!("fen: the game is already over ({outcome})")));
        }
        if start.legal_submoves().is_empty() {
            return Err(bad("fen: the side to move has no legal sub-move".into()));
        }
        let color = match request.color.unwrap_or(ColorChoice::Random) {
            ColorChoice::White => Color::White,
            ColorChoice::Black => Color::Black,
            ColorChoice::Random => {
                if ids::coin_flip() {
                    Color::White
                } else {
                    Color::Black
                }
            }
        };
        let token = ids::new_token();
        let created = Event::Created {
            at_ms: now_ms(),
            variant,
            start_fen: start.fen(),
            clock: request.clock,
            creator: color.into(),
            seat_hash: ids::token_hash(&token),
            listed: request.listed.unwrap_or(true),
        };
        let id = self.commit_new_game(vec![created]).await?;
        Ok(SeatGrant {
            url: format!("/game/{id}"),
            id,
            color: color.into(),
            token,
        })
    }

    /// The rematch of a finished game, ready to commit: same start, variant, clock and
    /// listing, colours swapped. `seats`: the hashes of the players' rematch tokens, indexed by
    /// their *old* colour. The room commits it together with the old game's `rematch` event.
    pub fn prepare_rematch(
        &self,
        old: &GameState,
        seats: [String; 2],
    ) -> Result<(Commit, NewRoom), Refusal> {
        let at_ms = now_ms();
        let [white, black] = seats;
        // The old white player sits as black in the rematch, and vice versa.
        let created = Event::Created {
            at_ms,
            variant: old.variant,
            start_fen: old.game().start().fen(),
            clock: old.clock_spec,
            creator: Side::Black,
            seat_hash: white,
            listed: old.listed,
        };
        let joined = Event::Joined {
            at_ms,
            color: Side::White,
            seat_hash: black,
        };
        self.prepare_new_game(vec![created, joined])
    }

    /// Checks the first events of a new game under a fresh id.
    fn prepare_new_game(&self, events: Vec<Event>) -> Result<(Commit, NewRoom), Refusal> {
        let id = ids::new_game_id();
        let texts: Vec<String> = events.iter().map(Event::to_json).collect();
        let (state, recent) =
            GameState::replay(&id, &texts, self.config.first_move, Instant::now())
                .map_err(|e| Refusal::new(ErrorCode::BadRequest, e.to_string()))?;
        let commit = Commit {
            game_id: id,
            first_seq: 0,
            events: texts,
            listing: state.listing(),
        };
        Ok((commit, NewRoom { state, recent }))
    }

    /// Starts the room of a new game once its first events are stored.
    pub fn install_new(self: &Arc<Self>, new: NewRoom) -> Arc<Room> {
        self.install(new.state, new.recent)
    }

    /// Commits the first events of a new game under a fresh id and starts its room.
    async fn commit_new_game(self: &Arc<Self>, events: Vec<Event>) -> Result<String, Refusal> {
        let (commit, new) = self.prepare_new_game(events)?;
        let started = Instant::now();
        let result = self.store.commit(commit).await;
        self.metrics.commit_latency.observe(started.elapsed());
        result.map_err(store_refusal)?;
        let id = new.id().to_owned();
        self.install_new(new);
        Ok(id)
    }
}
