//! Quick pairing on a real server: lobby pages (real WebSockets on 127.0.0.1, signed in with
//! real sessions or anonymous) join pools, waves pair them, and each page gets a seat that its
//! game socket takes. The waves run every few milliseconds here (`LobbyLimits::pool_wave`)
//! instead of every 12-40 s: the test waits for what the pages are told, never for time.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use marseillais::server::domain::side::Side;
use marseillais::server::lobby::channel::msg::LobbyMsg;
use marseillais::server::play::protocol::ErrorCode;
use marseillais::server::pool::msg::{LeftReason, PoolMsg, PoolsMsg};
use marseillais::server::store::{FailingStore, GameStatus, MemoryStore, Store};
use serde_json::{Value, json};
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::session::Session;

/// A server whose waves run every 20 ms, and whose counts are sent at most every 20 ms.
async fn rig() -> Rig {
    Rig::start_with(fast).await
}

fn fast(c: &mut marseillais::server::config::Config) {
    c.lobby.pool_wave = Some(Duration::from_millis(20));
    c.lobby.online_every = Duration::from_millis(20);
}

/// A lobby page that watches the pools' counts, as the lobby page does.
async fn page(rig: &Rig, who: Option<&Session>) -> LobbyClient {
    let mut page = LobbyClient::connect(rig.addr(), who.map(|s| s.cookie.as_str())).await;
    page.watch_pools().await;
    page
}

fn is_paired(m: &PoolMsg) -> bool {
    matches!(m, PoolMsg::PoolPaired(_))
}

#[tokio::test]
async fn two_anonymous_pages_in_one_pool_get_one_game_and_a_seat_each() {
    let rig = rig().await;
    let mut a = page(&rig, None).await;
    let mut b = page(&rig, None).await;
    a.join_pool("3+2", false).await;
    b.join_pool("3+2", false).await;
    let (seat_a, seat_b) = (a.pool_paired().await, b.pool_paired().await);
    assert_eq!(seat_a.game, seat_b.game, "one game for the pair");
    assert_ne!(seat_a.color, seat_b.color);
    assert_eq!(seat_a.url, format!("/game/{}", seat_a.game));
    assert!(!seat_a.rated && seat_a.pool == "3+2");
    // Each token holds its own seat of a game that has started: both seats taken.
    for seat in [&seat_a, &seat_b] {
        let mut client = rig.seat(&seat.game, &seat.token).await;
        let state = client.recv_type("state").await;
        assert_eq!(state.d["you"], json!(seat.color), "{state}");
        assert_eq!(state.d["clock"]["base_secs"], json!(180), "{state}");
        assert_eq!(state.d["status"], json!("playing"), "{state}");
    }
    // Nothing more for either seek.
    assert!(
        a.pool_quiet_for(Duration::from_millis(200), is_paired)
            .await
    );
    assert!(
        b.pool_quiet_for(Duration::from_millis(200), is_paired)
            .await
    );
}

#[tokio::test]
async fn two_accounts_in_a_rated_pool_get_a_rated_game_and_anonymous_pages_may_not_join_it() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let mut anonymous = page(&rig, None).await;
    anonymous.pool_in("5+3", true).await;
    let refused = anonymous
        .until("error", |m| matches!(m, LobbyMsg::Error(_)))
        .await;
    let LobbyMsg::Error(error) = refused else {
        unreachable!()
    };
    assert_eq!(error.code, ErrorCode::NotLoggedIn);
    let mut a = page(&rig, Some(&alice)).await;
    let mut b = page(&rig, Some(&bob)).await;
    a.join_pool("5+3", true).await;
    b.join_pool("5+3", true).await;
    let (seat_a, seat_b) = (a.pool_paired().await, b.pool_paired().await);
    assert_eq!(seat_a.game, seat_b.game);
    assert!(seat_a.rated);
    let (status, game) = alice
        .call(
            rig.addr(),
            "GET",
            &format!("/api/games/{}", seat_a.game),
            None,
        )
        .await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["rated"], json!(true), "{game}");
    let names: Vec<Value> = ["white", "black"]
        .iter()
        .map(|c| game["players"][c]["name"].clone())
        .collect();
    assert!(
        names.contains(&json!("alice")) && names.contains(&json!("bob")),
        "{game}"
    );
}

