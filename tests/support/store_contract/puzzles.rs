//! The contract of puzzles (SQLite schema v8, Postgres v5; issue 30): an import stores each
//! id once with its themes sorted; a round rates the player and the puzzle once, in one
//! transaction, and a second try changes nothing; rounds of one puzzle at once all count; the
//! history comes newest first; the theme counts, the count and the export page by id. The
//! searches over thousands of puzzles are in puzzle_search.rs.

use std::sync::Arc;

use marseillais::server::domain::rating::Rating;
use marseillais::server::domain::user::UserId;
use marseillais::server::store::{
    FailingStore, PuzzleAttempt, PuzzlePlayer, PuzzleRecord, PuzzleRound, RoundOutcome, Store,
    StoreError, rate_round,
};

use super::accounts::username;

/// A puzzle of the fixtures: its rating (deviation 80, 10 rated plays), its themes as given.
pub fn puzzle(id: &str, rating: f64, themes: &[&str]) -> PuzzleRecord {
    PuzzleRecord {
        id: id.to_owned(),
        fen: format!("fen of {id}"),
        moves: "e2e4,d2d4 e7e5,d8h4".to_owned(),
        rating: Rating {
            rating,
            deviation: 80.0,
            volatility: 0.06,
            games: 10,
        },
        plays: 12,
        themes: themes.iter().map(|t| (*t).to_owned()).collect(),
        source: format!("/game/{id}"),
        created_ms: 1_000,
    }
}

/// A stored user (Postgres checks the rounds' and players' foreign keys).
pub async fn puzzle_user(store: &dyn Store, name: &str) -> UserId {
    store
        .create_user(username(name), "hash".into(), 1)
        .await
        .expect("a user")
}

pub fn round(user: UserId, puzzle: &str, solved: bool, at_ms: i64) -> PuzzleRound {
    PuzzleRound {
        user,
        puzzle: puzzle.to_owned(),
        solved,
        at_ms,
    }
}

async fn stored(store: &dyn Store, id: &str) -> PuzzleRecord {
    store.puzzle(id).await.expect("read").expect("stored")
}

/// An id is stored once: importing it again (or twice in one call) leaves the first record.
/// Themes come back sorted, each once; a theme that is no word fails the whole import.
pub async fn check_puzzles_are_imported_once_with_their_themes_sorted(store: &dyn Store) {
    let fork = puzzle("b", 1500.0, &["fork", "middlegame", "fork", "advantage"]);
    let mate = puzzle("a", 1210.4, &["mateIn1"]);
    let mut twice = puzzle("c", 1800.0, &[]);
    let mut changed = twice.clone();
    changed.fen = "another".into();
    assert_eq!(
        store
            .import_puzzles(vec![fork.clone(), mate.clone(), twice.clone(), changed])
            .await
            .expect("import"),
        3
    );
    let mut fork_sorted = fork.clone();
    fork_sorted.themes = ["advantage", "fork", "middlegame"]
        .map(str::to_owned)
        .into();
    assert_eq!(stored(store, "b").await, fork_sorted);
    assert_eq!(stored(store, "a").await, mate);
    twice.themes.clear();
    assert_eq!(stored(store, "c").await, twice, "the first of two records");
    assert_eq!(store.puzzle("nowhere").await.expect("read"), None);

    let mut again = mate.clone();
    again.rating.rating = 2500.0;
    let new = puzzle("d", 900.0, &["endgame"]);
    assert_eq!(
        store
            .import_puzzles(vec![again, new.clone()])
            .await
            .expect("import again"),
        1,
        "an existing id is left alone"
    );
    assert_eq!(stored(store, "a").await, mate);
    assert_eq!(store.puzzle_count().await.expect("count"), 4);

    let bad = puzzle("e", 1500.0, &["mate in 1"]);
    let refused = store
        .import_puzzles(vec![puzzle("f", 1500.0, &[]), bad])
        .await;
    assert!(matches!(refused, Err(StoreError::Io(_))), "{refused:?}");
    assert_eq!(
        store.puzzle("f").await.expect("read"),
        None,
        "nothing of it"
    );
    assert_eq!(store.puzzle_count().await.expect("count"), 4);
    assert_eq!(
        store.puzzle_themes().await.expect("themes"),
        [
            ("advantage".to_owned(), 1),
            ("endgame".to_owned(), 1),
            ("fork".to_owned(), 1),
            ("mateIn1".to_owned(), 1),
            ("middlegame".to_owned(), 1),
        ]
    );
}

