//! Fair play by rule (playban, docs/fair-play.md) on a real server: signed-in players abort
//! real games over real sockets, and the pause that follows refuses every entrance that starts
//! a game (create, join, computer, pool seek, challenge made and accepted, arena join) with 403
//! `playban`, its end and reason; `GET /api/playban` says the same. Earlier outcomes are put in
//! the store dated in the past (a second pause, an expired one): no test waits for a clock.

use crate::support;

use std::sync::Arc;

use marseillais::server::game::now_ms;
use marseillais::server::play::protocol::ErrorCode;
use marseillais::server::players::account::{UserId, Username};
use marseillais::server::store::{MemoryStore, PlaybanEnd, PlaybanOutcome, Store};
use serde_json::{Value, json};
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::s;
use support::session::Session;

const MINUTE: i64 = 60_000;

/// `aborter` makes a game as White, `other` joins it, `aborter` aborts it at once (on their own
/// first turn); returns the game's id when the end is seen (it is stored before it is sent).
async fn abort_one(rig: &Rig, aborter: &Session, other: &Session) -> String {
    let addr = rig.addr();
    let (status, created) = aborter
        .call(addr, "POST", "/api/games", Some(&json!({"color": "white"})))
        .await;
    assert_eq!(status, 201, "{created}");
    let id = s(&created["id"]);
    let (status, joined) = other
        .call(addr, "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let mut socket = aborter.connect(addr, &id, "").await;
    socket.send(json!({"t": "abort"})).await;
    assert_eq!(socket.recv_type("end").await.d["reason"], "aborted");
    id
}

/// The body of a 403 `playban`, checked.
fn refused(status: u16, body: &Value) -> (i64, String) {
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["code"], "playban", "{body}");
    assert!(s(&body["message"]).contains("minute"), "{body}");
    (
        body["until_ms"].as_i64().expect("until_ms"),
        s(&body["reason"]),
    )
}

async fn create(rig: &Rig, who: &Session, body: Value) -> (u16, Value) {
    who.call(rig.addr(), "POST", "/api/games", Some(&body))
        .await
}

async fn playban_of(rig: &Rig, who: &Session) -> Value {
    let (status, body) = who.call(rig.addr(), "GET", "/api/playban", None).await;
    assert_eq!(status, 200, "{body}");
    body["ban"].clone()
}

async fn user_id(store: &dyn Store, name: &str) -> UserId {
    let name = Username::parse(name).expect("name");
    store
        .find_user(&name)
        .await
        .expect("read")
        .expect("user")
        .account
        .id
}

/// Three aborts by `user` stored as ended at `at_ms`.
async fn past_aborts(store: &dyn Store, user: UserId, at_ms: i64) {
    for i in 0..3 {
        store
            .record_playban(PlaybanEnd {
                game_id: format!("past{at_ms}-{i}"),
                at_ms: at_ms + i,
                seats: vec![(user, PlaybanOutcome::Abort)],
            })
            .await
            .expect("record");
    }
}

