//! The writing of one counted game on PostgreSQL, shared by the writer (the commit that ends
//! a game, in its transaction) and `add_explorer_games` (explorer.rs). Its own file so that
//! the writer, which the store's root imports, does not import the read side.
//!
//! Several nodes may end games through the same positions at once: each game's turn rows are
//! upserted in one statement in key order ([`explorer_lock_order`]), so two transactions wait
//! for each other's row locks rather than deadlock, and `ON CONFLICT` makes two first counts
//! of one turn add up.

use deadpool_postgres::GenericClient;

use crate::server::store::{EXPLORER_EXAMPLES_PER_BUCKET, ExplorerGame, explorer_lock_order};

/// Counts `game` unless its id is counted already; whether it was new. Four statements
/// whatever the number of turns: the game's row (its primary key decides), the turn rows
/// (arrays, in key order), the examples, and the pruning of their buckets.
pub(super) async fn add<C: GenericClient>(
    client: &C,
    game: &ExplorerGame,
) -> Result<bool, tokio_postgres::Error> {
    let statement = client
        .prepare_cached(
            "INSERT INTO explorer_games (game_id, family, rated, result, white_name, black_name,
                 white_rating, black_rating, ended_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (game_id) DO NOTHING",
        )
        .await?;
    let inserted = client
        .execute(
            &statement,
            &[
                &game.game_id,
                &game.family.as_str(),
                &game.rated,
                &game.result.as_i64(),
                &game.white.name,
                &game.black.name,
                &game.white.rating,
                &game.black.rating,
                &game.ended_ms,
            ],
        )
        .await?;
    if inserted == 0 {
        return Ok(false);
    }
    let turns = explorer_lock_order(&game.turns);
    if turns.is_empty() {
        return Ok(true);
    }
    let keys: Vec<i64> = turns.iter().map(|t| t.key).collect();
    let texts: Vec<&str> = turns.iter().map(|t| t.turn.as_str()).collect();
    let (white, draws, black) = game.result.counts();
    let (sum, count) = game.rating_sum();
    let family = game.family.as_str();
    let statement = client
        .prepare_cached(
            "INSERT INTO explorer_turns AS t (key, turn, family, rated, games, white, draws,
                 black, rating_sum, rating_count)
             SELECT k, m, $3, $4, 1, $5, $6, $7, $8, $9
                 FROM unnest($1::int8[], $2::text[]) WITH ORDINALITY AS u (k, m, n) ORDER BY n
             ON CONFLICT (key, turn, family, rated) DO UPDATE SET games = t.games + 1,
                 white = t.white + excluded.white, draws = t.draws + excluded.draws,
                 black = t.black + excluded.black,
                 rating_sum = t.rating_sum + excluded.rating_sum,
                 rating_count = t.rating_count + excluded.rating_count",
        )
        .await?;
    client
        .execute(
            &statement,
            &[
                &keys,
                &texts,
                &family,
                &game.rated,
                &(white as i64),
                &(draws as i64),
                &(black as i64),
                &sum,
                &(count as i64),
            ],
        )
        .await?;
    let statement = client
        .prepare_cached(
            "INSERT INTO explorer_examples (key, family, rated, ended_ms, game_id)
             SELECT k, $2, $3, $4, $5 FROM unnest($1::int8[]) AS u (k)
             ON CONFLICT DO NOTHING",
        )
        .await?;
    client
        .execute(
            &statement,
            &[&keys, &family, &game.rated, &game.ended_ms, &game.game_id],
        )
        .await?;
    let statement = client.prepare_cached(PRUNE).await?;
    client
        .execute(&statement, &[&keys, &family, &game.rated])
        .await?;
    Ok(true)
}

/// Deletes, in each of the game's buckets, the examples older than the newest
/// [`EXPLORER_EXAMPLES_PER_BUCKET`] (a lateral probe of the bucket's primary-key range).
const PRUNE: &str = "DELETE FROM explorer_examples e USING unnest($1::int8[]) AS u (k),
    LATERAL (SELECT x.ended_ms, x.game_id FROM explorer_examples x
        WHERE x.key = u.k AND x.family = $2 AND x.rated = $3
        ORDER BY x.ended_ms DESC, x.game_id DESC LIMIT 1 OFFSET 5) AS cut
    WHERE e.key = u.k AND e.family = $2 AND e.rated = $3
        AND (e.ended_ms, e.game_id) <= (cut.ended_ms, cut.game_id)";

const _: () = assert!(EXPLORER_EXAMPLES_PER_BUCKET == 5, "PRUNE's OFFSET");
