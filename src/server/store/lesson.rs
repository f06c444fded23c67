//! What the store keeps of "Learn Marseillais" (SQLite schema v9, Postgres v6; issue 31): the
//! steps of lessons each account finished, one row per (user, lesson, step), with the time of
//! the first right try. Lesson ids are opaque keys here: the learn room
//! (`crate::server::learn::lesson`) owns what they mean.

/// A finished step of a lesson, as [`super::Store::lesson_steps`] lists them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonStep {
    pub lesson: String,
    /// From 1, as the page numbers them.
    pub step: u32,
    /// Unix milliseconds of the first right try.
    pub done_ms: i64,
}