/// A first try rates both sides with `rate_round` (the player from the initial rating), counts
/// it, and is kept with the rating after it; a second try at the same puzzle changes nothing.
pub async fn check_a_round_rates_the_player_and_the_puzzle_once(store: &dyn Store) {
    let ann = puzzle_user(store, "ann").await;
    let x = puzzle("x", 1650.0, &["fork"]);
    let y = puzzle("y", 1400.0, &["endgame", "fork"]);
    store
        .import_puzzles(vec![x.clone(), y.clone()])
        .await
        .expect("import");
    assert_eq!(store.puzzle_player(ann).await.expect("read"), None);

    let first = store
        .record_puzzle_round(round(ann, "x", true, 10))
        .await
        .expect("round");
    let (ann_after, x_after) = rate_round(Rating::INITIAL, x.rating, true);
    assert_eq!(
        first,
        RoundOutcome::Rated {
            player_before: Rating::INITIAL,
            player_after: ann_after,
            puzzle_before: x.rating,
            puzzle_after: x_after,
        }
    );
    let mut x_now = x.clone();
    x_now.rating = x_after;
    x_now.plays += 1;
    assert_eq!(stored(store, "x").await, x_now);
    assert_eq!(x_after.games, 11);
    assert_eq!(
        store.puzzle_player(ann).await.expect("read"),
        Some(PuzzlePlayer {
            rating: ann_after,
            solved: 1,
            failed: 0
        })
    );

    for solved in [false, true] {
        assert_eq!(
            store
                .record_puzzle_round(round(ann, "x", solved, 20))
                .await
                .expect("again"),
            RoundOutcome::Repeated
        );
    }
    assert_eq!(stored(store, "x").await, x_now, "the puzzle unchanged");
    let attempts = store.puzzle_attempts(ann, 10).await.expect("history");
    assert_eq!(attempts.len(), 1, "the repeat is no round");

    let second = store
        .record_puzzle_round(round(ann, "y", false, 30))
        .await
        .expect("round");
    let (ann_then, y_after) = rate_round(ann_after, y.rating, false);
    assert_eq!(
        second,
        RoundOutcome::Rated {
            player_before: ann_after,
            player_after: ann_then,
            puzzle_before: y.rating,
            puzzle_after: y_after,
        }
    );
    assert!(y_after.rating > y.rating.rating, "the puzzle won");
    assert_eq!(
        store.puzzle_player(ann).await.expect("read"),
        Some(PuzzlePlayer {
            rating: ann_then,
            solved: 1,
            failed: 1
        })
    );
    assert_eq!(ann_then.games, 2);

    let unknown = store
        .record_puzzle_round(round(ann, "nowhere", true, 40))
        .await;
    assert!(matches!(unknown, Err(StoreError::Io(_))), "{unknown:?}");
    assert_eq!(
        store
            .puzzle_player(ann)
            .await
            .expect("read")
            .map(|p| p.rating),
        Some(ann_then),
        "a round of no puzzle changes nothing"
    );
}

/// The history is the player's rounds newest first (then by puzzle id, descending), each with
/// the player's rating after it and the puzzle's themes; other players' rounds are not in it.
pub async fn check_attempts_come_newest_first_with_the_rating_after(store: &dyn Store) {
    let ann = puzzle_user(store, "ann").await;
    let bob = puzzle_user(store, "bob").await;
    let ids = ["p1", "p2", "p3", "p4"];
    let puzzles: Vec<PuzzleRecord> = ids
        .iter()
        .map(|id| puzzle(id, 1500.0, &["fork", id]))
        .collect();
    store.import_puzzles(puzzles).await.expect("import");
    let mut afters = Vec::new();
    for (id, solved, at_ms) in [("p2", true, 100), ("p1", false, 300), ("p3", true, 300)] {
        match store
            .record_puzzle_round(round(ann, id, solved, at_ms))
            .await
            .expect("round")
        {
            RoundOutcome::Rated { player_after, .. } => {
                afters.push((id, solved, at_ms, player_after.rating))
            }
            RoundOutcome::Repeated => panic!("a first try"),
        }
    }
    store
        .record_puzzle_round(round(bob, "p4", true, 500))
        .await
        .expect("bob's round");
    let attempt = |(id, solved, at_ms, rating_after): (&str, bool, i64, f64)| PuzzleAttempt {
        puzzle: id.to_owned(),
        solved,
        at_ms,
        rating_after,
        themes: vec!["fork".to_owned(), id.to_owned()],
    };
    let expected: Vec<PuzzleAttempt> = [afters[2], afters[1], afters[0]]
        .into_iter()
        .map(attempt)
        .collect();
    assert_eq!(store.puzzle_attempts(ann, 10).await.expect("all"), expected);
    assert_eq!(
        store.puzzle_attempts(ann, 2).await.expect("newest two"),
        expected[..2]
    );
    assert_eq!(
        store.puzzle_attempts(bob, 10).await.expect("bob's").len(),
        1
    );
}

