//! All live games: `DashMap<GameId, Arc<Room>>`. Creates games, finds a game
//! (loading it from the store when it is not in memory, e.g. a finished game
//! whose room retired), rebuilds every unfinished game at startup, and
//! forgets rooms that retire.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use dashmap::DashMap;
use serde::Deserialize;
use tokio::sync::watch;

use super::config::Config;
use super::events::{ClockSpec, Event, Variant, now_ms};
use super::ids;
use super::metrics::Metrics;
use super::protocol::{ErrorCode, Refusal, Side};
use super::room::{Room, SeatGrant};
use super::state::GameState;
use super::store::{Commit, Store, StoreError};
use crate::rules::{Color, Position, Rules};

/// A `POST /api/games` body; every field optional.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    pub color: Option<ColorChoice>,
    pub clock: Option<ClockSpec>,
    pub fen: Option<String>,
    pub variant: Option<Variant>,
}

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

    /// Rebuilds every unfinished game (startup). Returns how many.
    pub async fn restore_unfinished(self: &Arc<Self>) -> Result<usize, StoreError> {
        let games = self.store.load_unfinished().await?;
        let now = Instant::now();
        let mut count = 0;
        for (listing, events) in games {
            match GameState::replay(&listing.id, &events, self.config.first_move, now) {
                Ok((state, recent)) => {
                    self.install(state, recent);
                    count += 1;
                }
                Err(error) => {
                    tracing::error!(game = %listing.id, %error, "skipping a game that does not replay")
                }
            }
        }
        Ok(count)
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
        };
        let id = self.commit_new_game(vec![created]).await?;
        Ok(SeatGrant {
            url: format!("/game/{id}"),
            id,
            color: color.into(),
            token,
        })
    }

    /// Creates the rematch of a finished game: same start, variant and clock,
    /// colours swapped. Returns the grants indexed by the players' *old* colour.
    pub async fn create_rematch(
        self: &Arc<Self>,
        old: &GameState,
    ) -> Result<[SeatGrant; 2], Refusal> {
        let at_ms = now_ms();
        let tokens = [ids::new_token(), ids::new_token()];
        // The old white player sits as black in the rematch, and vice versa.
        let created = Event::Created {
            at_ms,
            variant: old.variant,
            start_fen: old.game().start().fen(),
            clock: old.clock_spec,
            creator: Side::Black,
            seat_hash: ids::token_hash(&tokens[Color::White as usize]),
        };
        let joined = Event::Joined {
            at_ms,
            color: Side::White,
            seat_hash: ids::token_hash(&tokens[Color::Black as usize]),
        };
        let id = self.commit_new_game(vec![created, joined]).await?;
        let grant = |old_color: Color| SeatGrant {
            id: id.clone(),
            color: (!old_color).into(),
            token: tokens[old_color as usize].clone(),
            url: format!("/game/{id}"),
        };
        Ok([grant(Color::White), grant(Color::Black)])
    }

    /// Commits the first events of a new game under a fresh id and starts its room.
    async fn commit_new_game(self: &Arc<Self>, events: Vec<Event>) -> Result<String, Refusal> {
        let now = Instant::now();
        let id = ids::new_game_id();
        let texts: Vec<String> = events.iter().map(Event::to_json).collect();
        let (state, recent) = GameState::replay(&id, &texts, self.config.first_move, now)
            .map_err(|e| Refusal::new(ErrorCode::BadRequest, e.to_string()))?;
        let commit = Commit {
            game_id: id.clone(),
            first_seq: 0,
            events: texts,
            listing: state.listing(),
        };
        let started = Instant::now();
        let result = self.store.commit(commit).await;
        self.metrics.commit_latency.observe(started.elapsed());
        result.map_err(store_refusal)?;
        self.install(state, recent);
        Ok(id)
    }
}
