//! The contract of personal settings (schema v5, issue 14): one opaque object per user,
//! replaced whole; saves fail under failure injection and after close.

use std::sync::Arc;

use marseillais::server::store::{FailingStore, Store, StoreError};

use super::accounts::username;

/// The store keeps one settings object per user, as given (opaque JSON), replaced whole by each
/// save; a user who never saved has none, and one user's save is not another's.
pub async fn check_account_settings_are_kept_per_user_and_replaced_whole(store: &dyn Store) {
    let alice = store
        .create_user(username("alice"), "hash".to_owned(), 1)
        .await
        .expect("alice");
    let bob = store
        .create_user(username("bob"), "hash".to_owned(), 1)
        .await
        .expect("bob");
    assert_eq!(store.account_settings(alice).await.expect("read"), None);
    store
        .set_account_settings(alice, r#"{"theme":"blue"}"#.to_owned(), 10)
        .await
        .expect("save");
    assert_eq!(
        store.account_settings(alice).await.expect("read"),
        Some(r#"{"theme":"blue"}"#.to_owned())
    );
    assert_eq!(store.account_settings(bob).await.expect("read"), None);
    store
        .set_account_settings(alice, r#"{"volume":5}"#.to_owned(), 20)
        .await
        .expect("save again");
    assert_eq!(
        store.account_settings(alice).await.expect("read"),
        Some(r#"{"volume":5}"#.to_owned()),
        "replaced, not merged"
    );
    store
        .set_account_settings(bob, r#"{"sound":false}"#.to_owned(), 30)
        .await
        .expect("bob saves");
    assert_eq!(
        store.account_settings(alice).await.expect("read"),
        Some(r#"{"volume":5}"#.to_owned())
    );
    assert_eq!(
        store.account_settings(bob).await.expect("read"),
        Some(r#"{"sound":false}"#.to_owned())
    );
}

/// Through a [`FailingStore`] a settings save fails while failing and stores nothing (reads pass
/// through); after `close()` a save is refused.
pub async fn check_settings_saves_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let user = inner
        .create_user(username("carol"), "hash".to_owned(), 1)
        .await
        .expect("carol");
    let failing = FailingStore::new(Arc::clone(&inner));
    failing
        .set_account_settings(user, r#"{"theme":"green"}"#.to_owned(), 2)
        .await
        .expect("switch off");
    failing.set_failing(true);
    assert!(matches!(
        failing
            .set_account_settings(user, r#"{"theme":"grey"}"#.to_owned(), 3)
            .await,
        Err(StoreError::Io(_))
    ));
    assert_eq!(
        failing
            .account_settings(user)
            .await
            .expect("reads pass through"),
        Some(r#"{"theme":"green"}"#.to_owned())
    );
    inner.close().await;
    assert!(matches!(
        inner
            .set_account_settings(user, r#"{"theme":"grey"}"#.to_owned(), 4)
            .await,
        Err(StoreError::Closed)
    ));
}
