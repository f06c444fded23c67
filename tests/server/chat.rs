//! Chat against the real server (issue 12, docs/protocol.md 3.8): who receives which room's
//! lines, the limits (length, rate, control characters, invisible and zalgo lines: issue 34),
//! HTML kept as text, lines stored before they are sent and back after a restart in
//! `chat_history`, the game's `v` numbering untouched, and the lobby chat on `/ws/lobby`.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use futures_util::SinkExt;
use marseillais::server::chat::ChatRoom;
use marseillais::server::lobby::channel::msg::LobbyMsg;
use marseillais::server::play::protocol::{ChatLineMsg, ErrorCode};
use marseillais::server::store::{FailingStore, MemoryStore};
use serde_json::{Value, json};
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::session::Session;
use support::ws::{Client, Incoming};
use tokio_tungstenite::tungstenite::Message;

async fn say(client: &mut Client, room: &str, text: &str) {
    client
        .send(json!({"t": "chat", "d": {"room": room, "text": text}}))
        .await;
}

/// The next `chat` line (anything else skipped, errors included).
async fn line(client: &mut Client) -> Incoming {
    client.skip_to("chat").await
}

/// The next `error`, anything else skipped.
async fn error_code(client: &mut Client) -> String {
    client.skip_to("error").await.str("code")
}

/// The `chat_history` of `room` sent on connect (within the first messages).
async fn history(client: &mut Client, room: &str) -> Vec<Value> {
    let msg = client
        .until(&format!("chat_history {room}"), |m| {
            m.t == "chat_history" && m.d["room"] == room
        })
        .await;
    msg.d["lines"].as_array().cloned().unwrap_or_default()
}

fn texts(lines: &[Value]) -> Vec<String> {
    lines.iter().map(|l| support::s(&l["text"])).collect()
}

#[tokio::test]
async fn a_player_line_reaches_both_players_and_no_spectator() {
    let rig = Rig::builder().memory().start().await;
    let (id, mut white, mut black) = rig.players(json!({})).await;
    let mut spectator = rig.spectate(&id).await;
    say(&mut white, "player", "good luck").await;
    for player in [&mut white, &mut black] {
        let got = line(player).await;
        assert_eq!(got.d["room"], "player");
        assert_eq!(got.d["text"], "good luck");
        assert_eq!(got.d["author"], "white");
        assert!(got.d.get("user").is_none(), "an anonymous author: {got}");
        assert_eq!(got.v, None, "a chat line has no v");
    }
    // The spectator's first line is its own: the players' line never reached it.
    say(&mut spectator, "spectator", "watching").await;
    let first = line(&mut spectator).await;
    assert_eq!(first.d["text"], "watching");
    assert_eq!(first.d["author"], "anonymous");
    rig.stop().await;
}

#[tokio::test]
async fn a_spectator_line_reaches_spectators_and_a_player_only_after_chat_watch() {
    let rig = Rig::builder().memory().start().await;
    let (id, mut white, mut black) = rig.players(json!({})).await;
    let mut one = rig.spectate(&id).await;
    let mut two = rig.spectate(&id).await;
    say(&mut one, "spectator", "first").await;
    assert_eq!(line(&mut one).await.d["text"], "first");
    assert_eq!(line(&mut two).await.d["text"], "first");
    // White asks for the spectators' room: it gets its history, then its lines.
    white
        .send(json!({"t": "chat_watch", "d": {"spectator": true}}))
        .await;
    assert_eq!(texts(&history(&mut white, "spectator").await), ["first"]);
    say(&mut two, "spectator", "second").await;
    assert_eq!(line(&mut white).await.d["text"], "second");
    assert_eq!(line(&mut one).await.d["text"], "second");
    assert_eq!(line(&mut two).await.d["text"], "second");
    // Black did not ask: its first line is the players' one said after.
    say(&mut black, "player", "mine").await;
    let got = line(&mut black).await;
    assert_eq!(got.d["text"], "mine", "{:?}", black.seen);
    // White turns it off again: the next spectator line does not reach it.
    white
        .send(json!({"t": "chat_watch", "d": {"spectator": false}}))
        .await;
    assert_eq!(line(&mut white).await.d["text"], "mine");
    say(&mut one, "spectator", "third").await;
    assert_eq!(line(&mut one).await.d["text"], "third");
    assert_eq!(line(&mut two).await.d["text"], "third");
    say(&mut black, "player", "after").await;
    assert_eq!(line(&mut white).await.d["text"], "after");
    rig.stop().await;
}

