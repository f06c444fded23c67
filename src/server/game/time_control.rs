//! A game's time control, as every version stored it and every request gives it: a live clock
//! ([`ClockSpec`]) or days per turn ([`DaysPerTurn`]), read strictly by hand so that each refusal
//! is a `clock: ` message naming what is wrong ([`TimeControlError`]).

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// A live time control: base time and increment per turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSpec {
    pub base_secs: u32,
    pub increment_secs: u32,
}

/// Days per turn of a correspondence game: only 1, 2, 3, 5, 7 or 14 (vchess.club's and
/// lichess's choices; a closed set keeps ratings by speed meaningful and the lobby readable).
/// Its serde form is the bare number, refused (not rounded) outside the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u64")]
pub struct DaysPerTurn(u8);

/// A `days_per_turn` outside [`DaysPerTurn::ALLOWED`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("days_per_turn must be one of 1, 2, 3, 5, 7 or 14, got {0}")]
pub struct BadDaysPerTurn(pub u64);

impl DaysPerTurn {
    /// The values a game may have.
    pub const ALLOWED: [u8; 6] = [1, 2, 3, 5, 7, 14];

    pub fn days(self) -> u8 {
        self.0
    }

    /// One turn's length in milliseconds.
    pub fn millis(self) -> i64 {
        i64::from(self.0) * 86_400_000
    }

    /// One turn's length in seconds (the PGN `TimeControl` period).
    pub fn secs(self) -> u64 {
        u64::from(self.0) * 86_400
    }
}

impl TryFrom<u64> for DaysPerTurn {
    type Error = BadDaysPerTurn;

    fn try_from(days: u64) -> Result<DaysPerTurn, BadDaysPerTurn> {
        DaysPerTurn::ALLOWED
            .into_iter()
            .find(|&d| u64::from(d) == days)
            .map(DaysPerTurn)
            .ok_or(BadDaysPerTurn(days))
    }
}

impl From<DaysPerTurn> for u64 {
    fn from(days: DaysPerTurn) -> u64 {
        u64::from(days.0)
    }
}

/// A game's time control: a live clock, or days per turn. Serialized untagged, so a live one is
/// exactly the [`ClockSpec`] object every earlier version wrote (`{"base_secs":300,
/// "increment_secs":3}`: old logs and wire bytes are unchanged) and a correspondence one is
/// `{"days_per_turn":3}`. Read by hand, strictly: each field a whole number in its range and at
/// most once, and an object with both kinds of field refused, every refusal a
/// [`TimeControlError`] whose message starts `clock: ` (plain `untagged` would take a mixed
/// object as a live clock and answer anything else with its own text). Its `Deserialize`
/// ignores keys it does not know, as [`ClockSpec`] always did (stored logs and listings);
/// a request reads it through [`requested_clock`], which refuses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum TimeControl {
    Live(ClockSpec),
    Correspondence { days_per_turn: DaysPerTurn },
}

impl TimeControl {
    /// The live clock, if it is one.
    pub fn live(self) -> Option<ClockSpec> {
        match self {
            TimeControl::Live(spec) => Some(spec),
            TimeControl::Correspondence { .. } => None,
        }
    }

    /// The days per turn, if it is a correspondence game.
    pub fn days_per_turn(self) -> Option<DaysPerTurn> {
        match self {
            TimeControl::Live(_) => None,
            TimeControl::Correspondence { days_per_turn } => Some(days_per_turn),
        }
    }
}

impl From<ClockSpec> for TimeControl {
    fn from(spec: ClockSpec) -> TimeControl {
        TimeControl::Live(spec)
    }
}

impl From<DaysPerTurn> for TimeControl {
    fn from(days_per_turn: DaysPerTurn) -> TimeControl {
        TimeControl::Correspondence { days_per_turn }
    }
}

/// A field of a time control object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockField {
    BaseSecs,
    IncrementSecs,
    DaysPerTurn,
}

impl ClockField {
    fn of(key: &str) -> Option<ClockField> {
        match key {
            "base_secs" => Some(ClockField::BaseSecs),
            "increment_secs" => Some(ClockField::IncrementSecs),
            "days_per_turn" => Some(ClockField::DaysPerTurn),
            _ => None,
        }
    }

    /// What its value must be, in words.
    fn expected(self) -> &'static str {
        match self {
            ClockField::BaseSecs | ClockField::IncrementSecs => {
                "a whole number of seconds (at most 4294967295)"
            }
            ClockField::DaysPerTurn => "one of 1, 2, 3, 5, 7 or 14",
        }
    }
}

impl std::fmt::Display for ClockField {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            ClockField::BaseSecs => "base_secs",
            ClockField::IncrementSecs => "increment_secs",
            ClockField::DaysPerTurn => "days_per_turn",
        })
    }
}

