//! The contract of the turn-deadline index (schema v4, issue 12): it follows each commit in
//! the commit's own transaction, leaves correspondence games out of `load_playing`, and a
//! failing store writes none.

use std::sync::Arc;

use marseillais::server::store::{Commit, DeadlineChange, FailingStore, Store, StoreError};

use super::commit;

/// [`commit`] with this effect on the turn-deadline index.
pub fn deadline_commit(game: &str, first_seq: u64, count: u64, deadline: DeadlineChange) -> Commit {
    Commit {
        deadline,
        ..commit(game, first_seq, count)
    }
}

/// The index, sorted by game id (the store returns it in no particular order).
pub async fn deadlines_of(store: &dyn Store) -> Vec<(String, i64)> {
    let mut rows = store.turn_deadlines().await.expect("turn deadlines");
    rows.sort();
    rows
}

fn rows(pairs: &[(&str, i64)]) -> Vec<(String, i64)> {
    pairs.iter().map(|(id, ms)| (id.to_string(), *ms)).collect()
}

/// `Set` inserts or replaces a game's row, `Cleared` removes it (absent is fine), `Unchanged`
/// leaves it; a refused commit (a sequence conflict, alone or in a unit) changes nothing of
/// the index; commits of one game in one unit apply in order.
pub async fn check_turn_deadlines_follow_the_commits(store: &dyn Store) {
    use DeadlineChange::{Cleared, Set, Unchanged};
    assert!(deadlines_of(store).await.is_empty(), "a new store has none");
    store.commit(commit("live", 0, 2)).await.expect("live");
    assert!(
        deadlines_of(store).await.is_empty(),
        "Unchanged adds nothing"
    );

    store
        .commit(deadline_commit("b", 0, 2, Set(100)))
        .await
        .expect("set");
    store
        .commit(deadline_commit("c", 0, 1, Set(50)))
        .await
        .expect("set");
    assert_eq!(deadlines_of(store).await, rows(&[("b", 100), ("c", 50)]));
    store
        .commit(deadline_commit("b", 2, 1, Set(200)))
        .await
        .expect("replace");
    store
        .commit(deadline_commit("b", 3, 1, Unchanged))
        .await
        .expect("keep");
    assert_eq!(deadlines_of(store).await, rows(&[("b", 200), ("c", 50)]));

    // A conflicting commit stores nothing, its deadline included.
    assert!(matches!(
        store.commit(deadline_commit("b", 1, 1, Set(999))).await,
        Err(StoreError::Conflict { .. })
    ));
    assert!(matches!(
        store
            .commit_all(vec![
                deadline_commit("d", 0, 1, Set(7)),
                deadline_commit("c", 0, 1, Cleared),
            ])
            .await,
        Err(StoreError::Conflict { .. })
    ));
    assert_eq!(deadlines_of(store).await, rows(&[("b", 200), ("c", 50)]));

    store
        .commit(deadline_commit("b", 4, 1, Cleared))
        .await
        .expect("clear");
    store
        .commit(deadline_commit("live", 2, 1, Cleared))
        .await
        .expect("clearing a game without a row is fine");
    assert_eq!(deadlines_of(store).await, rows(&[("c", 50)]));

    // In one unit, in order: the last word counts.
    store
        .commit_all(vec![
            deadline_commit("e", 0, 1, Set(1)),
            deadline_commit("e", 1, 1, Set(2)),
            deadline_commit("c", 1, 1, Set(60)),
            deadline_commit("c", 2, 1, Cleared),
        ])
        .await
        .expect("the unit");
    assert_eq!(deadlines_of(store).await, rows(&[("e", 2)]));
}

/// A commit refused by injection writes no deadline; the index reads through the wrapper.
pub async fn check_failing_store_writes_no_deadline(inner: Arc<dyn Store>) {
    let failing = FailingStore::new(Arc::clone(&inner));
    failing
        .commit(deadline_commit("f", 0, 1, DeadlineChange::Set(10)))
        .await
        .expect("switch off");
    failing.set_failing(true);
    assert!(
        failing
            .commit(deadline_commit("f", 1, 1, DeadlineChange::Cleared))
            .await
            .is_err()
    );
    assert!(
        failing
            .commit(deadline_commit("g", 0, 1, DeadlineChange::Set(20)))
            .await
            .is_err()
    );
    assert_eq!(deadlines_of(&failing).await, rows(&[("f", 10)]));
    assert_eq!(deadlines_of(&*inner).await, rows(&[("f", 10)]));
}

/// Startup rebuilds games from `load_playing`: a game in the turn-deadline index (a
/// correspondence game being played) is left out, so that weeks-long games cost startup
/// nothing; it is back once its row is cleared.
pub async fn check_load_playing_leaves_out_games_in_the_index(store: &dyn Store) {
    let ids = |games: Vec<marseillais::server::store::LoadedGame>| -> Vec<String> {
        let mut ids: Vec<String> = games.into_iter().map(|(l, _)| l.id).collect();
        ids.sort();
        ids
    };
    store.commit(commit("live", 0, 2)).await.expect("live");
    store
        .commit(deadline_commit("corr", 0, 2, DeadlineChange::Set(5)))
        .await
        .expect("correspondence");
    assert_eq!(ids(store.load_playing().await.expect("playing")), ["live"]);
    assert_eq!(
        ids(store.load_unfinished().await.expect("unfinished")),
        ["corr", "live"],
        "only load_playing leaves it out"
    );
    store
        .commit(deadline_commit("corr", 2, 1, DeadlineChange::Cleared))
        .await
        .expect("cleared");
    assert_eq!(
        ids(store.load_playing().await.expect("playing")),
        ["corr", "live"]
    );
}
