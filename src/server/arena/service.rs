//! [`Arenas`]: the arena room's state and its actions, the ones the routes call (make an arena,
//! join, withdraw, read one, list them) and the one its pairing task runs ([`Arenas::step`]).
//! Every action reads what it needs from the store and writes there first: the arena's state
//! is the store's, so that a restart or another node carries on from it. A short-lived cache
//! spares the store the readers of a busy arena's page.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::server::config::ArenaSettings;
use crate::server::domain::user::{Account, UserId};
use crate::server::game::{ClockSpec, TimeControl, now_ms};
use crate::server::ids;
use crate::server::metrics::Metrics;
use crate::server::play::room::rating_now;
use crate::server::play::rooms::Rooms;
use crate::server::players::rating::Speed;
use crate::server::safety::blocks::check as blocks;
use crate::server::safety::playban::check as playban;
use crate::server::store::{ArenaPlayer, ArenaRange, Store, StoreError};

use super::error::ArenaError;
use super::read::{self, Snapshot};
use super::record;
use super::schedule::{self, Scheduled};
use super::step;
use super::tournament::{Creator, MAX_OPEN_ARENAS_PER_USER, Phase, Terms, Tournament};
use super::view::ArenaLine;

/// How long a read arena serves the pages that ask for it. The pairing task and every write
/// of this node read it afresh; a page polling every 2 s sees standings at most this stale.
const CACHE_FOR: Duration = Duration::from_millis(500);

/// How far in the past a requested start may be and still mean "now".
const START_SLACK_MS: i64 = 60_000;

/// Most arenas the lists and the pairing task look at.
const LIST_LIMIT: u32 = 100;
/// Rounds of a pairing step that find a block or a paused player among its pairs and pair
/// again without them.
const PAIRING_ROUNDS: usize = 6;

/// A `POST /api/arenas` body.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewArena {
    pub name: String,
    /// Read as a game's is (`clock: ` messages, unknown keys refused); a live clock only.
    #[serde(deserialize_with = "crate::server::game::requested_live_clock")]
    pub clock: ClockSpec,
    /// Unix ms (up to a minute ago: now); default: in 5 minutes.
    pub starts_ms: Option<i64>,
    pub duration_minutes: u32,
    /// Default: rated.
    pub rated: Option<bool>,
    pub min_rated_games: Option<u32>,
}

/// The lobby's lists.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ArenaLists {
    pub running: Vec<ArenaLine>,
    pub upcoming: Vec<ArenaLine>,
    pub finished: Vec<ArenaLine>,
}

/// Several nodes: who runs an arena's pairing. `None` on one node.
#[derive(Clone, Debug)]
pub struct Lease {
    pub node: String,
    pub ttl: Duration,
}

pub struct Arenas {
    pub(super) store: Arc<dyn Store>,
    pub(super) rooms: Arc<Rooms>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) settings: ArenaSettings,
    pub(super) schedule: Vec<Scheduled>,
    cache: Mutex<HashMap<String, (Instant, Arc<Snapshot>)>>,
}

fn store_error(error: StoreError) -> ArenaError {
    tracing::warn!(%error, "arena: the store failed");
    ArenaError::Store
}

impl Arenas {
    pub fn new(
        store: Arc<dyn Store>,
        rooms: Arc<Rooms>,
        metrics: Arc<Metrics>,
        settings: ArenaSettings,
        schedule: Vec<Scheduled>,
    ) -> Arenas {
        Arenas {
            store,
            rooms,
            metrics,
            settings,
            schedule,
            cache: Mutex::new(HashMap::new()),
        }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Instant, Arc<Snapshot>)>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Arena `id` as the store holds it now (and cached for the pages).
    pub async fn fresh(&self, id: &str) -> Result<Option<Arc<Snapshot>>, ArenaError> {
        let snapshot = read::load(&*self.store, id).await.map_err(store_error)?;
        let mut cache = self.cache();
        // The cache holds only what was read lately: old entries go as new ones come.
        cache.retain(|_, (at, _)| at.elapsed() < CACHE_FOR);
        Ok(snapshot.map(|snapshot| {
            let snapshot = Arc::new(snapshot);
            cache.insert(id.to_owned(), (Instant::now(), Arc::clone(&snapshot)));
            snapshot
        }))
    }

    /// Arena `id` read at most [`CACHE_FOR`] ago.
    pub async fn snapshot(&self, id: &str) -> Result<Option<Arc<Snapshot>>, ArenaError> {
        if let Some((at, snapshot)) = self.cache().get(id)
            && at.elapsed() < CACHE_FOR
        {
            return Ok(Some(Arc::clone(snapshot)));
        }
        self.fresh(id).await
    }

