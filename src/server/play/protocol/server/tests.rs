//! Golden tests: every message type, typed, writes exactly the bytes the
//! server wrote before it was typed, and reads back equal.
//!
//! Two kinds of reference:
//! - `tests/data/server_messages.jsonl`: messages recorded from a real
//!   server (a scripted session of `tests/server/protocol_examples.rs`, clocked)
//!   and from the state fold of the same code (an unclocked game ending in
//!   checkmate with a draw offer and a fifty-move claim, and an aborted
//!   game), before the types existed; `tests/data/http_snapshots.jsonl`:
//!   `GET /api/games/{id}` bodies from the same fold. Each line must read as
//!   a typed message and write back byte for byte.
//! - per type, the `json!` shape the server built the message with
//!   (copied from `state.rs`, `state/view.rs` and `room.rs` as they were),
//!   written with [`server_msg`], the envelope writer of the untyped server (kept here as the reference), against the typed value
//!   of the same content.

use serde_json::{Value, json};

use super::*;

/// The envelope writer of the server before `ServerMsg`: `{"t": t, "v": v, "d": d}` (`v` only
/// for game events), `d` a `json!` value. The reference the typed messages are compared with.
fn server_msg(t: &str, v: Option<u64>, d: Value) -> String {
    #[derive(Serialize)]
    struct Out<'a> {
        t: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        v: Option<u64>,
        d: Value,
    }
    serde_json::to_string(&Out { t, v, d }).unwrap_or_else(|_| String::from("{}"))
}
use crate::rules::{Color, Termination};
use crate::server::game::Variant;
use crate::server::game::{ClockSpec, TimeControl};
use crate::server::play::protocol::GameStatus;
use crate::server::play::protocol::error::ErrorCode;
use crate::server::play::protocol::names::{reason_name, result_str};
use crate::server::play::protocol::snapshot::{
    GameSnapshot, GameSummary, LiveState, MoveRecord, SeatView, Seats, SeatsTaken, SharedState,
};

const RECORDED: &str = include_str!("../../../../../tests/data/server_messages.jsonl");
const RECORDED_HTTP: &str = include_str!("../../../../../tests/data/http_snapshots.jsonl");

fn mv(uci: &str) -> SubMove {
    uci.parse().expect("a valid sub-move")
}

/// `text` reads as `msg`, and `msg` writes `text` (both ways of writing).
fn assert_golden(msg: &ServerMsg, text: &str) {
    assert_eq!(msg.to_text(), text, "to_text of {msg:?}");
    assert_eq!(
        serde_json::to_string(msg).ok().as_deref(),
        Some(text),
        "Serialize of {msg:?}"
    );
    assert_eq!(
        ServerMsg::from_text(text)
            .map_err(|e| e.to_string())
            .as_ref(),
        Ok(msg),
        "reading {text}"
    );
}

// ---- the old shapes (json! as the server built them) ----

fn old_clock_json(clock: Option<ClockView>) -> Value {
    let Some(c) = clock else {
        return Value::Null;
    };
    json!({
        "white": c.white,
        "black": c.black,
        "running": c.running,
        "base_secs": c.base_secs,
        "increment_secs": c.increment_secs,
    })
}

fn old_position_json(p: &PositionFields) -> Value {
    let legal: Vec<String> = p.legal.iter().map(|m| m.to_string()).collect();
    let claims: Vec<&str> = p.claims.iter().map(|c| c.as_str()).collect();
    let mut object = json!({
        "fen": p.fen,
        "turn": p.turn,
        "phase": p.phase.as_str(),
        "check": p.check,
        "legal": legal,
        "claims": claims,
    });
    with(
        &mut object,
        [
            ("clock", old_clock_json(p.clock)),
            ("first_move_ms", json!(p.first_move_ms)),
        ],
    );
    object
}

fn with<const N: usize>(object: &mut Value, fields: [(&str, Value); N]) {
    let map = object.as_object_mut().expect("an object");
    for (key, value) in fields {
        map.insert(key.into(), value);
    }
}

fn clock() -> ClockView {
    ClockView {
        base_secs: 300,
        black: 300_000,
        increment_secs: 3,
        running: Some(Side::White),
        white: 297_000,
    }
}