/// Rounds of one puzzle at once, by many players, all count (none rated from a stale puzzle
/// rating: the puzzle's rated plays are the rounds); one player's two tries at once are one
/// round.
pub async fn check_rounds_of_one_puzzle_at_once_all_count(store: Arc<dyn Store>) {
    const PLAYERS: usize = 8;
    store
        .import_puzzles(vec![puzzle("hot", 1500.0, &["fork"])])
        .await
        .expect("import");
    let mut users = Vec::new();
    for i in 0..PLAYERS {
        users.push(puzzle_user(store.as_ref(), &format!("player{i}")).await);
    }
    let rounds = users.iter().enumerate().map(|(i, user)| {
        let store = Arc::clone(&store);
        let round = round(*user, "hot", i % 2 == 0, 10);
        tokio::spawn(async move { store.record_puzzle_round(round).await })
    });
    let mut puzzle_ratings = Vec::new();
    for outcome in futures_util::future::join_all(rounds).await {
        match outcome.expect("task").expect("round") {
            RoundOutcome::Rated { puzzle_before, .. } => puzzle_ratings.push(puzzle_before.games),
            RoundOutcome::Repeated => panic!("every player's first try"),
        }
    }
    puzzle_ratings.sort_unstable();
    let expected: Vec<u32> = (10..10 + PLAYERS as u32).collect();
    assert_eq!(puzzle_ratings, expected, "each rated after the one before");
    let hot = stored(store.as_ref(), "hot").await;
    assert_eq!(hot.rating.games, 10 + PLAYERS as u32);
    assert_eq!(hot.plays, 12 + PLAYERS as u32);

    store
        .import_puzzles(vec![puzzle("again", 1500.0, &[])])
        .await
        .expect("import");
    let twice = (0..2).map(|_| {
        let store = Arc::clone(&store);
        let round = round(users[0], "again", true, 20);
        tokio::spawn(async move { store.record_puzzle_round(round).await })
    });
    let mut outcomes: Vec<bool> = futures_util::future::join_all(twice)
        .await
        .into_iter()
        .map(|o| matches!(o.expect("task").expect("round"), RoundOutcome::Rated { .. }))
        .collect();
    outcomes.sort_unstable();
    assert_eq!(outcomes, [false, true], "one round, one repeat");
    assert_eq!(stored(store.as_ref(), "again").await.rating.games, 11);
}

/// Imports and rounds are writes: they fail under failure injection and after close, and
/// store nothing.
pub async fn check_puzzle_writes_fail_while_failing_and_after_close(inner: Arc<dyn Store>) {
    let ann = puzzle_user(inner.as_ref(), "ann").await;
    inner
        .import_puzzles(vec![puzzle("a", 1500.0, &["fork"])])
        .await
        .expect("import");
    let failing = FailingStore::new(Arc::clone(&inner));
    failing.set_failing(true);
    assert!(matches!(
        failing.import_puzzles(vec![puzzle("b", 1500.0, &[])]).await,
        Err(StoreError::Io(_))
    ));
    assert!(matches!(
        failing.record_puzzle_round(round(ann, "a", true, 1)).await,
        Err(StoreError::Io(_))
    ));
    assert_eq!(failing.puzzle_count().await.expect("reads pass"), 1);
    assert_eq!(inner.puzzle_player(ann).await.expect("read"), None);
    inner.close().await;
    assert!(
        inner
            .import_puzzles(vec![puzzle("c", 1500.0, &[])])
            .await
            .is_err()
    );
    assert!(
        inner
            .record_puzzle_round(round(ann, "a", true, 2))
            .await
            .is_err()
    );
}
