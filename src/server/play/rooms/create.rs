//! A new game: the request checked ([`crate::server::play::creation`]), its first commit
//! stored, then its room started.

use std::time::Instant;

use crate::server::game::{SeatUser, now_ms};
use crate::server::ids;
use crate::server::play::creation::{self, NewGame};
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
        Ok(SeatGrant {
            url: format!("/game/{id}"),
            id,
            color: color.into(),
            token,
        })
    }
}
