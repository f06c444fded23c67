//! The lesson progress of [`super::MemoryStore`] (issue 31): the reference the other backends
//! are tested against, as plainly as the contract reads.

use std::collections::BTreeMap;

use crate::server::domain::user::UserId;
use crate::server::store::LessonStep;

/// (user, lesson, step) -> the time of the first right try; the map's order is the listing's.
#[derive(Default)]
pub(super) struct MemoryLessons {
    steps: BTreeMap<(UserId, String, u32), i64>,
}

impl MemoryLessons {
    pub(super) fn record(&mut self, user: UserId, lesson: &str, step: u32, at_ms: i64) {
        self.steps
            .entry((user, lesson.to_owned(), step))
            .or_insert(at_ms);
    }

    pub(super) fn of(&self, user: UserId) -> Vec<LessonStep> {
        self.steps
            .iter()
            .filter(|((owner, _, _), _)| *owner == user)
            .map(|((_, lesson, step), &done_ms)| LessonStep {
                lesson: lesson.clone(),
                step: *step,
                done_ms,
            })
            .collect()
    }

    /// Forgets the user's progress (a deleted account, issue 32).
    pub(super) fn forget(&mut self, user: UserId) {
        self.steps.retain(|(owner, _, _), _| *owner != user);
    }
}
