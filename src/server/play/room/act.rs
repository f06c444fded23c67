//! What a seated player asks of its room: a client message turned into a request, decided by
//! the game core, and carried out (the rematch and the HTTP join need the room's knowledge of
//! who is here and which token each connection proved).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::fanout::ConnId;
use super::{RoomTask, SeatGrant, ack_msg};
use crate::rules::Color;
use crate::server::config::PanicSite;
use crate::server::game::{
    ACCOUNT_SEAT_HASH, COMPUTER_SEAT_HASH, Checked, Decided, Event, Input, Lag, Refused, Request,
    SeatUser, now_ms,
};
use crate::server::ids;
use crate::server::play::protocol::{ClientMsg, ErrorCode, Refusal, RematchSeatMsg, ServerMsg};
use crate::server::play::{creation, project};
use crate::server::players::account::{Account, UserId};
use crate::server::players::rating::{Rating, Speed};
use crate::server::store::Store;
use crate::server::web::rtt::RttEstimate;

impl RoomTask {
    pub(super) async fn act(
        &mut self,
        conn: ConnId,
        msg: ClientMsg,
        received: Instant,
        rtt: Option<RttEstimate>,
    ) {
        let Some(seat) = self.crowd.get(conn).map(|m| m.seat) else {
            return;
        };
        if let ClientMsg::Hello { token, v } = msg {
            let allowed = self
                .crowd
                .get_mut(conn)
                .is_some_and(|m| m.hello.take(received));
            if !allowed {
                let config = &self.deps.config;
                let refusal = Refusal::new(
                    ErrorCode::RateLimited,
                    format!(
                        "too many hello messages ({} at once, then {} per second); the connection is kept",
                        config.hello_burst, config.hello_rate_per_sec
                    ),
                );
                self.send_to(conn, &ServerMsg::error(&refusal, None));
                return;
            }
            self.hello(conn, token, v);
            return;
        }
        if let ClientMsg::Chat { room, text } = msg {
            self.chat(conn, room, text, received).await;
            return;
        }
        if let ClientMsg::ChatWatch { spectator } = msg {
            self.chat_watch(conn, spectator);
            return;
        }
        if let ClientMsg::Ping = msg {
            // The socket answers pings itself; an agent's ping is answered here.
            self.send_to(conn, &ServerMsg::Pong);
            return;
        }
        let ack_id = match &msg {
            ClientMsg::Move { id, .. } => id.clone(),
            _ => None,
        };
        let Some(color) = seat else {
            let refusal = Refusal::new(ErrorCode::NotAPlayer, "spectators cannot act in the game");
            self.send_to(conn, &ServerMsg::error(&refusal, ack_id.as_deref()));
            return;
        };
        self.check_timeouts().await;
        let is_move = matches!(msg, ClientMsg::Move { .. });
        if let Err(refusal) = self.player_action(conn, color, msg, rtt).await {
            self.send_to(conn, &ServerMsg::error(&refusal, ack_id.as_deref()));
        } else if is_move {
            self.deps.metrics.move_latency.observe(received.elapsed());
        }
    }

