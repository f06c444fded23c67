//! Events as the store keeps them: one JSON object per event, `{"k": kind, ...}`, byte for byte
//! the text every earlier version wrote (a database written by any of them is served unchanged).
//! The typed [`Event`] is the game's; this is the only place that knows its stored text.
//!
//! The field order, the names and the omissions (`listed` only when false, `seat_hash` of a
//! rematch offer only when present, `derived_seats` only when true) are part of that format:
//! `tests/store_fixture_*.rs` replays databases written by earlier versions.

use serde::{Deserialize, Serialize};

use crate::engine::Level;
use crate::rules::{Color, Outcome, Position, Rules, SubMove, Termination};
use crate::server::domain::rating::Rating;
use crate::server::domain::side::Side;
use crate::server::domain::user::{UserId, Username};
use crate::server::game::{Event, Readings, SeatUser, TimeControl, Variant};

/// Why a stored event could not be read: a corrupt or foreign log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    #[error("event is not valid JSON for this version: {0}")]
    Json(String),
    #[error("bad start position: {0}")]
    Fen(String),
    #[error("bad sub-move {uci:?}: {reason}")]
    SubMove { uci: String, reason: String },
    #[error("unknown end reason {0:?}")]
    Reason(String),
    #[error("computer level {0} is not in {min}..={max}", min = Level::MIN, max = Level::MAX)]
    Level(u8),
    #[error("bad username {0:?} in a seat")]
    Username(String),
}

/// A seat's user as stored: `{"id", "name", "rating"?}`, the rating with all four numbers
/// (the PGN needs the rating before the game; the rest costs a few bytes per seat).
#[derive(Serialize, Deserialize)]
struct StoredUser {
    id: i64,
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rating: Option<StoredRating>,
}

#[derive(Serialize, Deserialize)]
struct StoredRating {
    rating: f64,
    deviation: f64,
    volatility: f64,
    games: u32,
}

fn stored_user(user: SeatUser) -> StoredUser {
    StoredUser {
        id: user.id.0,
        name: user.name.as_str().to_owned(),
        rating: user.rating.map(|r| StoredRating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
            games: r.games,
        }),
    }
}

/// A stored user read back; a name that is not a username (or a rating that is not a finite
/// number) was not written by this server.
fn seat_user(stored: StoredUser) -> Result<SeatUser, CodecError> {
    let name = Username::parse(&stored.name).map_err(|_| CodecError::Username(stored.name))?;
    Ok(SeatUser {
        id: UserId(stored.id),
        name,
        rating: stored.rating.map(|r| Rating {
            rating: r.rating,
            deviation: r.deviation,
            volatility: r.volatility,
            games: r.games,
        }),
    })
}

/// A stored computer level, refused (not clamped) outside 1..=8: a log with another level
/// was not written by this server.
fn level(n: u8) -> Result<Level, CodecError> {
    if (Level::MIN..=Level::MAX).contains(&n) {
        Ok(Level::new(i64::from(n)))
    } else {
        Err(CodecError::Level(n))
    }
}

/// The stored form. Field order is the stored order.
#[derive(Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
enum Stored {
    Created {
        at_ms: i64,
        variant: Variant,
        start_fen: String,
        /// A live clock's `{"base_secs", "increment_secs"}` as ever, or `{"days_per_turn"}`.
        clock: Option<TimeControl>,
        creator: Side,
        seat_hash: String,
        #[serde(default = "listed_by_default", skip_serializing_if = "is_listed")]
        listed: bool,
        /// Written only when true, `user` only for a signed-in creator: the logs of anonymous
        /// games are byte for byte what earlier versions wrote.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<StoredUser>,
        /// Written only for a game an arena paired.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arena: Option<String>,
    },
    /// `computer`: the level of a computer seat, written only for one; `user` only for a
    /// signed-in player.
    Joined {
        at_ms: i64,
        color: Side,
        seat_hash: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        computer: Option<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user: Option<StoredUser>,
    },
    Move {
        at_ms: i64,
        uci: String,
        ack: Option<String>,
        clock: Option<Readings>,
    },
    Takeback {
        at_ms: i64,
        clock: Option<Readings>,
    },
    DrawOffer {
        at_ms: i64,
        by: Side,
    },
    DrawDecline {
        at_ms: i64,
        by: Side,
    },
    Berserk {
        at_ms: i64,
        by: Side,
    },
    RematchOffer {
        at_ms: i64,
        by: Side,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat_hash: Option<String>,
    },
    Rematch {
        at_ms: i64,
        id: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        derived_seats: bool,
    },
    /// `reason` is a [`Termination`] tag text.
    End {
        at_ms: i64,
        winner: Option<Side>,
        reason: String,
        clock: Option<Readings>,
    },
}