fn position() -> PositionFields {
    PositionFields {
        check: true,
        claims: vec![ClaimName::FiftyMoveRule, ClaimName::ThreefoldRepetition],
        clock: Some(clock()),
        correspondence: None,
        fen: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1 2".into(),
        first_move_ms: Some(29_992),
        legal: vec![mv("e8e7"), mv("a7a8q"), mv("e1g1")],
        phase: PhaseName::Second,
        turn: Side::Black,
    }
}

// ---- recorded messages ----

#[test]
fn every_recorded_server_message_reads_typed_and_writes_back_byte_for_byte() {
    let mut seen = std::collections::HashSet::new();
    for (n, line) in RECORDED.lines().enumerate() {
        let msg =
            ServerMsg::from_text(line).unwrap_or_else(|e| panic!("line {}: {e}: {line}", n + 1));
        seen.insert(msg.msg_type());
        assert_eq!(msg.to_text(), line, "line {}", n + 1);
        assert_eq!(
            serde_json::to_string(&msg).ok().as_deref(),
            Some(line),
            "line {}",
            n + 1
        );
    }
    let missing: Vec<&str> = MsgType::ALL
        .into_iter()
        .filter(|t| !seen.contains(t))
        .map(MsgType::as_str)
        .collect();
    assert!(
        missing.is_empty(),
        "no recorded message of type {missing:?}"
    );
}

#[test]
fn every_recorded_http_snapshot_reads_typed_and_writes_back_byte_for_byte() {
    let mut count = 0;
    for (n, line) in RECORDED_HTTP.lines().enumerate() {
        let snapshot: GameSnapshot =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}: {line}", n + 1));
        assert_eq!(
            serde_json::to_string(&snapshot).ok().as_deref(),
            Some(line),
            "line {}",
            n + 1
        );
        count += 1;
    }
    assert!(count >= 3, "only {count} recorded snapshots");
}

// ---- one per message type ----

#[test]
fn a_join_writes_the_position_fields_and_the_seat_colour_in_key_order() {
    let p = position();
    let mut d = old_position_json(&p);
    with(&mut d, [("color", json!(Side::Black))]);
    let msg = ServerMsg::Join {
        v: 1,
        d: JoinMsg::new(p, Side::Black, None),
    };
    assert_golden(&msg, &server_msg("join", Some(1), d));
}

#[test]
fn a_move_writes_the_sub_move_the_draw_offer_and_the_position_in_key_order() {
    let p = position();
    let mut d = old_position_json(&p);
    with(
        &mut d,
        [
            ("uci", json!("e7e5")),
            ("san", json!("e5")),
            ("color", json!(Side::Black)),
            ("draw_offer", json!(Some(Side::White))),
        ],
    );
    let msg = ServerMsg::Move {
        v: 3,
        d: MoveMsg::new(p, mv("e7e5"), "e5".into(), Side::Black, Some(Side::White)),
    };
    assert_golden(&msg, &server_msg("move", Some(3), d));
}

#[test]
fn a_move_in_an_unclocked_game_writes_null_clock_and_timer() {
    let mut p = position();
    p.clock = None;
    p.first_move_ms = None;
    p.claims.clear();
    let mut d = old_position_json(&p);
    with(
        &mut d,
        [
            ("uci", json!("a7a8q")),
            ("san", json!("a8=Q+")),
            ("color", json!(Side::White)),
            ("draw_offer", json!(None::<Side>)),
        ],
    );
    let msg = ServerMsg::Move {
        v: 12,
        d: MoveMsg::new(p, mv("a7a8q"), "a8=Q+".into(), Side::White, None),
    };
    assert_golden(&msg, &server_msg("move", Some(12), d));
}

#[test]
fn a_takeback_writes_the_withdrawn_sub_move_and_the_position_in_key_order() {
    let p = position();
    let mut d = old_position_json(&p);
    with(&mut d, [("uci", json!("d2d4"))]);
    let msg = ServerMsg::Takeback {
        v: 6,
        d: TakebackMsg::new(p, mv("d2d4")),
    };
    assert_golden(&msg, &server_msg("takeback", Some(6), d));
}

#[test]
fn offers_and_declines_write_who_made_them() {
    let by = ByMsg { by: Side::Black };
    for (t, msg) in [
        ("draw_offer", ServerMsg::DrawOffer { v: 7, d: by }),
        ("draw_decline", ServerMsg::DrawDecline { v: 7, d: by }),
        ("rematch_offer", ServerMsg::RematchOffer { v: 7, d: by }),
    ] {
        assert_golden(&msg, &server_msg(t, Some(7), json!({"by": Side::Black})));
    }
}

