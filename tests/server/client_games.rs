//! The games one client holds on the real server (issue 35, docs/protocol.md "Limits per
//! client"): open games and unfinished games against the computer, per address and per
//! account, made from several addresses of 127.0.0.0/8. Each slot comes back when its game
//! stops counting (joined, aborted, expired, finished), which the tests see happen on the wire
//! before they ask again.

use crate::support;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use marseillais::server::config::Config;
use serde_json::{Value, json};
use support::http::{Reply, exchange_from};
use support::rig::Rig;
use support::session::Session;
use support::ws::Client;
use support::{WAIT, s};

fn at(last: u8) -> Option<IpAddr> {
    Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)))
}

/// `POST /api/games` with `body` from `source`, signed in as `session` if given.
async fn create_from(
    addr: SocketAddr,
    source: Option<IpAddr>,
    session: Option<&Session>,
    body: Value,
) -> Reply {
    let body = body.to_string();
    let mut head = format!(
        "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\nOrigin: http://{addr}\r\n",
        body.len()
    );
    if let Some(session) = session {
        head.push_str(&format!("Cookie: {}\r\n", session.cookie));
    }
    head.push_str("\r\n");
    let mut request = head.into_bytes();
    request.extend_from_slice(body.as_bytes());
    exchange_from(source, addr, &request, WAIT)
        .await
        .expect("an answer to POST /api/games")
}

/// A game made from `source`: (id, creator's token); panics unless it is `201`.
async fn made(
    addr: SocketAddr,
    source: Option<IpAddr>,
    session: Option<&Session>,
    body: Value,
) -> (String, String) {
    let reply = create_from(addr, source, session, body).await;
    assert_eq!(reply.status, 201, "{}", reply.body);
    let grant: Value = serde_json::from_str(&reply.body).expect("a seat grant");
    (s(&grant["id"]), s(&grant["token"]))
}

/// Asserts `reply` is the refusal of a client at its cap of `what` (`429 rate_limited`, a
/// `Retry-After`, a message naming the cap).
fn assert_capped(reply: &Reply, what: &str) {
    assert_eq!(reply.status, 429, "{}", reply.body);
    let retry: u64 = reply
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(retry >= 1, "a Retry-After: {}", reply.head);
    let body: Value = serde_json::from_str(&reply.body).expect("a JSON error");
    assert_eq!(body["code"], "rate_limited", "{body}");
    assert!(s(&body["message"]).contains(what), "{body}");
}

/// The creator's socket on game `id`, from `source`.
async fn seat_from(addr: SocketAddr, source: Option<IpAddr>, id: &str, token: &str) -> Client {
    let query = format!("token={token}");
    match Client::try_connect_from(source, addr, (id, &query), &[]).await {
        Ok(client) => client,
        Err(why) => panic!("the creator's socket on {id}: {why}"),
    }
}

/// The ids of the listed open games (the lobby's first page).
async fn open_listing(rig: &Rig) -> Vec<String> {
    let (status, text) = rig.http("GET", "/api/games?status=open", None).await;
    assert_eq!(status, 200, "{text}");
    let listing: Value = serde_json::from_str(&text).expect("json");
    listing["games"]
        .as_array()
        .map(|games| games.iter().map(|g| s(&g["id"])).collect())
        .unwrap_or_default()
}

const OPEN: &str = "at most 3 open games";
const COMPUTER: &str = "games against the computer";

fn against_computer() -> Value {
    json!({"computer": {"level": 1}, "color": "white"})
}

#[tokio::test]
async fn an_address_holding_its_open_games_is_refused_another_and_others_are_served() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    // Live and correspondence alike.
    made(addr, at(2), None, json!({})).await;
    made(addr, at(2), None, json!({"clock": {"days_per_turn": 3}})).await;
    made(addr, at(2), None, json!({"listed": false})).await;
    assert_capped(&create_from(addr, at(2), None, json!({})).await, OPEN);
    let correspondence = json!({"clock": {"days_per_turn": 1}});
    assert_capped(&create_from(addr, at(2), None, correspondence).await, OPEN);
    made(addr, at(3), None, json!({})).await;
    // A game against the computer is not an open game: its own cap.
    made(addr, at(2), None, against_computer()).await;
    rig.stop().await;
}

