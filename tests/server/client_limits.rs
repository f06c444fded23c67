//! Limits per client on the real server (issue 34, docs/protocol.md "Limits per client"): what
//! one address (and one account) may hold and say over all its connections, tried as the
//! hostile client of the issue did, with fresh sockets from one address of 127.0.0.0/8, while
//! honest clients on other addresses are served.

use crate::support;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use marseillais::server::config::Config;
use marseillais::server::lobby::channel::msg::LobbyMsg;
use marseillais::server::play::protocol::ErrorCode;
use serde_json::json;
use support::WAIT;
use support::http::{exchange_from, head};
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::session::Session;
use support::ws::{Client, ConnectError};

/// The chat buckets refill over an hour instead of 5 s (burst and counts unchanged): what a
/// flood gets is then its burst however slowly a loaded machine runs the test.
fn slow_refill(config: &mut Config) {
    config.chat_window = Duration::from_secs(3600);
}

fn at(last: u8) -> Option<IpAddr> {
    Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)))
}

/// An anonymous lobby page from `source`, once the server counts it: the upgrade is answered
/// before the channel's task registers it, and its first `online` is sent after.
async fn lobby_from(addr: SocketAddr, source: Option<IpAddr>) -> LobbyClient {
    let mut page = match LobbyClient::try_connect_from(source, addr, None).await {
        Ok(page) => page,
        Err(why) => panic!("a lobby page from {source:?}: {why}"),
    };
    page.until("its first online", |m| matches!(m, LobbyMsg::Online(_)))
        .await;
    page
}

async fn spectator_from(addr: SocketAddr, source: Option<IpAddr>, id: &str) -> Client {
    match Client::try_connect_from(source, addr, (id, ""), &[]).await {
        Ok(client) => client,
        Err(why) => panic!("a spectator of {id} from {source:?}: {why}"),
    }
}

