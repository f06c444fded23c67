//! The last versioned public messages of a game, serialized, for clients that reconnect with
//! the version they last saw: they get exactly what they missed, or (`None`) a full `state`
//! snapshot when it is no longer all here or would not fit in their queue.
//!
//! The window is bounded by bytes as well as by count: a `move` message carries the position
//! and its legal sub-moves (~600 bytes), and 64 of them were 35 KiB of every live game, its
//! largest part. A client back from a short drop has missed a turn or two, which the window
//! holds; one further behind gets the snapshot, which is what it needs anyway.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::server::game::{Event, GameState, ReplayError};
use crate::server::play::project;

/// At most this many recent public messages are kept.
pub const RECENT_EVENTS: usize = 64;

/// And at most this many bytes of them (the last message is always kept): about six `move`
/// messages, a turn of each player and their offers.
pub const RECENT_BYTES: usize = 4 * 1024;

#[derive(Default)]
pub struct History {
    recent: VecDeque<(u64, Utf8Bytes)>,
    /// The bytes of the messages in `recent`.
    bytes: usize,
}

impl History {
    pub fn push(&mut self, v: u64, text: Utf8Bytes) {
        self.bytes += text.len();
        self.recent.push_back((v, text));
        while self.recent.len() > RECENT_EVENTS
            || (self.bytes > RECENT_BYTES && self.recent.len() > 1)
        {
            if let Some((_, gone)) = self.recent.pop_front() {
                self.bytes -= gone.len();
            }
        }
    }

    pub fn clear(&mut self) {
        self.recent.clear();
        self.bytes = 0;
    }

    /// What a client that saw version `seen` missed, the game being at `version`: the messages
    /// after `seen` when they are all here and fewer than `room_left` (its queue's free
    /// slots); `None` means "send a full state". Empty when it is up to date.
    pub fn since(&self, seen: u64, version: u64, room_left: usize) -> Option<Vec<Utf8Bytes>> {
        if seen == version {
            return Some(Vec::new());
        }
        if seen > version {
            return None;
        }
        let first_kept = self.recent.front().map(|(first, _)| *first)?;
        let missing = usize::try_from(version - seen).unwrap_or(usize::MAX);
        if first_kept > seen + 1 || missing >= room_left {
            return None;
        }
        Some(
            self.recent
                .iter()
                .filter(|(v, _)| *v > seen)
                .map(|(_, text)| text.clone())
                .collect(),
        )
    }
}

/// The public messages of the last [`RECENT_EVENTS`] events of a replayed log.
pub fn replay_history(
    id: &str,
    events: &[Event],
    first_move: Duration,
    now: Instant,
) -> Result<(GameState, Vec<(u64, String)>), ReplayError> {
    let last = u64::try_from(events.len())
        .unwrap_or(u64::MAX)
        .saturating_sub(1);
    let keep_from = last.saturating_sub(RECENT_EVENTS as u64);
    let mut recent = Vec::new();
    let state = GameState::replay(id, events, first_move, now, |state, event, v| {
        if v > keep_from
            && let Some(msg) = project::event(state, event, v, now)
        {
            recent.push((v, msg.to_text()));
        }
    })?;
    Ok((state, recent))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(versions: std::ops::RangeInclusive<u64>) -> History {
        let mut history = History::default();
        for v in versions {
            history.push(v, Utf8Bytes::from(v.to_string()));
        }
        history
    }

    #[test]
    fn a_client_gets_exactly_the_messages_it_missed() {
        let history = history(1..=10);
        let missed = history.since(7, 10, 100).expect("all here");
        assert_eq!(missed, ["8", "9", "10"].map(Utf8Bytes::from));
        assert_eq!(history.since(10, 10, 100), Some(Vec::new()));
    }

    #[test]
    fn a_full_state_when_the_missed_messages_are_gone_do_not_fit_or_never_existed() {
        let history = history(1..=(RECENT_EVENTS as u64 + 10));
        assert_eq!(
            history.since(2, RECENT_EVENTS as u64 + 10, 1000),
            None,
            "gone"
        );
        let short = self::history(1..=10);
        assert_eq!(short.since(5, 10, 5), None, "does not fit");
        assert_eq!(short.since(11, 10, 100), None, "ahead of the game");
    }

    #[test]
    fn the_history_keeps_only_the_last_messages() {
        let history = history(1..=(RECENT_EVENTS as u64 * 2));
        assert_eq!(history.recent.len(), RECENT_EVENTS);
    }

    #[test]
    fn the_history_keeps_at_most_its_bytes_and_always_the_last_message() {
        let mut history = History::default();
        let message = |v: u64, len: usize| Utf8Bytes::from(format!("{v:0len$}"));
        for v in 1..=20 {
            history.push(v, message(v, 600));
        }
        let kept = RECENT_BYTES / 600;
        assert_eq!(history.recent.len(), kept);
        assert_eq!(history.bytes, kept * 600);
        // The oldest kept is exact; one before it is a snapshot.
        let first = 20 - kept as u64 + 1;
        assert_eq!(
            history.since(first - 1, 20, 100).map(|m| m.len()),
            Some(kept)
        );
        assert_eq!(history.since(first - 2, 20, 100), None);
        // A message larger than the whole budget stays, alone.
        history.push(21, message(21, RECENT_BYTES * 2));
        assert_eq!(history.recent.len(), 1);
        assert_eq!(history.since(20, 21, 100).map(|m| m.len()), Some(1));
    }
}
