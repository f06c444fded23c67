//! Blocks against the real server (issue 32, docs/protocol.md "Blocks"): the routes, the
//! profile's `blocked`, and every place a block applies, both ways, and unblocking restoring
//! each: challenges and open games refused `not_possible`, chat lines of a game's player room,
//! its spectators' room and the lobby not delivered (live and in `chat_history`), pools never
//! pairing the two. A line not delivered is proved by order: the reader's next line is one said
//! after it (the room or the lobby sends lines in the order they were stored).

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use futures_util::SinkExt;
use marseillais::server::domain::user::Username;
use marseillais::server::lobby::channel::msg::LobbyMsg;
use marseillais::server::play::protocol::ChatLineMsg;
use marseillais::server::safety::blocks::rules::MAX_BLOCKS;
use marseillais::server::store::{MemoryStore, Store};
use serde_json::{Value, json};
use support::account::Browser;
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::s;
use support::session::Session;
use support::ws::Client;
use tokio_tungstenite::tungstenite::Message;

async fn rig() -> Rig {
    Rig::start_with(|c| {
        c.lobby.challenge_burst = 100.0;
        c.lobby.pool_wave = Some(Duration::from_millis(20));
    })
    .await
}

async fn block(rig: &Rig, who: &Session, name: &str) -> (u16, Value) {
    who.call(rig.addr(), "POST", &format!("/api/blocks/{name}"), None)
        .await
}

async fn unblock(rig: &Rig, who: &Session, name: &str) -> (u16, Value) {
    who.call(rig.addr(), "DELETE", &format!("/api/blocks/{name}"), None)
        .await
}

async fn blocked(rig: &Rig, who: &Session, name: &str) {
    let (status, body) = block(rig, who, name).await;
    assert_eq!(status, 200, "{body}");
}

async fn say(client: &mut Client, room: &str, text: &str) {
    client
        .send(json!({"t": "chat", "d": {"room": room, "text": text}}))
        .await;
}

async fn next_line(client: &mut Client) -> String {
    client.skip_to("chat").await.str("text")
}

/// A game between two accounts, `white` creating it and `black` joining by their session:
/// (id, white's socket, black's socket).
async fn game_of(rig: &Rig, white: &Session, black: &Session) -> (String, Client, Client) {
    let body = json!({"color": "white"});
    let (status, created) = white
        .call(rig.addr(), "POST", "/api/games", Some(&body))
        .await;
    assert_eq!(status, 201, "{created}");
    let id = s(&created["id"]);
    let (status, joined) = black
        .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let w = white.connect(rig.addr(), &id, "").await;
    let b = black.connect(rig.addr(), &id, "").await;
    (id, w, b)
}

// ---- the routes ----

#[tokio::test]
async fn a_user_blocks_lists_and_unblocks_another_by_name_in_any_case() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    Session::register(rig.addr(), "Bob").await;
    let (status, body) = block(&rig, &alice, "BOB").await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"username": "Bob", "blocked": true}));
    // Blocking again is no error and keeps one row.
    assert_eq!(block(&rig, &alice, "bob").await.0, 200);
    let (status, list) = alice.call(rig.addr(), "GET", "/api/blocks", None).await;
    assert_eq!(status, 200);
    assert_eq!(list["max"], MAX_BLOCKS);
    let names: Vec<String> = list["blocks"]
        .as_array()
        .expect("blocks")
        .iter()
        .map(|b| s(&b["username"]))
        .collect();
    assert_eq!(names, ["Bob"]);
    assert!(list["blocks"][0]["at_ms"].as_i64().is_some());
    let (status, body) = unblock(&rig, &alice, "bob").await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"username": "Bob", "blocked": false}));
    let (_, list) = alice.call(rig.addr(), "GET", "/api/blocks", None).await;
    assert_eq!(list["blocks"], json!([]));
    rig.stop().await;
}

