//! The contract of chat lines (schema v4, issue 12): per room, oldest first, the newest only,
//! a room keeps its last lines, appends fail under failure injection and after close.

use std::sync::Arc;

use marseillais::server::chat::{ChatLine, ChatRoom, ChatText, KEPT_LINES, NewChatLine};
use marseillais::server::players::account::UserId;
use marseillais::server::store::{FailingStore, Store, StoreError};

/// A line to append: `text` is cleaned and checked as the server does.
pub fn chat_line(game: Option<&str>, room: ChatRoom, at_ms: i64, text: &str) -> NewChatLine {
    NewChatLine {
        game_id: game.map(str::to_owned),
        room,
        at_ms,
        user_id: None,
        author: "anonymous".to_owned(),
        text: ChatText::parse(text).expect("a valid chat text"),
    }
}

/// Lines come back per room (a game's `player`, its `spectator`, the lobby's), oldest first,
/// the newest `limit` of them, with their text, author and account exactly as stored.
pub async fn check_chat_lines_come_back_per_room_oldest_first(store: &dyn Store) {
    let html = "<script>alert('x')</script> & ж";
    let mut signed = chat_line(Some("g1"), ChatRoom::Player, 10, html);
    signed.user_id = Some(UserId(7));
    signed.author = "Alice".to_owned();
    let first = store.append_chat(signed.clone()).await.expect("append");
    let second = store
        .append_chat(chat_line(Some("g1"), ChatRoom::Player, 11, "two"))
        .await
        .expect("append");
    assert!(second > first, "ids increase: {first} then {second}");
    store
        .append_chat(chat_line(Some("g1"), ChatRoom::Spectator, 12, "spec"))
        .await
        .expect("append");
    store
        .append_chat(chat_line(Some("g2"), ChatRoom::Player, 13, "other game"))
        .await
        .expect("append");
    store
        .append_chat(chat_line(None, ChatRoom::Lobby, 14, "lobby"))
        .await
        .expect("append");
    store
        .append_chat(chat_line(Some("g1"), ChatRoom::Player, 15, "three"))
        .await
        .expect("append");

    let texts = |lines: &[ChatLine]| lines.iter().map(|l| l.text.clone()).collect::<Vec<_>>();
    let player = store
        .recent_chat(Some("g1"), ChatRoom::Player, 50)
        .await
        .expect("read");
    assert_eq!(texts(&player), [html, "two", "three"]);
    assert_eq!(player[0], signed.clone().stored(first));
    let last_two = store
        .recent_chat(Some("g1"), ChatRoom::Player, 2)
        .await
        .expect("read");
    assert_eq!(
        texts(&last_two),
        ["two", "three"],
        "the newest two, oldest first"
    );
    let spectator = store
        .recent_chat(Some("g1"), ChatRoom::Spectator, 50)
        .await
        .expect("read");
    assert_eq!(texts(&spectator), ["spec"]);
    let lobby = store
        .recent_chat(None, ChatRoom::Lobby, 50)
        .await
        .expect("read");
    assert_eq!(texts(&lobby), ["lobby"]);
    assert_eq!(lobby[0].game_id, None);
    assert!(
        store
            .recent_chat(Some("g3"), ChatRoom::Player, 50)
            .await
            .expect("read")
            .is_empty()
    );
}

/// A room keeps its last [`KEPT_LINES`] lines: older ones are deleted as new ones come, and
/// other rooms are not touched.
pub async fn check_a_chat_room_keeps_only_its_last_lines(store: &dyn Store) {
    store
        .append_chat(chat_line(Some("g1"), ChatRoom::Spectator, 1, "kept"))
        .await
        .expect("append");
    let extra = 5;
    // Issued together so that the writer stores them in a few group commits.
    let appends: Vec<_> = (0..KEPT_LINES as i64 + extra)
        .map(|i| store.append_chat(chat_line(Some("g1"), ChatRoom::Player, i, &format!("l{i}"))))
        .collect();
    for append in appends {
        append.await.expect("append");
    }
    let player = store
        .recent_chat(Some("g1"), ChatRoom::Player, 10 * KEPT_LINES)
        .await
        .expect("read");
    assert_eq!(player.len(), KEPT_LINES as usize);
    assert_eq!(player[0].text, format!("l{extra}"), "the oldest ones went");
    assert_eq!(
        player.last().map(|l| l.text.clone()),
        Some(format!("l{}", KEPT_LINES as i64 + extra - 1))
    );
    let spectator = store
        .recent_chat(Some("g1"), ChatRoom::Spectator, 50)
        .await
        .expect("read");
    assert_eq!(spectator.len(), 1, "another room is not pruned");
}

/// A chat append fails (and stores nothing) under failure injection, and after close.
pub async fn check_chat_appends_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let failing = FailingStore::new(Arc::clone(&inner));
    failing
        .append_chat(chat_line(Some("g1"), ChatRoom::Player, 1, "stored"))
        .await
        .expect("switch off");
    failing.set_failing(true);
    assert!(matches!(
        failing
            .append_chat(chat_line(Some("g1"), ChatRoom::Player, 2, "lost"))
            .await,
        Err(StoreError::Io(_))
    ));
    let lines = inner
        .recent_chat(Some("g1"), ChatRoom::Player, 50)
        .await
        .expect("reads pass through");
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].text, "stored");
    inner.close().await;
    assert!(matches!(
        inner
            .append_chat(chat_line(Some("g1"), ChatRoom::Player, 3, "closed"))
            .await,
        Err(StoreError::Closed)
    ));
}