/// The raw answer to a WebSocket upgrade of `path` from `source`: its status, `Retry-After`
/// and body (what a refused page reads).
async fn upgrade_from(addr: SocketAddr, source: Option<IpAddr>, path: &str) -> (u16, u64, String) {
    let request = head(
        "GET",
        path,
        &[
            "Connection: Upgrade",
            "Upgrade: websocket",
            "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        ],
    );
    let reply = exchange_from(source, addr, &request, WAIT)
        .await
        .expect("an answer");
    let retry = reply
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    (reply.status, retry, reply.body)
}

/// Says `text` in `room` on a game socket; the answer: `Ok` when the line came back, the
/// refusal's code and `retry_after_secs` otherwise.
async fn say(client: &mut Client, room: &str, text: &str) -> Result<(), (String, u64)> {
    client
        .send(json!({"t": "chat", "d": {"room": room, "text": text}}))
        .await;
    let answer = client
        .until("the line or its refusal", |m| {
            m.t == "error" || (m.t == "chat" && m.d["text"] == text)
        })
        .await;
    if answer.t == "chat" {
        return Ok(());
    }
    let retry = answer.d["retry_after_secs"].as_u64().unwrap_or(0);
    Err((answer.str("code"), retry))
}

/// Says `text` in the lobby; `Ok` when it came back to this page, else the refusal's code.
async fn say_in_lobby(page: &mut LobbyClient, text: &str) -> Result<(), ErrorCode> {
    let frame = json!({"t": "chat", "d": {"room": "lobby", "text": text}});
    page.send_text(&frame.to_string()).await;
    let answer = page
        .until("the line or its refusal", |m| match m {
            LobbyMsg::Chat(line) => line.text == text,
            LobbyMsg::Error(_) => true,
            _ => false,
        })
        .await;
    match answer {
        LobbyMsg::Error(error) => Err(error.code),
        _ => Ok(()),
    }
}

#[tokio::test]
async fn an_address_holds_ten_lobby_channels_the_eleventh_is_429_with_retry_after_and_others_are_served()
 {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let mut pages = Vec::new();
    for _ in 0..10 {
        pages.push(lobby_from(addr, at(2)).await);
    }
    let (status, retry, body) = upgrade_from(addr, at(2), "/ws/lobby").await;
    assert_eq!(status, 429, "{body}");
    assert!(retry >= 1, "a Retry-After");
    assert!(body.contains("rate_limited"), "{body}");
    let _honest = lobby_from(addr, at(3)).await;
    // A page that closes gives its place back (the hold goes with the socket's task).
    pages.pop().expect("a page").ws.close(None).await.ok();
    let mut reopened = None;
    for _ in 0..250 {
        if let Ok(page) = LobbyClient::try_connect_from(at(2), addr, None).await {
            reopened = Some(page);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(reopened.is_some(), "a place freed by a closed page");
    rig.stop().await;
}

#[tokio::test]
async fn an_account_holds_ten_lobby_channels_whatever_addresses_it_comes_from() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let mut pages = Vec::new();
    for i in 0..10 {
        let page = LobbyClient::try_connect_from(at(20 + i), addr, Some(&alice.cookie)).await;
        pages.push(page.expect("one of alice's ten"));
    }
    let eleventh = LobbyClient::try_connect_from(at(40), addr, Some(&alice.cookie)).await;
    assert!(
        matches!(eleventh, Err(ConnectError::Refused(429))),
        "alice's eleventh page, from a fresh address"
    );
    let _anonymous = lobby_from(addr, at(40)).await;
    rig.stop().await;
}

#[tokio::test]
async fn the_online_figure_counts_an_address_once_however_many_pages_it_opens() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let mut pages = Vec::new();
    for _ in 0..10 {
        pages.push(lobby_from(addr, at(4)).await);
    }
    pages.push(lobby_from(addr, at(5)).await);
    let mut newcomer = LobbyClient::try_connect_from(at(6), addr, None)
        .await
        .expect("the newcomer's page");
    let online = newcomer
        .until("online", |m| matches!(m, LobbyMsg::Online(_)))
        .await;
    let LobbyMsg::Online(online) = online else {
        unreachable!("matched above")
    };
    assert_eq!(online.count, 3, "three addresses, twelve pages");
    rig.stop().await;
}

#[tokio::test]
async fn fresh_sockets_of_one_address_get_six_lines_into_a_spectator_room_and_other_addresses_still_chat()
 {
    let rig = Rig::start_with(slow_refill).await;
    let addr = rig.addr();
    let (id, _white, _black) = rig.players(json!({})).await;
    let mut said = 0;
    let mut refusals = Vec::new();
    // The flood: a fresh socket per line, each well under its own rate.
    for i in 0..20 {
        let mut socket = spectator_from(addr, at(7), &id).await;
        match say(&mut socket, "spectator", &format!("flood {i}")).await {
            Ok(()) => said += 1,
            Err(refused) => refusals.push(refused),
        }
    }
    assert_eq!(said, 6, "the burst of 6 lines per room per address");
    assert!(
        refusals
            .iter()
            .all(|(code, retry)| code == "rate_limited" && *retry >= 1),
        "{refusals:?}"
    );
    let mut honest = spectator_from(addr, at(8), &id).await;
    assert_eq!(say(&mut honest, "spectator", "nice game").await, Ok(()));
    rig.stop().await;
}

#[tokio::test]
async fn one_address_spread_over_many_rooms_gets_fifteen_lines_in_all() {
    let rig = Rig::start_with(slow_refill).await;
    let addr = rig.addr();
    let mut said = 0;
    for i in 0..18 {
        // Each made by a client of its own: one client holds at most 3 open games.
        let (id, _, _) = rig.create_from(at(100 + i), json!({})).await;
        let mut socket = spectator_from(addr, at(9), &id).await;
        if say(&mut socket, "spectator", &format!("room {i}"))
            .await
            .is_ok()
        {
            said += 1;
        }
    }
    assert_eq!(said, 15, "the burst of 15 lines per address over all rooms");
    rig.stop().await;
}

#[tokio::test]
async fn a_lobby_flood_from_ten_pages_of_one_address_gets_six_lines_and_an_honest_page_still_chats()
{
    let rig = Rig::start_with(slow_refill).await;
    let addr = rig.addr();
    let mut pages = Vec::new();
    for _ in 0..10 {
        pages.push(lobby_from(addr, at(10)).await);
    }
    let mut said = 0;
    for round in 0..2 {
        for (i, page) in pages.iter_mut().enumerate() {
            match say_in_lobby(page, &format!("flood {round}.{i}")).await {
                Ok(()) => said += 1,
                Err(code) => assert_eq!(code, ErrorCode::RateLimited),
            }
        }
    }
    assert_eq!(said, 6, "the burst of 6 lobby lines per address");
    let mut honest = lobby_from(addr, at(11)).await;
    assert_eq!(say_in_lobby(&mut honest, "hello all").await, Ok(()));
    rig.stop().await;
}

#[tokio::test]
async fn game_sockets_per_address_are_capped_and_refused_with_429() {
    let rig = Rig::start_with(|config| config.clients.game_sockets = 3).await;
    let addr = rig.addr();
    let (id, _, _) = rig.create(json!({})).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(spectator_from(addr, at(12), &id).await);
    }
    let (status, retry, body) = upgrade_from(addr, at(12), &format!("/ws/game/{id}")).await;
    assert_eq!((status, retry >= 1), (429, true), "{body}");
    assert!(body.contains("rate_limited"), "{body}");
    let _other = spectator_from(addr, at(13), &id).await;
    rig.stop().await;
}

#[tokio::test]
async fn a_finished_games_spectator_room_closes_after_its_delay_and_the_players_room_stays_open() {
    let rig = Rig::start_with(|config| {
        config.clients.spectator_chat_after_end = Duration::ZERO;
    })
    .await;
    let (id, mut white, mut black) = rig.players(json!({})).await;
    let mut spectator = rig.spectate(&id).await;
    assert_eq!(
        say(&mut spectator, "spectator", "while it runs").await,
        Ok(())
    );
    white.send(json!({"t": "resign"})).await;
    spectator.skip_to("end").await;
    let refused = say(&mut spectator, "spectator", "after the end").await;
    assert_eq!(
        refused.map_err(|(code, _)| code),
        Err("not_allowed".to_owned())
    );
    assert_eq!(say(&mut black, "player", "good game").await, Ok(()));
    rig.stop().await;
}
