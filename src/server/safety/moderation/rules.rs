//! The pure rules of moderation: what a report may say, how many a reporter may have open, the
//! chat bans' lengths, what a moderator's reason may be, and the message a banned writer gets.
//! No I/O here: the routes and the chat check apply them to what the store says.

use crate::server::store::{ChatBan, ReportReason};

/// Longest text of a report, in characters.
pub const REPORT_TEXT_CHARS: usize = 500;
/// Longest reason of a moderator's action, in characters.
pub const REASON_CHARS: usize = 300;
/// Longest game id a report may name (ids are far shorter; this only bounds the row).
pub const GAME_ID_CHARS: usize = 64;
/// Open reports a reporter may have filed within [`REPORT_WINDOW_MS`]: a few, so that one
/// account cannot bury the moderators' list.
pub const MAX_OPEN_REPORTS: u32 = 3;
/// The "per day" of [`MAX_OPEN_REPORTS`]: a sliding day.
pub const REPORT_WINDOW_MS: i64 = 24 * 3600 * 1000;
/// Reports filed per client address: [`ADDRESS_REPORT_BURST`] at once, refilled at one every
/// [`ADDRESS_REPORT_EVERY_SECS`] (so that many fresh accounts on one address cannot bury the
/// list either).
pub const ADDRESS_REPORT_BURST: f64 = 6.0;
pub const ADDRESS_REPORT_EVERY_SECS: f64 = 4.0 * 3600.0;
/// Open reports the moderators' page lists at once, and the context of each reported user.
pub const OPEN_REPORTS_LISTED: u32 = 100;
pub const CONTEXT_GAMES: u32 = 5;
pub const CONTEXT_CHAT_LINES: u32 = 10;
/// Rows of the moderation log a page shows.
pub const LOG_ROWS: u32 = 200;
/// A reporter's own reports listed.
pub const MY_REPORTS: u32 = 50;

/// A chat ban's length, as a moderator picks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BanLength {
    Minutes15,
    Hours24,
    Permanent,
}

impl BanLength {
    pub fn parse(text: &str) -> Option<BanLength> {
        match text {
            "15m" => Some(BanLength::Minutes15),
            "24h" => Some(BanLength::Hours24),
            "permanent" => Some(BanLength::Permanent),
            _ => None,
        }
    }

    /// When a ban of this length given at `now_ms` ends (`None`: never).
    pub fn until(self, now_ms: i64) -> Option<i64> {
        match self {
            BanLength::Minutes15 => Some(now_ms.saturating_add(15 * 60 * 1000)),
            BanLength::Hours24 => Some(now_ms.saturating_add(24 * 3600 * 1000)),
            BanLength::Permanent => None,
        }
    }
}

/// Why a report or an action's body is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    #[error(
        "unknown reason {0:?} (cheating, abusive_chat, sandbagging, rating_manipulation, other)"
    )]
    Reason(String),
    #[error("the text is over {REPORT_TEXT_CHARS} characters")]
    TextTooLong,
    #[error("the reason is empty or over {REASON_CHARS} characters")]
    ModReason,
    #[error("'game' is not a game id")]
    Game,
    #[error("unknown duration {0:?} (15m, 24h, permanent)")]
    Duration(String),
    #[error("unknown mark {0:?} (engine, booster)")]
    Mark(String),
}

pub fn report_reason(text: &str) -> Result<ReportReason, InputError> {
    ReportReason::parse(text).ok_or_else(|| InputError::Reason(short(text)))
}

/// A report's text, trimmed; empty is fine (the reason may say enough).
pub fn report_text(text: &str) -> Result<String, InputError> {
    let text = text.trim();
    if text.chars().count() > REPORT_TEXT_CHARS {
        return Err(InputError::TextTooLong);
    }
    Ok(text.to_owned())
}

/// The game a report names: letters, digits, `-` and `_` only.
pub fn report_game(game: Option<&str>) -> Result<Option<String>, InputError> {
    match game.map(str::trim) {
        None | Some("") => Ok(None),
        Some(id)
            if id.chars().count() <= GAME_ID_CHARS
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
        {
            Ok(Some(id.to_owned()))
        }
        Some(_) => Err(InputError::Game),
    }
}

/// A moderator's reason: required (the log says why), trimmed, bounded.
pub fn mod_reason(text: &str) -> Result<String, InputError> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > REASON_CHARS {
        return Err(InputError::ModReason);
    }
    Ok(text.to_owned())
}

pub fn ban_length(text: &str) -> Result<BanLength, InputError> {
    BanLength::parse(text).ok_or_else(|| InputError::Duration(short(text)))
}

/// What a banned writer is told: the reason and until when (UTC, to the minute).
pub fn ban_message(ban: &ChatBan) -> String {
    let until = match ban.until_ms {
        None => "permanently".to_owned(),
        Some(until) => format!("until {}", utc_minute(until)),
    };
    format!(
        "you are banned from chat {until} by a moderator: {}",
        ban.reason
    )
}

/// `2026-12-06 11:15 UTC` from Unix milliseconds (days from the civil calendar, no library).
pub fn utc_minute(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let of_day = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        of_day / 3600,
        of_day % 3600 / 60
    )
}

/// Howard Hinnant's days-to-civil: the proleptic Gregorian date of a day count from 1970-01-01.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// At most 40 characters of what a client sent, for an error message.
fn short(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifteen_minute_ban_ends_fifteen_minutes_after_it_was_given() {
        assert_eq!(BanLength::Minutes15.until(1_000), Some(1_000 + 900_000));
        assert_eq!(BanLength::Hours24.until(0), Some(86_400_000));
        assert_eq!(BanLength::Permanent.until(5), None);
        assert_eq!(ban_length("1y"), Err(InputError::Duration("1y".into())));
    }

    #[test]
    fn the_ban_message_gives_the_reason_and_until_when() {
        let ban = ChatBan {
            until_ms: Some(1_796_555_700_000),
            reason: "insults".into(),
            by: "mod".into(),
            at_ms: 0,
        };
        assert_eq!(
            ban_message(&ban),
            "you are banned from chat until 2026-12-06 11:15 UTC by a moderator: insults"
        );
        let forever = ChatBan {
            until_ms: None,
            ..ban
        };
        assert!(ban_message(&forever).contains("permanently"));
    }

    #[test]
    fn a_report_text_over_500_characters_is_refused() {
        assert!(report_text(&"x".repeat(500)).is_ok());
        assert_eq!(report_text(&"x".repeat(501)), Err(InputError::TextTooLong));
    }

    #[test]
    fn a_moderator_must_say_why() {
        assert_eq!(mod_reason("  "), Err(InputError::ModReason));
        assert_eq!(mod_reason(" spam "), Ok("spam".into()));
    }

    #[test]
    fn a_report_names_a_game_by_an_id_or_not_at_all() {
        assert_eq!(report_game(None), Ok(None));
        assert_eq!(report_game(Some("")), Ok(None));
        assert_eq!(report_game(Some("aB3-x_")), Ok(Some("aB3-x_".into())));
        assert_eq!(report_game(Some("../x")), Err(InputError::Game));
    }
}
