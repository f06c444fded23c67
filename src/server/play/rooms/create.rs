//! A new game: the request checked ([`crate::server::play::creation`]), its first commit
//! stored, then its room started.

use std::time::Instant;

use crate::rules::Color;
use crate::server::computer::backlog::Queued;
use crate::server::game::creation::PairedSeat;
use crate::server::game::{SeatUser, TimeControl, now_ms};
use crate::server::ids;
use crate::server::per_client::games::GameHold;
use crate::server::play::creation::{self, NewGame, Prepared};
use crate::server::play::protocol::Refusal;
use crate::server::play::room::{SeatGrant, rating_now};
use crate::server::players::account::Account;
use crate::server::players::rating::Speed;

use super::{Rooms, store_refusal};

impl Rooms {
    /// Creates a game from an HTTP request (`account`: the creator, when signed in, who then
    /// owns the seat): the lobby checks it, the store commits its first event, then its room
    /// starts.
    pub async fn create(
        &self,
        request: NewGame,
        account: Option<Account>,
    ) -> Result<SeatGrant, Refusal> {
        self.create_holding(request, account, None, None).await
    }

    /// [`Rooms::create`], the game holding `hold`, its creator's slot
    /// ([`crate::server::per_client::games`]), from before its first commit (a join may
    /// follow at once) until it leaves what the slot counts; and a computer game its place in
    /// the engine queue, `reserved` ([`crate::server::computer::admission`]), until its first
    /// search.
    pub async fn create_holding(
        &self,
        request: NewGame,
        account: Option<Account>,
        hold: Option<GameHold>,
        reserved: Option<Queued>,
    ) -> Result<SeatGrant, Refusal> {
        let user = match account {
            Some(account) => {
                let unrated = SeatUser::of(&account, None);
                // The rating at this moment for the game's speed (a game with a clock).
                let rating = match request.clock {
                    Some(clock) => {
                        Some(rating_now(&*self.store, account.id, Speed::of(clock)).await?)
                    }
                    None => None,
                };
                Some(SeatUser { rating, ..unrated })
            }
            None => None,
        };
        let token = ids::new_token();
        let (events, color) =
            creation::first_events(&request, ids::token_hash(&token), user, now_ms())?;
        let prepared = creation::prepare(events, &self.config)?;
        let games = &self.clients.games;
        if let Some(hold) = hold {
            games.keep(&prepared.state.id, hold);
        }
        if let Some(reserved) = reserved {
            // Before the room starts: its computer may ask for its first search at once.
            self.engines.keep_reserved(&prepared.state.id, reserved);
        }
        let id = prepared.state.id.clone();
        let id = self.store_and_start(prepared).await.inspect_err(|_| {
            games.forget(&id);
            self.engines.searching(&id);
        })?;
        Ok(SeatGrant {
            url: format!("/game/{id}"),
            id,
            color: color.into(),
            token,
        })
    }

    /// Creates a game for two players at once (a pool's pairing), `players[0]` White: both
    /// seats are taken in its first commit. Returns each player's seat, White's first.
    /// `arena`: the arena tournament pairing it, written into its first event.
    pub async fn create_paired(
        &self,
        clock: TimeControl,
        rated: bool,
        players: [Option<&Account>; 2],
        arena: Option<String>,
    ) -> Result<[SeatGrant; 2], Refusal> {
        let speed = Speed::of(clock);
        let tokens = [ids::new_token(), ids::new_token()];
        let white = self.paired_seat(players[0], &tokens[0], speed).await?;
        let black = self.paired_seat(players[1], &tokens[1], speed).await?;
        let events = creation::paired_events(clock, rated, [white, black], arena, now_ms())?;
        let prepared = creation::prepare(events, &self.config)?;
        let id = self.store_and_start(prepared).await?;
        let [white_token, black_token] = tokens;
        let grant = |color: Color, token: String| SeatGrant {
            url: format!("/game/{id}"),
            id: id.clone(),
            color: color.into(),
            token,
        };
        Ok([
            grant(Color::White, white_token),
            grant(Color::Black, black_token),
        ])
    }

    /// A paired game's seat for `account` (its rating now, for the game's speed) or for an
    /// anonymous player, held by `token`.
    async fn paired_seat(
        &self,
        account: Option<&Account>,
        token: &str,
        speed: Speed,
    ) -> Result<PairedSeat, Refusal> {
        let user = match account {
            Some(account) => {
                let rating = rating_now(&*self.store, account.id, speed).await?;
                Some(SeatUser::of(account, Some(rating)))
            }
            None => None,
        };
        Ok(PairedSeat {
            seat_hash: ids::token_hash(token),
            user,
        })
    }

    /// Commits a new game's first events, then schedules and starts its room; its id.
    async fn store_and_start(&self, prepared: Prepared) -> Result<String, Refusal> {
        let deadline = prepared.commit.deadline;
        let started = Instant::now();
        let result = self.store.commit(prepared.commit).await;
        self.metrics.commit_latency.observe(started.elapsed());
        result.map_err(store_refusal)?;
        let id = prepared.state.id.clone();
        self.schedule.apply(&id, deadline);
        if let Err(error) = self.claim_new(prepared.state, prepared.recent).await {
            // Committed: the game exists; the next node that needs it claims it.
            tracing::warn!(game = %id, %error, "could not claim a new game");
        }
        Ok(id)
    }
}