    /// The request a client message makes, decided and carried out.
    pub(super) async fn player_action(
        &mut self,
        conn: ConnId,
        color: Color,
        msg: ClientMsg,
        rtt: Option<RttEstimate>,
    ) -> Result<(), Refusal> {
        let now = Instant::now();
        let refused = |r: Refused| project::refusal(&r);
        let mut ack = None;
        let request = match msg {
            ClientMsg::Move { mv, id, v, lag } => {
                // Idempotency first: a re-sent move that was applied is acknowledged again,
                // whatever version it names.
                if let Some(acked) = id.as_deref().and_then(|id| self.state.acked(color, id)) {
                    self.send_to(conn, &ack_msg(id, acked));
                    return Ok(());
                }
                self.test_hook(PanicSite::Handling, mv);
                self.state.check_seen(v).map_err(refused)?;
                ack = Some((conn, id.clone()));
                Request::Move {
                    mv,
                    ack: id,
                    lag: self.lag_of(rtt, lag),
                }
            }
            ClientMsg::TakebackSubmove => Request::Takeback,
            ClientMsg::Resign => Request::Resign,
            ClientMsg::DrawOffer => Request::DrawOffer,
            ClientMsg::DrawAccept => Request::DrawAccept,
            ClientMsg::DrawDecline => Request::DrawDecline,
            ClientMsg::DrawClaim { claim } => Request::DrawClaim(claim),
            ClientMsg::Abort => Request::Abort,
            ClientMsg::Berserk => Request::Berserk,
            ClientMsg::ClaimVictory => Request::ClaimVictory {
                opponent_away: self
                    .crowd
                    .abandoned(!color, self.deps.config.disconnect_grace, now),
            },
            ClientMsg::RematchOffer => {
                refuse_paused(Arc::clone(&self.deps.store), self.seat_account(color)).await?;
                Request::RematchOffer {
                    seat_hash: self.rematch_seat_hash(conn)?,
                }
            }
            ClientMsg::RematchAccept => {
                refuse_paused(Arc::clone(&self.deps.store), self.seat_account(color)).await?;
                Request::RematchAccept
            }
            ClientMsg::Hello { .. }
            | ClientMsg::Ping
            | ClientMsg::Chat { .. }
            | ClientMsg::ChatWatch { .. } => return Ok(()),
        };
        let is_move = ack.is_some();
        let decided = self
            .state
            .decide(Input::seat(color, request), &self.house, now, now_ms())
            .map_err(refused)?;
        self.charge_game_rate(now)?;
        match decided {
            Decided::LostOnTime(end) => {
                self.commit_and_publish(vec![*end], now, None, Vec::new())
                    .await?;
                return Err(Refusal::new(
                    ErrorCode::GameOver,
                    "your time ran out before this sub-move arrived",
                ));
            }
            Decided::Events(events) => {
                let compensation: std::time::Duration =
                    events.iter().map(|c| c.lag_compensation()).sum();
                self.commit_and_publish(events.into_iter().collect(), now, ack, Vec::new())
                    .await?;
                if !compensation.is_zero() {
                    let ms = u64::try_from(compensation.as_millis()).unwrap_or(u64::MAX);
                    let metrics = &self.deps.metrics;
                    metrics.lag_compensation_ms.fetch_add(ms, Ordering::Relaxed);
                    metrics
                        .lag_compensated_submoves
                        .fetch_add(1, Ordering::Relaxed);
                }
            }
            Decided::CreateRematch => self.rematch(conn, color, now).await?,
            Decided::Nothing => {}
        }
        if is_move {
            self.deps
                .metrics
                .submoves_accepted
                .fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The lag a sub-move is judged with: what the connection's socket measured, lowered to
    /// the client's own claim ([`Lag::allowed`]); none when compensation is off or nothing was
    /// measured (an in-process agent such as the computer player has no lag).
    fn lag_of(&self, rtt: Option<RttEstimate>, claimed_ms: Option<u32>) -> Lag {
        match rtt {
            Some(rtt) if self.deps.config.lag_compensation.is_on() => Lag {
                smoothed: rtt.smoothed,
                latest: rtt.latest,
                claimed: claimed_ms.map(|ms| std::time::Duration::from_millis(u64::from(ms))),
            },
            _ => Lag::NONE,
        }
    }

    /// Takes one token from the game's bucket for an action that passed its checks (refusals
    /// add nothing to the log and are not charged).
    pub(super) fn charge_game_rate(&mut self, now: Instant) -> Result<(), Refusal> {
        if self.game_rate.take(now) {
            return Ok(());
        }
        Err(Refusal::new(
            ErrorCode::RateLimited,
            "too many actions in this game; nothing was changed, try again in a moment",
        ))
    }

    /// The account seated as `color`, if any.
    fn seat_account(&self, color: Color) -> Option<Account> {
        self.state.user(color).map(|u| Account {
            id: u.id,
            name: u.name.clone(),
        })
    }

    /// The hash of the rematch token of the player on `conn` (the computer, which has no
    /// token, sits in the rematch by its own seat hash; a player seated by its account alone
    /// sits there by its account: [`ACCOUNT_SEAT_HASH`], which no token matches).
    pub(super) fn rematch_seat_hash(&self, conn: ConnId) -> Result<String, Refusal> {
        let member = self.crowd.get(conn);
        let seat = member.and_then(|m| m.seat);
        if let (Some(computer), Some(seat)) = (self.state.computer(), seat)
            && computer.color == seat
        {
            return Ok(COMPUTER_SEAT_HASH.to_owned());
        }
        if let Some(token) = member.and_then(|m| m.token.as_deref()) {
            return Ok(ids::token_hash(&ids::rematch_token(token, &self.state.id)));
        }
        let by_account = member
            .and_then(|m| m.account)
            .and_then(|user| self.state.seat_of_user(user));
        match (seat, by_account) {
            (Some(seat), Some(owned)) if seat == owned => Ok(ACCOUNT_SEAT_HASH.to_owned()),
            _ => Err(Refusal::new(
                ErrorCode::NotAPlayer,
                "say hello with your seat token",
            )),
        }
    }

    /// The rematch seat of the player on `conn`, when this game has a rematch whose seats are
    /// derived from this game's tokens: recomputed from the connection's token, so it is
    /// handed out whenever the player comes back, after any restart.
    pub(super) fn rematch_grant(&self, conn: ConnId) -> Option<ServerMsg> {
        let new_id = self.state.derived_rematch_id()?;
        let member = self.crowd.get(conn)?;
        let (old_color, token) = (member.seat?, member.token.as_deref()?);
        Some(ServerMsg::RematchSeat(RematchSeatMsg {
            color: (!old_color).into(),
            id: new_id.to_owned(),
            token: ids::rematch_token(token, &self.state.id),
            url: format!("/game/{new_id}"),
        }))
    }

    /// Creates the rematch game (colours swapped) and records it here in ONE store commit,
    /// then hands each connected player its new seat privately (an absent one gets it when it
    /// comes back: [`Self::rematch_grant`]). `color` accepts the offer of the other side,
    /// whose rematch token hash the offer carries.
    pub(super) async fn rematch(
        &mut self,
        conn: ConnId,
        color: Color,
        now: Instant,
    ) -> Result<(), Refusal> {
        let mine = self.rematch_seat_hash(conn)?;
        let theirs = match self.state.rematch_offer() {
            Some((by, Some(hash))) if by == !color => hash.to_owned(),
            // An offer stored by an older version has no hash: usable only if its author is
            // here to present its token.
            _ => self
                .crowd
                .seated(!color)
                .map(|other| self.rematch_seat_hash(other))
                .transpose()?
                .ok_or_else(|| {
                    Refusal::new(
                        ErrorCode::NotAvailable,
                        "this rematch offer cannot be accepted while its author is away; ask again",
                    )
                })?,
        };
        let mut seats = [String::new(), String::new()];
        seats[color as usize] = mine;
        seats[(!color) as usize] = theirs;
        let ratings = self.rematch_ratings().await?;
        let new_game = creation::rematch(&self.state, seats, ratings, now_ms(), &self.deps.config)?;
        let created = Input::RematchCreated {
            id: new_game.state.id.clone(),
        };
        let decided = self.state.decide(created, &self.house, now, now_ms());
        let events = events_of(decided.map_err(|r| project::refusal(&r))?)?;
        self.commit_and_publish(events, now, None, vec![new_game.commit])
            .await?;
        self.deps
            .host
            .start(new_game.state, new_game.recent, &self.state.id);
        for conn in self.crowd.conns() {
            if let Some(grant) = self.rematch_grant(conn) {
                self.send_to(conn, &grant);
            }
        }
        Ok(())
    }

    /// The seat user of a signed-in player joining this game, with its current rating for
    /// the game's speed when the game is rated.
    pub(super) fn seat_user(
        &self,
        account: Option<Account>,
    ) -> impl Future<Output = Result<Option<SeatUser>, Refusal>> + Send + 'static {
        let store = Arc::clone(&self.deps.store);
        let speed = self.seat_speed();
        async move {
            let Some(account) = account else {
                return Ok(None);
            };
            let rating = match speed {
                Some(speed) => Some(rating_now(&*store, account.id, speed).await?),
                None => None,
            };
            Ok(Some(SeatUser::of(&account, rating)))
        }
    }

    /// The speed whose rating a seat of this game shows: any game with a clock has one (the
    /// lobby shows a casual game's creator's rating too, as lichess does); an untimed game none.
    fn seat_speed(&self) -> Option<Speed> {
        self.state.time_control().map(Speed::of)
    }

    /// For the rematch of a game with a clock: each player's rating now (after this game's),
    /// indexed by its colour in this game.
    fn rematch_ratings(
        &self,
    ) -> impl Future<Output = Result<[Option<Rating>; 2], Refusal>> + Send + 'static {
        let store = Arc::clone(&self.deps.store);
        let speed = self.seat_speed();
        let users = Color::ALL.map(|c| self.state.user(c).map(|u| u.id));
        async move {
            let mut ratings = [None, None];
            let Some(speed) = speed else {
                return Ok(ratings);
            };
            for (slot, user) in ratings.iter_mut().zip(users) {
                if let Some(user) = user {
                    *slot = Some(rating_now(&*store, user, speed).await?);
                }
            }
            Ok(ratings)
        }
    }