/// Why a time control object is not one. Every message starts `clock: `.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    #[error("clock: days_per_turn cannot be given with base_secs or increment_secs")]
    Mixed,
    #[error("clock: base_secs and increment_secs (a live clock) or days_per_turn (correspondence)")]
    Incomplete,
    #[error("clock: {0}")]
    Days(#[from] BadDaysPerTurn),
    /// A value that is no whole number in the field's range; `got` is the value as read (`-1`,
    /// `1.5`, `"3"`; a number beyond `u64` was read as floating point: `1.8446744073709552e19`).
    #[error("clock: {field} must be {expected}, got {got}", expected = field.expected())]
    BadValue { field: ClockField, got: String },
    #[error("clock: {0} is given twice")]
    Twice(ClockField),
    /// A key that is no field (at most [`SHOWN_KEY_CHARS`] of it, quoted), in a request.
    #[error(
        r#"clock: unknown field {0}; a clock is {{"base_secs", "increment_secs"}} or {{"days_per_turn"}}"#
    )]
    UnknownField(String),
    #[error(
        r#"clock: a clock is {{"base_secs", "increment_secs"}}, {{"days_per_turn"}} or null, got {0}"#
    )]
    NotAnObject(String),
    /// Days per turn, or no clock, where only a live clock will do (an arena).
    #[error(r#"clock: this takes a live clock {{"base_secs", "increment_secs"}}"#)]
    NotLive,
}

/// Longest part of an unknown key or string value quoted back in a [`TimeControlError`].
const SHOWN_KEY_CHARS: usize = 32;

/// The `clock` of a request (`POST /api/games`, a challenge), for `#[serde(deserialize_with)]`
/// with `#[serde(default)]`: `null` is no clock; an object is read as [`TimeControl`]'s
/// `Deserialize` reads it, but a key that is no field is refused (as unknown keys outside the
/// clock are), not ignored.
pub fn requested_clock<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<TimeControl>, D::Error> {
    struct Requested(TimeControl);
    impl<'de> Deserialize<'de> for Requested {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Requested, D::Error> {
            let visitor = TimeControlVisitor {
                refuse_unknown: true,
            };
            deserializer.deserialize_any(visitor).map(Requested)
        }
    }
    Ok(Option::<Requested>::deserialize(deserializer)?.map(|r| r.0))
}

/// The `clock` of a request that takes a live clock only (`POST /api/arenas`), for
/// `#[serde(deserialize_with)]`: read as [`requested_clock`] reads it (every refusal a
/// `clock: ` message, unknown keys refused); days per turn or `null` are
/// [`TimeControlError::NotLive`].
pub fn requested_live_clock<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<ClockSpec, D::Error> {
    match requested_clock(deserializer)? {
        Some(TimeControl::Live(spec)) => Ok(spec),
        Some(TimeControl::Correspondence { .. }) | None => {
            Err(de::Error::custom(TimeControlError::NotLive))
        }
    }
}

impl<'de> Deserialize<'de> for TimeControl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TimeControl, D::Error> {
        let visitor = TimeControlVisitor {
            refuse_unknown: false,
        };
        deserializer.deserialize_any(visitor)
    }
}

/// Reads a time control object field by field (see [`TimeControl`]).
struct TimeControlVisitor {
    /// A request's clock: a key that is no field is refused rather than skipped.
    refuse_unknown: bool,
}

impl TimeControlVisitor {
    fn not_an_object<T, E: de::Error>(got: String) -> Result<T, E> {
        Err(E::custom(TimeControlError::NotAnObject(got)))
    }
}