#[tokio::test]
async fn the_lobby_lists_at_most_three_open_games_of_an_address_that_floods_it() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let mut mine = Vec::new();
    let mut refused = 0;
    for _ in 0..20 {
        let reply = create_from(addr, at(4), None, json!({})).await;
        match reply.status {
            201 => {
                let grant: Value = serde_json::from_str(&reply.body).expect("json");
                mine.push(s(&grant["id"]));
            }
            _ => {
                assert_capped(&reply, OPEN);
                refused += 1;
            }
        }
    }
    assert_eq!((mine.len(), refused), (3, 17));
    let (other, _) = made(addr, at(5), None, json!({})).await;
    let mut listed = open_listing(&rig).await;
    listed.sort();
    mine.push(other);
    mine.sort();
    assert_eq!(listed, mine);
    rig.stop().await;
}

#[tokio::test]
async fn a_joined_game_frees_its_creators_open_game_slot() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let mut games = Vec::new();
    for _ in 0..3 {
        games.push(made(addr, at(6), None, json!({})).await.0);
    }
    assert_capped(&create_from(addr, at(6), None, json!({})).await, OPEN);
    // Joined from 127.0.0.1: the game is being played, no longer open.
    rig.join(&games[0]).await;
    made(addr, at(6), None, json!({})).await;
    assert_capped(&create_from(addr, at(6), None, json!({})).await, OPEN);
    rig.stop().await;
}

#[tokio::test]
async fn an_aborted_open_game_frees_its_creators_slot() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let (id, token) = made(addr, at(7), None, json!({})).await;
    made(addr, at(7), None, json!({})).await;
    made(addr, at(7), None, json!({})).await;
    assert_capped(&create_from(addr, at(7), None, json!({})).await, OPEN);
    let mut creator = seat_from(addr, at(7), &id, &token).await;
    creator.send(json!({"t": "abort"})).await;
    assert_eq!(creator.recv_type("end").await.d["reason"], "aborted");
    made(addr, at(7), None, json!({})).await;
    rig.stop().await;
}

#[tokio::test]
async fn an_open_game_expired_by_its_room_or_in_the_store_frees_its_creators_slot() {
    let rig = Rig::start_with(|c| {
        c.clients.open_games = 1;
        c.open_game_ttl = Duration::from_millis(300);
        c.retire_after = Duration::ZERO;
    })
    .await;
    let addr = rig.addr();
    // Its creator waits in the room: the room's timer ends it, and tells the creator.
    let (id, token) = made(addr, at(8), None, json!({})).await;
    let mut creator = seat_from(addr, at(8), &id, &token).await;
    // (Or it had ended before the socket opened: its state says so.)
    creator
        .until("the end", |m| {
            m.t == "end" || m.t == "state" && m.d["status"] == "finished"
        })
        .await;
    // Nobody waits: the room retires at once, and the sweeper ends the game in the store.
    let (id, _) = made(addr, at(8), None, json!({})).await;
    let ended = support::eventually(WAIT, || async {
        let (_, text) = rig.http("GET", "/api/games?status=finished", None).await;
        text.contains(&id)
    })
    .await;
    assert!(ended, "the sweeper ended {id}");
    // The sweeper gives the slot back once its commit is done, which the listing can show a
    // moment before: wait for the slot itself (a refusal at the cap costs nothing).
    let freed = support::eventually(WAIT, || async {
        create_from(addr, at(8), None, json!({})).await.status == 201
    })
    .await;
    assert!(freed, "the expired game's slot came back");
    rig.stop().await;
}

