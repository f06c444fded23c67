//! The chat rules that need no moderator (issue 32, docs/fair-play.md "Chat rules") on a real
//! server: a repeated line and a sixth line within 10 s silence their writer (`chat_silenced`,
//! saying why and for how long) and never reach anyone; a line holding a word of the word list
//! is not sent (`chat_word`); the other players chat on. Writers here are signed-in accounts:
//! every test client is 127.0.0.1, and an anonymous writer is its address.

use crate::support;

use marseillais::server::chat::repeat::FloodRule;
use marseillais::server::chat::words::WordList;
use marseillais::server::config::Config;
use marseillais::server::lobby::channel::msg::LobbyMsg;
use marseillais::server::play::protocol::ErrorCode;
use serde_json::json;
use support::lobby::LobbyClient;
use support::rig::Rig;
use support::s;
use support::session::Session;
use support::ws::{Client, Incoming};

/// The rules on, the older per-connection and per-client rates out of the way.
fn rules_on(config: &mut Config) {
    config.clients.chat_flood = FloodRule::default();
    config.clients.chat_words = WordList::parse("idiot\nbuy cheap");
    config.chat_burst = 100;
    config.clients.chat_room_burst = 100;
    config.clients.chat_burst = 100;
}

/// Alice (White) and Bob (Black), signed in, both connected to one game.
async fn players(rig: &Rig) -> (Client, Client) {
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
    (white, black)
}

async fn say(client: &mut Client, text: &str) {
    client
        .send(json!({"t": "chat", "d": {"room": "player", "text": text}}))
        .await;
}

/// The next `chat` line or `error`, anything else skipped.
async fn reply(client: &mut Client) -> Incoming {
    client
        .until("chat or error", |m| m.t == "chat" || m.t == "error")
        .await
}

async fn next_line(client: &mut Client) -> String {
    s(&client.skip_to("chat").await.d["text"])
}

#[tokio::test]
async fn a_repeated_line_silences_its_writer_and_never_reaches_the_other_player() {
    let rig = Rig::builder().memory().config(rules_on).start().await;
    let (mut alice, mut bob) = players(&rig).await;
    say(&mut alice, "good luck").await;
    assert_eq!(next_line(&mut bob).await, "good luck");
    assert_eq!(s(&reply(&mut alice).await.d["text"]), "good luck");

    say(&mut alice, "Good luck!!").await;
    let refused = reply(&mut alice).await;
    assert_eq!(refused.t, "error", "{refused}");
    assert_eq!(refused.d["code"], "chat_silenced");
    let message = s(&refused.d["message"]);
    assert!(
        message.contains("repeat") && message.contains("60 s"),
        "{message}"
    );
    assert_eq!(refused.d["retry_after_secs"], 60);

    say(&mut alice, "sorry").await;
    let still = reply(&mut alice).await;
    assert_eq!(still.d["code"], "chat_silenced", "{still}");

    // Bob is not silenced, and the refused lines never reached him.
    say(&mut bob, "thanks").await;
    assert_eq!(next_line(&mut bob).await, "thanks");
    assert_eq!(next_line(&mut alice).await, "thanks");
}

#[tokio::test]
async fn a_sixth_line_within_ten_seconds_silences_and_never_reaches_the_other_player() {
    let rig = Rig::builder().memory().config(rules_on).start().await;
    let (mut alice, mut bob) = players(&rig).await;
    for i in 1..=5 {
        say(&mut alice, &format!("line {i}")).await;
        assert_eq!(s(&reply(&mut alice).await.d["text"]), format!("line {i}"));
        assert_eq!(next_line(&mut bob).await, format!("line {i}"));
    }
    say(&mut alice, "line 6").await;
    let refused = reply(&mut alice).await;
    assert_eq!(refused.d["code"], "chat_silenced", "{refused}");
    assert!(
        s(&refused.d["message"]).contains("too many lines"),
        "{refused}"
    );
    say(&mut bob, "calm down").await;
    assert_eq!(next_line(&mut bob).await, "calm down", "line 6 never came");
}

#[tokio::test]
async fn a_line_with_a_listed_word_is_not_sent_and_its_writer_is_told() {
    let rig = Rig::builder().memory().config(rules_on).start().await;
    let (mut alice, mut bob) = players(&rig).await;
    say(&mut alice, "you IDIOT").await;
    let refused = reply(&mut alice).await;
    assert_eq!(refused.d["code"], "chat_word", "{refused}");
    assert!(s(&refused.d["message"]).contains("not sent"), "{refused}");
    say(&mut alice, "Buy, cheap coins!").await;
    assert_eq!(reply(&mut alice).await.d["code"], "chat_word");
    // Not silenced, and whole words only: the next line goes through, and is Bob's first.
    say(&mut alice, "an idiotically classy move").await;
    assert_eq!(next_line(&mut bob).await, "an idiotically classy move");
}

/// `text` said on a lobby channel; its answer (a `chat` or an `error`).
async fn lobby_say(page: &mut LobbyClient, text: &str) -> LobbyMsg {
    let msg = json!({"t": "chat", "d": {"room": "lobby", "text": text}});
    page.send_text(&msg.to_string()).await;
    page.until("chat or error", |m| {
        matches!(m, LobbyMsg::Chat(_) | LobbyMsg::Error(_))
    })
    .await
}

#[tokio::test]
async fn the_lobby_chat_follows_the_same_rules() {
    let rig = Rig::builder().memory().config(rules_on).start().await;
    let carol = Session::register(rig.addr(), "carol").await;
    let dave = Session::register(rig.addr(), "dave").await;
    let mut page = LobbyClient::connect(rig.addr(), Some(&carol.cookie)).await;
    let mut other = LobbyClient::connect(rig.addr(), Some(&dave.cookie)).await;
    match lobby_say(&mut page, "idiot").await {
        LobbyMsg::Error(e) => assert_eq!(e.code, ErrorCode::ChatWord),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        lobby_say(&mut page, "hello all").await,
        LobbyMsg::Chat(_)
    ));
    match lobby_say(&mut page, "HELLO ALL").await {
        LobbyMsg::Error(e) => {
            assert_eq!(e.code, ErrorCode::ChatSilenced);
            assert_eq!(e.retry_after_secs, Some(60));
        }
        other => panic!("{other:?}"),
    }
    let msg = json!({"t": "chat", "d": {"room": "lobby", "text": "hello carol"}});
    other.send_text(&msg.to_string()).await;
    // Dave sees Carol's first line go by, then his own: he is not silenced.
    let answer = other
        .until("dave's line or an error", |m| match m {
            LobbyMsg::Chat(line) => line.text == "hello carol",
            LobbyMsg::Error(_) => true,
            _ => false,
        })
        .await;
    assert!(matches!(answer, LobbyMsg::Chat(_)), "{answer:?}");
    // Carol's refused line reached nobody: her page's next line is Dave's.
    match page
        .until("a chat line", |m| matches!(m, LobbyMsg::Chat(_)))
        .await
    {
        LobbyMsg::Chat(line) => assert_eq!(line.text, "hello carol"),
        other => panic!("{other:?}"),
    }
}
