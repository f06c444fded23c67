//! Fuzz target `http_body`: the body of `POST /api/games` read the way the
//! server reads it, on arbitrary bytes, never panics. The types (`TimeControl`,
//! `Variant`, the typed `Event`, its stored text) are the server's own, from
//! `src/server/game/event.rs`, `protocol/names.rs`, `store/codec.rs`,
//! `account/user.rs` and `rating/mod.rs`,
//! mounted at the paths they name; the body struct mirrors `lobby::NewGame`
//! field for field (that module pulls in the whole server, which this crate
//! does not build) and the checks mirror `lobby::created_event`: clock
//! bounds, an extended FEN that parses, a game not already over. Whatever
//! passes becomes the game's first stored event, which must read back as
//! the same event, written back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
/// `crate::rules` for the included server modules.
pub use marseillais_fuzz::rules;

// The server modules the codec needs, mounted at the crate root (a `#[path]` inside an inline
// module resolves through directories that do not exist) and aliased at the paths they use
// (`crate::server::...`).
#[allow(dead_code)]
#[path = "../../src/server/store/codec.rs"]
mod codec;
#[allow(dead_code, unused_imports)]
#[path = "../../src/server/game/event.rs"]
mod event;
#[allow(dead_code)]
#[path = "../../src/server/game/time_control.rs"]
mod time_control;
#[allow(dead_code)]
#[path = "../../src/engine/level.rs"]
mod level;
#[allow(dead_code)]
#[path = "../../src/server/domain/rating.rs"]
mod rating;
#[allow(dead_code)]
#[path = "../../src/server/domain/side.rs"]
mod side;
#[allow(dead_code)]
#[path = "../../src/server/domain/user.rs"]
mod user;

mod engine {
    pub use crate::level::Level;
}

mod server {
    pub mod domain {
        pub mod user {
            pub use crate::user::{Account, UserId, Username};
        }
        pub mod rating {
            pub use crate::rating::Rating;
        }
        pub mod side {
            pub use crate::side::Side;
        }
    }
    pub mod game {
        pub use crate::event::{Event, Readings, SeatUser, TimeControl, Variant, requested_clock};
    }
}

use rules::{Color, Position, Rules};
use serde::Deserialize;
use server::game::{Event, TimeControl, Variant};

/// Mirror of `rooms::NewGame` (same attributes, same fields).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct NewGame {
    color: Option<ColorChoice>,
    #[serde(default, deserialize_with = "server::game::requested_clock")]
    clock: Option<TimeControl>,
    fen: Option<String>,
    variant: Option<Variant>,
    listed: Option<bool>,
    computer: Option<ComputerChoice>,
    rated: Option<bool>,
}

/// Mirror of `lobby::ComputerChoice`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ComputerChoice {
    level: i64,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ColorChoice {
    White,
    Black,
    Random,
}

const MARSEILLAIS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1";

fuzz_target!(|data: &[u8]| {
    // Rooms::create's reading of the body: blank is the default game.
    let request: NewGame = if data.iter().all(u8::is_ascii_whitespace) {
        NewGame {
            color: None,
            clock: None,
            fen: None,
            variant: None,
            listed: None,
            computer: None,
            rated: None,
        }
    } else {
        match serde_json::from_slice(data) {
            Ok(request) => request,
            Err(_) => return,
        }
    };
    // lobby::rated: an anonymous request for a rated game is refused.
    if request.rated == Some(true) {
        return;
    }
    if let Some(clock) = request.clock.and_then(TimeControl::live)
        && (clock.base_secs > 10_800
            || clock.increment_secs > 180
            || (clock.base_secs == 0 && clock.increment_secs == 0))
    {
        return;
    }
    let variant = request.variant.unwrap_or(Variant::Balanced);
    let start = match (&request.fen, variant) {
        (Some(fen), _) => Position::from_fen(fen, Rules::Marseillais),
        (None, Variant::Balanced) => Ok(Position::initial()),
        (None, Variant::Marseillais) => Position::from_fen(MARSEILLAIS_FEN, Rules::Marseillais),
    };
    let Ok(start) = start else {
        return;
    };
    if start.board_outcome().is_some() || start.legal_submoves().is_empty() {
        return;
    }
    // lobby::computer_level: 1..=8 or refused.
    let computer = match request.computer {
        None => None,
        Some(choice) if (1..=8).contains(&choice.level) => Some(engine::Level::new(choice.level)),
        Some(_) => return,
    };
    let creator = match request.color {
        Some(ColorChoice::Black) => Color::Black,
        _ => Color::White,
    };
    let created = Event::Created {
        at_ms: 0,
        variant,
        start,
        clock: request.clock,
        creator,
        seat_hash: "0".repeat(64),
        listed: request.listed.unwrap_or(computer.is_none()),
        rated: false,
        user: None,
        arena: None,
    };
    let mut events = vec![created];
    if let Some(level) = computer {
        events.push(Event::Joined {
            at_ms: 0,
            color: !creator,
            seat_hash: event::COMPUTER_SEAT_HASH.to_string(),
            computer: Some(level),
            user: None,
        });
    }
    for event in events {
        let stored = codec::encode(&event);
        let again = match codec::decode(&stored) {
            Ok(again) => again,
            Err(err) => panic!("stored event does not read back ({err}): {stored}"),
        };
        assert_eq!(again, event, "{stored}");
        assert_eq!(codec::encode(&again), stored);
    }
});