#[tokio::test]
async fn nobody_can_block_themselves_an_unknown_user_or_a_bad_name() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let (status, body) = block(&rig, &alice, "Alice").await;
    assert_eq!(
        (status, s(&body["code"])),
        (400, "cannot_block_yourself".into())
    );
    let (status, body) = block(&rig, &alice, "nobody").await;
    assert_eq!((status, s(&body["code"])), (404, "unknown_user".into()));
    let (status, body) = unblock(&rig, &alice, "nobody").await;
    assert_eq!((status, s(&body["code"])), (404, "unknown_user".into()));
    let (status, body) = block(&rig, &alice, "x").await;
    assert_eq!((status, s(&body["code"])), (400, "bad_username".into()));
    rig.stop().await;
}

#[tokio::test]
async fn the_block_routes_need_a_session_and_changes_need_our_origin() {
    let rig = rig().await;
    let mut alice = Browser::new(rig.addr());
    assert_eq!(alice.register("alice", "correct horse").await.status, 201);
    Session::register(rig.addr(), "bob").await;
    for (method, path) in [
        ("GET", "/api/blocks"),
        ("POST", "/api/blocks/bob"),
        ("DELETE", "/api/blocks/bob"),
    ] {
        let reply = Browser::new(rig.addr()).send(method, path, None).await;
        assert_eq!(reply.status, 401, "{method} {path}: {}", reply.body);
    }
    for method in ["POST", "DELETE"] {
        let mut attacker = Browser::new(rig.addr()).with_origin(Some("http://evil.example"));
        attacker.session = alice.session.clone();
        let reply = attacker.send(method, "/api/blocks/bob", None).await;
        assert_eq!(reply.status, 403, "{method}: {}", reply.body);
        assert!(reply.body.contains("bad_origin"), "{}", reply.body);
    }
    let list = alice.send("GET", "/api/blocks", None).await;
    assert!(list.body.contains(r#""blocks":[]"#), "{}", list.body);
    rig.stop().await;
}

#[tokio::test]
async fn a_user_blocks_at_most_the_cap_and_may_still_unblock() {
    let store = Arc::new(MemoryStore::new());
    let rig = Rig::builder()
        .store(Arc::clone(&store) as Arc<dyn Store>)
        .start()
        .await;
    let alice = Session::register(rig.addr(), "alice").await;
    let me = store
        .find_user(&Username::parse("alice").expect("name"))
        .await
        .expect("read")
        .expect("alice")
        .account
        .id;
    // The cap's worth of blocks, seeded through the store (registering 500 accounts over
    // HTTP would hash 500 passwords).
    for n in 0..MAX_BLOCKS {
        let name = Username::parse(&format!("user{n}")).expect("name");
        let user = store.create_user(name, "x".into(), 1).await.expect("user");
        store.block(me, user, 2).await.expect("block");
    }
    Session::register(rig.addr(), "one_more").await;
    let (status, body) = block(&rig, &alice, "one_more").await;
    assert_eq!((status, s(&body["code"])), (409, "too_many_blocks".into()));
    // Blocking one already blocked is still fine; unblocking makes room.
    assert_eq!(block(&rig, &alice, "user7").await.0, 200);
    assert_eq!(unblock(&rig, &alice, "user7").await.0, 200);
    assert_eq!(block(&rig, &alice, "one_more").await.0, 200);
    rig.stop().await;
}

#[tokio::test]
async fn the_profile_says_blocked_only_to_the_viewer_who_blocks() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    blocked(&rig, &alice, "bob").await;
    let (_, seen) = alice.call(rig.addr(), "GET", "/api/users/bob", None).await;
    assert_eq!(seen["blocked"], true, "{seen}");
    // Bob is never told that Alice blocks him, nor is anyone else.
    let (_, seen) = bob.call(rig.addr(), "GET", "/api/users/alice", None).await;
    assert!(seen.get("blocked").is_none(), "{seen}");
    let reply = Browser::new(rig.addr())
        .send("GET", "/api/users/bob", None)
        .await;
    assert!(!reply.body.contains("blocked"), "{}", reply.body);
    unblock(&rig, &alice, "bob").await;
    let (_, seen) = alice.call(rig.addr(), "GET", "/api/users/bob", None).await;
    assert!(seen.get("blocked").is_none(), "{seen}");
    rig.stop().await;
}

// ---- challenges and open games ----

async fn challenge(rig: &Rig, from: &Session, to: &str) -> (u16, Value) {
    let body = json!({"to": to});
    from.call(rig.addr(), "POST", "/api/challenges", Some(&body))
        .await
}

#[tokio::test]
async fn a_blocked_user_cannot_challenge_the_blocker_nor_the_blocker_them() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    blocked(&rig, &alice, "bob").await;
    for (from, to) in [(&bob, "alice"), (&alice, "bob")] {
        let (status, body) = challenge(&rig, from, to).await;
        assert_eq!(status, 403, "{body}");
        assert_eq!(body["code"], "not_possible");
        assert_eq!(body["message"], "this is not possible");
    }
    unblock(&rig, &alice, "bob").await;
    assert_eq!(challenge(&rig, &bob, "alice").await.0, 201);
    rig.stop().await;
}

