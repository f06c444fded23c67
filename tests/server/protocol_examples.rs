//! The JSON examples of docs/protocol.md are what the real server sends, so
//! that the document cannot drift from the wire again.
//!
//! Every ```json block of the document is preceded by a marker line
//! `<!-- example: NAME -->` (invisible when rendered). A block holds one or
//! more JSON values. [`transcripts`] plays one scripted session on a real
//! server (HTTP and WebSockets on 127.0.0.1) and records, under each NAME,
//! every message or reply the block may be compared with; each value of the
//! block must then match one of them:
//! - objects have exactly the same keys (a field added to the server must be
//!   added to the example, and the other way round);
//! - the string `"..."` stands for any value; an array whose last element is
//!   `"..."` lists some of the actual elements, in order;
//! - volatile values (seat tokens, timestamps, the remaining times of a
//!   `clock`, `first_move_ms`) are compared by JSON type only: `null` is not
//!   a number;
//! - the real game ids are replaced by the document's `k3Xq9aPz` (the game)
//!   and `Q7w2LmXa` (its rematch) before comparing.
//!
//! `client` examples (request bodies) are sent to the server instead, which
//! must accept them. To add an example: put a marker before the block, and
//! make the session below produce what it shows under that name.

use crate::support;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use support::rig::Rig;
use support::s;
use support::ws::Client;

const DOC: &str = include_str!("../../docs/protocol.md");

/// The placeholders the document uses for game ids.
const GAME_ID: &str = "k3Xq9aPz";
const REMATCH_ID: &str = "Q7w2LmXa";

/// Compared by JSON type only, wherever they appear.
const VOLATILE: &[&str] = &["token", "created_ms", "updated_ms", "first_move_ms"];
/// Compared by JSON type only inside a `clock` object.
const VOLATILE_IN_CLOCK: &[&str] = &["white", "black"];

/// Examples that the client sends: each must be accepted.
const CLIENT_EXAMPLES: &[&str] = &["create-request"];

/// Examples of what the server sends.
const SERVER_EXAMPLES: &[&str] = &[
    "create-reply",
    "create-refused",
    "list-reply",
    "replay-reply",
    "state",
    "events",
    "unversioned",
    "settings-reply",
    "settings-error",
];

struct Block {
    name: String,
    /// Line of the opening fence (1-based), for messages.
    line: usize,
    values: Vec<Value>,
}

/// A ```json block as found, before any checks.
struct RawBlock {
    /// The marker's name; `None` if there is no marker.
    name: Option<String>,
    line: usize,
    /// The values, or why they do not parse.
    values: Result<Vec<Value>, String>,
}

/// Every ```json block of the document.
fn blocks() -> Vec<RawBlock> {
    let lines: Vec<&str> = DOC.lines().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        if lines[at].trim() != "```json" {
            at += 1;
            continue;
        }
        let name = at
            .checked_sub(1)
            .and_then(|before| lines[before].trim().strip_prefix("<!-- example:"))
            .and_then(|rest| rest.strip_suffix("-->"))
            .map(|name| name.trim().to_string());
        let start = at + 1;
        let mut end = start;
        while end < lines.len() && lines[end].trim() != "```" {
            end += 1;
        }
        let text = lines[start..end.min(lines.len())].join("\n");
        let values: Result<Vec<Value>, String> = serde_json::Deserializer::from_str(&text)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string());
        found.push(RawBlock {
            name,
            line: at + 1,
            values,
        });
        at = end + 1;
    }
    found
}

fn named_blocks() -> Vec<Block> {
    blocks()
        .into_iter()
        .filter_map(|raw| {
            Some(Block {
                name: raw.name?,
                line: raw.line,
                values: raw.values.ok()?,
            })
        })
        .collect()
}

