//! The lobby channel, `GET /ws/lobby`: one WebSocket per open page, signed in or not. The
//! server pushes the players-online count and, to a signed-in user, their challenges
//! ([`msg::LobbyMsg`]), the lobby chat, the `your_turn` list and the quick-pairing pools'
//! counts (once asked, `pools_watch`) and seats ([`crate::server::pool`]); the client sends
//! `ping`, lobby `chat` lines, and `pool_in` / `pool_out` / `pools_watch`. It goes through the game socket's
//! upgrade ([`crate::server::web::upgrade`]: frame rate limit, size limits) and its frame reader,
//! writes, close handshake and idle timeout ([`crate::server::play::socket`]), with the same bounded
//! queue: a page that does not read is closed with 1013 rather than buffered for.
//!
//! | concept | module |
//! |---|---|
//! | the messages | [`msg`] |
//! | the lobby chat | [`chat`] |
//! | who is connected, delivery, the online count | [`hub`] |
//! | one connection | [`run`] (here) |

pub mod chat;
pub mod hub;
pub mod msg;

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use futures_util::StreamExt;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::server::chat::ChatRate;
use crate::server::chat::flood::ChatPlace;
use crate::server::deps::Deps;
use crate::server::lobby::challenge::Lobby;
use crate::server::play::protocol::{ClientMsg, ErrorCode, Refusal, ServerMsg};
use crate::server::play::room::{ConnId, Outbox, mailbox};
use crate::server::play::socket::{
    Counted, Frame, TRY_AGAIN_LATER, chat_rule_refusal, client_chat_refusal, close, close_code,
    close_for, read_frame, send, send_queued, send_texts,
};
use crate::server::players::account::Account;
use crate::server::pool::Pools;
use crate::server::pool::msg::PoolRequest;
use crate::server::pool::seek::PageSeek;
use crate::server::web::ratelimit::Client;
use crate::server::web::upgrade::Ws as WebSocket;
use msg::{LobbyMsg, OnlineMsg};

/// Unregisters the channel however the task ends.
struct Registered<'a> {
    lobby: &'a Lobby,
    account: Option<&'a Account>,
    conn: ConnId,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        let user = self.account.map(|a| a.id);
        self.lobby.hub.close(user, self.conn, Instant::now());
    }
}

