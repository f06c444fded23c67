//! The arena routes as a player uses them (docs/protocol.md, "Arenas"), over HTTP with a
//! signed-in session: make one that starts now, join, read its page, wait for what the page
//! says (polled: the pairing steps on its own clock), play a paired game to White's mate.

use std::net::SocketAddr;
use std::time::Duration;

use marseillais::server::config::{ArenaScheduleChoice, Config};
use marseillais::server::game::now_ms;
use serde_json::{Value, json};

use super::game::play_until_white_mates_in_one;
use super::s;
use super::session::Session;

/// A server whose arenas pair every 20 ms and that makes no arena of its own: what every
/// arena test runs on (`Rig::builder().config(fast_pairing)`).
pub fn fast_pairing(c: &mut Config) {
    c.arena.pairing_every = Duration::from_millis(20);
    c.arena.schedule = ArenaScheduleChoice::Off;
}

/// An arena of `minutes` on 3+2 that starts now, made by `who` through `addr`; its id.
pub async fn arena_now(addr: SocketAddr, who: &Session, minutes: u32) -> String {
    let body = json!({
        "name": "Test arena",
        "clock": {"base_secs": 180, "increment_secs": 2},
        "starts_ms": now_ms(),
        "duration_minutes": minutes,
    });
    let (status, reply) = who.call(addr, "POST", "/api/arenas", Some(&body)).await;
    assert_eq!(status, 201, "{reply}");
    assert_eq!(reply["phase"], json!("running"), "{reply}");
    s(&reply["id"])
}

/// The arena's page as `who` sees it.
pub async fn show(addr: SocketAddr, who: &Session, id: &str) -> Value {
    let (status, reply) = who
        .call(addr, "GET", &format!("/api/arenas/{id}"), None)
        .await;
    assert_eq!(status, 200, "{reply}");
    reply
}

/// `who` joins; the page it is answered.
pub async fn join(addr: SocketAddr, who: &Session, id: &str) -> Value {
    let (status, reply) = who
        .call(addr, "POST", &format!("/api/arenas/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{reply}");
    reply
}

/// The arena's page for `who` once `ready` holds (polled every 20 ms, for at most 10 s).
pub async fn until(
    addr: SocketAddr,
    who: &Session,
    id: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..500 {
        let page = show(addr, who, id).await;
        if ready(&page) {
            return page;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the arena's page never showed what was awaited");
}

/// `who`'s game in the arena once paired: (game id, colour).
pub async fn paired(addr: SocketAddr, who: &Session, id: &str) -> (String, String) {
    let page = until(addr, who, id, |p| p["me"]["game"].is_object()).await;
    (
        s(&page["me"]["game"]["id"]),
        s(&page["me"]["game"]["color"]),
    )
}

/// `name`'s line of the standings shown.
pub fn standing<'a>(page: &'a Value, name: &str) -> &'a Value {
    page["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .find(|line| line["name"] == json!(name))
        .unwrap_or_else(|| panic!("{name} in {page}"))
}

/// How many games the page lists.
pub fn games(page: &Value) -> usize {
    page["games"].as_array().map_or(0, Vec::len)
}

/// Plays `game` through `addr` between the two sessions to White's mate in two turns.
pub async fn white_mates(addr: SocketAddr, white: &Session, black: &Session, game: &str) {
    let mut w = white.connect(addr, game, "").await;
    let mut b = black.connect(addr, game, "").await;
    w.skip_to("state").await;
    b.skip_to("state").await;
    play_until_white_mates_in_one(&mut w, &mut b).await;
    w.play("d1h5", "w2").await;
    w.recv_type("end").await;
}

/// A new arena that starts now, made by `a`, with `a` and `b` in it; its id.
pub async fn arena_for_two(addr: SocketAddr, a: &Session, b: &Session) -> String {
    let id = arena_now(addr, a, 60).await;
    join(addr, a, &id).await;
    join(addr, b, &id).await;
    id
}

/// The next game of the only two players of arena `id`, once paired: (game, White, Black).
pub async fn next_game<'a>(
    addr: SocketAddr,
    a: &'a Session,
    b: &'a Session,
    id: &str,
) -> (String, &'a Session, &'a Session) {
    let (game, a_color) = paired(addr, a, id).await;
    if a_color == "white" {
        (game, a, b)
    } else {
        (game, b, a)
    }
}
