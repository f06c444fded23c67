//! The SQL of lesson progress on SQLite (schema v9, issue 31): the read of one account's
//! finished steps, one range of the primary key. The write is the writer's
//! (`Work::LessonStep`).

use rusqlite::{Connection, params};

use super::connect::io;
use crate::server::domain::user::UserId;
use crate::server::store::{LessonStep, StoreError};

pub(super) fn steps(conn: &Connection, user: UserId) -> Result<Vec<LessonStep>, StoreError> {
    let mut stmt = conn
        .prepare_cached(
            "SELECT lesson, step, done_ms FROM lesson_steps WHERE user_id = ?1
             ORDER BY lesson, step",
        )
        .map_err(io)?;
    let rows = stmt
        .query_map(params![user.0], |row| {
            Ok(LessonStep {
                lesson: row.get(0)?,
                step: row.get(1)?,
                done_ms: row.get(2)?,
            })
        })
        .map_err(io)?;
    rows.collect::<rusqlite::Result<_>>().map_err(io)
}