#[tokio::test]
async fn a_challenge_made_before_a_block_cannot_be_accepted_after_it() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (status, made) = challenge(&rig, &bob, "alice").await;
    assert_eq!(status, 201, "{made}");
    blocked(&rig, &alice, "bob").await;
    let path = format!("/api/challenges/{}/accept", s(&made["id"]));
    let (status, body) = alice.call(rig.addr(), "POST", &path, None).await;
    assert_eq!((status, s(&body["code"])), (403, "not_possible".into()));
    rig.stop().await;
}

async fn open_game(rig: &Rig, creator: &Session) -> String {
    let (status, created) = creator
        .call(rig.addr(), "POST", "/api/games", Some(&json!({})))
        .await;
    assert_eq!(status, 201, "{created}");
    s(&created["id"])
}

async fn join(rig: &Rig, who: &Session, id: &str) -> (u16, Value) {
    who.call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
        .await
}

#[tokio::test]
async fn a_blocked_user_cannot_join_the_blockers_open_game_nor_the_blocker_theirs() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    blocked(&rig, &alice, "bob").await;
    let alices = open_game(&rig, &alice).await;
    let bobs = open_game(&rig, &bob).await;
    for (who, id) in [(&bob, &alices), (&alice, &bobs)] {
        let (status, body) = join(&rig, who, id).await;
        assert_eq!(status, 403, "{body}");
        assert_eq!(body["code"], "not_possible");
    }
    // Anyone else may; and once unblocked, so may Bob.
    let carol = Session::register(rig.addr(), "carol").await;
    assert_eq!(join(&rig, &carol, &bobs).await.0, 200);
    unblock(&rig, &alice, "bob").await;
    assert_eq!(join(&rig, &bob, &alices).await.0, 200);
    rig.stop().await;
}

// ---- chat in a game ----

#[tokio::test]
async fn a_players_line_does_not_reach_the_other_player_in_a_block_either_way() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    // The game first (a block refuses a join), then the block.
    let (_, mut white, mut black) = game_of(&rig, &alice, &bob).await;
    blocked(&rig, &alice, "bob").await;
    say(&mut black, "player", "from bob").await;
    assert_eq!(next_line(&mut black).await, "from bob");
    say(&mut white, "player", "from alice").await;
    assert_eq!(
        next_line(&mut white).await,
        "from alice",
        "bob's line was not sent"
    );
    say(&mut black, "player", "bob again").await;
    assert_eq!(
        next_line(&mut black).await,
        "bob again",
        "alice's line was not sent"
    );
    // Unblocked: each reads the other again.
    unblock(&rig, &alice, "bob").await;
    say(&mut black, "player", "heard now").await;
    assert_eq!(next_line(&mut white).await, "heard now");
    say(&mut white, "player", "and you").await;
    assert_eq!(next_line(&mut black).await, "heard now");
    assert_eq!(next_line(&mut black).await, "and you");
    rig.stop().await;
}