/// Runs one lobby channel until it closes. `account`: the signed-in user of the request's
/// session cookie (`None`: an anonymous page); `ip`: the page's address (its pool seeks are
/// bounded by it).
pub async fn run(
    mut ws: WebSocket,
    deps: Deps,
    (lobby, pools): (Arc<Lobby>, Arc<Pools>),
    (account, ip): (Option<Account>, IpAddr),
) {
    let _counted = Counted::new(&deps.metrics);
    let config = Arc::clone(&deps.config);
    let conn: ConnId = crate::server::play::room::fanout::next_conn();
    let (queue, mut inbox) = mailbox::channel::<Utf8Bytes>(config.outgoing_queue);
    let lagged = Arc::new(AtomicBool::new(false));
    let user = account.as_ref().map(|a| a.id);
    lobby.hub.open(
        user,
        Client::from(ip),
        conn,
        Outbox {
            queue,
            lagged: Arc::clone(&lagged),
        },
    );
    let _registered = Registered {
        lobby: &lobby,
        account: account.as_ref(),
        conn,
    };
    // What the page shows at once: the count, and the challenges already standing.
    let count = lobby.online();
    lobby
        .hub
        .send_one(user, conn, &LobbyMsg::Online(OnlineMsg { count }));
    if let Some(account) = account.as_ref() {
        for view in crate::server::lobby::challenge::remote::standing(&lobby, account).await {
            lobby
                .hub
                .send_one(Some(account.id), conn, &LobbyMsg::Challenge(view));
        }
    }
    if let Some(user) = user {
        match crate::server::players::my_games::your_turn(&*deps.store, user).await {
            Ok(games) => {
                let msg = LobbyMsg::YourTurn(msg::YourTurnMsg { games });
                lobby.hub.send_one(Some(user), conn, &msg);
            }
            Err(error) => tracing::warn!(%error, "could not read a your_turn list"),
        }
    }
    let history = lobby.chat.history(&*deps.store).await;
    let history = crate::server::safety::blocks::lobby::history_for(&*deps.store, user, history);
    if let Some(history) = history.await {
        lobby.hub.send_one(user, conn, &history);
    }
    let mut chat_rate = ChatRate::new(config.chat_burst, config.chat_window, Instant::now());
    // The pools' counts, once the page asks for them (`pools_watch`: the lobby page).
    let mut pool_counts = pools.counts();
    let mut watching_pools = false;
    // Dropped with the channel: a closed page leaves its pool at once.
    let mut seek = PageSeek::new(Arc::clone(&pools), account.clone(), conn, ip);

    let mut last_heard = Instant::now();
    let mut last_ping = Instant::now();
    let tick = config
        .ping_interval
        .min(config.idle_timeout / 4)
        .max(std::time::Duration::from_millis(20));
    let mut ticker = tokio::time::interval(tick);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut shutdown = deps.shutdown.clone();
    let signal = shutdown.changed();
    tokio::pin!(signal);
    let reason: Option<(u16, Cow<'static, str>)> = loop {
        tokio::select! {
            biased;
            _ = &mut signal => break Some((close_code::AWAY, "server shutting down".into())),
            outgoing = inbox.recv() => match outgoing {
                Some(text) => {
                    if !send_queued(&mut ws, text, &mut inbox).await {
                        break None;
                    }
                }
                None if lagged.load(Ordering::Relaxed) => {
                    break Some((TRY_AGAIN_LATER, "outgoing queue full; reconnect".into()));
                }
                // Only the hub holds the sender, and only a lagged channel is dropped by it.
                None => break Some((close_code::ERROR, "lobby channel dropped".into())),
            },
            incoming = ws.next() => {
                let message = match incoming {
                    Some(Ok(message)) => message,
                    Some(Err(error)) => break close_for(&error),
                    None => break None,
                };
                last_heard = Instant::now();
                if let Some(request) = pool_request(&message, config.max_message_bytes) {
                    if matches!(request, Ok(PoolRequest::Watch)) {
                        watching_pools = true;
                        let text = Arc::clone(&pool_counts.borrow_and_update());
                        lobby.hub.send_text(user, conn, text.to_string());
                        continue;
                    }
                    let answer = match request {
                        Ok(request) => seek.request(&*deps.store, request).await,
                        Err(refusal) => Err(refusal),
                    };
                    let text = match answer {
                        Ok(Some(msg)) => msg.to_text(),
                        Ok(None) => continue,
                        Err(refusal) => ServerMsg::error(&refusal, None).to_text(),
                    };
                    if !send_texts(&mut ws, &[text.into()]).await {
                        break None;
                    }
                    continue;
                }
                match lobby_frame(message, config.max_message_bytes) {
                    Frame::Nothing => {}
                    Frame::Forward(ClientMsg::Chat { room, text }) => {
                        let place = ChatPlace::lobby();
                        let now = Instant::now();
                        let ruled = deps.clients.chat_rules.check(ip, user, text.as_str(), now);
                        let said = match ruled.map(|()| deps.clients.chat.check(ip, user, &place, now)) {
                            Err(refused) => Err(chat_rule_refusal(refused)),
                            Ok(Err(limited)) => Err(client_chat_refusal(limited.retry_after_secs)),
                            Ok(Ok(())) => lobby
                                .chat
                                .say(
                                    &*deps.store,
                                    (&lobby.hub, lobby.cluster()),
                                    account.as_ref(),
                                    (room, text),
                                    &mut chat_rate,
                                )
                                .await,
                        };
                        if let Err(refusal) = said {
                            let reply = ServerMsg::error(&refusal, None);
                            if !send_texts(&mut ws, &[reply.to_text().into()]).await {
                                break None;
                            }
                        }
                    }
                    Frame::Forward(_) => {}
                    Frame::Reply(reply) => {
                        if !send_texts(&mut ws, &[reply.to_text().into()]).await {
                            break None;
                        }
                    }
                    Frame::Closed => {
                        let _ = tokio::time::timeout(
                            std::time::Duration::from_secs(3),
                            futures_util::SinkExt::flush(&mut ws),
                        )
                        .await;
                        break None;
                    }
                    Frame::Close(code, why) => break Some((code, why)),
                }
            }
            text = seek.next() => {
                if !send_texts(&mut ws, &[text.into()]).await {
                    break None;
                }
            }
            Ok(()) = pool_counts.changed(), if watching_pools => {
                let text = Arc::clone(&pool_counts.borrow_and_update());
                lobby.hub.send_text(user, conn, text.to_string());
            }
            _ = ticker.tick() => {
                let now = Instant::now();
                if now.saturating_duration_since(last_heard) >= config.idle_timeout {
                    break Some((close_code::NORMAL, "idle timeout".into()));
                }
                if now.saturating_duration_since(last_ping) >= config.ping_interval {
                    last_ping = now;
                    if !send(&mut ws, Message::Ping(Default::default())).await {
                        break None;
                    }
                }
            }
        }
    };
    if let Some((code, why)) = reason {
        tracing::debug!(conn, code, %why, "closing lobby channel");
        close(&mut ws, code, &why).await;
    }
}

/// A frame on the lobby channel that is a pool request (within the size limit), read by the
/// pools; `None` for any other frame.
fn pool_request(
    message: &Message,
    max_message_bytes: usize,
) -> Option<Result<PoolRequest, Refusal>> {
    match message {
        Message::Text(text) if text.len() <= max_message_bytes => PoolRequest::from_text(text),
        _ => None,
    }
}

/// A frame on the lobby channel: the game socket's reader ([`read_frame`]: limits, `ping`,
/// bad JSON, a chat line's text), then a `chat` goes on to the lobby chat and any game message
/// is refused, the channel kept.
fn lobby_frame(message: Message, max_message_bytes: usize) -> Frame {
    match read_frame(message, max_message_bytes) {
        Frame::Forward(chat @ ClientMsg::Chat { .. }) => Frame::Forward(chat),
        Frame::Forward(_) => {
            let refusal = Refusal::new(
                ErrorCode::UnknownType,
                "the lobby channel takes only ping, chat, pool_in, pool_out and pools_watch; game messages go to /ws/game/{id}",
            );
            Frame::Reply(ServerMsg::error(&refusal, None))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lobby_channel_answers_ping_and_refuses_game_messages() {
        assert_eq!(
            lobby_frame(Message::text(r#"{"t":"ping"}"#), 64),
            Frame::Reply(ServerMsg::Pong)
        );
        match lobby_frame(Message::text(r#"{"t":"resign"}"#), 64) {
            Frame::Reply(ServerMsg::Error(error)) => assert_eq!(error.code, ErrorCode::UnknownType),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            lobby_frame(Message::text("x".repeat(65)), 64),
            Frame::Close(1009, _)
        ));
    }
}
