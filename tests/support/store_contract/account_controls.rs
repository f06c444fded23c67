//! The contract of the account's own controls (SQLite schema v11, Postgres v8; issue 32): an
//! account's status (a closed or deleted account has no session), its list of live sessions,
//! ending the other sessions, a password change that keeps only the current session, and a
//! deletion that keeps the games but not the name, the data or the sessions.

use std::sync::Arc;

use marseillais::server::chat::{ChatRoom, ChatText, NewChatLine};
use marseillais::server::domain::user::{AccountStatus, DELETED_LABEL};
use marseillais::server::players::account::UserId;
use marseillais::server::store::{
    ExplorerResult, FailingStore, GameStatus, ModAction, ModActionKind, PlaybanEnd, PlaybanOutcome,
    SESSION_IDLE_MS, Store, StoreError,
};

use super::accounts::{session_hash, username};
use super::commit;
use super::explorer::{explorer_game, explorer_rows};

async fn status_of(store: &dyn Store, user: UserId) -> AccountStatus {
    store
        .user_by_id(user)
        .await
        .expect("read")
        .expect("the row stays")
        .status
}

/// A new account is active; closing it ends every one of its sessions (and no other
/// account's); a deleted one has none either; the status reads back as set.
pub async fn check_a_closed_or_deleted_account_has_no_session(store: &dyn Store) {
    let alice = store
        .create_user(username("alice"), "hash".to_owned(), 1_000)
        .await
        .expect("alice");
    let bob = store
        .create_user(username("bob"), "hash".to_owned(), 1_000)
        .await
        .expect("bob");
    assert_eq!(status_of(store, alice).await, AccountStatus::Active);
    for (byte, user) in [(1, alice), (2, alice), (3, bob)] {
        store
            .create_session(session_hash(byte), user, 2_000)
            .await
            .expect("session");
    }
    store
        .set_account_status(alice, AccountStatus::Closed, 3_000)
        .await
        .expect("close");
    assert_eq!(status_of(store, alice).await, AccountStatus::Closed);
    for byte in [1, 2] {
        assert_eq!(
            store
                .session_account(session_hash(byte), 3_000)
                .await
                .expect("read"),
            None
        );
    }
    assert_eq!(store.user_sessions(alice, 3_000).await.expect("list"), []);
    assert_eq!(
        store
            .session_account(session_hash(3), 3_000)
            .await
            .expect("read")
            .map(|a| a.id),
        Some(bob),
        "bob's session is not alice's"
    );
    // Reopened, she signs in again with a new session.
    store
        .set_account_status(alice, AccountStatus::Active, 4_000)
        .await
        .expect("reopen");
    store
        .create_session(session_hash(4), alice, 4_000)
        .await
        .expect("session");
    assert!(
        store
            .session_account(session_hash(4), 4_000)
            .await
            .expect("read")
            .is_some()
    );
    store
        .set_account_status(bob, AccountStatus::Deleted, 5_000)
        .await
        .expect("delete");
    assert_eq!(status_of(store, bob).await, AccountStatus::Deleted);
    assert_eq!(
        store
            .session_account(session_hash(3), 5_000)
            .await
            .expect("read"),
        None
    );
}

/// The list holds the user's live sessions only, the newest made first; ending the others
/// keeps the one named; a password change replaces the hash and does the same.
pub async fn check_sessions_are_listed_and_the_others_ended(store: &dyn Store) {
    let alice = store
        .create_user(username("alice"), "old-hash".to_owned(), 1_000)
        .await
        .expect("alice");
    let bob = store
        .create_user(username("bob"), "hash".to_owned(), 1_000)
        .await
        .expect("bob");
    let now = 10 * SESSION_IDLE_MS;
    // Session 1 is idle for longer than the limit: not listed.
    store
        .create_session(session_hash(1), alice, now - SESSION_IDLE_MS - 1)
        .await
        .expect("old session");
    store
        .create_session(session_hash(2), alice, now - 2_000)
        .await
        .expect("session");
    store
        .create_session(session_hash(3), alice, now - 1_000)
        .await
        .expect("session");
    store
        .create_session(session_hash(4), alice, now - 500)
        .await
        .expect("session");
    store
        .create_session(session_hash(9), bob, now)
        .await
        .expect("bob's session");
    let listed = store.user_sessions(alice, now).await.expect("list");
    let hashes: Vec<_> = listed.iter().map(|s| s.hash).collect();
    assert_eq!(
        hashes,
        [session_hash(4), session_hash(3), session_hash(2)],
        "live ones, newest first"
    );
    assert_eq!(listed[0].created_ms, now - 500);
    assert_eq!(listed[0].last_seen_ms, now - 500);

    store
        .delete_other_sessions(alice, session_hash(3))
        .await
        .expect("end the others");
    let hashes: Vec<_> = store
        .user_sessions(alice, now)
        .await
        .expect("list")
        .into_iter()
        .map(|s| s.hash)
        .collect();
    assert_eq!(hashes, [session_hash(3)]);
    assert!(
        store
            .session_account(session_hash(9), now)
            .await
            .expect("read")
            .is_some(),
        "another account's sessions stay"
    );

    store
        .create_session(session_hash(5), alice, now)
        .await
        .expect("session");
    store
        .set_password_hash(alice, "new-hash".to_owned(), session_hash(5))
        .await
        .expect("change the password");
    let user = store.user_by_id(alice).await.expect("read").expect("alice");
    assert_eq!(user.password_hash, "new-hash");
    assert_eq!(
        store
            .session_account(session_hash(3), now)
            .await
            .expect("read"),
        None,
        "the other session ended with the change"
    );
    assert_eq!(
        store
            .session_account(session_hash(5), now)
            .await
            .expect("read")
            .map(|a| a.id),
        Some(alice),
        "the current one stays"
    );
}

