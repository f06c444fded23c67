//! Fuzz target `http_body`: the body of `POST /api/games` read the way the
//! server reads it, on arbitrary bytes, never panics. The wire types
//! (`ClockSpec`, `Variant`, the stored `Event`) are the server's own, from
//! `src/server/events.rs` and `protocol/names.rs`; the body struct mirrors
//! `rooms::NewGame` field for field (that module pulls in the whole server,
//! which this crate does not build) and the checks mirror `Rooms::create`:
//! clock bounds, an extended FEN that parses, a game not already over.
//! Whatever passes becomes the game's first stored event, which must
//! read back as the same event and replay from the same start.
#![no_main]

use libfuzzer_sys::fuzz_target;
/// `crate::rules` for the included server modules.
pub use marseillais_fuzz::rules;

// At the crate root, so that `super::protocol` in events.rs resolves.
#[allow(dead_code)]
#[path = "../../src/server/events.rs"]
mod events;
// events.rs needs only `Side` from the protocol: its home, as `protocol`.
#[allow(dead_code)]
#[path = "../../src/server/protocol/names.rs"]
mod protocol;

use events::{ClockSpec, Event, Variant};
use protocol::Side;
use rules::{Position, Rules};
use serde::Deserialize;

/// Mirror of `rooms::NewGame` (same attributes, same fields).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct NewGame {
    color: Option<ColorChoice>,
    clock: Option<ClockSpec>,
    fen: Option<String>,
    variant: Option<Variant>,
    listed: Option<bool>,
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
        }
    } else {
        match serde_json::from_slice(data) {
            Ok(request) => request,
            Err(_) => return,
        }
    };
    if let Some(clock) = request.clock
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
    let creator = match request.color {
        Some(ColorChoice::Black) => Side::Black,
        _ => Side::White,
    };
    let created = Event::Created {
        at_ms: 0,
        variant,
        start_fen: start.fen(),
        clock: request.clock,
        creator,
        seat_hash: "0".repeat(64),
        listed: request.listed.unwrap_or(true),
    };
    let stored = created.to_json();
    let again: Event = match serde_json::from_str(&stored) {
        Ok(again) => again,
        Err(err) => panic!("stored event does not read back ({err}): {stored}"),
    };
    assert_eq!(again, created);
    let Event::Created {
        start_fen, listed, ..
    } = again
    else {
        unreachable!("read back as the same event");
    };
    assert_eq!(listed, request.listed.unwrap_or(true), "{stored}");
    match Position::from_fen(&start_fen, Rules::Marseillais) {
        Ok(replayed) => assert_eq!(replayed, start, "{start_fen}"),
        Err(err) => panic!("stored start {start_fen} does not read back: {err}"),
    }
});