/// A server whose engine never refuses a computer game as busy: these tests make several at
/// once whose person never plays, each counted as a search to come for a while
/// (docs/protocol.md, "Playing the computer"); the per-client caps are under test, not that.
fn engine_never_busy(config: &mut Config) {
    config.engine_max_wait = Duration::from_secs(3600);
}

#[tokio::test]
async fn an_account_is_capped_across_addresses() {
    let rig = Rig::start_with(engine_never_busy).await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    for last in 20..23 {
        made(addr, at(last), Some(&alice), json!({})).await;
    }
    assert_capped(
        &create_from(addr, at(23), Some(&alice), json!({})).await,
        OPEN,
    );
    // The address itself holds nothing: anonymous, it is served.
    made(addr, at(23), None, json!({})).await;
    for last in 24..28 {
        made(addr, at(last), Some(&alice), against_computer()).await;
    }
    assert_capped(
        &create_from(addr, at(28), Some(&alice), against_computer()).await,
        COMPUTER,
    );
    rig.stop().await;
}

#[tokio::test]
async fn after_a_restart_an_accounts_open_games_still_hold_its_slots_but_not_its_addresss() {
    let mut rig = Rig::builder().keep_port().start().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    for _ in 0..3 {
        made(addr, at(30), Some(&alice), json!({})).await;
    }
    rig.restart().await;
    assert_capped(
        &create_from(addr, at(31), Some(&alice), json!({})).await,
        OPEN,
    );
    // Addresses are not stored: the address's open games hold nothing for it now.
    made(addr, at(30), None, json!({})).await;
    rig.stop().await;
}

#[tokio::test]
async fn computer_games_per_address_are_capped_and_a_finished_one_frees_its_slot() {
    let rig = Rig::start_with(engine_never_busy).await;
    let addr = rig.addr();
    let mut games = Vec::new();
    for _ in 0..4 {
        games.push(made(addr, at(40), None, against_computer()).await);
    }
    assert_capped(
        &create_from(addr, at(40), None, against_computer()).await,
        COMPUTER,
    );
    made(addr, at(41), None, against_computer()).await;
    // An open game is not a game against the computer: its own cap.
    made(addr, at(40), None, json!({})).await;
    let (id, token) = &games[0];
    let mut player = seat_from(addr, at(40), id, token).await;
    player.send(json!({"t": "resign"})).await;
    player.recv_type("end").await;
    made(addr, at(40), None, against_computer()).await;
    assert_capped(
        &create_from(addr, at(40), None, against_computer()).await,
        COMPUTER,
    );
    rig.stop().await;
}

#[tokio::test]
async fn a_rematch_against_the_computer_is_never_refused_and_takes_its_finished_games_slot() {
    let rig = Rig::start_with(|c| {
        engine_never_busy(c);
        c.clients.computer_games = 1;
    })
    .await;
    let addr = rig.addr();
    let (id, token) = made(addr, at(50), None, against_computer()).await;
    let mut player = seat_from(addr, at(50), &id, &token).await;
    player.send(json!({"t": "resign"})).await;
    player.recv_type("end").await;
    // The finished game's slot is free: another game takes it before the rematch.
    let (other, other_token) = made(addr, at(50), None, against_computer()).await;
    player.send(json!({"t": "rematch_offer"})).await;
    let seat = player
        .until("the rematch seat", |m| m.t == "rematch_seat")
        .await;
    // Two games at once now, one over the cap, and no third.
    assert_capped(
        &create_from(addr, at(50), None, against_computer()).await,
        COMPUTER,
    );
    let mut other_player = seat_from(addr, at(50), &other, &other_token).await;
    other_player.send(json!({"t": "resign"})).await;
    other_player.recv_type("end").await;
    assert_capped(
        &create_from(addr, at(50), None, against_computer()).await,
        COMPUTER,
    );
    let mut rematch = seat_from(addr, at(50), &seat.str("id"), &seat.str("token")).await;
    rematch.send(json!({"t": "resign"})).await;
    rematch.recv_type("end").await;
    made(addr, at(50), None, against_computer()).await;
    rig.stop().await;
}