#[tokio::test]
async fn a_spectators_line_does_not_reach_spectators_or_players_in_a_block_with_them() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let carol = Session::register(rig.addr(), "carol").await;
    let dave = Session::register(rig.addr(), "dave").await;
    let (id, mut white, _black) = game_of(&rig, &alice, &bob).await;
    white
        .send(json!({"t": "chat_watch", "d": {"spectator": true}}))
        .await;
    let mut c = carol.connect(rig.addr(), &id, "").await;
    let mut d = dave.connect(rig.addr(), &id, "").await;
    // Carol blocks Dave; Alice (a player reading the spectators) blocks Carol.
    blocked(&rig, &carol, "dave").await;
    blocked(&rig, &alice, "carol").await;
    say(&mut d, "spectator", "from dave").await;
    assert_eq!(next_line(&mut d).await, "from dave");
    assert_eq!(next_line(&mut white).await, "from dave");
    say(&mut c, "spectator", "from carol").await;
    assert_eq!(
        next_line(&mut c).await,
        "from carol",
        "dave's line was not sent"
    );
    say(&mut d, "spectator", "dave again").await;
    assert_eq!(
        next_line(&mut d).await,
        "dave again",
        "carol's line was not sent"
    );
    assert_eq!(next_line(&mut white).await, "dave again", "nor to alice");
    rig.stop().await;
}

#[tokio::test]
async fn the_chat_history_on_connect_leaves_out_the_lines_of_users_in_a_block_either_way() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (id, mut white, mut black) = game_of(&rig, &alice, &bob).await;
    say(&mut white, "player", "alice said").await;
    assert_eq!(next_line(&mut white).await, "alice said");
    assert_eq!(next_line(&mut black).await, "alice said");
    say(&mut black, "player", "bob said").await;
    assert_eq!(next_line(&mut black).await, "bob said");
    assert_eq!(next_line(&mut white).await, "bob said");
    blocked(&rig, &bob, "alice").await;
    let history = |client: Client| async move {
        let mut client = client;
        let msg = client
            .until("chat_history player", |m| {
                m.t == "chat_history" && m.d["room"] == "player"
            })
            .await;
        let texts: Vec<String> = msg.d["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .map(|l| s(&l["text"]))
            .collect();
        texts
    };
    assert_eq!(
        history(alice.connect(rig.addr(), &id, "").await).await,
        ["alice said"]
    );
    assert_eq!(
        history(bob.connect(rig.addr(), &id, "").await).await,
        ["bob said"]
    );
    unblock(&rig, &bob, "alice").await;
    assert_eq!(
        history(alice.connect(rig.addr(), &id, "").await).await,
        ["alice said", "bob said"]
    );
    rig.stop().await;
}

// ---- the lobby chat ----

async fn lobby_say(client: &mut LobbyClient, text: &str) {
    let frame = json!({"t": "chat", "d": {"room": "lobby", "text": text}}).to_string();
    client
        .ws
        .send(Message::text(frame))
        .await
        .expect("lobby channel open");
}

async fn lobby_line(client: &mut LobbyClient) -> ChatLineMsg {
    match client
        .until("a lobby chat line", |m| matches!(m, LobbyMsg::Chat(_)))
        .await
    {
        LobbyMsg::Chat(line) => line,
        _ => unreachable!("until returns what it matched"),
    }
}