#[tokio::test]
async fn a_spectator_writing_in_the_player_room_is_not_allowed_and_keeps_its_connection() {
    let rig = Rig::builder().memory().start().await;
    let (id, mut white, _black) = rig.players(json!({})).await;
    let mut spectator = rig.spectate(&id).await;
    say(&mut spectator, "player", "let me in").await;
    assert_eq!(error_code(&mut spectator).await, "not_allowed");
    // Nor may a player write in the spectators' room, nor anyone in the lobby's from a game.
    say(&mut white, "spectator", "hi").await;
    assert_eq!(error_code(&mut white).await, "not_allowed");
    say(&mut white, "lobby", "hi").await;
    assert_eq!(error_code(&mut white).await, "not_allowed");
    // The connection is kept and chats on.
    say(&mut spectator, "spectator", "fine").await;
    assert_eq!(line(&mut spectator).await.d["text"], "fine");
    say(&mut white, "player", "still here").await;
    let got = line(&mut white).await;
    assert_eq!(
        got.d["text"], "still here",
        "nothing was stored from the refusals"
    );
    rig.stop().await;
}

#[tokio::test]
async fn a_line_over_140_characters_is_too_long_and_the_connection_survives() {
    let rig = Rig::builder().memory().start().await;
    let (_id, mut white, mut black) = rig.players(json!({})).await;
    say(&mut white, "player", &"ж".repeat(141)).await;
    assert_eq!(error_code(&mut white).await, "too_long");
    let exact = "ж".repeat(140);
    say(&mut white, "player", &exact).await;
    assert_eq!(line(&mut black).await.d["text"], exact.as_str());
    rig.stop().await;
}

#[tokio::test]
async fn the_fourth_line_in_five_seconds_is_rate_limited_and_the_connection_chats_again_later() {
    let rig = Rig::builder().memory().start().await;
    let (_id, mut white, mut black) = rig.players(json!({})).await;
    for n in 0..3 {
        say(&mut white, "player", &format!("line {n}")).await;
        assert_eq!(line(&mut white).await.d["text"], format!("line {n}"));
    }
    say(&mut white, "player", "one too many").await;
    assert_eq!(error_code(&mut white).await, "rate_limited");
    // 3 lines per 5 s: one comes back every 5/3 s. Try for a bounded number of times.
    let mut sent_again = false;
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        say(&mut white, "player", "again").await;
        let reply = white
            .until("chat or error", |m| m.t == "chat" || m.t == "error")
            .await;
        if reply.t == "chat" {
            assert_eq!(reply.d["text"], "again");
            sent_again = true;
            break;
        }
        assert_eq!(reply.str("code"), "rate_limited");
    }
    assert!(
        sent_again,
        "the connection could chat again after the window"
    );
    let texts: Vec<String> = {
        let mut seen = Vec::new();
        for _ in 0..4 {
            seen.push(line(&mut black).await.str("text"));
        }
        seen
    };
    assert_eq!(texts, ["line 0", "line 1", "line 2", "again"]);
    rig.stop().await;
}

#[tokio::test]
async fn control_characters_are_stripped_and_html_is_stored_and_sent_verbatim() {
    let rig = Rig::builder().memory().start().await;
    let (id, mut white, mut black) = rig.players(json!({})).await;
    say(&mut white, "player", "a\u{0}b\u{7}\nc\u{202e}d").await;
    assert_eq!(line(&mut black).await.d["text"], "ab cd");
    let html = r#"<img src=x onerror="alert(1)"><b>bold</b> &amp;"#;
    say(&mut white, "player", html).await;
    let got = line(&mut black).await;
    assert_eq!(got.d["text"], html);
    // Stored as it was sent: a `hello` brings the room's history, byte for byte.
    let _ = id;
    line(&mut white).await;
    line(&mut white).await;
    white.send(json!({"t": "hello"})).await;
    assert_eq!(texts(&history(&mut white, "player").await), ["ab cd", html]);
    rig.stop().await;
}

#[tokio::test]
async fn an_invisible_or_zalgo_line_is_a_bad_message_and_emoji_sequences_pass_whole() {
    let rig = Rig::builder().memory().start().await;
    let (_id, mut white, mut black) = rig.players(json!({})).await;
    let zalgo = format!("a{}", "\u{0336}".repeat(139));
    for text in [
        "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}",
        "\u{3164}",
        "\u{0301}\u{FE0F}",
        zalgo.as_str(),
    ] {
        say(&mut white, "player", text).await;
        let refusal = white.skip_to("error").await;
        assert_eq!(refusal.str("code"), "bad_message", "{text:?}");
    }
    // The refusals took no chat token (3 a connection): this line goes through, its zero-width
    // space and filler gone, its family emoji (joined by ZWJ) whole.
    let family = "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}";
    say(
        &mut white,
        "player",
        &format!("g\u{200B}g\u{3164} {family} Tr\u{00E8}s bien"),
    )
    .await;
    assert_eq!(
        line(&mut black).await.d["text"],
        format!("gg {family} Tr\u{00E8}s bien").as_str(),
        "{:?}",
        black.seen
    );
    rig.stop().await;
}

