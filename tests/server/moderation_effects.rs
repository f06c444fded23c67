//! What a moderator's action does, through the real server (issue 32): a chat-banned
//! account's lines reach nobody (game rooms and the lobby) and the writer is told why and until
//! when; a ban ends when it runs out; a marked player's rated games change no rating; marked
//! players are left out of the leaderboard and their profile says so.

use crate::support;

use marseillais::server::lobby::channel::msg::LobbyMsg;
use marseillais::server::play::protocol::ErrorCode;
use marseillais::server::players::account::Username;
use marseillais::server::store::{Mark, MemoryStore, ModAction, ModActionKind, Store};
use serde_json::{Value, json};
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::s;
use support::session::Session;
use support::ws::Client;

use super::moderation::{grant, rig_on};

async fn act(store: &dyn Store, name: &str, kind: ModActionKind) {
    let user = store
        .find_user(&Username::parse(name).expect("a name"))
        .await
        .expect("read")
        .expect("the user exists");
    store
        .moderate(ModAction {
            moderator: "mod".into(),
            target: user.account.id,
            kind,
            reason: "insults".into(),
            at_ms: marseillais::server::game::now_ms(),
        })
        .await
        .expect("acted");
}

async fn say(client: &mut Client, room: &str, text: &str) {
    client
        .send(json!({"t": "chat", "d": {"room": room, "text": text}}))
        .await;
}

async fn lobby_say(client: &mut LobbyClient, text: &str) {
    use futures_util::SinkExt;
    let frame = json!({"t": "chat", "d": {"room": "lobby", "text": text}}).to_string();
    client
        .ws
        .send(tokio_tungstenite::tungstenite::Message::text(frame))
        .await
        .expect("lobby channel open");
}

/// The next chat line or error of a lobby channel, whichever comes first.
async fn lobby_next(client: &mut LobbyClient) -> LobbyMsg {
    client
        .until("a chat line or an error", |m| {
            matches!(m, LobbyMsg::Chat(_) | LobbyMsg::Error(_))
        })
        .await
}

#[tokio::test]
async fn a_chat_banned_users_lines_reach_nobody_in_a_game_room_and_the_writer_is_told_why() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let bob = Session::register(rig.addr(), "bob").await;
    let (id, _, black_token) = bob.against_anonymous(&rig).await;
    let mut white = bob.connect(rig.addr(), &id, "").await;
    let mut black = rig.seat(&id, &black_token).await;
    let mut spectator = rig.spectate(&id).await;
    act(&store, "bob", ModActionKind::ChatBan { until_ms: None }).await;

    say(&mut white, "player", "you idiot").await;
    let error = white.skip_to("error").await;
    assert_eq!(error.d["code"], "chat_banned");
    let message = s(&error.d["message"]);
    assert!(
        message.contains("insults") && message.contains("permanently"),
        "{message}"
    );
    // Bob as a spectator of another game is banned too.
    let (other, _, _) = rig.game_between_two(json!({})).await;
    let mut watching = bob.connect(rig.addr(), &other, "").await;
    say(&mut watching, "spectator", "hello").await;
    assert_eq!(watching.skip_to("error").await.d["code"], "chat_banned");

    // The anonymous opponent's line is the first line anyone gets: Bob's never went out.
    say(&mut black, "player", "bye").await;
    for client in [&mut white, &mut black] {
        let line = client.skip_to("chat").await;
        assert_eq!(line.d["text"], "bye");
    }
    say(&mut spectator, "spectator", "hm").await;
    assert_eq!(spectator.skip_to("chat").await.d["text"], "hm");
    let stored = store
        .recent_chat(Some(&id), marseillais::server::chat::ChatRoom::Player, 10)
        .await
        .expect("read");
    let texts: Vec<&str> = stored.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["bye"], "the banned line was never stored");
    rig.stop().await;
}

#[tokio::test]
async fn a_chat_banned_users_lobby_lines_reach_nobody() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let bob = Session::register(rig.addr(), "bob").await;
    let mut banned = LobbyClient::connect(rig.addr(), Some(&bob.cookie)).await;
    let mut reader = LobbyClient::connect(rig.addr(), None).await;
    act(
        &store,
        "bob",
        ModActionKind::ChatBan {
            until_ms: Some(i64::MAX),
        },
    )
    .await;
    lobby_say(&mut banned, "spam spam").await;
    match lobby_next(&mut banned).await {
        LobbyMsg::Error(error) => {
            assert_eq!(error.code, ErrorCode::ChatBanned);
            assert!(error.message.contains("until"), "{}", error.message);
        }
        other => panic!("expected chat_banned, got {other:?}"),
    }
    lobby_say(&mut reader, "is anyone here?").await;
    match lobby_next(&mut reader).await {
        LobbyMsg::Chat(line) => assert_eq!(line.text, "is anyone here?"),
        other => panic!("expected the reader's own line first, got {other:?}"),
    }
    rig.stop().await;
}

