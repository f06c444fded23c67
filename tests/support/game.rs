//! Game-level steps shared by the server tests: a game created and joined
//! over HTTP, both players on their sockets, and a few standard openings.

use std::net::SocketAddr;

use serde_json::{Value, json};

use super::WAIT;
use super::http::try_http;
use super::ws::Client;
use super::{s, strings};

/// Creates a game (`body` JSON) and has a second player join it:
/// (id, white token, black token). Errors are values.
pub async fn new_game(addr: SocketAddr, body: &str) -> Result<(String, String, String), String> {
    let (status, text) = try_http(addr, "POST", "/api/games", Some(body.as_bytes())).await?;
    if status != 201 {
        return Err(format!("create: {status} {text}"));
    }
    let created: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let id = s(&created["id"]);
    let (status, text) = try_http(addr, "POST", &format!("/api/games/{id}/join"), None).await?;
    if status != 200 {
        return Err(format!("join: {status} {text}"));
    }
    let joined: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let (white, black) = if created["color"] == "white" {
        (s(&created["token"]), s(&joined["token"]))
    } else {
        (s(&joined["token"]), s(&created["token"]))
    };
    Ok((id, white, black))
}

/// Plays 1. e4 f6,g5 (ack ids `w1`, `b1`, `b2`): White to move, and `d1h5`
/// (Qh5#) mates at once.
pub async fn play_until_white_mates_in_one(white: &mut Client, black: &mut Client) {
    white.play("e2e4", "w1").await;
    black.play("f7f6", "b1").await;
    black.play("g7g5", "b2").await;
}

/// Plays 1. e4 e5,Nf6 (ack ids `w1`, `b1`, `b2`): both first turns are
/// done (clocks run, abort is over) and White is to move.
pub async fn play_both_first_turns(white: &mut Client, black: &mut Client) {
    white.play("e2e4", "w1").await;
    black.play("e7e5", "b1").await;
    black.play("g8f6", "b2").await;
}

/// One field (`san`, `uci`, ...) of every move in a `moves` array of a
/// state snapshot or a public game record.
pub fn each_move(moves: &Value, field: &str) -> Vec<String> {
    moves
        .as_array()
        .expect("a moves array")
        .iter()
        .map(|m| s(&m[field]))
        .collect()
}

/// Both players of one game, each reading its own socket.
pub struct Duo {
    pub white: Client,
    pub black: Client,
    pub turn: String,
    pub legal: Vec<String>,
    pub version: u64,
}

/// What became of one move.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Acked(u64),
    Refused(String),
}

impl Duo {
    pub async fn open(addr: SocketAddr, id: &str, white: &str, black: &str) -> Duo {
        let mut white = Client::connect(addr, id, &format!("token={white}")).await;
        let mut black = Client::connect(addr, id, &format!("token={black}")).await;
        let state = white.skip_to("state").await;
        black.skip_to("state").await;
        Duo {
            white,
            black,
            turn: state.str("turn"),
            legal: strings(&state.d["legal"]),
            version: state.v.expect("v"),
        }
    }

    /// The side to move plays `uci` with ack id `id`; on an ack, both sockets
    /// are read up to its broadcast.
    pub async fn play(&mut self, uci: &str, id: &str) -> Outcome {
        let mover = if self.turn == "white" {
            &mut self.white
        } else {
            &mut self.black
        };
        mover
            .try_send(&json!({"t": "move", "d": {"uci": uci, "id": id}}))
            .await
            .expect("send");
        let reply = loop {
            let msg = mover.try_recv(WAIT).await.expect("an answer to the move");
            if msg.t == "ack" || msg.t == "error" {
                break msg;
            }
            assert!(
                msg.json.get("v").is_none(),
                "an event before the answer: {msg}"
            );
        };
        assert_eq!(reply.d["id"], id, "{reply}");
        if reply.t == "error" {
            return Outcome::Refused(reply.str("code"));
        }
        let v = reply.d["v"].as_u64().expect("ack v");
        for ws in [&mut self.white, &mut self.black] {
            loop {
                let msg = ws.try_recv(WAIT).await.expect("the broadcast");
                if let Some(ev) = msg.v {
                    assert!(ev <= v + 1, "{msg}");
                    if msg.t == "move" && ev == v {
                        self.turn = msg.str("turn");
                        self.legal = strings(&msg.d["legal"]);
                        break;
                    }
                }
            }
        }
        self.version = v;
        Outcome::Acked(v)
    }

    pub fn any_legal(&self, n: usize) -> String {
        self.legal[n % self.legal.len().max(1)].clone()
    }
}
