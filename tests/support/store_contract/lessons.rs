//! The contract of lesson progress (SQLite schema v9, Postgres v6; issue 31): one row per
//! (user, lesson, step) with the time of the first right try, listed by lesson then step;
//! writes fail under failure injection and after close.

use std::sync::Arc;

use marseillais::server::store::{FailingStore, LessonStep, Store, StoreError};

use super::accounts::username;

fn step(lesson: &str, step: u32, done_ms: i64) -> LessonStep {
    LessonStep {
        lesson: lesson.to_owned(),
        step,
        done_ms,
    }
}

/// A step is kept once per user with its first time (a second right try changes nothing),
/// listed by lesson then step; one user's steps are not another's.
pub async fn check_lesson_steps_are_kept_once_per_user_with_their_first_time(store: &dyn Store) {
    let alice = store
        .create_user(username("alice"), "hash".to_owned(), 1)
        .await
        .expect("alice");
    let bob = store
        .create_user(username("bob"), "hash".to_owned(), 1)
        .await
        .expect("bob");
    assert_eq!(store.lesson_steps(alice).await.expect("read"), []);
    for (lesson, number, at) in [
        ("moving-twice", 2, 30),
        ("moving-twice", 1, 20),
        ("en-passant", 1, 40),
        ("moving-twice", 1, 50),
    ] {
        store
            .record_lesson_step(alice, lesson, number, at)
            .await
            .expect("record");
    }
    store
        .record_lesson_step(bob, "first-turn", 1, 60)
        .await
        .expect("bob records");
    assert_eq!(
        store.lesson_steps(alice).await.expect("read"),
        [
            step("en-passant", 1, 40),
            step("moving-twice", 1, 20),
            step("moving-twice", 2, 30),
        ],
        "by lesson then step, each with its first time"
    );
    assert_eq!(
        store.lesson_steps(bob).await.expect("read"),
        [step("first-turn", 1, 60)]
    );
}

/// Through a [`FailingStore`] recording a step fails while failing and stores nothing (reads
/// pass through); after `close()` it is refused.
pub async fn check_lesson_writes_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let user = inner
        .create_user(username("carol"), "hash".to_owned(), 1)
        .await
        .expect("carol");
    let failing = FailingStore::new(Arc::clone(&inner));
    failing
        .record_lesson_step(user, "first-turn", 1, 2)
        .await
        .expect("switch off");
    failing.set_failing(true);
    assert!(matches!(
        failing.record_lesson_step(user, "first-turn", 2, 3).await,
        Err(StoreError::Io(_))
    ));
    assert_eq!(
        failing
            .lesson_steps(user)
            .await
            .expect("reads pass through"),
        [step("first-turn", 1, 2)]
    );
    inner.close().await;
    assert!(
        inner
            .record_lesson_step(user, "first-turn", 2, 4)
            .await
            .is_err()
    );
}
