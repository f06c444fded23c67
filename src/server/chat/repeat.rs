//! The flood rule that needs no moderator (issue 32), per writer, pure: a writer who repeats a
//! line, or says more than a few lines in a short time, is silenced for a while. A writer is
//! an address or an account (the keys of [`super::flood`]); [`Writer`] is what one of them
//! said lately and until when it is silenced.
//!
//! "Nearly the same line": equal once folded ([`super::words::fold`]) and stripped of
//! everything but letters and digits (`GG!!` is `gg`), or, for lines of at least
//! [`SIMILAR_MIN_CHARS`], a similarity over [`SIMILARITY`]: one minus the edit distance over
//! the longer length. Compared with the writer's last [`REMEMBERED`] lines said within
//! [`REPEAT_WINDOW`].

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::words::fold;

/// Lines of a writer compared with its next one.
pub const REMEMBERED: usize = 3;
/// A line older than this is no longer a repetition of.
pub const REPEAT_WINDOW: Duration = Duration::from_secs(60);
/// Lines shorter than this (once normalized) repeat only if equal.
pub const SIMILAR_MIN_CHARS: usize = 10;
/// The similarity above which two lines are nearly the same.
pub const SIMILARITY: f64 = 0.9;

/// The flood rule's numbers (`--chat-flood-lines`, `--chat-flood-secs`, `--chat-silence-secs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloodRule {
    /// More lines than this within `window` silence the writer (0: no such limit).
    pub lines: u32,
    pub window: Duration,
    /// How long a writer stays silenced; zero turns the whole rule off.
    pub silence: Duration,
}

impl FloodRule {
    /// No flood rule (`--chat-silence-secs 0`).
    pub const OFF: FloodRule = FloodRule {
        lines: 0,
        window: Duration::ZERO,
        silence: Duration::ZERO,
    };

    pub fn is_off(&self) -> bool {
        self.silence.is_zero()
    }
}

impl Default for FloodRule {
    fn default() -> FloodRule {
        FloodRule {
            lines: 5,
            window: Duration::from_secs(10),
            silence: Duration::from_secs(60),
        }
    }
}

/// Why a line was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Silenced {
    /// This line repeated one of the writer's last: silenced from now.
    Repeated,
    /// This line was one too many in the window: silenced from now.
    TooMany,
    /// The writer is silenced already.
    Still,
}

