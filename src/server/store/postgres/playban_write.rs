//! The writing of one game's playban outcomes on PostgreSQL, shared by the writer (the commit
//! that ends a game, in its transaction) and `record_playban` (playban.rs). Its own file so
//! that the writer, which the store's root imports, does not import the read side.

use deadpool_postgres::GenericClient;

use crate::server::store::PlaybanEnd;

/// Inserts the outcomes not stored yet, in one statement; how many were new.
pub(super) async fn add<C: GenericClient>(
    client: &C,
    end: &PlaybanEnd,
) -> Result<u64, tokio_postgres::Error> {
    let users: Vec<i64> = end.seats.iter().map(|(u, _)| u.0).collect();
    let outcomes: Vec<&str> = end.seats.iter().map(|(_, o)| o.as_str()).collect();
    let statement = client
        .prepare_cached(
            "INSERT INTO playban_outcomes (user_id, game_id, outcome, at_ms)
             SELECT u, $1, o, $2 FROM unnest($3::bigint[], $4::text[]) AS s (u, o)
             ON CONFLICT (user_id, game_id) DO NOTHING",
        )
        .await?;
    client
        .execute(&statement, &[&end.game_id, &end.at_ms, &users, &outcomes])
        .await
}
