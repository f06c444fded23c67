//! The arenas the server makes by itself, pure: a schedule (built in, or read from the JSON
//! file of `--arena-schedule`), and the arenas it announces ahead of an instant. Each
//! scheduled arena has an id made of its clock and start, so announcing it again (after a
//! restart, or on another node) finds the same arena instead of making a second one.

use std::time::Duration;

use serde::Deserialize;

use crate::server::game::ClockSpec;

use super::tournament::{Creator, Terms, Tournament, TournamentRefused};

/// How often a scheduled arena comes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Every {
    Hourly,
    Daily,
}

/// One line of the schedule.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scheduled {
    pub name: String,
    pub clock: ClockSpec,
    pub every: Every,
    /// The minute of the hour it starts at (0-59).
    pub minute: u32,
    /// For a daily arena: the hour (UTC, 0-23) it starts at.
    #[serde(default)]
    pub hour: Option<u32>,
    pub duration_minutes: u32,
    #[serde(default = "yes")]
    pub rated: bool,
}

fn yes() -> bool {
    true
}

/// A schedule that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error("the arena schedule is not a JSON list of arenas: {0}")]
    Json(#[from] serde_json::Error),
    #[error(
        "arena {name:?}: minute must be 0-59, and a daily arena needs an hour 0-23 (an hourly one none)"
    )]
    When { name: String },
    #[error("arena {name:?}: {refused}")]
    Refused {
        name: String,
        refused: TournamentRefused,
    },
}

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

/// The built-in schedule: a 3+2 arena every hour on the hour and a 5+3 every hour at half
/// past, each 57 minutes long (so that the next one's lobby entry is up before it ends), and a
/// 10+5 of 90 minutes every day at 19:00 UTC.
pub fn built_in() -> Vec<Scheduled> {
    let line = |name: &str, base, inc, every, minute, hour, minutes| Scheduled {
        name: name.to_owned(),
        clock: ClockSpec {
            base_secs: base,
            increment_secs: inc,
        },
        every,
        minute,
        hour,
        duration_minutes: minutes,
        rated: true,
    };
    vec![
        line("Hourly 3+2 arena", 180, 2, Every::Hourly, 0, None, 57),
        line("Hourly 5+3 arena", 300, 3, Every::Hourly, 30, None, 57),
        line("Daily 10+5 arena", 600, 5, Every::Daily, 0, Some(19), 90),
    ]
}

/// Reads a schedule (`--arena-schedule FILE`: a JSON list of [`Scheduled`]), each line checked
/// as an arena would be. An empty list turns the schedule off.
pub fn parse(text: &str) -> Result<Vec<Scheduled>, ScheduleError> {
    let lines: Vec<Scheduled> = serde_json::from_str(text)?;
    for line in &lines {
        let when_ok = line.minute < 60
            && match line.every {
                Every::Hourly => line.hour.is_none(),
                Every::Daily => line.hour.is_some_and(|h| h < 24),
            };
        if !when_ok {
            return Err(ScheduleError::When {
                name: line.name.clone(),
            });
        }
        line.request(0)
            .check(String::new(), Creator::Schedule, 0)
            .map_err(|refused| ScheduleError::Refused {
                name: line.name.clone(),
                refused,
            })?;
    }
    Ok(lines)
}

impl Scheduled {
    fn request(&self, starts_ms: i64) -> Terms {
        Terms {
            name: self.name.clone(),
            clock: self.clock,
            starts_ms,
            duration: Duration::from_secs(u64::from(self.duration_minutes) * 60),
            rated: self.rated,
            min_rated_games: None,
        }
    }

    /// Its starts in `[from_ms, to_ms)`.
    fn starts(&self, from_ms: i64, to_ms: i64) -> Vec<i64> {
        let (period, offset) = match self.every {
            Every::Hourly => (HOUR_MS, i64::from(self.minute) * 60_000),
            Every::Daily => (
                DAY_MS,
                i64::from(self.hour.unwrap_or(0)) * HOUR_MS + i64::from(self.minute) * 60_000,
            ),
        };
        let mut start = from_ms.div_euclid(period) * period + offset;
        if start < from_ms {
            start += period;
        }
        let mut out = Vec::new();
        while start < to_ms {
            out.push(start);
            start += period;
        }
        out
    }
}