#[tokio::test]
async fn chat_lines_survive_a_restart_and_come_back_in_chat_history_after_state() {
    let mut rig = Rig::start().await;
    let (id, white_token, black_token) = rig.game_between_two(json!({})).await;
    {
        let mut white = rig.seat(&id, &white_token).await;
        let mut spectator = rig.spectate(&id).await;
        say(&mut white, "player", "before the restart").await;
        line(&mut white).await;
        say(&mut spectator, "spectator", "me too").await;
        line(&mut spectator).await;
    }
    rig.restart().await;
    let mut black = rig.seat(&id, &black_token).await;
    let first = black.recv().await;
    assert_eq!(first.t, "state", "state comes first: {first}");
    let lines = history(&mut black, "player").await;
    assert_eq!(texts(&lines), ["before the restart"]);
    assert_eq!(lines[0]["author"], "white");
    assert!(lines[0]["at_ms"].as_i64().is_some_and(|t| t > 0));
    // A player gets no spectator history unless it asks.
    assert!(
        !black
            .seen
            .iter()
            .any(|m| m.t == "chat_history" && m.d["room"] == "spectator"),
        "{:?}",
        black.seen
    );
    let mut spectator = rig.spectate(&id).await;
    assert_eq!(
        texts(&history(&mut spectator, "spectator").await),
        ["me too"]
    );
    assert!(
        !spectator
            .seen
            .iter()
            .any(|m| m.t == "chat_history" && m.d["room"] == "player"),
        "a spectator never gets the players' room"
    );
    rig.stop().await;
}

#[tokio::test]
async fn chat_does_not_change_the_games_version_numbering_nor_its_resync() {
    let rig = Rig::builder().memory().start().await;
    let (id, white_token, _black_token) = rig.game_between_two(json!({})).await;
    let mut white = rig.seat(&id, &white_token).await;
    let state = white.recv_type("state").await;
    let v0 = state.v.expect("state has v");
    say(&mut white, "player", "before my move").await;
    line(&mut white).await;
    let event = white.play("e2e4", "m1").await;
    assert_eq!(
        event.v,
        Some(v0 + 1),
        "the move is the next version after chat"
    );
    // A resync from v0 replays the move, not the chat.
    let mut again = rig
        .connect(&id, &format!("token={white_token}&v={v0}"))
        .await;
    let replayed = again.next_non_presence().await;
    assert_eq!(replayed.t, "move", "{replayed}");
    assert_eq!(replayed.v, Some(v0 + 1));
    let lines = history(&mut again, "player").await;
    assert_eq!(
        texts(&lines),
        ["before my move"],
        "chat comes as history instead"
    );
    rig.stop().await;
}

#[tokio::test]
async fn a_line_the_store_refuses_is_a_store_failure_and_reaches_nobody() {
    let failing = FailingStore::new(Arc::new(MemoryStore::new()));
    let rig = Rig::builder()
        .store(Arc::new(failing.clone()))
        .start()
        .await;
    let (_id, mut white, mut black) = rig.players(json!({})).await;
    failing.set_failing(true);
    say(&mut white, "player", "lost").await;
    assert_eq!(error_code(&mut white).await, "store_failure");
    failing.set_failing(false);
    say(&mut white, "player", "kept").await;
    assert_eq!(line(&mut black).await.d["text"], "kept", "{:?}", black.seen);
    assert_eq!(line(&mut white).await.d["text"], "kept");
    rig.stop().await;
}

#[tokio::test]
async fn a_signed_in_author_chats_under_their_username_with_user_set() {
    let rig = Rig::builder().memory().start().await;
    let alice = Session::register(rig.addr(), "Alice").await;
    let carol = Session::register(rig.addr(), "carol").await;
    let (id, _, black_token) = alice.against_anonymous(&rig).await;
    let mut white = alice.connect(rig.addr(), &id, "").await;
    let mut black = rig.seat(&id, &black_token).await;
    say(&mut white, "player", "hello").await;
    assert_eq!(line(&mut white).await.d["text"], "hello");
    let got = line(&mut black).await;
    assert_eq!(got.d["author"], "Alice");
    assert_eq!(got.d["user"], "Alice");
    say(&mut black, "player", "hi").await;
    let got = line(&mut white).await;
    assert_eq!(got.d["text"], "hi");
    assert_eq!(got.d["author"], "black");
    let mut watcher = carol.connect(rig.addr(), &id, "").await;
    say(&mut watcher, "spectator", "nice").await;
    let got = line(&mut watcher).await;
    assert_eq!(got.d["author"], "carol");
    assert_eq!(got.d["user"], "carol");
    rig.stop().await;
}