    /// HTTP join: the free seat with a fresh token, belonging to `user` when the player is
    /// signed in (its rating already read for a rated game).
    pub(super) async fn join(&mut self, user: Option<SeatUser>) -> Result<SeatGrant, Refusal> {
        let token = ids::new_token();
        let join = Input::Join {
            seat_hash: ids::token_hash(&token),
            user,
        };
        let now = Instant::now();
        let decided = self.state.decide(join, &self.house, now, now_ms());
        let events = events_of(decided.map_err(|r| match r {
            Refused::GameOver => Refusal::new(ErrorCode::SeatTaken, "the game is over"),
            other => project::refusal(&other),
        })?)?;
        let Some(color) = events.iter().find_map(|c| match c.event() {
            Event::Joined { color, .. } => Some(*color),
            _ => None,
        }) else {
            return Err(internal_error());
        };
        self.commit_and_publish(events, now, None, Vec::new())
            .await?;
        self.crowd.seat_taken_now(color, Instant::now());
        Ok(SeatGrant {
            id: self.state.id.clone(),
            color: color.into(),
            token,
            url: format!("/game/{}", self.state.id),
        })
    }
}

/// The events of a decision that can only come to events (a join, a rematch recorded).
fn events_of(decided: Decided) -> Result<Vec<Checked>, Refusal> {
    match decided {
        Decided::Events(events) => Ok(events),
        Decided::LostOnTime(_) | Decided::CreateRematch | Decided::Nothing => Err(internal_error()),
    }
}

fn internal_error() -> Refusal {
    Refusal::new(
        ErrorCode::NotAvailable,
        "internal error: an unexpected decision",
    )
}

/// A player's rating for `speed` as the store has it now (the initial rating before its first
/// rated game at that speed): what a seat of a rated game records as the rating before the
/// game.
pub async fn rating_now(store: &dyn Store, user: UserId, speed: Speed) -> Result<Rating, Refusal> {
    let ratings = store.ratings(user).await.map_err(|error| {
        tracing::warn!(%error, "could not read a player's ratings");
        Refusal::new(ErrorCode::StoreFailure, "the game store failed; try again")
    })?;
    Ok(ratings
        .into_iter()
        .find(|(s, _)| *s == speed)
        .map_or(Rating::INITIAL, |(_, rating)| rating))
}

/// A rematch starts a game, so a player under a fair-play pause may neither offer nor accept
/// one (`crate::server::safety::playban`); an anonymous seat is never paused. Owns what it
/// reads: the room's task must stay `Send` across the store read.
async fn refuse_paused(store: Arc<dyn Store>, account: Option<Account>) -> Result<(), Refusal> {
    crate::server::safety::playban::check::ban_refusal(store.as_ref(), account.as_ref()).await
}