/// A line's text as compared: folded, letters and digits only.
pub fn normalized(text: &str) -> String {
    fold(text).chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Whether two normalized lines are nearly the same (see the module comment).
pub fn nearly_same(a: &str, b: &str) -> bool {
    if a == b {
        return !a.is_empty();
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let longer = a.len().max(b.len());
    if a.len().min(b.len()) < SIMILAR_MIN_CHARS {
        return false;
    }
    let similarity = 1.0 - distance(&a, &b) as f64 / longer as f64;
    similarity > SIMILARITY
}

/// The edit (Levenshtein) distance, in one row: lines are 140 characters at most.
fn distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// What one writer said lately.
#[derive(Clone, Debug, Default)]
pub struct Writer {
    /// Its last lines (normalized) with their times, oldest first: the last [`REMEMBERED`]
    /// and every line of the flood window.
    said: VecDeque<(Instant, String)>,
    silenced_until: Option<Instant>,
}

impl Writer {
    /// Whether the writer is silenced at `now`, and for how long still.
    pub fn silenced(&self, now: Instant) -> Option<Duration> {
        self.silenced_until
            .filter(|&until| until > now)
            .map(|until| until - now)
    }

    /// Judges a line (normalized) said at `now`, without keeping it: `Err` if it is refused,
    /// which silences the writer from `now` ([`Writer::silence`]).
    pub fn judge(&self, line: &str, now: Instant, rule: &FloodRule) -> Result<(), Silenced> {
        if self.silenced(now).is_some() {
            return Err(Silenced::Still);
        }
        let recent = |at: &Instant| now.saturating_duration_since(*at) < REPEAT_WINDOW;
        let repeated = self
            .said
            .iter()
            .rev()
            .take(REMEMBERED)
            .any(|(at, said)| recent(at) && nearly_same(said, line));
        if repeated {
            return Err(Silenced::Repeated);
        }
        let in_window = self
            .said
            .iter()
            .filter(|(at, _)| now.saturating_duration_since(*at) < rule.window)
            .count();
        if rule.lines > 0 && in_window >= rule.lines as usize {
            return Err(Silenced::TooMany);
        }
        Ok(())
    }

    pub fn silence(&mut self, now: Instant, rule: &FloodRule) {
        self.silenced_until = Some(now + rule.silence);
    }

    /// Keeps a line that was said.
    pub fn said(&mut self, line: String, now: Instant, rule: &FloodRule) {
        self.said.push_back((now, line));
        let keep = REMEMBERED.max(rule.lines as usize);
        while self.said.len() > keep {
            self.said.pop_front();
        }
    }

    /// Whether the writer's state no longer matters at `now` (it may be forgotten).
    pub fn idle(&self, now: Instant, rule: &FloodRule) -> bool {
        let quiet = REPEAT_WINDOW.max(rule.window);
        self.silenced(now).is_none()
            && self
                .said
                .back()
                .is_none_or(|(at, _)| now.saturating_duration_since(*at) >= quiet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: FloodRule = FloodRule {
        lines: 5,
        window: Duration::from_secs(10),
        silence: Duration::from_secs(60),
    };

    fn say(writer: &mut Writer, text: &str, now: Instant) -> Result<(), Silenced> {
        let line = normalized(text);
        match writer.judge(&line, now, &RULE) {
            Ok(()) => {
                writer.said(line, now, &RULE);
                Ok(())
            }
            Err(why) => {
                if why != Silenced::Still {
                    writer.silence(now, &RULE);
                }
                Err(why)
            }
        }
    }

    #[test]
    fn lines_equal_once_folded_and_stripped_are_the_same() {
        assert!(nearly_same(&normalized("GG!!"), &normalized("gg")));
        assert!(nearly_same(
            &normalized("Très bien"),
            &normalized("tres   BIEN.")
        ));
        assert!(!nearly_same(&normalized("gg"), &normalized("gl")));
        assert!(
            !nearly_same("", ""),
            "a line of punctuation repeats nothing"
        );
    }

    #[test]
    fn long_lines_one_edit_apart_are_nearly_the_same_short_ones_are_not() {
        let a = normalized("visit my site for free coins now");
        let b = normalized("visit my site for free coins now!1");
        assert!(nearly_same(&a, &b));
        assert!(!nearly_same(
            &normalized("nice move"),
            &normalized("nice mode")
        ));
        assert!(!nearly_same(
            &normalized("what a game that was"),
            &normalized("what a move that was")
        ));
    }

    #[test]
    fn the_edit_distance_is_levenshteins() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(distance(&chars("kitten"), &chars("sitting")), 3);
        assert_eq!(distance(&chars(""), &chars("abc")), 3);
    }

    #[test]
    fn a_repeated_line_is_refused_and_silences_the_writer() {
        let mut writer = Writer::default();
        let now = Instant::now();
        assert_eq!(say(&mut writer, "hello", now), Ok(()));
        assert_eq!(say(&mut writer, "Hello!", now), Err(Silenced::Repeated));
        let later = now + Duration::from_secs(30);
        assert_eq!(say(&mut writer, "anything", later), Err(Silenced::Still));
        assert_eq!(writer.silenced(later), Some(Duration::from_secs(30)));
        let after = now + Duration::from_secs(60);
        assert_eq!(say(&mut writer, "sorry", after), Ok(()));
    }

    #[test]
    fn a_line_said_again_after_three_others_or_a_minute_is_no_repeat() {
        let mut writer = Writer::default();
        let now = Instant::now();
        for (i, text) in ["gg", "a", "b", "c", "gg"].into_iter().enumerate() {
            let at = now + Duration::from_secs(3 * i as u64);
            assert_eq!(say(&mut writer, text, at), Ok(()), "{text}");
        }
        let later = now + Duration::from_secs(12 + 60);
        assert_eq!(say(&mut writer, "gg", later), Ok(()));
    }

    #[test]
    fn a_sixth_line_within_ten_seconds_silences() {
        let mut writer = Writer::default();
        let now = Instant::now();
        for i in 0..5u64 {
            let at = now + Duration::from_secs(i);
            assert_eq!(say(&mut writer, &format!("line {i}"), at), Ok(()));
        }
        let sixth = now + Duration::from_secs(9);
        assert_eq!(say(&mut writer, "line 5", sixth), Err(Silenced::TooMany));
    }

    #[test]
    fn five_lines_every_ten_seconds_go_on_for_ever() {
        let mut writer = Writer::default();
        let now = Instant::now();
        for i in 0..50u64 {
            let at = now + Duration::from_secs(2 * i);
            assert_eq!(say(&mut writer, &format!("line {i}"), at), Ok(()));
        }
    }

    #[test]
    fn a_writer_is_idle_once_quiet_for_a_minute_and_not_silenced() {
        let mut writer = Writer::default();
        let now = Instant::now();
        assert!(writer.idle(now, &RULE));
        say(&mut writer, "hi", now).expect("said");
        assert!(!writer.idle(now + Duration::from_secs(59), &RULE));
        assert!(writer.idle(now + Duration::from_secs(60), &RULE));
    }
}
