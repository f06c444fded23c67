//! An arena as the store keeps it ([`ArenaRecord`]): its terms as a JSON object of their own
//! (the store does not read them), and back. Reading back checks nothing again: the terms were
//! checked when the arena was made, and a rule tightened later must not unmake it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::server::game::ClockSpec;
use crate::server::store::ArenaRecord;

use super::tournament::{Creator, Terms, Tournament};

/// The stored form of [`Terms`] but the start (a column of its own).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredTerms {
    name: String,
    clock: ClockSpec,
    duration_secs: u64,
    rated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min_rated_games: Option<u32>,
    /// The creating account's name, shown on the page (none for the schedule's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    creator_name: Option<String>,
}

/// The record of `tournament`, made at `now_ms` by the account named `creator_name`.
pub fn to_record(tournament: &Tournament, creator_name: Option<&str>, now_ms: i64) -> ArenaRecord {
    let terms = &tournament.terms;
    let stored = StoredTerms {
        name: terms.name.clone(),
        clock: terms.clock,
        duration_secs: terms.duration.as_secs(),
        rated: terms.rated,
        min_rated_games: terms.min_rated_games,
        creator_name: creator_name.map(str::to_owned),
    };
    ArenaRecord {
        id: tournament.id.clone(),
        creator: match tournament.creator {
            Creator::User(user) => Some(user),
            Creator::Schedule => None,
        },
        // Strings and numbers only: serializing cannot fail.
        terms: serde_json::to_string(&stored).unwrap_or_default(),
        starts_ms: terms.starts_ms,
        ends_ms: tournament.ends_ms(),
        created_ms: now_ms,
    }
}

/// The arena a record holds; `None` for terms this program cannot read (a damaged row, which
/// is then left out of every list rather than failing them).
pub fn from_record(record: &ArenaRecord) -> Option<Tournament> {
    read_record(record).map(|(tournament, _)| tournament)
}

/// The arena a record holds and its creator's name.
pub fn read_record(record: &ArenaRecord) -> Option<(Tournament, Option<String>)> {
    let stored: StoredTerms = match serde_json::from_str(&record.terms) {
        Ok(stored) => stored,
        Err(error) => {
            tracing::warn!(arena = %record.id, %error, "an arena's stored terms do not read");
            return None;
        }
    };
    let tournament = Tournament {
        id: record.id.clone(),
        creator: record.creator.map_or(Creator::Schedule, Creator::User),
        terms: Terms {
            name: stored.name,
            clock: stored.clock,
            starts_ms: record.starts_ms,
            duration: Duration::from_secs(stored.duration_secs),
            rated: stored.rated,
            min_rated_games: stored.min_rated_games,
        },
    };
    Some((tournament, stored.creator_name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::domain::user::UserId;

    #[test]
    fn an_arena_reads_back_from_its_record_as_it_was() {
        let arena = Tournament {
            id: "a1".into(),
            creator: Creator::User(UserId(4)),
            terms: Terms {
                name: "Friday blitz".into(),
                clock: ClockSpec {
                    base_secs: 180,
                    increment_secs: 2,
                },
                starts_ms: 1_000_000,
                duration: Duration::from_secs(3600),
                rated: false,
                min_rated_games: Some(5),
            },
        };
        let record = to_record(&arena, Some("alice"), 7);
        assert_eq!(record.ends_ms, 1_000_000 + 3_600_000);
        assert_eq!(record.creator, Some(UserId(4)));
        assert_eq!(
            read_record(&record),
            Some((arena, Some("alice".to_owned())))
        );
    }

    #[test]
    fn a_record_whose_terms_do_not_read_is_no_arena() {
        let mut record = to_record(
            &Tournament {
                id: "a".into(),
                creator: Creator::Schedule,
                terms: Terms {
                    name: "x".into(),
                    clock: ClockSpec {
                        base_secs: 60,
                        increment_secs: 0,
                    },
                    starts_ms: 0,
                    duration: Duration::from_secs(1800),
                    rated: true,
                    min_rated_games: None,
                },
            },
            None,
            0,
        );
        record.terms = "{\"name\":1}".into();
        assert_eq!(from_record(&record), None);
    }
}