#[tokio::test]
async fn three_aborts_pause_the_aborter_for_15_minutes_from_every_way_into_a_game() {
    let rig = Rig::start().await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    abort_one(&rig, &alice, &bob).await;
    abort_one(&rig, &alice, &bob).await;
    assert_eq!(
        playban_of(&rig, &alice).await,
        Value::Null,
        "two are not enough"
    );
    let before = now_ms();
    let last = abort_one(&rig, &alice, &bob).await;
    let after = now_ms();

    // A rematch starts a game too: neither offered nor accepted while paused.
    let (_, created) = bob
        .call(addr, "POST", "/api/games", Some(&json!({"color": "white"})))
        .await;
    let id = s(&created["id"]);
    let (status, joined) = alice
        .call(addr, "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 403, "a paused player joins nothing: {joined}");
    let mut socket = alice.connect(addr, &last, "").await;
    socket.send(json!({"t": "rematch_offer"})).await;
    assert_eq!(socket.skip_to("error").await.d["code"], "playban");

    let (status, body) = create(&rig, &alice, json!({"color": "white"})).await;
    let (until, reason) = refused(status, &body);
    assert!(
        (before + 15 * MINUTE..=after + 15 * MINUTE).contains(&until),
        "{until}"
    );
    assert_eq!(reason, "abort");
    let banner = playban_of(&rig, &alice).await;
    assert_eq!(
        (banner["until_ms"].as_i64(), s(&banner["reason"])),
        (Some(until), reason)
    );

    let (status, body) = create(&rig, &alice, json!({"computer": {"level": 1}})).await;
    refused(status, &body);
    let (status, open) = create(&rig, &bob, json!({"color": "white"})).await;
    assert_eq!(status, 201, "the victim is not paused: {open}");
    let join = format!("/api/games/{}/join", s(&open["id"]));
    let (status, body) = alice.call(addr, "POST", &join, None).await;
    refused(status, &body);

    let clock = json!({"base_secs": 300, "increment_secs": 3});
    let (status, body) = alice
        .call(
            addr,
            "POST",
            "/api/challenges",
            Some(&json!({"to": "bob", "clock": clock})),
        )
        .await;
    refused(status, &body);
    let (status, made) = bob
        .call(
            addr,
            "POST",
            "/api/challenges",
            Some(&json!({"to": "alice", "clock": clock})),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let accept = format!("/api/challenges/{}/accept", s(&made["id"]));
    let (status, body) = alice.call(addr, "POST", &accept, None).await;
    refused(status, &body);

    let arena = support::arena::arena_now(addr, &bob, 30).await;
    let (status, body) = alice
        .call(addr, "POST", &format!("/api/arenas/{arena}/join"), None)
        .await;
    refused(status, &body);

    let mut page = LobbyClient::connect(addr, Some(&alice.cookie)).await;
    page.pool_in("5+3", false).await;
    let error = page
        .pool_or_error("a refusal", |_| false)
        .await
        .expect_err("refused");
    assert_eq!(error.code, ErrorCode::Playban);
    assert!(error.retry_after_secs.is_some_and(|secs| secs > 14 * 60));
    assert_eq!(playban_of(&rig, &bob).await, Value::Null);
}

#[tokio::test]
async fn a_second_pause_within_a_week_lasts_three_times_longer() {
    let store = Arc::new(MemoryStore::new());
    let rig = Rig::start_on_store(store.clone()).await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let id = user_id(&*store, "alice").await;
    // A first pause two hours ago, long over.
    past_aborts(&*store, id, now_ms() - 120 * MINUTE).await;
    let (status, body) = create(&rig, &alice, json!({})).await;
    assert_eq!(status, 201, "the first pause is over: {body}");
    for _ in 0..3 {
        abort_one(&rig, &alice, &bob).await;
    }
    let before = now_ms();
    let (status, body) = create(&rig, &alice, json!({})).await;
    let (until, _) = refused(status, &body);
    assert!(until > before + 44 * MINUTE, "45 minutes: {body}");
    assert!(until <= before + 45 * MINUTE, "{body}");
}

#[tokio::test]
async fn a_pause_ends_when_its_time_is_past() {
    let store = Arc::new(MemoryStore::new());
    let rig = Rig::start_on_store(store.clone()).await;
    let alice = Session::register(rig.addr(), "alice").await;
    let carol = Session::register(rig.addr(), "carol").await;
    past_aborts(
        &*store,
        user_id(&*store, "alice").await,
        now_ms() - 16 * MINUTE,
    )
    .await;
    past_aborts(
        &*store,
        user_id(&*store, "carol").await,
        now_ms() - 14 * MINUTE,
    )
    .await;
    assert_eq!(playban_of(&rig, &alice).await, Value::Null);
    let (status, body) = create(&rig, &alice, json!({})).await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = create(&rig, &carol, json!({})).await;
    let (until, _) = refused(status, &body);
    assert!(until > now_ms(), "still a minute to go");
}

#[tokio::test]
async fn anonymous_players_are_never_paused() {
    let rig = Rig::start().await;
    for _ in 0..4 {
        let (id, white, _black) = rig.game_between_two(json!({"color": "white"})).await;
        let mut socket = rig.seat(&id, &white).await;
        socket.send(json!({"t": "abort"})).await;
        assert_eq!(socket.recv_type("end").await.d["reason"], "aborted");
    }
    let (status, body) = rig.http("POST", "/api/games", Some("{}")).await;
    assert_eq!(status, 201, "{body}");
}

#[tokio::test]
async fn the_playban_route_needs_a_session() {
    let rig = Rig::start().await;
    let (status, body) = rig.http("GET", "/api/playban", None).await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test]
async fn leaving_a_game_is_recorded_as_leave_for_the_leaver_and_good_for_the_claimant() {
    let store = Arc::new(MemoryStore::new());
    let rig = Rig::builder()
        .store(store.clone())
        .config(|c| c.disconnect_grace = std::time::Duration::ZERO)
        .start()
        .await;
    let addr = rig.addr();
    let alice = Session::register(addr, "alice").await;
    let bob = Session::register(addr, "bob").await;
    let (status, created) = alice
        .call(addr, "POST", "/api/games", Some(&json!({"color": "white"})))
        .await;
    assert_eq!(status, 201, "{created}");
    let id = s(&created["id"]);
    let (status, joined) = bob
        .call(addr, "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let mut white = alice.connect(addr, &id, "").await;
    let mut black = bob.connect(addr, &id, "").await;
    white.joined().await;
    black.joined().await;
    support::game::play_both_first_turns(&mut white, &mut black).await;
    drop(black);
    for _ in 0..20 {
        if white.recv_type("presence").await.d["black"] == false {
            break;
        }
    }
    let mut end = None;
    for _ in 0..20 {
        white.send(json!({"t": "claim_victory"})).await;
        let reply = white.next_non_presence().await;
        if reply.t == "end" {
            end = Some(reply);
            break;
        }
    }
    let end = end.expect("the claim ends the game");
    assert_eq!(end.d["reason"], "abandonment", "{end}");
    let outcomes = |name: &'static str| {
        let store = store.clone();
        async move {
            let user = user_id(&*store, name).await;
            store
                .playban_outcomes(user, 0, 10)
                .await
                .expect("read")
                .iter()
                .map(|e| (e.game_id.clone(), e.outcome))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(outcomes("bob").await, [(id.clone(), PlaybanOutcome::Leave)]);
    assert_eq!(outcomes("alice").await, [(id, PlaybanOutcome::Good)]);
}

#[tokio::test]
async fn an_arena_joined_before_a_pause_does_not_pair_the_paused_player_while_it_lasts() {
    use support::arena::{arena_now, fast_pairing, join, paired, show, white_mates};
    let store = Arc::new(MemoryStore::new());
    let rig = Rig::builder()
        .store(store.clone())
        .config(fast_pairing)
        .start()
        .await;
    let addr = rig.addr();
    let ann = Session::register(addr, "ann").await;
    let ben = Session::register(addr, "ben").await;
    let cid = Session::register(addr, "cid").await;
    let dee = Session::register(addr, "dee").await;
    // Ben and Cid, alone in, are paired; Ann joins, is paused, and Dee joins.
    let id = arena_now(addr, &ben, 60).await;
    join(addr, &ben, &id).await;
    join(addr, &cid, &id).await;
    let (game, ben_color) = paired(addr, &ben, &id).await;
    join(addr, &ann, &id).await;
    past_aborts(&*store, user_id(&*store, "ann").await, now_ms()).await;
    join(addr, &dee, &id).await;
    let (white, black) = if ben_color == "white" {
        (&ben, &cid)
    } else {
        (&cid, &ben)
    };
    white_mates(addr, white, black, &game).await;
    // Four wait; Ben and Cid may not meet again at once. Unpaused, Ann would be paired in the
    // step that pairs Dee (or earlier, with Dee alone): paused, she is left waiting.
    let (dees, _) = paired(addr, &dee, &id).await;
    let page = show(addr, &ann, &id).await;
    assert!(page["me"]["game"].is_null(), "ann was paired: {page}");
    assert!(
        page["games"]
            .as_array()
            .expect("games")
            .iter()
            .all(|g| g["white"] != "ann" && g["black"] != "ann"),
        "{page}"
    );
    assert_ne!(dees, game);
    // She is still in, with her place: the pause does not withdraw her.
    assert_eq!(support::arena::standing(&page, "ann")["withdrawn"], false);
    rig.stop().await;
}
