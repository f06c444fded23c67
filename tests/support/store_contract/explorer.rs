//! The opening explorer's part of the store contract (issue 31): a counted game adds its
//! turns once per game id, whichever way it comes (the commit that ends it, or
//! `add_explorer_games`), atomically with its commit; a position's rows sum per turn, clock
//! family and rated/casual; each bucket keeps its newest examples only.

use std::sync::Arc;

use marseillais::server::game::speed::Speed;
use marseillais::server::store::{
    ClockFamily, EXPLORER_EXAMPLES_PER_BUCKET, ExplorerGame, ExplorerPosition, ExplorerResult,
    ExplorerSeat, ExplorerTurn, FailingStore, Store,
};

use super::commit;

const BLITZ: ClockFamily = ClockFamily::Timed(Speed::Blitz);

/// A counted game through positions 1 then 2, playing `first` then `second` there.
pub fn explorer_game(id: &str, ended_ms: i64, result: ExplorerResult, first: &str) -> ExplorerGame {
    ExplorerGame {
        game_id: id.to_owned(),
        family: BLITZ,
        rated: false,
        result,
        white: ExplorerSeat {
            name: Some("ann".into()),
            rating: Some(1600.0),
        },
        black: ExplorerSeat {
            name: None,
            rating: None,
        },
        ended_ms,
        turns: vec![
            ExplorerTurn {
                key: 1,
                turn: first.to_owned(),
            },
            ExplorerTurn {
                key: 2,
                turn: "e7e5 g8f6".to_owned(),
            },
        ],
    }
}

/// The position's rows sorted (the store returns them in no particular order) with its
/// example ids newest first.
pub async fn explorer_rows(store: &dyn Store, key: i64) -> ExplorerPosition {
    let mut position = store
        .explorer_position(key)
        .await
        .expect("explorer position");
    position
        .turns
        .sort_by(|a, b| (&a.turn, a.family, a.rated).cmp(&(&b.turn, b.family, b.rated)));
    position
        .examples
        .sort_by(|a, b| (b.ended_ms, &b.game_id).cmp(&(a.ended_ms, &a.game_id)));
    position
}

pub async fn check_a_counted_game_adds_its_turns_once_whichever_way_it_comes(store: &dyn Store) {
    let mut end = commit("g1", 0, 2);
    end.explorer = Some(explorer_game("g1", 10, ExplorerResult::WhiteWins, "e2e4"));
    store.commit(end).await.expect("the ending commit");
    // A replay of the end after a restart, and a bulk load naming the same game: no change.
    let mut again = commit("g1", 2, 1);
    again.explorer = Some(explorer_game("g1", 10, ExplorerResult::WhiteWins, "e2e4"));
    store.commit(again).await.expect("a later commit");
    let added = store
        .add_explorer_games(vec![
            explorer_game("g1", 10, ExplorerResult::WhiteWins, "e2e4"),
            explorer_game("g2", 20, ExplorerResult::Draw, "d2d4"),
        ])
        .await
        .expect("add");
    assert_eq!(added, 1, "g1 was counted already");
    let root = explorer_rows(store, 1).await;
    let summary: Vec<(&str, u64, u64, u64, u64)> = root
        .turns
        .iter()
        .map(|r| (r.turn.as_str(), r.games, r.white, r.draws, r.black))
        .collect();
    assert_eq!(summary, [("d2d4", 1, 0, 1, 0), ("e2e4", 1, 1, 0, 0)]);
    assert!(root.turns.iter().all(|r| r.family == BLITZ && !r.rated));
    assert_eq!(
        (root.turns[0].rating_sum, root.turns[0].rating_count),
        (1600.0, 1),
        "the anonymous player has no rating"
    );
    let ids: Vec<&str> = root.examples.iter().map(|e| e.game_id.as_str()).collect();
    assert_eq!(ids, ["g2", "g1"]);
    assert_eq!(root.examples[1].white.name.as_deref(), Some("ann"));
    assert_eq!(root.examples[1].result, ExplorerResult::WhiteWins);
    let second = explorer_rows(store, 2).await;
    assert_eq!(second.turns.len(), 1);
    assert_eq!(
        (second.turns[0].turn.as_str(), second.turns[0].games),
        ("e7e5 g8f6", 2)
    );
    assert_eq!(explorer_rows(store, 3).await, ExplorerPosition::default());
}

pub async fn check_explorer_rows_are_apart_per_family_and_rated(store: &dyn Store) {
    let mut rated = explorer_game("r", 1, ExplorerResult::BlackWins, "e2e4");
    rated.rated = true;
    let mut untimed = explorer_game("u", 2, ExplorerResult::BlackWins, "e2e4");
    untimed.family = ClockFamily::Untimed;
    let casual = explorer_game("c", 3, ExplorerResult::BlackWins, "e2e4");
    store
        .add_explorer_games(vec![rated, untimed, casual])
        .await
        .expect("add");
    let root = explorer_rows(store, 1).await;
    let buckets: Vec<(ClockFamily, bool, u64)> = root
        .turns
        .iter()
        .map(|r| (r.family, r.rated, r.black))
        .collect();
    assert_eq!(
        buckets,
        [
            (BLITZ, false, 1),
            (BLITZ, true, 1),
            (ClockFamily::Untimed, false, 1)
        ]
    );
    assert_eq!(root.examples.len(), 3);
}

pub async fn check_each_bucket_keeps_its_newest_examples_only(store: &dyn Store) {
    let games: Vec<ExplorerGame> = (0..EXPLORER_EXAMPLES_PER_BUCKET as i64 + 3)
        .map(|i| explorer_game(&format!("g{i:02}"), 100 - i, ExplorerResult::Draw, "e2e4"))
        .collect();
    // One at a time, oldest last: the pruning must keep the newest, not the latest written.
    for game in games {
        store.add_explorer_games(vec![game]).await.expect("add");
    }
    let root = explorer_rows(store, 1).await;
    let ids: Vec<&str> = root.examples.iter().map(|e| e.game_id.as_str()).collect();
    assert_eq!(ids, ["g00", "g01", "g02", "g03", "g04"]);
    assert_eq!(root.turns[0].games, EXPLORER_EXAMPLES_PER_BUCKET as u64 + 3);
}

pub async fn check_explorer_writes_fail_while_failing_and_count_nothing(inner: Arc<dyn Store>) {
    let failing = FailingStore::new(Arc::clone(&inner));
    failing.set_failing(true);
    let mut end = commit("f", 0, 1);
    end.explorer = Some(explorer_game("f", 1, ExplorerResult::Draw, "e2e4"));
    assert!(failing.commit(end).await.is_err());
    assert!(
        failing
            .add_explorer_games(vec![explorer_game("h", 1, ExplorerResult::Draw, "e2e4")])
            .await
            .is_err()
    );
    assert_eq!(explorer_rows(&*inner, 1).await, ExplorerPosition::default());
}