#[test]
fn a_rematch_writes_the_new_game_id() {
    let msg = ServerMsg::Rematch {
        v: 11,
        d: RematchMsg {
            id: "Q7w2LmXa".into(),
        },
    };
    assert_golden(
        &msg,
        &server_msg("rematch", Some(11), json!({"id": "Q7w2LmXa"})),
    );
}

#[test]
fn an_end_writes_the_outcome_and_the_frozen_clock_in_key_order() {
    let cases = [
        (
            Outcome::Win {
                winner: Color::Black,
                reason: Termination::TimeForfeit,
            },
            Some(clock()),
        ),
        (
            Outcome::Draw {
                reason: Termination::Aborted,
            },
            None,
        ),
        (
            Outcome::Draw {
                reason: Termination::SeventyFiveMoveRule,
            },
            Some(clock()),
        ),
    ];
    for (outcome, clock) in cases {
        // state.rs `apply_end`: outcome_json with the clock.
        let mut d = json!({
            "result": result_str(outcome),
            "winner": outcome.winner().map(Side::from),
            "reason": reason_name(outcome.reason()),
        });
        with(&mut d, [("clock", old_clock_json(clock))]);
        let msg = ServerMsg::End {
            v: 9,
            d: EndMsg::new(outcome, clock),
        };
        assert_golden(&msg, &server_msg("end", Some(9), d));
    }
}

#[test]
fn an_ack_writes_the_ack_id_or_null_and_the_version() {
    for id in [Some("a1"), None] {
        let msg = ServerMsg::Ack(AckMsg {
            id: id.map(str::to_string),
            v: 2,
        });
        assert_golden(&msg, &server_msg("ack", None, json!({"id": id, "v": 2})));
    }
}

#[test]
fn an_error_writes_the_code_and_message_and_the_ack_id_only_when_there_is_one() {
    let refusal = Refusal::new(ErrorCode::IllegalMove, "there is no piece on e2");
    for id in [Some("a2"), None] {
        // The old `error_msg`.
        let mut d = json!({"code": refusal.code, "message": refusal.message});
        if let (Some(id), Some(map)) = (id, d.as_object_mut()) {
            map.insert("id".into(), Value::String(id.to_string()));
        }
        let msg = ServerMsg::error(&refusal, id);
        let text = server_msg("error", None, d);
        assert_golden(&msg, &text);
    }
}

#[test]
fn a_presence_writes_the_seats_the_spectators_and_the_claim_countdowns() {
    let msg = ServerMsg::Presence(PresenceMsg {
        black: false,
        claim_in_ms: ClaimInMs {
            black: Some(41_250),
            white: None,
        },
        spectators: 3,
        white: true,
    });
    let d = json!({
        "white": true,
        "black": false,
        "spectators": 3,
        "claim_in_ms": {"white": null, "black": 41_250},
    });
    assert_golden(&msg, &server_msg("presence", None, d));
}

