//! A game as comma PGN (`GET /game/{id}.pgn`): the server's tags around the
//! rules engine's writer ([`crate::rules::pgn::write_game`]).

use crate::rules::Color;
use crate::rules::pgn::{PgnTags, TimeControlTag, write_game};

use crate::server::game::{ClockSpec, DaysPerTurn, GameState, TimeControl};

/// Seconds in a day: a correspondence turn's `TimeControl` period is its days in seconds.
const DAY_SECS: u64 = 86_400;

/// The PGN `TimeControl` value of a time control: `300+3` for a live clock, the one-turn period
/// `1/259200` for three days per turn ([`TimeControlTag`] says why that form). What the export
/// writes and [`read_time_control`] reads back.
pub fn time_control_tag(control: TimeControl) -> String {
    match control {
        TimeControl::Live(spec) => TimeControlTag::Incremental {
            base_secs: spec.base_secs,
            increment_secs: spec.increment_secs,
        },
        TimeControl::Correspondence { days_per_turn } => TimeControlTag::Period {
            moves: 1,
            secs: days_per_turn.secs(),
        },
    }
    .to_string()
}

/// The time control a PGN `TimeControl` value names, if it is one this server plays: a live
/// clock (`base+increment`, or sudden death), or a one-turn period of whole days in
/// [`DaysPerTurn::ALLOWED`]. Anything else (`-`, `?`, other periods) is `None`.
pub fn read_time_control(value: &str) -> Option<TimeControl> {
    match TimeControlTag::parse(value)? {
        TimeControlTag::Incremental {
            base_secs,
            increment_secs,
        } => Some(TimeControl::Live(ClockSpec {
            base_secs,
            increment_secs,
        })),
        TimeControlTag::Period { moves: 1, secs } if secs % DAY_SECS == 0 => {
            DaysPerTurn::try_from(secs / DAY_SECS)
                .ok()
                .map(TimeControl::from)
        }
        TimeControlTag::Period { .. } => None,
    }
}

/// The comma PGN of a game, finished or not (`Result "*"` while it goes on).
pub fn pgn(state: &GameState) -> String {
    let tags = PgnTags {
        event: "Marseillais game".into(),
        site: format!("/game/{}", state.id),
        date: pgn_date(state.created_ms),
        round: "-".into(),
        white: player_name(state, Color::White),
        black: player_name(state, Color::Black),
        time_control: state.time_control().map(time_control_tag),
    };
    with_elo(write_game(state.game(), &tags), state)
}

/// The `White` / `Black` tag: `Marseillais engine (level N)` for the computer's seat, the
/// username for a seat taken signed in, `Anonymous` for another seated person, `?` (PGN's
/// "unknown") only for a seat nobody has taken.
fn player_name(state: &GameState, color: Color) -> String {
    match state.computer() {
        Some(computer) if computer.color == color => {
            format!("Marseillais engine (level {})", computer.level.get())
        }
        _ => match state.user(color) {
            Some(user) => user.name.as_str().to_owned(),
            None if state.seat_taken(color) => "Anonymous".into(),
            None => "?".into(),
        },
    }
}