fn listed_by_default() -> bool {
    true
}

fn is_listed(listed: &bool) -> bool {
    *listed
}

/// The stored text of `event`.
pub fn encode(event: &Event) -> String {
    let stored = match event.clone() {
        Event::Created {
            at_ms,
            variant,
            start,
            clock,
            creator,
            seat_hash,
            listed,
            rated,
            user,
            arena,
        } => Stored::Created {
            at_ms,
            variant,
            start_fen: start.fen(),
            clock,
            creator: creator.into(),
            seat_hash,
            listed,
            rated,
            user: user.map(stored_user),
            arena,
        },
        Event::Joined {
            at_ms,
            color,
            seat_hash,
            computer,
            user,
        } => Stored::Joined {
            at_ms,
            color: color.into(),
            seat_hash,
            computer: computer.map(Level::get),
            user: user.map(stored_user),
        },
        Event::Move {
            at_ms,
            mv,
            ack,
            clock,
        } => Stored::Move {
            at_ms,
            uci: mv.to_string(),
            ack,
            clock,
        },
        Event::Takeback { at_ms, clock } => Stored::Takeback { at_ms, clock },
        Event::DrawOffer { at_ms, by } => Stored::DrawOffer {
            at_ms,
            by: by.into(),
        },
        Event::DrawDecline { at_ms, by } => Stored::DrawDecline {
            at_ms,
            by: by.into(),
        },
        Event::Berserk { at_ms, by } => Stored::Berserk {
            at_ms,
            by: by.into(),
        },
        Event::RematchOffer {
            at_ms,
            by,
            seat_hash,
        } => Stored::RematchOffer {
            at_ms,
            by: by.into(),
            seat_hash,
        },
        Event::Rematch {
            at_ms,
            id,
            derived_seats,
        } => Stored::Rematch {
            at_ms,
            id,
            derived_seats,
        },
        Event::End {
            at_ms,
            outcome,
            clock,
        } => Stored::End {
            at_ms,
            winner: outcome.winner().map(Side::from),
            reason: outcome.reason().as_str().to_owned(),
            clock,
        },
    };
    // Serializing these plain values cannot fail (no maps with non-string keys, no floats).
    serde_json::to_string(&stored).unwrap_or_default()
}