#[test]
fn a_pong_writes_an_empty_object() {
    assert_golden(&ServerMsg::Pong, &server_msg("pong", None, json!({})));
    assert_eq!(ServerMsg::Pong.to_text(), r#"{"t":"pong","d":{}}"#);
}

#[test]
fn a_rematch_seat_writes_its_fields_sorted_and_never_shows_its_token_in_debug() {
    #[derive(serde::Serialize)]
    struct SeatGrant {
        id: String,
        color: Side,
        token: String,
        url: String,
    }
    let grant = SeatGrant {
        id: "Q7w2LmXa".into(),
        color: Side::Black,
        token: "55e007644830e54e9b714801ef4cfdbb".into(),
        url: "/game/Q7w2LmXa".into(),
    };
    let msg = ServerMsg::RematchSeat(RematchSeatMsg {
        color: Side::Black,
        id: "Q7w2LmXa".into(),
        token: "55e007644830e54e9b714801ef4cfdbb".into(),
        url: "/game/Q7w2LmXa".into(),
    });
    // room.rs `rematch_seat_msg`: json!(grant) sorts the struct's fields.
    assert_golden(&msg, &server_msg("rematch_seat", None, json!(grant)));
    let shown = format!("{msg:?}");
    assert!(!shown.contains("55e0076448"), "{shown}");
}

fn live() -> LiveState {
    LiveState {
        clock: Some(clock()),
        correspondence: None,
        first_move_ms: None,
        seats: Seats {
            black: SeatView {
                connected: false,
                taken: true,
            },
            white: SeatView {
                connected: true,
                taken: true,
            },
        },
        spectators: 2,
        you: Some(Side::White),
    }
}

fn shared() -> SharedState {
    let p = position();
    SharedState {
        arena: None,
        check: p.check,
        claims: p.claims,
        computer: None,
        draw_offer: Some(Side::Black),
        fen: p.fen,
        id: "k3Xq9aPz".into(),
        legal: p.legal,
        moves: vec![
            MoveRecord {
                color: Side::White,
                san: "e4".into(),
                uci: mv("e2e4"),
            },
            MoveRecord {
                color: Side::Black,
                san: "e5".into(),
                uci: mv("e7e5"),
            },
        ],
        outcome: Some(OutcomeView::from(Outcome::Win {
            winner: Color::White,
            reason: Termination::Resignation,
        })),
        phase: p.phase,
        players: None,
        rated: false,
        ratings: None,
        rematch: Some("Q7w2LmXa".into()),
        rematch_offer: None,
        start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
        status: GameStatus::Finished,
        turn: p.turn,
        variant: Variant::Marseillais,
    }
}

/// view.rs `snapshot_shared` and `snapshot_live`, as json! objects.
fn old_shared_and_live(live: &LiveState, shared: &SharedState) -> (Value, Value) {
    let moves: Vec<Value> = shared
        .moves
        .iter()
        .map(|m| json!({"uci": m.uci.to_string(), "san": m.san, "color": m.color}))
        .collect();
    let legal: Vec<String> = shared.legal.iter().map(|m| m.to_string()).collect();
    let claims: Vec<&str> = shared.claims.iter().map(|c| c.as_str()).collect();
    let outcome = match shared.outcome {
        Some(o) => json!({"result": o.result, "winner": o.winner, "reason": o.reason}),
        None => Value::Null,
    };
    let shared_json = json!({
        "fen": shared.fen,
        "turn": shared.turn,
        "phase": shared.phase.as_str(),
        "check": shared.check,
        "legal": legal,
        "claims": claims,
        "id": shared.id,
        "status": shared.status,
        "variant": shared.variant,
        "start_fen": shared.start_fen,
        "moves": moves,
        "draw_offer": shared.draw_offer,
        "rematch_offer": shared.rematch_offer,
        "outcome": outcome,
        "rematch": shared.rematch,
    });
    let seat = |s: SeatView| json!({"taken": s.taken, "connected": s.connected});
    let live_json = json!({
        "clock": old_clock_json(live.clock),
        "first_move_ms": live.first_move_ms,
        "seats": {"white": seat(live.seats.white), "black": seat(live.seats.black)},
        "spectators": live.spectators,
        "you": live.you,
    });
    (shared_json, live_json)
}

#[test]
fn a_state_writes_the_live_fields_then_the_shared_fields_each_sorted() {
    let (live, shared) = (live(), shared());
    let (shared_json, live_json) = old_shared_and_live(&live, &shared);
    // room.rs `state_message`: the two serialized objects joined as text.
    let (l, s) = (live_json.to_string(), shared_json.to_string());
    let expected = format!(
        "{{\"t\":\"state\",\"v\":9,\"d\":{{{},{}}}}}",
        &l[1..l.len() - 1],
        &s[1..s.len() - 1]
    );
    let d = StateMsg::new(live, &shared).expect("serializes");
    assert_eq!(d.shared.as_str(), s, "the cached shared part");
    assert_eq!(d.shared.parse().ok(), Some(shared));
    assert_golden(&ServerMsg::State { v: 9, d }, &expected);
}

#[test]
fn the_http_snapshot_merges_both_parts_with_every_key_sorted_and_no_you() {
    let (live, shared) = (live(), shared());
    let (mut merged, live_json) = old_shared_and_live(&live, &shared);
    // view.rs `snapshot` then http.rs `public_state` (removes "you").
    if let (Some(map), Value::Object(live_map)) = (merged.as_object_mut(), live_json) {
        map.extend(live_map);
        map.remove("you");
    }
    let snapshot = GameSnapshot::new(live, shared);
    let text = serde_json::to_string(&snapshot).expect("serializes");
    assert_eq!(text, merged.to_string());
    assert_eq!(
        serde_json::from_str::<GameSnapshot>(&text).ok(),
        Some(snapshot)
    );
}

#[test]
fn a_lobby_summary_writes_every_key_sorted_with_null_result_until_the_end() {
    let clock = Some(ClockSpec {
        base_secs: 300,
        increment_secs: 3,
    });
    let aborted = Outcome::Draw {
        reason: Termination::Aborted,
    };
    let mate = Outcome::Win {
        winner: Color::Black,
        reason: Termination::Checkmate,
    };
    for (clock, outcome) in [(None, None), (clock, Some(aborted)), (clock, Some(mate))] {
        let summary = GameSummary {
            arena: None,
            clock: clock.map(TimeControl::Live),
            computer: None,
            created_ms: 1_764_000_000_000,
            deadline_ms: None,
            id: "k3Xq9aPz".into(),
            players: None,
            rated: false,
            reason: outcome.map(|o| o.reason().into()),
            result: outcome.map(GameResult::from),
            seats: SeatsTaken {
                black: false,
                white: true,
            },
            status: GameStatus::Open,
            sub_moves: 7,
            turn: None,
            updated_ms: 1_764_000_000_500,
            variant: Variant::Balanced,
        };
        // view.rs `listing`.
        let old = json!({
            "id": summary.id,
            "status": summary.status,
            "variant": summary.variant,
            "clock": clock,
            "seats": {"white": true, "black": false},
            "sub_moves": 7,
            "result": outcome.map(result_str),
            "reason": outcome.map(|o| reason_name(o.reason())),
            "created_ms": summary.created_ms,
            "updated_ms": summary.updated_ms,
        })
        .to_string();
        assert_eq!(serde_json::to_string(&summary).ok(), Some(old.clone()));
        assert_eq!(
            serde_json::from_str::<GameSummary>(&old).ok(),
            Some(summary)
        );
    }
}

// ---- the envelope ----

#[test]
fn every_message_type_has_its_wire_name_and_only_game_events_and_state_are_versioned() {
    let names = [
        (MsgType::State, "state", true),
        (MsgType::Join, "join", true),
        (MsgType::Move, "move", true),
        (MsgType::Takeback, "takeback", true),
        (MsgType::DrawOffer, "draw_offer", true),
        (MsgType::DrawDecline, "draw_decline", true),
        (MsgType::Berserk, "berserk", true),
        (MsgType::RematchOffer, "rematch_offer", true),
        (MsgType::Rematch, "rematch", true),
        (MsgType::End, "end", true),
        (MsgType::Ack, "ack", false),
        (MsgType::Error, "error", false),
        (MsgType::Presence, "presence", false),
        (MsgType::Pong, "pong", false),
        (MsgType::RematchSeat, "rematch_seat", false),
        (MsgType::Ratings, "ratings", false),
        (MsgType::Chat, "chat", false),
        (MsgType::ChatHistory, "chat_history", false),
    ];
    assert_eq!(names.len(), MsgType::ALL.len());
    for (t, name, versioned) in names {
        assert_eq!(t.as_str(), name);
        assert_eq!(serde_json::to_string(&t).ok(), Some(format!("\"{name}\"")));
        assert_eq!(t.is_versioned(), versioned, "{name}");
    }
}

#[test]
fn a_message_with_d_before_t_still_reads() {
    let msg = ServerMsg::from_text(r#"{"d":{"by":"white"},"v":7,"t":"draw_offer"}"#);
    assert_eq!(
        msg.ok(),
        Some(ServerMsg::DrawOffer {
            v: 7,
            d: ByMsg { by: Side::White }
        })
    );
}

#[test]
fn envelopes_that_break_the_rules_of_v_t_or_d_are_refused() {
    for bad in [
        r#"{"t":"draw_offer","d":{"by":"white"}}"#, // a game event without v
        r#"{"t":"ack","v":3,"d":{"id":null,"v":3}}"#, // v on an unversioned message
        r#"{"t":"fly","d":{}}"#,                    // unknown type
        r#"{"t":"pong"}"#,                          // no d
        r#"{"t":"pong","d":{"x":1}}"#,              // unknown field
        r#"{"t":"pong","t":"pong","d":{}}"#,        // duplicate t
        r#"{"t":"rematch","v":1,"d":{"id":"a"},"x":1}"#, // unknown envelope key
        r#"{"t":"takeback","v":1,"d":{"uci":"e2e9"}}"#, // not a sub-move
        r#"{"t":"end","v":1,"d":{"clock":null,"reason":"boredom","result":"1-0","winner":null}}"#,
    ] {
        assert!(ServerMsg::from_text(bad).is_err(), "accepted {bad}");
    }
}
