//! The contract of blocks (SQLite schema v11, Postgres v8; issue 32): one row per (blocker,
//! blocked) with the time of the first block; the list newest first with names; the relations
//! either way, each once; `blocked_between` both ways; writes fail under failure injection and
//! after close.

use std::sync::Arc;

use marseillais::server::domain::user::UserId;
use marseillais::server::store::{BlockEntry, BlockRelation, FailingStore, Store, StoreError};

use super::accounts::username;

async fn user(store: &dyn Store, name: &str) -> UserId {
    store
        .create_user(username(name), "hash".to_owned(), 1)
        .await
        .expect("a user")
}

fn relation(user: UserId, name: &str) -> BlockRelation {
    BlockRelation {
        user,
        name: name.to_owned(),
    }
}

/// A block is kept once with its first time, listed newest first with the blocked user's
/// name; the relations are everyone in a block with the user either way, each once; an unblock
/// says whether there was a block and leaves the other direction alone.
pub async fn check_blocks_are_kept_once_listed_newest_first_and_related_both_ways(
    store: &dyn Store,
) {
    let alice = user(store, "alice").await;
    let bob = user(store, "Bob").await;
    let carol = user(store, "carol").await;
    let dave = user(store, "dave").await;
    assert_eq!(store.blocks_of(alice).await.expect("read"), []);
    assert_eq!(store.block_relations(alice).await.expect("read"), []);
    assert!(!store.blocked_between(alice, bob).await.expect("read"));
    store.block(alice, bob, 10).await.expect("block");
    store.block(alice, bob, 99).await.expect("again: a no-op");
    store.block(alice, carol, 20).await.expect("block");
    store.block(bob, alice, 30).await.expect("block back");
    store.block(dave, alice, 40).await.expect("block");
    assert_eq!(
        store.blocks_of(alice).await.expect("read"),
        [
            BlockEntry {
                user: carol,
                name: "carol".to_owned(),
                at_ms: 20,
            },
            BlockEntry {
                user: bob,
                name: "Bob".to_owned(),
                at_ms: 10,
            },
        ]
    );
    let mut related = store.block_relations(alice).await.expect("read");
    related.sort();
    let mut expected = vec![
        relation(bob, "Bob"),
        relation(carol, "carol"),
        relation(dave, "dave"),
    ];
    expected.sort();
    assert_eq!(related, expected, "each once, either way");
    assert_eq!(
        store.block_relations(carol).await.expect("read"),
        [relation(alice, "alice")]
    );
    for (a, b) in [(alice, carol), (carol, alice), (dave, alice), (alice, dave)] {
        assert!(
            store.blocked_between(a, b).await.expect("read"),
            "{a:?} {b:?}"
        );
    }
    assert!(!store.blocked_between(carol, dave).await.expect("read"));
    assert!(store.unblock(alice, bob).await.expect("unblock"));
    assert!(!store.unblock(alice, bob).await.expect("twice: nothing"));
    assert!(
        store.blocked_between(alice, bob).await.expect("read"),
        "Bob still blocks Alice"
    );
    assert!(store.unblock(bob, alice).await.expect("unblock"));
    assert!(!store.blocked_between(alice, bob).await.expect("read"));
    assert_eq!(store.blocks_of(bob).await.expect("read"), []);
}

/// Through a [`FailingStore`] blocking and unblocking fail while failing and change nothing
/// (reads pass through); after `close()` they are refused.
pub async fn check_block_writes_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let erin = user(&*inner, "erin").await;
    let fred = user(&*inner, "fred").await;
    let failing = FailingStore::new(Arc::clone(&inner));
    failing.block(erin, fred, 1).await.expect("switch off");
    failing.set_failing(true);
    assert!(matches!(
        failing.unblock(erin, fred).await,
        Err(StoreError::Io(_))
    ));
    assert!(matches!(
        failing.block(fred, erin, 2).await,
        Err(StoreError::Io(_))
    ));
    assert_eq!(
        failing
            .block_relations(erin)
            .await
            .expect("reads pass through"),
        [relation(fred, "fred")]
    );
    inner.close().await;
    assert!(inner.block(fred, erin, 3).await.is_err());
    assert!(inner.unblock(erin, fred).await.is_err());
}
