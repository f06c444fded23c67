//! Lesson progress on PostgreSQL (schema v6, issue 31): the same table and promises as
//! SQLite's (sqlite/lesson.rs). The write is a single statement on the read pool, its own
//! transaction, durable when it returns: a right step is rare and must not queue behind a
//! batch of moves.

use super::PostgresStore;
use super::error::pg_error;
use super::rows::{Param, text};
use crate::server::domain::user::UserId;
use crate::server::store::{LessonStep, StoreError, StoreFuture};

impl PostgresStore {
    pub(super) fn lesson_step_insert(
        &self,
        user: UserId,
        lesson: &str,
        step: u32,
        at_ms: i64,
    ) -> StoreFuture<()> {
        let written = self.read_rows(
            "INSERT INTO lesson_steps (user_id, lesson, step, done_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT (user_id, lesson, step) DO NOTHING"
                .to_owned(),
            vec![
                Param::Int(user.0),
                text(lesson),
                Param::Int(i64::from(step)),
                Param::Int(at_ms),
            ],
            |_| Ok(()),
        );
        Box::pin(async move { written.await.map(|_| ()) })
    }

    pub(super) fn lesson_step_rows(&self, user: UserId) -> StoreFuture<Vec<LessonStep>> {
        self.read_rows(
            "SELECT lesson, step, done_ms FROM lesson_steps WHERE user_id = $1
             ORDER BY lesson, step"
                .to_owned(),
            vec![Param::Int(user.0)],
            |row| {
                let step: i64 = row.try_get(1).map_err(pg_error)?;
                Ok(LessonStep {
                    lesson: row.try_get(0).map_err(pg_error)?,
                    step: u32::try_from(step)
                        .map_err(|_| StoreError::Io(format!("lesson step {step} out of range")))?,
                    done_ms: row.try_get(2).map_err(pg_error)?,
                })
            },
        )
    }
}