    /// Makes an arena for `account`.
    pub async fn create(
        &self,
        account: &Account,
        request: NewArena,
    ) -> Result<Tournament, ArenaError> {
        let now = now_ms();
        let mine = self
            .store
            .arenas(ArenaRange::Unfinished { now_ms: now }, LIST_LIMIT)
            .await
            .map_err(store_error)?
            .iter()
            .filter(|record| record.creator == Some(account.id))
            .count();
        if mine >= MAX_OPEN_ARENAS_PER_USER {
            return Err(ArenaError::TooManyArenas);
        }
        let terms = Terms {
            name: request.name,
            clock: request.clock,
            // A start a little in the past (the asker's clock, the request's flight) is now.
            starts_ms: match request.starts_ms {
                None => now + 5 * 60_000,
                Some(ms) if (now - START_SLACK_MS..now).contains(&ms) => now,
                Some(ms) => ms,
            },
            duration: Duration::from_secs(u64::from(request.duration_minutes) * 60),
            rated: request.rated.unwrap_or(true),
            min_rated_games: request.min_rated_games,
        };
        let tournament = terms.check(ids::new_game_id(), Creator::User(account.id), now)?;
        self.store
            .create_arena(record::to_record(
                &tournament,
                Some(account.name.as_str()),
                now,
            ))
            .await
            .map_err(store_error)?;
        Ok(tournament)
    }

    /// `account` joins arena `id` (again, if they had withdrawn).
    pub async fn join(&self, account: &Account, id: &str) -> Result<(), ArenaError> {
        let snapshot = self.fresh(id).await?.ok_or(ArenaError::NotFound)?;
        let tournament = &snapshot.tournament;
        let speed = Speed::of(TimeControl::Live(tournament.terms.clock));
        let rating = rating_now(&*self.store, account.id, speed)
            .await
            .map_err(|_| ArenaError::Store)?;
        tournament.may_join(true, rating.games, now_ms())?;
        let player = match snapshot.player(account.id) {
            Some(known) => ArenaPlayer {
                withdrawn: false,
                ..known.clone()
            },
            None => ArenaPlayer {
                user: account.id,
                name: account.name.clone(),
                // After every earlier join, even one in the same millisecond: the join order
                // is the standings' last tie-break.
                joined_ms: snapshot
                    .players
                    .iter()
                    .map(|p| p.joined_ms + 1)
                    .fold(now_ms(), i64::max),
                rating: rating.rating.round() as i32,
                withdrawn: false,
            },
        };
        self.store
            .set_arena_player(id, player)
            .await
            .map_err(store_error)?;
        self.cache().remove(id);
        Ok(())
    }

    /// `account` leaves arena `id`: no more pairings; their games and points stay.
    pub async fn withdraw(&self, account: &Account, id: &str) -> Result<(), ArenaError> {
        let snapshot = self.fresh(id).await?.ok_or(ArenaError::NotFound)?;
        let known = snapshot.player(account.id).ok_or(ArenaError::NotJoined)?;
        let player = ArenaPlayer {
            withdrawn: true,
            ..known.clone()
        };
        self.store
            .set_arena_player(id, player)
            .await
            .map_err(store_error)?;
        self.cache().remove(id);
        Ok(())
    }

    /// The arenas running, upcoming and lately finished, for the lobby.
    pub async fn lists(&self) -> Result<ArenaLists, ArenaError> {
        let now = now_ms();
        let (unfinished, finished) = futures_util::future::try_join(
            self.store
                .arenas(ArenaRange::Unfinished { now_ms: now }, LIST_LIMIT),
            self.store.arenas(ArenaRange::Finished { now_ms: now }, 10),
        )
        .await
        .map_err(store_error)?;
        let lines = |records: Vec<_>| -> Vec<ArenaLine> {
            records
                .iter()
                .filter_map(record::from_record)
                .map(|t| ArenaLine::of(&t, now))
                .collect()
        };
        let (running, upcoming) = lines(unfinished)
            .into_iter()
            .partition(|line| line.phase == super::view::PhaseView::Running);
        Ok(ArenaLists {
            running,
            upcoming,
            finished: lines(finished),
        })
    }

    /// The arenas `account` played, the last to start first.
    pub async fn played_by(
        &self,
        user: crate::server::domain::user::UserId,
    ) -> Result<Vec<ArenaLine>, ArenaError> {
        let now = now_ms();
        let records = self
            .store
            .user_arenas(user, 50)
            .await
            .map_err(store_error)?;
        Ok(records
            .iter()
            .filter_map(record::from_record)
            .map(|t| ArenaLine::of(&t, now))
            .collect())
    }