fn line(game: &str, user: Option<UserId>, author: &str, text: &str) -> NewChatLine {
    NewChatLine {
        game_id: Some(game.to_owned()),
        room: ChatRoom::Player,
        at_ms: 5_000,
        user_id: user,
        author: author.to_owned(),
        text: ChatText::parse(text).expect("a chat text"),
    }
}

/// A deletion keeps the row (status deleted, no password, the name not free again) and the
/// games (still the user's, still loading), writes [`DELETED_LABEL`] over the name in the
/// games' rows and events and over its chat lines' author, clears its explorer names, and
/// removes its sessions, settings, ratings and lesson progress; the other player's data stay.
pub async fn check_a_deletion_keeps_the_games_without_the_name_or_the_data(store: &dyn Store) {
    let alice = store
        .create_user(username("Alice"), "hash".to_owned(), 1_000)
        .await
        .expect("alice");
    let bob = store
        .create_user(username("bob"), "hash".to_owned(), 1_000)
        .await
        .expect("bob");
    let mut game = commit("g1", 0, 1);
    game.events = vec![
        format!(
            r#"{{"k":"created","user":{{"id":{},"name":"Alice"}}}}"#,
            alice.0
        ),
        format!(r#"{{"k":"joined","user":{{"id":{},"name":"bob"}}}}"#, bob.0),
    ];
    game.listing.status = GameStatus::Finished;
    game.listing.white_user = Some(alice);
    game.listing.black_user = Some(bob);
    game.listing.summary =
        r#"{"players":{"black":{"name":"bob"},"white":{"name":"Alice"}}}"#.to_owned();
    store.commit(game).await.expect("a game of theirs");
    store
        .append_chat(line("g1", Some(alice), "Alice", "hello from Alice"))
        .await
        .expect("her line");
    store
        .append_chat(line("g1", Some(bob), "bob", "hi"))
        .await
        .expect("his line");
    let mut counted = explorer_game("g1", 5_000, ExplorerResult::Draw, "e2e4 d7d5");
    counted.white.name = Some("Alice".into());
    counted.black.name = Some("bob".into());
    store
        .add_explorer_games(vec![counted])
        .await
        .expect("explorer");
    store
        .set_account_settings(alice, r#"{"sound":false}"#.to_owned(), 2_000)
        .await
        .expect("settings");
    store
        .set_account_settings(bob, r#"{"sound":true}"#.to_owned(), 2_000)
        .await
        .expect("settings");
    store
        .record_lesson_step(alice, "basics", 1, 2_000)
        .await
        .expect("lesson");
    store
        .create_session(session_hash(1), alice, 2_000)
        .await
        .expect("session");
    // Issue 32's rows of hers: a block either way, a fair-play outcome, a chat ban.
    let carol = store
        .create_user(username("carol"), "hash".to_owned(), 1_000)
        .await
        .expect("carol");
    store
        .block(alice, bob, 2_000)
        .await
        .expect("she blocks bob");
    store
        .block(carol, alice, 2_000)
        .await
        .expect("carol blocks her");
    store
        .block(carol, bob, 2_000)
        .await
        .expect("carol blocks bob");
    store
        .record_playban(PlaybanEnd {
            game_id: "g1".to_owned(),
            at_ms: 5_000,
            seats: vec![(alice, PlaybanOutcome::Abort), (bob, PlaybanOutcome::Good)],
        })
        .await
        .expect("outcomes");
    store
        .moderate(ModAction {
            moderator: "console".to_owned(),
            target: alice,
            kind: ModActionKind::ChatBan { until_ms: None },
            reason: "insults".to_owned(),
            at_ms: 3_000,
        })
        .await
        .expect("a chat ban");

    store.delete_account(alice, 6_000).await.expect("delete");
    assert!(!store.blocked_between(alice, bob).await.expect("read"));
    assert!(!store.blocked_between(carol, alice).await.expect("read"));
    assert!(
        store.blocked_between(carol, bob).await.expect("read"),
        "others' blocks stay"
    );
    assert_eq!(
        store.playban_outcomes(alice, 0, 10).await.expect("read"),
        []
    );
    assert_eq!(
        store
            .playban_outcomes(bob, 0, 10)
            .await
            .expect("read")
            .len(),
        1,
        "the other player's outcome stays"
    );
    assert_eq!(store.chat_ban(alice, 6_000).await.expect("read"), None);

    let row = store.user_by_id(alice).await.expect("read").expect("kept");
    assert_eq!(row.status, AccountStatus::Deleted);
    assert_eq!(row.password_hash, "", "no password is kept");
    match store
        .create_user(username("alice"), "hash".to_owned(), 7_000)
        .await
    {
        Err(StoreError::UsernameTaken) => {}
        other => panic!("the name is not free again: {other:?}"),
    }
    assert_eq!(
        store
            .session_account(session_hash(1), 6_000)
            .await
            .expect("read"),
        None
    );
    assert_eq!(store.account_settings(alice).await.expect("read"), None);
    assert!(store.account_settings(bob).await.expect("read").is_some());
    assert_eq!(store.lesson_steps(alice).await.expect("read"), []);

    let (listing, events) = store.load_game("g1").await.expect("load").expect("kept");
    assert_eq!(listing.white_user, Some(alice), "still her game by id");
    assert!(!listing.summary.contains("Alice"), "{}", listing.summary);
    assert!(
        listing
            .summary
            .contains(&format!(r#""name":"{DELETED_LABEL}""#))
    );
    assert!(listing.summary.contains(r#""name":"bob""#));
    for event in &events {
        assert!(!event.contains("Alice"), "{event}");
    }
    assert!(events[0].contains(DELETED_LABEL));
    assert!(events[1].contains("bob"));
    assert_eq!(
        store.user_games(alice, 10, 0).await.expect("games").len(),
        1
    );
    let lines = store
        .recent_chat(Some("g1"), ChatRoom::Player, 10)
        .await
        .expect("chat");
    assert_eq!(lines.len(), 2, "the lines stay");
    assert_eq!(lines[0].author, DELETED_LABEL);
    assert_eq!(lines[0].user_id, None);
    assert_eq!(lines[1].author, "bob");
    assert_eq!(lines[1].user_id, Some(bob));
    let position = explorer_rows(store, 1).await;
    let example = &position.examples[0];
    assert_eq!(example.white.name, None);
    assert_eq!(example.black.name.as_deref(), Some("bob"));
}

/// The account controls' writes fail under failure injection and change nothing; after
/// close they fail too.
pub async fn check_account_control_writes_fail_while_failing_and_after_close(
    inner: Arc<dyn Store>,
) {
    let alice = inner
        .create_user(username("alice"), "hash".to_owned(), 1_000)
        .await
        .expect("alice");
    inner
        .create_session(session_hash(1), alice, 1_000)
        .await
        .expect("session");
    let failing = FailingStore::new(Arc::clone(&inner));
    failing.set_failing(true);
    assert!(
        failing
            .set_account_status(alice, AccountStatus::Closed, 2_000)
            .await
            .is_err()
    );
    assert!(
        failing
            .delete_other_sessions(alice, session_hash(2))
            .await
            .is_err()
    );
    assert!(
        failing
            .set_password_hash(alice, "new".to_owned(), session_hash(2))
            .await
            .is_err()
    );
    assert!(failing.delete_account(alice, 2_000).await.is_err());
    let row = inner.user_by_id(alice).await.expect("read").expect("alice");
    assert_eq!(row.status, AccountStatus::Active);
    assert_eq!(row.password_hash, "hash");
    assert!(
        inner
            .session_account(session_hash(1), 2_000)
            .await
            .expect("read")
            .is_some()
    );
    inner.close().await;
    assert!(
        inner
            .set_account_status(alice, AccountStatus::Closed, 3_000)
            .await
            .is_err()
    );
    assert!(inner.delete_account(alice, 3_000).await.is_err());
}