#[tokio::test]
async fn a_finished_game_keeps_its_chat() {
    let rig = Rig::builder().memory().start().await;
    let (id, mut white, mut black) = rig.players(json!({})).await;
    white.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    say(&mut black, "player", "gg").await;
    assert_eq!(line(&mut white).await.d["text"], "gg");
    let mut later = rig.spectate(&id).await;
    say(&mut later, "spectator", "well played").await;
    assert_eq!(line(&mut later).await.d["text"], "well played");
    rig.stop().await;
}

// ---- the lobby chat, on /ws/lobby ----

async fn lobby_say(client: &mut LobbyClient, room: &str, text: &str) {
    let frame = json!({"t": "chat", "d": {"room": room, "text": text}}).to_string();
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

async fn lobby_error(client: &mut LobbyClient) -> ErrorCode {
    match client
        .until("an error", |m| matches!(m, LobbyMsg::Error(_)))
        .await
    {
        LobbyMsg::Error(error) => error.code,
        _ => unreachable!("until returns what it matched"),
    }
}

#[tokio::test]
async fn a_lobby_line_reaches_every_lobby_page_under_the_username_or_anonymous() {
    let rig = Rig::builder().memory().start().await;
    let alice = Session::register(rig.addr(), "Alice").await;
    let mut signed = LobbyClient::connect(rig.addr(), Some(&alice.cookie)).await;
    let mut anonymous = LobbyClient::connect(rig.addr(), None).await;
    lobby_say(&mut signed, "lobby", "anyone for a game?").await;
    for client in [&mut signed, &mut anonymous] {
        let line = lobby_line(client).await;
        assert_eq!(line.text, "anyone for a game?");
        assert_eq!(line.author, "Alice");
        assert_eq!(line.user.as_deref(), Some("Alice"));
        assert_eq!(line.room, ChatRoom::Lobby);
    }
    lobby_say(&mut anonymous, "lobby", "<b>me</b>").await;
    let line = lobby_line(&mut signed).await;
    assert_eq!((line.author.as_str(), line.user), ("anonymous", None));
    assert_eq!(line.text, "<b>me</b>");
    rig.stop().await;
}

#[tokio::test]
async fn a_new_lobby_page_gets_the_recent_lines_and_they_survive_a_restart() {
    let mut rig = Rig::start().await;
    let mut first = LobbyClient::connect(rig.addr(), None).await;
    lobby_say(&mut first, "lobby", "one").await;
    lobby_line(&mut first).await;
    lobby_say(&mut first, "lobby", "two").await;
    lobby_line(&mut first).await;
    drop(first);
    rig.restart().await;
    let mut later = LobbyClient::connect(rig.addr(), None).await;
    let history = match later
        .until("chat_history", |m| matches!(m, LobbyMsg::ChatHistory(_)))
        .await
    {
        LobbyMsg::ChatHistory(history) => history,
        _ => unreachable!("until returns what it matched"),
    };
    assert_eq!(history.room, ChatRoom::Lobby);
    let texts: Vec<&str> = history.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["one", "two"]);
    rig.stop().await;
}

#[tokio::test]
async fn the_lobby_chat_has_the_game_rooms_limits_and_keeps_the_channel() {
    let rig = Rig::builder().memory().start().await;
    let mut page = LobbyClient::connect(rig.addr(), None).await;
    lobby_say(&mut page, "lobby", &"x".repeat(141)).await;
    assert_eq!(lobby_error(&mut page).await, ErrorCode::TooLong);
    lobby_say(&mut page, "lobby", "\u{200B}\u{3164}").await;
    assert_eq!(lobby_error(&mut page).await, ErrorCode::BadMessage);
    lobby_say(&mut page, "player", "wrong room").await;
    assert_eq!(lobby_error(&mut page).await, ErrorCode::NotAllowed);
    for n in 0..3 {
        lobby_say(&mut page, "lobby", &format!("l{n}")).await;
        assert_eq!(lobby_line(&mut page).await.text, format!("l{n}"));
    }
    lobby_say(&mut page, "lobby", "too fast").await;
    assert_eq!(lobby_error(&mut page).await, ErrorCode::RateLimited);
    lobby_say(&mut page, "lobby", "a\u{0}\nb").await;
    // Rate limited too, or, if a token came back meanwhile, cleaned: either way the channel
    // is kept and answers.
    let reply = page
        .until("chat or error", |m| {
            matches!(m, LobbyMsg::Chat(_) | LobbyMsg::Error(_))
        })
        .await;
    match reply {
        LobbyMsg::Chat(line) => assert_eq!(line.text, "a b"),
        LobbyMsg::Error(error) => assert_eq!(error.code, ErrorCode::RateLimited),
        _ => unreachable!("until returns what it matched"),
    }
    rig.stop().await;
}