impl<'de> Visitor<'de> for TimeControlVisitor {
    type Value = TimeControl;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(r#"a clock: {"base_secs", "increment_secs"} or {"days_per_turn"}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TimeControl, A::Error> {
        let mut base_secs = None;
        let mut increment_secs = None;
        let mut days = None;
        while let Some(key) = map.next_key::<String>()? {
            let Some(field) = ClockField::of(&key) else {
                if self.refuse_unknown {
                    let shown: String = key.chars().take(SHOWN_KEY_CHARS).collect();
                    let error = TimeControlError::UnknownField(format!("{shown:?}"));
                    return Err(de::Error::custom(error));
                }
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let slot = match field {
                ClockField::BaseSecs => &mut base_secs,
                ClockField::IncrementSecs => &mut increment_secs,
                ClockField::DaysPerTurn => &mut days,
            };
            if slot.is_some() {
                return Err(de::Error::custom(TimeControlError::Twice(field)));
            }
            let bad = |got: String| de::Error::custom(TimeControlError::BadValue { field, got });
            *slot = Some(match map.next_value::<Seen>()? {
                Seen::Whole(n) => n,
                Seen::Other(got) => return Err(bad(got)),
            });
        }
        let secs = |field: ClockField, n: u64| {
            u32::try_from(n).map_err(|_| TimeControlError::BadValue {
                field,
                got: n.to_string(),
            })
        };
        let time_control = match (base_secs, increment_secs, days) {
            (None, None, Some(days)) => DaysPerTurn::try_from(days)
                .map(TimeControl::from)
                .map_err(TimeControlError::from),
            (_, _, Some(_)) => Err(TimeControlError::Mixed),
            (Some(base), Some(increment), None) => secs(ClockField::BaseSecs, base).and_then(|b| {
                Ok(TimeControl::Live(ClockSpec {
                    base_secs: b,
                    increment_secs: secs(ClockField::IncrementSecs, increment)?,
                }))
            }),
            _ => Err(TimeControlError::Incomplete),
        };
        time_control.map_err(de::Error::custom)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<TimeControl, E> {
        Self::not_an_object(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<TimeControl, E> {
        Self::not_an_object(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<TimeControl, E> {
        Self::not_an_object(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<TimeControl, E> {
        Self::not_an_object(format!("{v:?}"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<TimeControl, E> {
        Self::not_an_object(shown_str(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<TimeControl, E> {
        Self::not_an_object("null".to_owned())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<TimeControl, A::Error> {
        Self::not_an_object("an array".to_owned())
    }
}

/// A string value as a message shows it: quoted, escaped, at most [`SHOWN_KEY_CHARS`].
fn shown_str(v: &str) -> String {
    let shown: String = v.chars().take(SHOWN_KEY_CHARS).collect();
    format!("{shown:?}")
}

/// A time control field's value as read: a whole number (within `u64`), or anything else as a
/// message shows it.
enum Seen {
    Whole(u64),
    Other(String),
}

impl<'de> Deserialize<'de> for Seen {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Seen, D::Error> {
        deserializer.deserialize_any(SeenVisitor)
    }
}

struct SeenVisitor;

impl<'de> Visitor<'de> for SeenVisitor {
    type Value = Seen;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_u64<E>(self, v: u64) -> Result<Seen, E> {
        Ok(Seen::Whole(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Seen, E> {
        Ok(u64::try_from(v).map_or_else(|_| Seen::Other(v.to_string()), Seen::Whole))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Seen, E> {
        Ok(Seen::Other(format!("{v:?}")))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Seen, E> {
        Ok(Seen::Other(v.to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Seen, E> {
        Ok(Seen::Other(shown_str(v)))
    }

    fn visit_unit<E>(self) -> Result<Seen, E> {
        Ok(Seen::Other("null".to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Seen, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Seen::Other("an array".to_owned()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Seen, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Seen::Other("an object".to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<TimeControl, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_live_time_control_keeps_the_clock_spec_bytes() {
        let live = TimeControl::Live(ClockSpec {
            base_secs: 300,
            increment_secs: 3,
        });
        let text = r#"{"base_secs":300,"increment_secs":3}"#;
        assert_eq!(serde_json::to_string(&live).ok().as_deref(), Some(text));
        assert_eq!(read(text), Ok(live));
    }

    #[test]
    fn a_correspondence_time_control_is_its_days_per_turn() {
        let days = TimeControl::from(DaysPerTurn::try_from(3).expect("allowed"));
        let text = r#"{"days_per_turn":3}"#;
        assert_eq!(serde_json::to_string(&days).ok().as_deref(), Some(text));
        assert_eq!(read(text), Ok(days));
    }

    #[test]
    fn a_time_control_with_both_kinds_of_field_or_other_days_is_refused() {
        let mixed = read(r#"{"base_secs":300,"increment_secs":3,"days_per_turn":3}"#);
        assert!(
            mixed
                .as_ref()
                .is_err_and(|e| e.contains("cannot be given with")),
            "{mixed:?}"
        );
        let four = read(r#"{"days_per_turn":4}"#);
        assert!(
            four.as_ref()
                .is_err_and(|e| e.contains("one of 1, 2, 3, 5, 7 or 14")),
            "{four:?}"
        );
        assert!(read(r#"{"days_per_turn":-1}"#).is_err());
        assert!(read(r#"{"days_per_turn":3.5}"#).is_err());
        assert!(read(r#"{"base_secs":300}"#).is_err(), "no increment");
        assert!(read(r#"{}"#).is_err());
    }

    #[test]
    fn a_days_per_turn_that_is_no_listed_whole_number_is_refused_with_the_clock_message() {
        for (days, got) in [
            ("-1", "-1"),
            ("1.5", "1.5"),
            ("3.0", "3.0"),
            ("18446744073709551616", "1.8446744073709552e19"),
            ("4", "4"),
            (r#""3""#, r#""3""#),
            ("null", "null"),
            ("[3]", "an array"),
        ] {
            let message = read(&format!(r#"{{"days_per_turn":{days}}}"#)).unwrap_err();
            let expected =
                format!("clock: days_per_turn must be one of 1, 2, 3, 5, 7 or 14, got {got} at ");
            assert!(message.starts_with(&expected), "{days}: {message}");
        }
    }

    #[test]
    fn seconds_that_are_no_whole_number_within_u32_are_refused_naming_the_field() {
        let message = read(r#"{"base_secs":-1,"increment_secs":0}"#).unwrap_err();
        assert!(
            message.starts_with("clock: base_secs must be a whole number of seconds"),
            "{message}"
        );
        let message = read(r#"{"base_secs":60,"increment_secs":4294967296}"#).unwrap_err();
        assert!(
            message.starts_with(
                "clock: increment_secs must be a whole number of seconds (at most 4294967295), got 4294967296"
            ),
            "{message}"
        );
        let message = read(r#"{"base_secs":60.5,"increment_secs":0}"#).unwrap_err();
        assert!(message.contains("got 60.5"), "{message}");
    }

    #[test]
    fn a_field_given_twice_is_refused_as_such_before_its_range_is_checked() {
        for text in [
            r#"{"days_per_turn":3,"days_per_turn":3}"#,
            r#"{"days_per_turn":200,"days_per_turn":3}"#,
        ] {
            let message = read(text).unwrap_err();
            assert!(
                message.starts_with("clock: days_per_turn is given twice"),
                "{text}: {message}"
            );
        }
        let message = read(r#"{"base_secs":60,"increment_secs":0,"base_secs":60}"#).unwrap_err();
        assert!(
            message.starts_with("clock: base_secs is given twice"),
            "{message}"
        );
    }

    #[test]
    fn a_clock_that_is_no_object_is_refused_with_the_clock_message() {
        for (text, got) in [("5", "5"), (r#""3d""#, r#""3d""#), ("[60,0]", "an array")] {
            let message = read(text).unwrap_err();
            assert!(
                message.starts_with(&format!(
                    r#"clock: a clock is {{"base_secs", "increment_secs"}}, {{"days_per_turn"}} or null, got {got}"#
                )),
                "{text}: {message}"
            );
        }
    }

    #[test]
    fn a_stored_time_control_skips_keys_it_does_not_know_where_a_request_refuses_them() {
        let text = r#"{"base_secs":60,"increment_secs":0,"later":{"a":[1]}}"#;
        assert_eq!(
            read(text),
            Ok(TimeControl::Live(ClockSpec {
                base_secs: 60,
                increment_secs: 0
            }))
        );
        let requested = |text: &str| {
            requested_clock(&mut serde_json::Deserializer::from_str(text))
                .map_err(|e| e.to_string())
        };
        let message = requested(text).unwrap_err();
        assert!(
            message.starts_with(r#"clock: unknown field "later"; a clock is"#),
            "{message}"
        );
        assert_eq!(requested("null"), Ok(None));
        assert_eq!(
            requested(r#"{"days_per_turn":14}"#),
            Ok(Some(TimeControl::from(
                DaysPerTurn::try_from(14).expect("allowed")
            )))
        );
    }

    #[derive(Debug, Deserialize)]
    struct Arena {
        #[serde(deserialize_with = "requested_live_clock")]
        clock: ClockSpec,
    }

    #[test]
    fn a_request_for_a_live_clock_only_refuses_days_per_turn_none_and_unknown_keys() {
        let read = |text: &str| serde_json::from_str::<Arena>(text).map_err(|e| e.to_string());
        let live = read(r#"{"clock": {"base_secs": 180, "increment_secs": 2}}"#).expect("live");
        assert_eq!(
            live.clock,
            ClockSpec {
                base_secs: 180,
                increment_secs: 2
            }
        );
        for (text, says) in [
            (r#"{"clock": {"days_per_turn": 3}}"#, "takes a live clock"),
            (r#"{"clock": null}"#, "takes a live clock"),
            (
                r#"{"clock": {"base_secs": 180, "increment_secs": 2, "x": 1}}"#,
                "clock: unknown field",
            ),
            (
                r#"{"clock": {"base_secs": 1.5, "increment_secs": 2}}"#,
                "clock: base_secs must be",
            ),
        ] {
            let refused = read(text).expect_err(text);
            assert!(refused.contains(says), "{text}: {refused}");
        }
    }
}