#[tokio::test]
async fn an_account_and_an_anonymous_page_are_never_paired() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let mut a = page(&rig, Some(&alice)).await;
    let mut x = page(&rig, None).await;
    a.join_pool("1+0", false).await;
    x.join_pool("1+0", false).await;
    // Twenty waves and more.
    assert!(
        a.pool_quiet_for(Duration::from_millis(500), is_paired)
            .await
    );
    assert!(x.pool_quiet_for(Duration::from_millis(50), is_paired).await);
    x.pools_show("1+0", 0, 2).await;
}

#[tokio::test]
async fn the_lobby_shows_who_waits_live_and_a_closed_page_leaves_at_once() {
    let rig = rig().await;
    let mut watcher = page(&rig, None).await;
    watcher.pools_show("15+10", 0, 0).await;
    let mut leaver = page(&rig, None).await;
    leaver.join_pool("15+10", false).await;
    watcher.pools_show("15+10", 0, 1).await;
    let (status, census) = rig.http("GET", "/api/pools", None).await;
    assert_eq!(status, 200, "{census}");
    let census: PoolsMsg = serde_json::from_str(&census).expect("the pools' census");
    let ids: Vec<&str> = census.pools.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["1+0", "3+0", "3+2", "5+3", "10+5", "15+10"]);
    assert_eq!(census.pools[5].casual, 1);
    leaver.close().await;
    watcher.pools_show("15+10", 0, 0).await;
    // Alone in the pool now, the watcher is not paired with the page that left.
    watcher.join_pool("15+10", false).await;
    assert!(
        watcher
            .pool_quiet_for(Duration::from_millis(300), is_paired)
            .await
    );
}

#[tokio::test]
async fn pool_out_leaves_the_pool_and_says_so() {
    let rig = rig().await;
    let mut a = page(&rig, None).await;
    a.join_pool("10+5", false).await;
    a.send_text(r#"{"t":"pool_out"}"#).await;
    assert_eq!(a.pool_left().await.reason, LeftReason::Cancelled);
    a.pools_show("10+5", 0, 0).await;
    let mut b = page(&rig, None).await;
    b.join_pool("10+5", false).await;
    assert!(
        b.pool_quiet_for(Duration::from_millis(300), is_paired)
            .await
    );
}

#[tokio::test]
async fn an_account_waits_once_its_second_page_replaces_the_first() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let mut first = page(&rig, Some(&alice)).await;
    let mut second = page(&rig, Some(&alice)).await;
    first.join_pool("3+0", false).await;
    second.join_pool("5+3", false).await;
    let left = first.pool_left().await;
    assert_eq!(
        (left.reason, left.pool.as_str()),
        (LeftReason::Replaced, "3+0")
    );
    second.pools_show("3+0", 0, 0).await;
    second.pools_show("5+3", 0, 1).await;
}

#[tokio::test]
async fn of_three_pages_two_get_one_game_and_the_third_waits_with_no_second_game() {
    let rig = rig().await;
    let mut pages = Vec::new();
    for _ in 0..3 {
        let mut p = page(&rig, None).await;
        p.join_pool("3+2", false).await;
        pages.push(p);
    }
    // The first two pages told of a game are the pair; the third waits.
    let waits = pages
        .iter_mut()
        .enumerate()
        .map(|(i, p)| Box::pin(async move { (i, p.pool_paired().await) }));
    let ((first, seat_1), _, rest) = futures_util::future::select_all(waits).await;
    let ((second, seat_2), _, rest) = futures_util::future::select_all(rest).await;
    drop(rest);
    assert_eq!(seat_1.game, seat_2.game, "two paired together");
    let waiting = 3 - first - second;
    pages[waiting].pools_show("3+2", 0, 1).await;
    // The paired pages hear nothing more: a seek gives one game.
    for (i, p) in pages.iter_mut().enumerate() {
        if i != waiting {
            assert!(
                p.pool_quiet_for(Duration::from_millis(200), is_paired)
                    .await
            );
        }
    }
}

