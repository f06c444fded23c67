//! The schema, version by version: each migration a step from version `n` to `n + 1`, all of
//! them run in one transaction with the version bump (`PRAGMA user_version`).

use rusqlite::Connection;

use crate::server::store::StoreError;

/// The schema this program writes (`PRAGMA user_version`). A database with a newer version was
/// written by a newer program and is refused rather than misread; an older one is migrated
/// ([`MIGRATIONS`]).
pub const SCHEMA_VERSION: i64 = 14;

/// Version 1: the games' listing rows and their event logs.
const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS games (
    id          TEXT PRIMARY KEY NOT NULL,
    status      TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    summary     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_status_updated ON games (status, updated_ms, id);
CREATE TABLE IF NOT EXISTS events (
    game_id  TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    payload  TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
";

/// Version 2: unlisted (private) games. Rows written by version 1 are listed, as every game was.
/// The lobby index gets `listed` after `status` so that `list()` still reads one index range;
/// it replaces the version 1 index (one index to maintain per commit, as before).
const SCHEMA_V2: &str = "
ALTER TABLE games ADD COLUMN listed INTEGER NOT NULL DEFAULT 1;
DROP INDEX IF EXISTS games_by_status_updated;
CREATE INDEX games_by_status_listed_updated ON games (status, listed, updated_ms, id);
";

/// Version 3: accounts, sessions and ratings (issue 11). Games gain the accounts seated in them
/// (NULL for anonymous seats and every older game); their indexes are partial, so anonymous
/// games (most of them) cost no index entry at all, and `user_games` reads one index range per
/// colour. Sessions are keyed by the SHA-256 of their id, never the id. A rating is one row per
/// user and speed; `rated_games` keeps each rated game's before/after ratings (keyed by game id:
/// a game is rated at most once).
const SCHEMA_V3: &str = "
CREATE TABLE users (
    id             INTEGER PRIMARY KEY,
    username       TEXT NOT NULL,
    username_key   TEXT NOT NULL UNIQUE,
    password_hash  TEXT NOT NULL,
    created_ms     INTEGER NOT NULL
);
CREATE TABLE sessions (
    id_hash       BLOB PRIMARY KEY NOT NULL,
    user_id       INTEGER NOT NULL REFERENCES users (id),
    created_ms    INTEGER NOT NULL,
    last_seen_ms  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE TABLE ratings (
    user_id     INTEGER NOT NULL REFERENCES users (id),
    speed       TEXT NOT NULL,
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    games       INTEGER NOT NULL,
    PRIMARY KEY (user_id, speed)
) WITHOUT ROWID;
CREATE TABLE rated_games (
    game_id      TEXT PRIMARY KEY NOT NULL,
    speed        TEXT NOT NULL,
    ended_ms     INTEGER NOT NULL,
    white_user   INTEGER NOT NULL REFERENCES users (id),
    black_user   INTEGER NOT NULL REFERENCES users (id),
    score_white  REAL NOT NULL,
    white_before_rating REAL NOT NULL, white_before_deviation REAL NOT NULL,
    white_before_volatility REAL NOT NULL, white_before_games INTEGER NOT NULL,
    white_after_rating REAL NOT NULL, white_after_deviation REAL NOT NULL,
    white_after_volatility REAL NOT NULL, white_after_games INTEGER NOT NULL,
    black_before_rating REAL NOT NULL, black_before_deviation REAL NOT NULL,
    black_before_volatility REAL NOT NULL, black_before_games INTEGER NOT NULL,
    black_after_rating REAL NOT NULL, black_after_deviation REAL NOT NULL,
    black_after_volatility REAL NOT NULL, black_after_games INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX rated_games_by_white ON rated_games (white_user, ended_ms);
CREATE INDEX rated_games_by_black ON rated_games (black_user, ended_ms);
ALTER TABLE games ADD COLUMN white_user INTEGER;
ALTER TABLE games ADD COLUMN black_user INTEGER;
CREATE INDEX games_by_white_user ON games (white_user, updated_ms, id) WHERE white_user IS NOT NULL;
CREATE INDEX games_by_black_user ON games (black_user, updated_ms, id) WHERE black_user IS NOT NULL;
";

/// Version 4: correspondence games and chat (issue 12). `turn_deadlines` is the timer index of
/// correspondence games being played: one row per game whose side to move has a deadline
/// (Unix ms), written in the commit that starts or ends the turn, read whole at startup into
/// the in-memory schedule, so that the rooms of idle games can leave memory and still be
/// flagged on time. Live games never have a row (their clocks are in their events).
/// `chat_lines` keeps the chat of game rooms (`player`, `spectator`) and of the lobby
/// (`game_id` NULL, room `lobby`); `author` is the label shown (a username, `white`, `black`
/// or `anonymous`). Its index serves "the recent lines of one room" as one index range.
const SCHEMA_V4: &str = "
CREATE TABLE turn_deadlines (
    game_id      TEXT PRIMARY KEY NOT NULL,
    deadline_ms  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE chat_lines (
    id       INTEGER PRIMARY KEY,
    game_id  TEXT,
    room     TEXT NOT NULL,
    at_ms    INTEGER NOT NULL,
    user_id  INTEGER,
    author   TEXT NOT NULL,
    text     TEXT NOT NULL
);
CREATE INDEX chat_lines_by_room ON chat_lines (game_id, room, id);
";

/// Version 5: personal settings (issue 14). One row per account that saved any: the settings
/// object as JSON (validated by the account layer on the way in and out, opaque here, so a new
/// setting needs no migration) and when it was last saved. Keyed by the user: one read, one
/// upsert.
const SCHEMA_V5: &str = "
CREATE TABLE account_settings (
    user_id     INTEGER PRIMARY KEY REFERENCES users (id),
    settings    TEXT NOT NULL,
    updated_ms  INTEGER NOT NULL
);
";

/// Version 6: the games' indexes order by the minute of their last activity, not the
/// millisecond (issue 9). `updated_ms` changes with every sub-move, so an index holding it moved
/// the game's entries (a delete and an insert each) at every commit. Measured with 1,000 games
/// in batches of 14 commits: a listing update wrote 1.58 WAL frames for an anonymous game and
/// 2.47 for a game between accounts (three indexes), 0.91 and 0.92 now; at saturation `pwrite`
/// fell from 6.0 to 5.3 per sub-move (docs/performance.md). `active_minute` ([`writer::active_minute`]:
/// `updated_ms / 60000`) changes at most once a minute, and the writer assigns it (and the other
/// indexed columns) only when it changes, so a sub-move rewrites the row and no index entry.
/// The listings are as exact as before: the reads order by `active_minute, updated_ms, id`,
/// which is the order of `updated_ms, id` (the minute is a non-decreasing function of the
/// millisecond); the index gives the minutes in order and SQLite sorts within a minute ("USE
/// TEMP B-TREE FOR RIGHT PART OF ORDER BY"), so a lobby read sorts the games active in the
/// minutes it reaches, not every game.
const SCHEMA_V6: &str = "
ALTER TABLE games ADD COLUMN active_minute INTEGER NOT NULL DEFAULT 0;
UPDATE games SET active_minute = updated_ms / 60000;
DROP INDEX games_by_status_listed_updated;
CREATE INDEX games_by_status_listed_minute ON games (status, listed, active_minute);
DROP INDEX games_by_white_user;
DROP INDEX games_by_black_user;
CREATE INDEX games_by_white_user_minute ON games (white_user, active_minute)
    WHERE white_user IS NOT NULL;
CREATE INDEX games_by_black_user_minute ON games (black_user, active_minute)
    WHERE black_user IS NOT NULL;
";

/// Version 7: arena tournaments (issue 29). An arena's terms are a JSON object owned by the
/// arena room, opaque here (a new term needs no migration); its start and end are columns for
/// the lists. `arena_players` is one row per player who ever joined (`withdrawn` set on
/// leaving: the join order and the games stay theirs). A game an arena paired names it in
/// `games.arena`, written by the game's first commit and never changed (the writer's updates
/// leave it alone): an arena's games, and so its scores, are the rows that name it, each as
/// durable as the commit that ended the game. The partial index costs ordinary games nothing.
const SCHEMA_V7: &str = "
CREATE TABLE arenas (
    id          TEXT PRIMARY KEY NOT NULL,
    creator     INTEGER REFERENCES users (id),
    terms       TEXT NOT NULL,
    starts_ms   INTEGER NOT NULL,
    ends_ms     INTEGER NOT NULL,
    created_ms  INTEGER NOT NULL
);
CREATE INDEX arenas_by_end ON arenas (ends_ms);
CREATE TABLE arena_players (
    arena_id    TEXT NOT NULL REFERENCES arenas (id),
    user_id     INTEGER NOT NULL REFERENCES users (id),
    username    TEXT NOT NULL,
    joined_ms   INTEGER NOT NULL,
    rating      INTEGER NOT NULL,
    withdrawn   INTEGER NOT NULL,
    PRIMARY KEY (arena_id, user_id)
) WITHOUT ROWID;
CREATE INDEX arena_players_by_user ON arena_players (user_id);
ALTER TABLE games ADD COLUMN arena TEXT;
CREATE INDEX games_by_arena ON games (arena, created_ms, id) WHERE arena IS NOT NULL;
";

/// Version 8: puzzles (issue 30). `puzzles` holds each puzzle (its line, its Glicko-2 rating
/// with `rated_plays`, every first try in `plays`, its theme keys space separated, where it came
/// from) and `rating_key`, the rating rounded, kept in step with it by every round:
/// `puzzles_by_rating` (rating_key, id) makes "the first puzzle at or above a rating" one index
/// range. `puzzle_themes` is one row per puzzle and theme with the puzzle's `rating_key` copied
/// (updated with it), so that the same search within a theme is one range of
/// `puzzle_themes_by_rating`, and its primary key (theme, puzzle_id) pages a theme by id.
/// `puzzle_players` is a player's puzzle rating (`rounds` its rated rounds) and counts;
/// `puzzle_rounds` every first try of a player at a puzzle, keyed (user, puzzle): a puzzle the
/// player did is skipped by one probe of that key, and a second try is no round. Its index by
/// time serves a player's history, newest first.
const SCHEMA_V8: &str = "
CREATE TABLE puzzles (
    id           TEXT PRIMARY KEY NOT NULL,
    fen          TEXT NOT NULL,
    moves        TEXT NOT NULL,
    rating       REAL NOT NULL,
    deviation    REAL NOT NULL,
    volatility   REAL NOT NULL,
    rated_plays  INTEGER NOT NULL,
    plays        INTEGER NOT NULL,
    rating_key   INTEGER NOT NULL,
    themes       TEXT NOT NULL,
    source       TEXT NOT NULL,
    created_ms   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX puzzles_by_rating ON puzzles (rating_key, id);
CREATE TABLE puzzle_themes (
    theme       TEXT NOT NULL,
    puzzle_id   TEXT NOT NULL REFERENCES puzzles (id),
    rating_key  INTEGER NOT NULL,
    PRIMARY KEY (theme, puzzle_id)
) WITHOUT ROWID;
CREATE INDEX puzzle_themes_by_rating ON puzzle_themes (theme, rating_key, puzzle_id);
CREATE TABLE puzzle_players (
    user_id     INTEGER PRIMARY KEY REFERENCES users (id),
    rating      REAL NOT NULL,
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    rounds      INTEGER NOT NULL,
    solved      INTEGER NOT NULL,
    failed      INTEGER NOT NULL
);
CREATE TABLE puzzle_rounds (
    user_id       INTEGER NOT NULL REFERENCES users (id),
    puzzle_id     TEXT NOT NULL REFERENCES puzzles (id),
    solved        INTEGER NOT NULL,
    at_ms         INTEGER NOT NULL,
    rating_after  REAL NOT NULL,
    PRIMARY KEY (user_id, puzzle_id)
) WITHOUT ROWID;
CREATE INDEX puzzle_rounds_by_time ON puzzle_rounds (user_id, at_ms, puzzle_id);
";

/// Version 9: "Learn Marseillais" (issue 31). `lesson_steps` holds each step of a lesson an
/// account finished, keyed (user, lesson, step): the lessons page reads one user's rows as one
/// range of that key, and a second right try of a step is a no-op (`ON CONFLICT DO NOTHING`).
/// Anonymous players' progress is in their browser, never here.
const SCHEMA_V9: &str = "
CREATE TABLE lesson_steps (
    user_id  INTEGER NOT NULL REFERENCES users (id),
    lesson   TEXT NOT NULL,
    step     INTEGER NOT NULL,
    done_ms  INTEGER NOT NULL,
    PRIMARY KEY (user_id, lesson, step)
) WITHOUT ROWID;
";

/// Version 10: the opening explorer (issue 31; store/explorer.rs). `explorer_games` holds each
/// counted game once, keyed by its id (a second count of a game, after a replay or a restart,
/// stops at this key), with what an example shows. `explorer_turns` sums, per turn-start
/// position (`key`, the rules' 64-bit repetition key as a signed integer), turn, clock family
/// and rated/casual, the games, their results and their players' ratings: a position is one
/// range of its primary key. `explorer_examples` keeps the newest few games through each
/// position per family and rated/casual (pruned on insert), also one range of its key.
const SCHEMA_V10: &str = "
CREATE TABLE explorer_games (
    game_id       TEXT PRIMARY KEY NOT NULL,
    family        TEXT NOT NULL,
    rated         INTEGER NOT NULL,
    result        INTEGER NOT NULL,
    white_name    TEXT,
    black_name    TEXT,
    white_rating  REAL,
    black_rating  REAL,
    ended_ms      INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE explorer_turns (
    key           INTEGER NOT NULL,
    turn          TEXT NOT NULL,
    family        TEXT NOT NULL,
    rated         INTEGER NOT NULL,
    games         INTEGER NOT NULL,
    white         INTEGER NOT NULL,
    draws         INTEGER NOT NULL,
    black         INTEGER NOT NULL,
    rating_sum    REAL NOT NULL,
    rating_count  INTEGER NOT NULL,
    PRIMARY KEY (key, turn, family, rated)
) WITHOUT ROWID;
CREATE TABLE explorer_examples (
    key       INTEGER NOT NULL,
    family    TEXT NOT NULL,
    rated     INTEGER NOT NULL,
    ended_ms  INTEGER NOT NULL,
    game_id   TEXT NOT NULL,
    PRIMARY KEY (key, family, rated, ended_ms, game_id)
) WITHOUT ROWID;
";

/// Version 11: the account's status (issue 32). `status` is `active`, `closed` (by a
/// moderator) or `deleted` (by its owner): the row of a closed or deleted account stays, so
/// its name is never registered again and its id still names it in others' games and rated
/// games. `status_ms` is when the status last changed (NULL: never; every older account is
/// active). The status needs no index: it is read with the row, by id or name.
/// `chat_lines_by_user` (partial: anonymous lines cost nothing) lets a deletion find the
/// account's chat lines as one index range instead of a scan of every line under the
/// writer's lock.
const SCHEMA_V11: &str = "
ALTER TABLE users ADD COLUMN status TEXT NOT NULL DEFAULT 'active';
ALTER TABLE users ADD COLUMN status_ms INTEGER;
CREATE INDEX chat_lines_by_user ON chat_lines (user_id) WHERE user_id IS NOT NULL;
";

/// Version 12: moderation (issue 32; store/moderation.rs). `moderators` holds the role (given
/// by the command line only). `reports` holds every report with its state; the open ones are
/// one range of a partial index (the moderators' list), a reporter's one range of theirs (the
/// daily limit and "my reports"). `marks` and `chat_bans` hold at most one row per user (an
/// action replaces it); the rating transaction reads `marks` by primary key. `mod_log` is
/// append-only. A reported user's recent lines are one range of version 11's
/// `chat_lines_by_user`; `ratings_by_speed` serves the leaderboard.
const SCHEMA_V12: &str = "
CREATE TABLE moderators (
    user_id     INTEGER PRIMARY KEY REFERENCES users (id),
    granted_ms  INTEGER NOT NULL
);
CREATE TABLE reports (
    id          INTEGER PRIMARY KEY,
    reporter    INTEGER NOT NULL REFERENCES users (id),
    reported    INTEGER NOT NULL REFERENCES users (id),
    reason      TEXT NOT NULL,
    text        TEXT NOT NULL,
    game_id     TEXT,
    created_ms  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    handled_by  TEXT,
    handled_ms  INTEGER
);
CREATE INDEX reports_open ON reports (created_ms, id) WHERE status = 'open';
CREATE INDEX reports_by_reporter ON reports (reporter, created_ms, id);
CREATE INDEX reports_open_by_reported ON reports (reported) WHERE status = 'open';
CREATE TABLE marks (
    user_id    INTEGER PRIMARY KEY REFERENCES users (id),
    mark       TEXT NOT NULL,
    at_ms      INTEGER NOT NULL,
    moderator  TEXT NOT NULL
);
CREATE TABLE chat_bans (
    user_id    INTEGER PRIMARY KEY REFERENCES users (id),
    until_ms   INTEGER,
    reason     TEXT NOT NULL,
    moderator  TEXT NOT NULL,
    at_ms      INTEGER NOT NULL
);
CREATE TABLE mod_log (
    id         INTEGER PRIMARY KEY,
    moderator  TEXT NOT NULL,
    action     TEXT NOT NULL,
    target     INTEGER NOT NULL REFERENCES users (id),
    reason     TEXT NOT NULL,
    at_ms      INTEGER NOT NULL,
    details    TEXT NOT NULL
);
CREATE INDEX ratings_by_speed ON ratings (speed, rating);
";

/// Version 13: blocks between accounts (issue 32; `crate::server::safety::blocks`). One row per
/// (blocker, blocked), keyed so: "whom do I block" is one range of the key, and the index on
/// `blocked` makes "who blocks me" another, so a user's relations either way are two ranges.
const SCHEMA_V13: &str = "
CREATE TABLE blocks (
    blocker  INTEGER NOT NULL REFERENCES users (id),
    blocked  INTEGER NOT NULL REFERENCES users (id),
    at_ms    INTEGER NOT NULL,
    PRIMARY KEY (blocker, blocked)
) WITHOUT ROWID;
CREATE INDEX blocks_by_blocked ON blocks (blocked, blocker);
";

/// Version 14: fair play by rule (issue 32; store/playban.rs). `playban_outcomes` holds each
/// finished game's outcome for each account judged, keyed (user, game): a game counts once per
/// player (`ON CONFLICT DO NOTHING`), and a user's recent outcomes are one range of
/// `playban_outcomes_by_time`. Bans are not stored: they follow from the outcomes by the rules
/// (`crate::server::safety::playban`), so every node computes the same ones.
const SCHEMA_V14: &str = "
CREATE TABLE playban_outcomes (
    user_id  INTEGER NOT NULL REFERENCES users (id),
    game_id  TEXT NOT NULL,
    outcome  TEXT NOT NULL,
    at_ms    INTEGER NOT NULL,
    PRIMARY KEY (user_id, game_id)
) WITHOUT ROWID;
CREATE INDEX playban_outcomes_by_time ON playban_outcomes (user_id, at_ms, game_id);
";

/// `MIGRATIONS[n]` takes a database from version `n` to `n + 1` (version 0: empty). Each runs in
/// the same transaction as the version bump, so a crash mid-migration leaves the old version.
pub(super) const MIGRATIONS: [&str; 14] = [
    SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6, SCHEMA_V7, SCHEMA_V8,
    SCHEMA_V9, SCHEMA_V10, SCHEMA_V11, SCHEMA_V12, SCHEMA_V13, SCHEMA_V14,
];

/// Brings the database to [`SCHEMA_VERSION`]: creates the schema in an empty database, runs the
/// migrations an older one needs (all in one transaction), refuses newer ones.
pub(super) fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| StoreError::Io(e.to_string()))?;
    if !(0..=SCHEMA_VERSION).contains(&version) {
        return Err(StoreError::Io(format!(
            "database schema version {version} is not supported (this program knows version {SCHEMA_VERSION})"
        )));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    let steps: String = MIGRATIONS
        .iter()
        .skip(usize::try_from(version).unwrap_or(0))
        .copied()
        .collect();
    conn.execute_batch(&format!(
        "BEGIN IMMEDIATE; {steps} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
    ))
    .map_err(|e| {
        let _ = conn.execute_batch("ROLLBACK");
        StoreError::Io(format!(
            "cannot migrate the database from schema version {version} to {SCHEMA_VERSION}: {e}"
        ))
    })?;
    if version > 0 {
        tracing::info!(
            from = version,
            to = SCHEMA_VERSION,
            "store: database schema migrated"
        );
    }
    Ok(())
}
