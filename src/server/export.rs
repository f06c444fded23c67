//! A game as comma PGN (`GET /game/{id}.pgn`): the server's tags around the
//! rules engine's writer ([`crate::rules::pgn::write_game`]).

use crate::rules::Color;
use crate::rules::pgn::{PgnTags, write_game};

use super::game::GameState;

/// The comma PGN of a game, finished or not (`Result "*"` while it goes on).
pub fn pgn(state: &GameState) -> String {
    let tags = PgnTags {
        event: "Marseillais game".into(),
        site: format!("/game/{}", state.id),
        date: pgn_date(state.created_ms),
        round: "-".into(),
        white: player_name(state, Color::White),
        black: player_name(state, Color::Black),
        time_control: state
            .clock_spec
            .map(|c| format!("{}+{}", c.base_secs, c.increment_secs)),
    };
    write_game(state.game(), &tags)
}

/// The `White` / `Black` tag: `Marseillais engine (level N)` for the computer's seat,
/// `Anonymous` for a seated person (there are no accounts yet, so no name to give), `?`
/// (PGN's "unknown") only for a seat nobody has taken.
fn player_name(state: &GameState, color: Color) -> String {
    match state.computer() {
        Some(computer) if computer.color == color => {
            format!("Marseillais engine (level {})", computer.level.get())
        }
        _ if state.seat_taken(color) => "Anonymous".into(),
        _ => "?".into(),
    }
}

/// `YYYY.MM.DD` (UTC) of a Unix-epoch millisecond time.
fn pgn_date(unix_ms: i64) -> String {
    let days = unix_ms.div_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_dates_follow_the_gregorian_calendar() {
        assert_eq!(pgn_date(0), "1970.01.01");
        // 2000-02-29T12:00:00Z
        assert_eq!(pgn_date(951_825_600_000), "2000.02.29");
        // 2026-11-29T14:00:00Z
        assert_eq!(pgn_date(1_795_960_800_000), "2026.11.29");
    }
}