#[tokio::test]
async fn a_pairing_whose_game_cannot_be_stored_makes_no_game_and_both_wait_to_be_paired_again() {
    let store = Arc::new(MemoryStore::new());
    let failing = Arc::new(FailingStore::new(store.clone() as Arc<dyn Store>));
    failing.set_failing(true);
    let rig = Rig::builder()
        .store(failing.clone() as Arc<dyn Store>)
        .config(fast)
        .start()
        .await;
    let mut a = page(&rig, None).await;
    let mut b = page(&rig, None).await;
    a.join_pool("1+0", false).await;
    b.join_pool("1+0", false).await;
    // Waves pair them and fail to store the game, again and again; no page is told of a game
    // that does not exist, and none is stored.
    assert!(
        a.pool_quiet_for(Duration::from_millis(300), is_paired)
            .await
    );
    let playing = store.list(GameStatus::Playing, 10, 0).await.expect("list");
    assert!(playing.is_empty(), "{playing:?}");
    failing.set_failing(false);
    let (seat_a, seat_b) = (a.pool_paired().await, b.pool_paired().await);
    assert_eq!(seat_a.game, seat_b.game);
    let (_, events) = store
        .load_game(&seat_a.game)
        .await
        .expect("load")
        .expect("the game is stored");
    assert_eq!(
        events.len(),
        2,
        "created and joined, in one commit: {events:?}"
    );
    assert!([Side::White, Side::Black].contains(&seat_a.color));
}

/// The `error` a page is sent for its last request.
async fn refused(page: &mut LobbyClient) -> marseillais::server::play::protocol::ErrorMsg {
    match page
        .until("error", |m| matches!(m, LobbyMsg::Error(_)))
        .await
    {
        LobbyMsg::Error(error) => error,
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn one_address_holds_at_most_four_seeks_at_once() {
    let rig = rig().await;
    let mut pages = Vec::new();
    // Four pools, so that no two of these seeks are paired together.
    for pool in ["1+0", "3+0", "3+2", "5+3"] {
        let mut p = page(&rig, None).await;
        p.join_pool(pool, false).await;
        pages.push(p);
    }
    let mut fifth = page(&rig, None).await;
    fifth.pool_in("10+5", false).await;
    let error = refused(&mut fifth).await;
    assert_eq!(error.code, ErrorCode::RateLimited, "{error:?}");
    assert!(error.message.contains("4 seeks"), "{}", error.message);
    // One leaves: once the server has seen it go, the fifth page may wait.
    pages.pop().expect("four pages").close().await;
    fifth.pools_show("5+3", 0, 0).await;
    fifth.join_pool("10+5", false).await;
}

#[tokio::test]
async fn joining_a_pool_draws_on_the_addresss_budget_of_games() {
    let rig = Rig::start_with(|c| {
        fast(c);
        c.create_rate_per_sec = 0.001;
        c.create_burst = 2.0;
    })
    .await;
    let mut a = page(&rig, None).await;
    a.join_pool("3+0", false).await;
    a.join_pool("5+3", false).await;
    a.pool_in("3+0", false).await;
    let error = refused(&mut a).await;
    assert_eq!(error.code, ErrorCode::RateLimited, "{error:?}");
    // The same budget as creating a game over HTTP: spent.
    let (status, body) = rig.http("POST", "/api/games", Some("{}")).await;
    assert_eq!(status, 429, "{body}");
}

#[tokio::test]
async fn only_a_page_that_asks_is_sent_the_counts() {
    let rig = rig().await;
    let mut quiet = LobbyClient::connect(rig.addr(), None).await;
    let mut joiner = page(&rig, None).await;
    joiner.join_pool("3+0", false).await;
    joiner.pools_show("3+0", 0, 1).await;
    assert!(
        quiet
            .pool_quiet_for(Duration::from_millis(300), |m| matches!(
                m,
                PoolMsg::Pools(_)
            ))
            .await,
        "a page that did not send pools_watch gets no counts"
    );
}