/// The event stored as `text`.
pub fn decode(text: &str) -> Result<Event, CodecError> {
    let stored: Stored = serde_json::from_str(text).map_err(|e| CodecError::Json(e.to_string()))?;
    Ok(match stored {
        Stored::Created {
            at_ms,
            variant,
            start_fen,
            clock,
            creator,
            seat_hash,
            listed,
            rated,
            user,
            arena,
        } => Event::Created {
            at_ms,
            variant,
            start: Position::from_fen(&start_fen, Rules::Marseillais)
                .map_err(|e| CodecError::Fen(e.to_string()))?,
            clock,
            creator: creator.into(),
            seat_hash,
            listed,
            rated,
            user: user.map(seat_user).transpose()?,
            arena,
        },
        Stored::Joined {
            at_ms,
            color,
            seat_hash,
            computer,
            user,
        } => Event::Joined {
            at_ms,
            color: color.into(),
            seat_hash,
            computer: computer.map(level).transpose()?,
            user: user.map(seat_user).transpose()?,
        },
        Stored::Move {
            at_ms,
            uci,
            ack,
            clock,
        } => Event::Move {
            at_ms,
            mv: uci.parse::<SubMove>().map_err(|e| CodecError::SubMove {
                reason: e.to_string(),
                uci,
            })?,
            ack,
            clock,
        },
        Stored::Takeback { at_ms, clock } => Event::Takeback { at_ms, clock },
        Stored::DrawOffer { at_ms, by } => Event::DrawOffer {
            at_ms,
            by: by.into(),
        },
        Stored::DrawDecline { at_ms, by } => Event::DrawDecline {
            at_ms,
            by: by.into(),
        },
        Stored::Berserk { at_ms, by } => Event::Berserk {
            at_ms,
            by: by.into(),
        },
        Stored::RematchOffer {
            at_ms,
            by,
            seat_hash,
        } => Event::RematchOffer {
            at_ms,
            by: by.into(),
            seat_hash,
        },
        Stored::Rematch {
            at_ms,
            id,
            derived_seats,
        } => Event::Rematch {
            at_ms,
            id,
            derived_seats,
        },
        Stored::End {
            at_ms,
            winner,
            reason,
            clock,
        } => {
            let reason: Termination = reason.parse().map_err(|_| CodecError::Reason(reason))?;
            let outcome = match winner {
                Some(side) => Outcome::Win {
                    winner: Color::from(side),
                    reason,
                },
                None => Outcome::Draw { reason },
            };
            Event::End {
                at_ms,
                outcome,
                clock,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One line per kind, as stored by the versions before the typed core (copied from a
    /// database of the previous version).
    const STORED: [&str; 12] = [
        r#"{"k":"created","at_ms":1,"variant":"balanced","start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","clock":{"base_secs":60,"increment_secs":2},"creator":"white","seat_hash":"h"}"#,
        r#"{"k":"created","at_ms":1,"variant":"marseillais","start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1","clock":null,"creator":"black","seat_hash":"h","listed":false}"#,
        r#"{"k":"joined","at_ms":2,"color":"black","seat_hash":"b"}"#,
        r#"{"k":"move","at_ms":3,"uci":"e2e4","ack":"7","clock":[60000,60000]}"#,
        r#"{"k":"move","at_ms":3,"uci":"e7e8q","ack":null,"clock":null}"#,
        r#"{"k":"takeback","at_ms":4,"clock":null}"#,
        r#"{"k":"draw_offer","at_ms":5,"by":"white"}"#,
        r#"{"k":"draw_decline","at_ms":6,"by":"black"}"#,
        r#"{"k":"rematch_offer","at_ms":7,"by":"white","seat_hash":"r"}"#,
        r#"{"k":"rematch","at_ms":8,"id":"AbCd1234","derived_seats":true}"#,
        r#"{"k":"end","at_ms":9,"winner":"white","reason":"checkmate","clock":[1,2]}"#,
        r#"{"k":"end","at_ms":9,"winner":null,"reason":"second-move stalemate","clock":null}"#,
    ];

    #[test]
    fn every_stored_kind_reads_and_is_written_back_byte_for_byte() {
        for text in STORED {
            let event = decode(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(encode(&event), text);
        }
    }

    #[test]
    fn an_arena_game_stores_its_arena_and_a_berserk_and_reads_them_back() {
        for text in [
            r#"{"k":"created","at_ms":1,"variant":"balanced","start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","clock":{"base_secs":180,"increment_secs":2},"creator":"white","seat_hash":"h","listed":false,"rated":true,"arena":"a1"}"#,
            r#"{"k":"berserk","at_ms":5,"by":"black"}"#,
        ] {
            let event = decode(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(encode(&event), text);
        }
        let Ok(Event::Created { arena, .. }) = decode(STORED[0]) else {
            panic!("a created event");
        };
        assert_eq!(arena, None, "games before arenas belong to none");
    }

    #[test]
    fn a_correspondence_game_stores_its_days_per_turn_as_its_clock() {
        let text = r#"{"k":"created","at_ms":1,"variant":"balanced","start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","clock":{"days_per_turn":14},"creator":"white","seat_hash":"h"}"#;
        let event = decode(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let Event::Created {
            clock: Some(clock), ..
        } = &event
        else {
            panic!("a created event with a clock: {event:?}");
        };
        assert_eq!(clock.days_per_turn().map(u64::from), Some(14));
        assert_eq!(encode(&event), text);
        let four = text.replace(":14}", ":4}");
        assert!(
            matches!(decode(&four), Err(CodecError::Json(_))),
            "not a choice"
        );
    }

    #[test]
    fn events_written_before_listing_and_derived_rematch_seats_read_as_before() {
        let created = r#"{"k":"created","at_ms":1,"variant":"balanced","start_fen":"4k3/8/8/8/8/8/8/4K3 w - - 0 1","clock":null,"creator":"white","seat_hash":"h"}"#;
        let Ok(Event::Created { listed, .. }) = decode(created) else {
            panic!("an old created event reads");
        };
        assert!(listed, "an old game is listed");
        let Ok(Event::RematchOffer { seat_hash, .. }) =
            decode(r#"{"k":"rematch_offer","at_ms":1,"by":"white"}"#)
        else {
            panic!("an old offer reads");
        };
        assert_eq!(seat_hash, None);
        let Ok(Event::Rematch { derived_seats, .. }) =
            decode(r#"{"k":"rematch","at_ms":1,"id":"AbCd1234"}"#)
        else {
            panic!("an old rematch reads");
        };
        assert!(!derived_seats);
    }

    #[test]
    fn a_computer_seat_is_written_with_its_level_and_read_back() {
        let joined = Event::Joined {
            at_ms: 2,
            color: Color::White,
            seat_hash: crate::server::game::COMPUTER_SEAT_HASH.into(),
            computer: Some(Level::new(3)),
            user: None,
        };
        let text = encode(&joined);
        assert_eq!(
            text,
            r#"{"k":"joined","at_ms":2,"color":"white","seat_hash":"computer","computer":3}"#
        );
        assert_eq!(decode(&text), Ok(joined));
    }

    #[test]
    fn a_stored_computer_level_outside_one_to_eight_is_a_typed_error() {
        for bad in [0, 9] {
            let text = format!(
                r#"{{"k":"joined","at_ms":2,"color":"white","seat_hash":"computer","computer":{bad}}}"#
            );
            assert_eq!(decode(&text), Err(CodecError::Level(bad)));
        }
    }

    /// A rated game's created and joined events, as this version writes them.
    const STORED_WITH_USERS: [&str; 3] = [
        r#"{"k":"created","at_ms":1,"variant":"balanced","start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","clock":{"base_secs":300,"increment_secs":2},"creator":"white","seat_hash":"h","rated":true,"user":{"id":7,"name":"Alice","rating":{"rating":1512.25,"deviation":87.5,"volatility":0.0899,"games":12}}}"#,
        r#"{"k":"created","at_ms":1,"variant":"balanced","start_fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","clock":null,"creator":"black","seat_hash":"h","listed":false,"user":{"id":7,"name":"Alice"}}"#,
        r#"{"k":"joined","at_ms":2,"color":"black","seat_hash":"b","user":{"id":8,"name":"bob_2","rating":{"rating":1500.0,"deviation":500.0,"volatility":0.09,"games":0}}}"#,
    ];

    #[test]
    fn seats_of_signed_in_players_carry_their_user_and_are_written_back_byte_for_byte() {
        for text in STORED_WITH_USERS {
            let event = decode(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(encode(&event), text);
        }
        let Ok(Event::Created {
            rated: true,
            user: Some(user),
            ..
        }) = decode(STORED_WITH_USERS[0])
        else {
            panic!("a rated created event with its user");
        };
        assert_eq!(user.id, UserId(7));
        assert_eq!(user.name.as_str(), "Alice");
        assert_eq!(user.rating.map(|r| r.games), Some(12));
    }

    #[test]
    fn events_written_before_accounts_have_no_user_and_are_not_rated() {
        for text in STORED {
            match decode(text) {
                Ok(Event::Created { rated, user, .. }) => {
                    assert!(!rated);
                    assert_eq!(user, None);
                }
                Ok(Event::Joined { user, .. }) => assert_eq!(user, None),
                _ => {}
            }
        }
    }

    #[test]
    fn a_stored_seat_user_with_a_bad_name_is_a_typed_error() {
        let text = r#"{"k":"joined","at_ms":2,"color":"black","seat_hash":"b","user":{"id":8,"name":"b o b"}}"#;
        assert_eq!(decode(text), Err(CodecError::Username("b o b".into())));
    }

    #[test]
    fn a_corrupt_event_is_a_typed_error() {
        assert!(matches!(decode("{"), Err(CodecError::Json(_))));
        assert!(matches!(
            decode(r#"{"k":"move","at_ms":3,"uci":"e2","ack":null,"clock":null}"#),
            Err(CodecError::SubMove { .. })
        ));
        assert!(matches!(
            decode(r#"{"k":"end","at_ms":9,"winner":null,"reason":"boredom","clock":null}"#),
            Err(CodecError::Reason(_))
        ));
        assert!(matches!(
            decode(
                r#"{"k":"created","at_ms":1,"variant":"balanced","start_fen":"x","clock":null,"creator":"white","seat_hash":"h"}"#
            ),
            Err(CodecError::Fen(_))
        ));
    }
}