#[test]
fn every_json_block_in_protocol_md_parses_and_names_a_known_example() {
    let found = blocks();
    assert!(found.len() >= 7, "only {} json blocks found", found.len());
    let mut problems = Vec::new();
    for RawBlock { name, line, values } in &found {
        match name {
            None => problems.push(format!(
                "line {line}: no `<!-- example: NAME -->` marker before the block"
            )),
            Some(name)
                if !CLIENT_EXAMPLES.contains(&name.as_str())
                    && !SERVER_EXAMPLES.contains(&name.as_str()) =>
            {
                problems.push(format!("line {line}: unknown example {name:?}"))
            }
            Some(_) => {}
        }
        match values {
            Err(why) => problems.push(format!("line {line}: not JSON: {why}")),
            Ok(values) if values.is_empty() => problems.push(format!("line {line}: empty")),
            Ok(_) => {}
        }
    }
    for name in CLIENT_EXAMPLES.iter().chain(SERVER_EXAMPLES) {
        if !found.iter().any(|raw| raw.name.as_deref() == Some(name)) {
            problems.push(format!("example {name:?} is not in the document"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether `doc` describes `actual`; `Err` names the first difference.
fn describe(
    doc: &Value,
    actual: &Value,
    path: &str,
    volatile: bool,
    in_clock: bool,
) -> Result<(), String> {
    if doc == "..." {
        return Ok(());
    }
    if volatile {
        return if kind(doc) == kind(actual) {
            Ok(())
        } else {
            Err(format!(
                "{path}: a {} in the doc, a {} from the server ({actual})",
                kind(doc),
                kind(actual)
            ))
        };
    }
    match (doc, actual) {
        (Value::Object(d), Value::Object(a)) => {
            let missing: Vec<&String> = a.keys().filter(|k| !d.contains_key(*k)).collect();
            let extra: Vec<&String> = d.keys().filter(|k| !a.contains_key(*k)).collect();
            if !missing.is_empty() || !extra.is_empty() {
                return Err(format!(
                    "{path}: fields the doc lacks {missing:?}, fields the server does not send {extra:?}"
                ));
            }
            for (key, value) in d {
                let child_volatile = VOLATILE.contains(&key.as_str())
                    || (in_clock && VOLATILE_IN_CLOCK.contains(&key.as_str()));
                describe(
                    value,
                    &a[key],
                    &format!("{path}.{key}"),
                    child_volatile,
                    key == "clock",
                )?;
            }
            Ok(())
        }
        (Value::Array(d), Value::Array(a)) => {
            if d.last().is_some_and(|last| last == "...") {
                // Some of the elements, in order.
                let mut rest = a.iter();
                for (i, wanted) in d[..d.len() - 1].iter().enumerate() {
                    if !rest.any(|got| describe(wanted, got, path, false, false).is_ok()) {
                        return Err(format!(
                            "{path}[{i}]: {wanted} is not among the server's elements (in order): {actual}"
                        ));
                    }
                }
                return Ok(());
            }
            if d.len() != a.len() {
                return Err(format!(
                    "{path}: {} elements in the doc, {} from the server: {actual}",
                    d.len(),
                    a.len()
                ));
            }
            for (i, (dv, av)) in d.iter().zip(a).enumerate() {
                describe(dv, av, &format!("{path}[{i}]"), false, false)?;
            }
            Ok(())
        }
        _ if doc == actual => Ok(()),
        _ => Err(format!(
            "{path}: {doc} in the doc, {actual} from the server"
        )),
    }
}

/// Replaces the real game ids by the document's placeholders, in every string.
fn normalize(value: &mut Value, ids: &[(String, &str)]) {
    match value {
        Value::String(text) => {
            for (real, placeholder) in ids {
                if !real.is_empty() && text.contains(real.as_str()) {
                    *text = text.replace(real.as_str(), placeholder);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| normalize(v, ids)),
        Value::Object(map) => map.values_mut().for_each(|v| normalize(v, ids)),
        _ => {}
    }
}

fn json_of(status_and_text: (u16, String), want: u16) -> Value {
    let (status, text) = status_and_text;
    assert_eq!(status, want, "{text}");
    serde_json::from_str(&text).expect("a JSON reply")
}

/// Everything one client socket received so far.
fn seen(clients: &[&Client]) -> Vec<Value> {
    clients
        .iter()
        .flat_map(|c| c.seen.iter().map(|m| m.json.clone()))
        .collect()
}

/// Plays the session the examples describe and returns, under each example
/// name, what the server sent that the example may show.
async fn transcripts(server: &Rig) -> BTreeMap<&'static str, Vec<Value>> {
    let mut out: BTreeMap<&'static str, Vec<Value>> = BTreeMap::new();

    // Section 2, Accounts: personal settings saved and read back, and one refused.
    let user = support::session::Session::register(server.addr(), "settings_user").await;
    let body = json!({"confirmMoves": "on", "premoves": true, "sound": true, "volume": 40,
                      "theme": "blue", "legalDots": true, "coordinates": false, "language": "fr"});
    let (status, saved) = user
        .call(server.addr(), "PUT", "/api/account/settings", Some(&body))
        .await;
    assert_eq!(status, 200, "{saved}");
    let (status, read) = user
        .call(server.addr(), "GET", "/api/account/settings", None)
        .await;
    assert_eq!(status, 200, "{read}");
    out.entry("settings-reply")
        .or_default()
        .extend([saved, read]);
    let (status, refused) = user
        .call(
            server.addr(),
            "PUT",
            "/api/account/settings",
            Some(&json!({"theme": "pink"})),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    out.entry("settings-error").or_default().push(refused);

    // Section 2: a clocked game, created by White, listed while open.
    let created = json_of(
        server
            .http(
                "POST",
                "/api/games",
                Some(r#"{"color": "white", "clock": {"base_secs": 300, "increment_secs": 3}}"#),
            )
            .await,
        201,
    );
    let id = s(&created["id"]);
    let white_token = s(&created["token"]);
    out.entry("create-reply").or_default().push(created);
    let listed = json_of(
        server.http("GET", "/api/games?status=open", None).await,
        200,
    );
    out.entry("list-reply").or_default().push(listed);
    // Two more open games of this address, then one over its cap.
    for _ in 0..2 {
        json_of(server.http("POST", "/api/games", Some("{}")).await, 201);
    }
    let refused = json_of(server.http("POST", "/api/games", Some("{}")).await, 429);
    out.entry("create-refused").or_default().push(refused);
    let replayed = json_of(
        server
            .http(
                "POST",
                "/api/replay",
                Some(&json!({"pgn": "[Variant \"Marseillais\"]\n\n1. e4 *"}).to_string()),
            )
            .await,
        200,
    );
    out.entry("replay-reply").or_default().push(replayed);

    // Section 3: White waits, Black joins, a spectator watches.
    let mut white = server.seat(&id, &white_token).await;
    white.recv_type("presence").await;
    let (black_token, _) = server.join(&id).await;
    white.recv_type("join").await;
    let mut black = server.seat(&id, &black_token).await;
    black.recv_type("presence").await;
    let mut spectator = server.spectate(&id).await;
    spectator.recv_type("presence").await;

    white.play("e2e4", "a1").await;
    black.play("e7e5", "b1").await;
    // 3.3: a second White tab connects while Black is at its second sub-move.
    let mut tab = server.seat(&id, &white_token).await;
    let state = tab.recv_type("state").await;
    out.entry("state").or_default().push(state.json);
    drop(tab);
    black.play("g8f6", "b2").await;
    white.mv("e2e5", "a2").await;
    white.recv_type("error").await;
    white.play("d2d4", "a3").await;
    white.send(json!({"t": "takeback_submove"})).await;
    white.recv_type("takeback").await;
    white.send(json!({"t": "draw_offer"})).await;
    black.recv_type("draw_offer").await;
    black.send(json!({"t": "draw_decline"})).await;
    white.recv_type("draw_decline").await;
    black.send(json!({"t": "resign"})).await;
    white.recv_type("end").await;
    black.send(json!({"t": "rematch_offer"})).await;
    white.recv_type("rematch_offer").await;
    white.send(json!({"t": "rematch_accept"})).await;
    let rematch = white.recv_type("rematch").await;
    let rematch_id = s(&rematch.d["id"]);
    white.recv_type("rematch_seat").await;
    black.recv_type("rematch_seat").await;
    white.send(json!({"t": "ping"})).await;
    white.recv_type("pong").await;
    // The spectator has seen every event by the time it sees the last one.
    spectator.recv_type("rematch").await;

    let messages = seen(&[&white, &black, &spectator]);
    let events: Vec<Value> = messages
        .iter()
        .filter(|m| m.get("v").is_some())
        .cloned()
        .collect();
    let unversioned: Vec<Value> = messages
        .iter()
        .filter(|m| m.get("v").is_none())
        .cloned()
        .collect();
    out.insert("events", events);
    out.insert("unversioned", unversioned);

    let ids = [(id, GAME_ID), (rematch_id, REMATCH_ID)];
    for values in out.values_mut() {
        values.iter_mut().for_each(|v| normalize(v, &ids));
    }
    out
}

#[tokio::test]
async fn every_server_example_in_protocol_md_is_what_the_server_sends() {
    let server = Rig::start().await;
    let actual = transcripts(&server).await;
    let mut problems = Vec::new();
    let mut checked = 0;
    for block in named_blocks() {
        if CLIENT_EXAMPLES.contains(&block.name.as_str()) {
            continue;
        }
        let Some(candidates) = actual.get(block.name.as_str()) else {
            problems.push(format!(
                "line {}: nothing recorded for {:?}",
                block.line, block.name
            ));
            continue;
        };
        for doc in &block.values {
            checked += 1;
            // The closest candidates: same message type, if there is one.
            let mut same_type: Vec<&Value> = candidates
                .iter()
                .filter(|c| doc.get("t").is_none() || c.get("t") == doc.get("t"))
                .collect();
            // Several sockets saw the same broadcast.
            same_type.sort_by_key(|c| c.to_string());
            same_type.dedup();
            let differences: Vec<String> = same_type
                .iter()
                .map(|c| {
                    describe(doc, c, "", false, false)
                        .err()
                        .map(|why| format!("{why}\n      actual: {c}"))
                })
                .collect::<Option<Vec<String>>>()
                .unwrap_or_default();
            if differences.is_empty() && !same_type.is_empty() {
                continue;
            }
            problems.push(format!(
                "line {} ({}): no message matches\n    doc: {doc}\n    {}",
                block.line,
                block.name,
                if differences.is_empty() {
                    "nothing of that type was sent".to_string()
                } else {
                    differences.join("\n    ")
                }
            ));
        }
    }
    server.stop().await;
    assert!(checked >= 15, "only {checked} example values checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[tokio::test]
async fn every_client_example_in_protocol_md_is_accepted_by_the_server() {
    let server = Rig::start().await;
    let mut checked = 0;
    for block in named_blocks() {
        if block.name != "create-request" {
            continue;
        }
        for body in &block.values {
            let (status, text) = server
                .http("POST", "/api/games", Some(&body.to_string()))
                .await;
            assert_eq!(status, 201, "line {}: {body} -> {text}", block.line);
            checked += 1;
        }
    }
    assert!(checked >= 1);
    server.stop().await;
}

#[test]
fn the_matcher_refuses_what_the_examples_must_not_get_wrong() {
    let check = |doc: Value, actual: Value| describe(&doc, &actual, "", false, false);
    // A field too many or too few.
    assert!(check(json!({"a": 1}), json!({"a": 1, "b": 2})).is_err());
    assert!(check(json!({"a": 1, "b": 2}), json!({"a": 1})).is_err());
    // A volatile number is not null.
    assert!(
        check(
            json!({"first_move_ms": 30000}),
            json!({"first_move_ms": null})
        )
        .is_err()
    );
    assert!(
        check(
            json!({"first_move_ms": 30000}),
            json!({"first_move_ms": 12})
        )
        .is_ok()
    );
    // Clock readings are volatile, the rest of a clock is not.
    assert!(
        check(
            json!({"clock": {"white": 1, "running": "white"}}),
            json!({"clock": {"white": 2, "running": "white"}})
        )
        .is_ok()
    );
    assert!(
        check(
            json!({"clock": {"white": 1, "running": "white"}}),
            json!({"clock": {"white": 1, "running": null}})
        )
        .is_err()
    );
    // A FEN is compared exactly; "..." is anything.
    assert!(
        check(
            json!({"fen": "8/8 b - - 0 1"}),
            json!({"fen": "8/8 b - e3 0 1"})
        )
        .is_err()
    );
    assert!(check(json!({"fen": "..."}), json!({"fen": "8/8 b - e3 0 1"})).is_ok());
    // Elements before a trailing "..." must be there, in order.
    assert!(check(json!(["a", "c", "..."]), json!(["a", "b", "c"])).is_ok());
    assert!(check(json!(["c", "a", "..."]), json!(["a", "b", "c"])).is_err());
    assert!(check(json!(["a", "b"]), json!(["a", "b", "c"])).is_err());
}