#[tokio::test]
async fn a_lobby_line_does_not_reach_the_lobby_pages_of_users_in_a_block_with_its_author() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let mut a = LobbyClient::connect(rig.addr(), Some(&alice.cookie)).await;
    let mut b = LobbyClient::connect(rig.addr(), Some(&bob.cookie)).await;
    let mut anonymous = LobbyClient::connect(rig.addr(), None).await;
    blocked(&rig, &alice, "bob").await;
    lobby_say(&mut b, "bob here").await;
    assert_eq!(lobby_line(&mut b).await.text, "bob here");
    assert_eq!(lobby_line(&mut anonymous).await.text, "bob here");
    lobby_say(&mut a, "alice here").await;
    assert_eq!(
        lobby_line(&mut a).await.text,
        "alice here",
        "bob's not sent"
    );
    assert_eq!(lobby_line(&mut anonymous).await.text, "alice here");
    lobby_say(&mut b, "bob again").await;
    assert_eq!(
        lobby_line(&mut b).await.text,
        "bob again",
        "alice's not sent"
    );
    // A new page of Alice's: the history has no line of Bob's.
    let mut again = LobbyClient::connect(rig.addr(), Some(&alice.cookie)).await;
    let history = match again
        .until("chat_history", |m| matches!(m, LobbyMsg::ChatHistory(_)))
        .await
    {
        LobbyMsg::ChatHistory(history) => history,
        _ => unreachable!("until returns what it matched"),
    };
    let texts: Vec<&str> = history.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["alice here"]);
    // Unblocked: the lines flow again.
    unblock(&rig, &alice, "bob").await;
    lobby_say(&mut b, "hello again").await;
    assert_eq!(lobby_line(&mut a).await.text, "hello again");
    rig.stop().await;
}

// ---- pools ----

#[tokio::test]
async fn a_pool_never_pairs_two_users_in_a_block() {
    let rig = rig().await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let carol = Session::register(rig.addr(), "carol").await;
    let dave = Session::register(rig.addr(), "dave").await;
    blocked(&rig, &bob, "alice").await;
    let mut pages = Vec::new();
    for who in [&alice, &bob, &carol, &dave] {
        let mut page = LobbyClient::connect(rig.addr(), Some(&who.cookie)).await;
        page.join_pool("3+2", false).await;
        pages.push(page);
    }
    let mut games = Vec::new();
    for page in &mut pages {
        games.push(page.pool_paired().await.game);
    }
    // Alice and Bob, the first two in, waited for the others rather than meet.
    assert_ne!(games[0], games[1], "{games:?}");
    assert_eq!(games.iter().filter(|g| **g == games[0]).count(), 2);
    assert_eq!(games.iter().filter(|g| **g == games[1]).count(), 2);
    rig.stop().await;
}

// ---- arenas ----

#[tokio::test]
async fn an_arena_does_not_pair_two_players_in_a_block_while_others_can_be_met() {
    use support::arena::{arena_now, fast_pairing, join, paired, white_mates};
    let rig = Rig::builder().config(fast_pairing).start().await;
    let addr = rig.addr();
    let ann = Session::register(addr, "ann").await;
    let ben = Session::register(addr, "ben").await;
    let cid = Session::register(addr, "cid").await;
    let dee = Session::register(addr, "dee").await;
    blocked(&rig, &ann, "ben").await;
    // Cid and Dee, alone in, are paired; then Ann and Ben come and wait.
    let id = arena_now(addr, &cid, 60).await;
    join(addr, &cid, &id).await;
    join(addr, &dee, &id).await;
    let (game, cid_color) = paired(addr, &cid, &id).await;
    join(addr, &ann, &id).await;
    join(addr, &ben, &id).await;
    let (white, black) = if cid_color == "white" {
        (&cid, &dee)
    } else {
        (&dee, &cid)
    };
    white_mates(addr, white, black, &game).await;
    // Four wait: Cid and Dee may not meet again at once, Ann and Ben not at all.
    let (anns, _) = paired(addr, &ann, &id).await;
    let (bens, _) = paired(addr, &ben, &id).await;
    assert_ne!(anns, bens, "ann and ben met");
    assert_ne!(anns, game);
    rig.stop().await;
}