/// The id of the scheduled arena with this clock starting at `starts_ms`: the same on every
/// node and after every restart.
pub fn scheduled_id(clock: ClockSpec, starts_ms: i64) -> String {
    format!(
        "s{}p{}m{}",
        clock.base_secs,
        clock.increment_secs,
        starts_ms.div_euclid(60_000)
    )
}

/// The scheduled arenas that start from `now_ms` to `ahead` later, checked.
pub fn announced(schedule: &[Scheduled], now_ms: i64, ahead: Duration) -> Vec<Tournament> {
    let to_ms = now_ms.saturating_add(ahead.as_millis() as i64);
    schedule
        .iter()
        .flat_map(|line| {
            line.starts(now_ms, to_ms).into_iter().filter_map(|start| {
                line.request(start)
                    .check(scheduled_id(line.clock, start), Creator::Schedule, now_ms)
                    .ok()
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-05 18:20 UTC.
    const NOW: i64 = 1_796_494_800_000;

    #[test]
    fn the_built_in_schedule_announces_the_next_hourly_and_daily_arenas() {
        let next = announced(&built_in(), NOW, Duration::from_secs(3600));
        let starts: Vec<(&str, i64)> = next
            .iter()
            .map(|t| (t.terms.name.as_str(), t.terms.starts_ms))
            .collect();
        // 18:30 (5+3), 19:00 (3+2), 19:00 (daily 10+5).
        assert_eq!(
            starts,
            [
                ("Hourly 3+2 arena", NOW + 40 * 60_000),
                ("Hourly 5+3 arena", NOW + 10 * 60_000),
                ("Daily 10+5 arena", NOW + 40 * 60_000),
            ]
        );
        assert!(
            next.iter()
                .all(|t| t.terms.rated && t.creator == Creator::Schedule)
        );
    }

    #[test]
    fn announcing_again_gives_the_same_ids() {
        let first = announced(&built_in(), NOW, Duration::from_secs(7200));
        let again = announced(&built_in(), NOW + 60_000, Duration::from_secs(7200));
        let ids = |ts: &[Tournament]| ts.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
        for id in ids(&first) {
            if first
                .iter()
                .any(|t| t.id == id && t.terms.starts_ms >= NOW + 60_000)
            {
                assert!(ids(&again).contains(&id), "{id}");
            }
        }
        assert_eq!(
            scheduled_id(built_in()[0].clock, NOW + 40 * 60_000),
            "s180p2m29941620"
        );
    }

    #[test]
    fn a_schedule_file_is_read_and_checked() {
        let text = r#"[{"name": "Bullet hour", "clock": {"base_secs": 60, "increment_secs": 0},
                        "every": "hourly", "minute": 15, "duration_minutes": 30, "rated": false}]"#;
        let lines = parse(text).expect("a good schedule");
        assert_eq!(lines[0].every, Every::Hourly);
        assert!(!lines[0].rated);
        assert!(parse("[]").expect("empty").is_empty());
        assert!(matches!(parse("{}"), Err(ScheduleError::Json(_))));
        let daily_without_hour = r#"[{"name": "x y", "clock": {"base_secs": 60, "increment_secs": 0},
                        "every": "daily", "minute": 0, "duration_minutes": 30}]"#;
        assert!(matches!(
            parse(daily_without_hour),
            Err(ScheduleError::When { .. })
        ));
        let too_long = r#"[{"name": "x y", "clock": {"base_secs": 60, "increment_secs": 0},
                        "every": "hourly", "minute": 0, "duration_minutes": 5000}]"#;
        assert!(matches!(
            parse(too_long),
            Err(ScheduleError::Refused { .. })
        ));
        let unknown_key = r#"[{"name": "x y", "clock": {"base_secs": 60, "increment_secs": 0},
                        "every": "hourly", "minute": 0, "duration_minutes": 30, "prize": 1}]"#;
        assert!(matches!(parse(unknown_key), Err(ScheduleError::Json(_))));
    }
}