    /// Makes the scheduled arenas that start within the announcing horizon (those already
    /// made are found by their ids and left alone).
    pub async fn announce(&self) {
        let now = now_ms();
        for tournament in schedule::announced(&self.schedule, now, self.settings.announce_ahead) {
            if let Err(error) = self
                .store
                .create_arena(record::to_record(&tournament, None, now))
                .await
            {
                tracing::warn!(arena = %tournament.id, %error, "could not make a scheduled arena");
            }
        }
    }

    /// The running arenas, as the pairing task visits them.
    pub(super) async fn running(&self) -> Result<Vec<Tournament>, ArenaError> {
        let now = now_ms();
        let records = self
            .store
            .arenas(ArenaRange::Unfinished { now_ms: now }, LIST_LIMIT)
            .await
            .map_err(store_error)?;
        Ok(records
            .iter()
            .filter_map(record::from_record)
            .filter(|t| t.phase(now) == Phase::Running)
            .collect())
    }

    /// The step's pairs: none with a paused player (a fair-play pause, issue 32: they stay in
    /// the arena but wait until it ends), none with a block between its players while another
    /// pairing exists. The pairs are made, each new player's pause and each pair's block read
    /// from the store, and made again without them, a few rounds at most (a step that still
    /// finds new ones then makes no game; the next step reads again). Only the players a round
    /// would pair are read, so a step costs reads in proportion to the games it makes.
    async fn pairs_for_step(&self, snapshot: &Snapshot) -> Vec<(UserId, UserId)> {
        let now = now_ms();
        let (mut entrants, games) = (snapshot.entrants(), snapshot.arena_games());
        let mut avoid: HashSet<(UserId, UserId)> = HashSet::new();
        let mut free: HashSet<UserId> = HashSet::new();
        for _ in 0..PAIRING_ROUNDS {
            let blocked = |a, b| avoid.contains(&(a, b)) || avoid.contains(&(b, a));
            let pairs = step::games_to_start_avoiding(
                &snapshot.tournament,
                &entrants,
                &games,
                now,
                ids::coin_flip,
                &blocked,
            );
            let unread: Vec<UserId> = pairs
                .iter()
                .flat_map(|&(a, b)| [a, b])
                .filter(|user| !free.contains(user))
                .collect();
            let paused = playban::paused_among(&*self.store, unread.iter().copied(), now).await;
            let unread_pairs: Vec<(UserId, UserId)> = pairs
                .iter()
                .copied()
                .filter(|&(a, b)| !blocked(a, b))
                .collect();
            let found = blocks::blocked_pairs(&*self.store, &unread_pairs).await;
            if paused.is_empty() && found.is_empty() {
                return pairs;
            }
            free.extend(unread.into_iter().filter(|user| !paused.contains(user)));
            // A paused player is out of this step's pairing, as one who withdrew would be.
            for entrant in entrants.iter_mut().filter(|e| paused.contains(&e.user)) {
                entrant.withdrawn = true;
            }
            avoid.extend(found);
        }
        Vec::new()
    }

    /// One pairing step of arena `id`: reads it afresh, makes the games of the players waiting
    /// ([`step::games_to_start`]), each in one commit with both seats. Returns the games made.
    pub async fn step(&self, id: &str) -> Result<usize, ArenaError> {
        let began = Instant::now();
        let Some(snapshot) = self.fresh(id).await? else {
            return Ok(0);
        };
        let started = Instant::now();
        let pairs = self.pairs_for_step(&snapshot).await;
        if pairs.is_empty() {
            return Ok(0);
        }
        self.metrics.arena_pairing.observe(started.elapsed());
        let terms = &snapshot.tournament.terms;
        let account = |user| {
            snapshot.player(user).map(|p| Account {
                id: p.user,
                name: p.name.clone(),
            })
        };
        // All of the step's games at once: their commits share the store's group commits, so
        // a step of 500 games costs a few commits' time, not 500.
        let games = pairs.into_iter().filter_map(|(white, black)| {
            let players = [account(white)?, account(black)?];
            Some(async move {
                let [white, black] = &players;
                self.rooms
                    .create_paired(
                        TimeControl::Live(terms.clock),
                        terms.rated,
                        [Some(white), Some(black)],
                        Some(id.to_owned()),
                    )
                    .await
            })
        });
        let mut made = 0;
        for result in futures_util::future::join_all(games).await {
            match result {
                Ok(_) => made += 1,
                Err(refusal) => {
                    tracing::warn!(arena = %id, error = %refusal.message, "could not make an arena game");
                }
            }
        }
        self.metrics
            .arena_games
            .fetch_add(made as u64, std::sync::atomic::Ordering::Relaxed);
        self.metrics.arena_step.observe(began.elapsed());
        self.cache().remove(id);
        Ok(made)
    }
}