/// A rated game's `WhiteElo` / `BlackElo` tags (each player's rating before the game, rounded),
/// right after the seven-tag roster (after `Result`), as PGN orders supplemental tags. The
/// rules' writer knows no ratings, so they are put in here; any other game is left as it is.
fn with_elo(pgn: String, state: &GameState) -> String {
    if !state.rated {
        return pgn;
    }
    let elo = |color: Color| {
        state
            .user(color)
            .and_then(|u| u.rating)
            .filter(|r| r.rating.is_finite())
            .map(|r| format!("{}", r.rating.round() as i64))
    };
    let (Some(white), Some(black)) = (elo(Color::White), elo(Color::Black)) else {
        return pgn;
    };
    let Some(result) = pgn.find("\n[Result ") else {
        return pgn;
    };
    let Some(end) = pgn[result + 1..].find('\n').map(|n| result + 1 + n + 1) else {
        return pgn;
    };
    let mut out = String::with_capacity(pgn.len() + 40);
    out.push_str(&pgn[..end]);
    out.push_str(&format!("[WhiteElo \"{white}\"]\n[BlackElo \"{black}\"]\n"));
    out.push_str(&pgn[end..]);
    out
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
    use crate::rules::Position;
    use crate::server::game::{ClockSpec, Event, SeatUser, TimeControl, Variant};
    use crate::server::players::account::{UserId, Username};
    use crate::server::players::rating::Rating;

    fn user(id: i64, name: &str, rating: Option<f64>) -> Option<SeatUser> {
        Some(SeatUser {
            id: UserId(id),
            name: Username::parse(name).ok()?,
            rating: rating.map(|rating| Rating {
                rating,
                ..Rating::INITIAL
            }),
        })
    }

    fn game(rated: bool, white: Option<SeatUser>, black: Option<SeatUser>) -> GameState {
        let blitz = TimeControl::Live(ClockSpec {
            base_secs: 300,
            increment_secs: 2,
        });
        game_with(blitz, rated, white, black)
    }

    fn game_with(
        clock: TimeControl,
        rated: bool,
        white: Option<SeatUser>,
        black: Option<SeatUser>,
    ) -> GameState {
        let log = [
            Event::Created {
                at_ms: 0,
                variant: Variant::Balanced,
                start: Position::initial(),
                clock: Some(clock),
                creator: Color::White,
                seat_hash: "w".into(),
                listed: true,
                rated,
                user: white,
                arena: None,
            },
            Event::Joined {
                at_ms: 0,
                color: Color::Black,
                seat_hash: "b".into(),
                computer: None,
                user: black,
            },
        ];
        GameState::replay(
            "g",
            &log,
            std::time::Duration::from_secs(30),
            std::time::Instant::now(),
            |_, _, _| {},
        )
        .expect("replays")
    }

    #[test]
    fn a_rated_game_names_its_players_and_their_ratings_before_the_game() {
        let pgn = pgn(&game(
            true,
            user(1, "alice", Some(1512.6)),
            user(2, "Bob", Some(1499.4)),
        ));
        assert!(
            pgn.contains(
                "[White \"alice\"]\n[Black \"Bob\"]\n[Result \"*\"]\n[WhiteElo \"1513\"]\n[BlackElo \"1499\"]\n[Variant "
            ),
            "{pgn}"
        );
    }

    #[test]
    fn an_unrated_game_names_its_signed_in_players_without_ratings() {
        let pgn = pgn(&game(false, None, user(2, "Bob", None)));
        assert!(
            pgn.contains("[White \"Anonymous\"]\n[Black \"Bob\"]\n"),
            "{pgn}"
        );
        assert!(!pgn.contains("Elo"), "{pgn}");
    }

    #[test]
    fn a_correspondence_game_exports_its_days_as_a_one_turn_period() {
        let days = crate::server::game::DaysPerTurn::try_from(3).expect("allowed");
        let pgn = pgn(&game_with(TimeControl::from(days), false, None, None));
        assert!(pgn.contains("[TimeControl \"1/259200\"]\n"), "{pgn}");
        let live = super::pgn(&game(false, None, None));
        assert!(live.contains("[TimeControl \"300+2\"]\n"), "{live}");
    }

    #[test]
    fn the_time_control_tag_reads_back_what_the_export_writes() {
        for days in DaysPerTurn::ALLOWED {
            let days = DaysPerTurn::try_from(u64::from(days)).expect("allowed");
            let control = TimeControl::from(days);
            assert_eq!(read_time_control(&time_control_tag(control)), Some(control));
        }
        let live = TimeControl::Live(ClockSpec {
            base_secs: 180,
            increment_secs: 2,
        });
        assert_eq!(time_control_tag(live), "180+2");
        assert_eq!(read_time_control("180+2"), Some(live));
        // lichess's correspondence `-`, four days, a period of several moves: none of ours.
        for other in ["-", "?", "1/345600", "40/259200", "1/90000"] {
            assert_eq!(read_time_control(other), None, "{other}");
        }
    }

    #[test]
    fn pgn_dates_follow_the_gregorian_calendar() {
        assert_eq!(pgn_date(0), "1970.01.01");
        // 2000-02-29T12:00:00Z
        assert_eq!(pgn_date(951_825_600_000), "2000.02.29");
        // 2026-11-29T14:00:00Z
        assert_eq!(pgn_date(1_795_960_800_000), "2026.11.29");
    }
}