#[tokio::test]
async fn a_fifteen_minute_ban_holds_until_its_end_and_then_the_user_chats_again() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let moderator = Session::register(rig.addr(), "mod").await;
    let bob = Session::register(rig.addr(), "bob").await;
    grant(&store, "mod").await;
    let (status, body) = moderator
        .call(
            rig.addr(),
            "POST",
            "/api/mod/users/bob/chat-ban",
            Some(&json!({"duration": "15m", "reason": "calm down"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let user = store
        .find_user(&Username::parse("bob").expect("name"))
        .await
        .expect("read")
        .expect("bob");
    let ban = store
        .chat_ban(user.account.id, marseillais::server::game::now_ms())
        .await
        .expect("read")
        .expect("banned now");
    let until = ban.until_ms.expect("a 15-minute ban ends");
    let length = until - ban.at_ms;
    assert_eq!(length, 15 * 60 * 1000);
    // The store's clock argument: one millisecond before the end it holds, at the end not.
    assert!(
        store
            .chat_ban(user.account.id, until - 1)
            .await
            .expect("read")
            .is_some()
    );
    assert!(
        store
            .chat_ban(user.account.id, until)
            .await
            .expect("read")
            .is_none()
    );

    // And through the server: the same ban given as if 15 minutes ago has run out.
    let mut page = LobbyClient::connect(rig.addr(), Some(&bob.cookie)).await;
    lobby_say(&mut page, "still here?").await;
    assert!(matches!(lobby_next(&mut page).await, LobbyMsg::Error(_)));
    act(
        &store,
        "bob",
        ModActionKind::ChatBan {
            until_ms: Some(marseillais::server::game::now_ms() - 1),
        },
    )
    .await;
    lobby_say(&mut page, "back again").await;
    match lobby_next(&mut page).await {
        LobbyMsg::Chat(line) => assert_eq!(line.text, "back again"),
        other => panic!("the ban ran out, got {other:?}"),
    }
    rig.stop().await;
}

/// A rated blitz game alice (White) and bob play until alice resigns; returns the game id
/// after both saw the end.
async fn rated_game_resigned(rig: &Rig, alice: &Session, bob: &Session) -> String {
    let rated =
        json!({"rated": true, "color": "white", "clock": {"base_secs": 300, "increment_secs": 2}});
    let (status, created) = alice
        .call(rig.addr(), "POST", "/api/games", Some(&rated))
        .await;
    assert_eq!(status, 201, "{created}");
    let id = s(&created["id"]);
    let (status, joined) = bob
        .call(rig.addr(), "POST", &format!("/api/games/{id}/join"), None)
        .await;
    assert_eq!(status, 200, "{joined}");
    let mut white = alice.connect(rig.addr(), &id, "").await;
    let mut black = bob.connect(rig.addr(), &id, "").await;
    white.skip_to("state").await;
    black.skip_to("state").await;
    white.send(json!({"t": "resign"})).await;
    assert_eq!(white.recv_type("end").await.d["winner"], "black");
    black.recv_type("end").await;
    white.close().await;
    black.close().await;
    id
}

async fn blitz_games(rig: &Rig, name: &str) -> Value {
    let (_, profile) = rig.http("GET", &format!("/api/users/{name}"), None).await;
    let profile: Value = serde_json::from_str(&profile).expect("json");
    profile["ratings"]["blitz"]["games"].clone()
}

#[tokio::test]
async fn a_marked_players_next_rated_game_changes_no_rating() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    let first = rated_game_resigned(&rig, &alice, &bob).await;
    assert!(store.game_rating(&first).await.expect("read").is_some());
    assert_eq!(blitz_games(&rig, "alice").await, 1);
    let before = store
        .ratings(
            store
                .find_user(&Username::parse("bob").expect("name"))
                .await
                .expect("read")
                .expect("bob")
                .account
                .id,
        )
        .await
        .expect("read");

    act(&store, "alice", ModActionKind::Mark(Mark::Engine)).await;
    let second = rated_game_resigned(&rig, &alice, &bob).await;
    assert!(
        store.game_rating(&second).await.expect("read").is_none(),
        "the game ended unrated"
    );
    assert_eq!(blitz_games(&rig, "alice").await, 1);
    assert_eq!(
        blitz_games(&rig, "bob").await,
        1,
        "the opponent's rating did not move either"
    );
    let after = store
        .ratings(
            store
                .find_user(&Username::parse("bob").expect("name"))
                .await
                .expect("read")
                .expect("bob")
                .account
                .id,
        )
        .await
        .expect("read");
    assert_eq!(before, after);
    let (_, game) = rig.http("GET", &format!("/api/games/{second}"), None).await;
    assert!(game.contains("\"finished\""), "{game}");
    rig.stop().await;
}

#[tokio::test]
async fn a_marked_player_is_left_out_of_the_leaderboard_and_their_profile_says_so() {
    let store = MemoryStore::new();
    let rig = rig_on(&store).await;
    let alice = Session::register(rig.addr(), "alice").await;
    let bob = Session::register(rig.addr(), "bob").await;
    rated_game_resigned(&rig, &alice, &bob).await;
    let board = |body: String| -> Vec<String> {
        let body: Value = serde_json::from_str(&body).expect("json");
        body["players"]
            .as_array()
            .map(|rows| rows.iter().map(|r| s(&r["username"])).collect())
            .unwrap_or_default()
    };
    let (status, body) = rig.http("GET", "/api/leaderboard?speed=blitz", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(board(body), ["bob", "alice"], "the winner first");
    let (_, profile) = rig.http("GET", "/api/users/bob", None).await;
    assert!(!profile.contains("marked"), "{profile}");

    act(&store, "bob", ModActionKind::Mark(Mark::Booster)).await;
    let (_, body) = rig.http("GET", "/api/leaderboard?speed=blitz", None).await;
    assert_eq!(board(body), ["alice"]);
    let (_, profile) = rig.http("GET", "/api/users/bob", None).await;
    let profile: Value = serde_json::from_str(&profile).expect("json");
    assert_eq!(profile["marked"], "booster");
    let (status, _) = rig.http("GET", "/api/leaderboard?speed=fast", None).await;
    assert_eq!(status, 400);
    rig.stop().await;
}
