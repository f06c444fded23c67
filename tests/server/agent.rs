//! An in-process agent (what a computer player will be) takes part in a game through the same
//! path as a socket: it holds a seat by its token, hears the same messages, and its moves are
//! decided, committed and acknowledged like a human's, with the same ack-id idempotency.

use crate::support;

use std::time::Duration;

use marseillais::rules::SubMove;
use marseillais::server::play::protocol::{ClientMsg, ServerMsg};
use marseillais::server::play::room::agent::Agent;
use serde_json::json;
use support::rig::Rig;

/// The agent's next message that `pick` accepts, within a bounded number and time.
async fn agent_until<T>(agent: &mut Agent, mut pick: impl FnMut(&ServerMsg) -> Option<T>) -> T {
    for _ in 0..64 {
        let text = tokio::time::timeout(Duration::from_secs(10), agent.recv())
            .await
            .expect("the agent hears from its room in time")
            .expect("the room keeps the agent");
        let msg = ServerMsg::from_text(&text).expect("a typed server message");
        if let Some(found) = pick(&msg) {
            return found;
        }
    }
    panic!("not seen in 64 messages");
}

fn mv(uci: &str) -> ClientMsg {
    ClientMsg::Move {
        mv: uci.parse::<SubMove>().expect("uci"),
        id: Some(uci.to_owned()),
        v: None,
        lag: None,
    }
}

#[tokio::test]
async fn an_agent_holding_a_seat_plays_through_the_same_path_as_a_socket() {
    let rig = Rig::start().await;
    let (id, white_token, black_token) = rig.game_between_two(json!({})).await;
    let mut white = rig.seat(&id, &white_token).await;
    let handle = rig.handle.as_ref().expect("running");
    let mut agent = handle
        .attach_agent(&id, Some(black_token))
        .await
        .expect("the agent joins its game");
    let you = agent_until(&mut agent, |m| match m {
        ServerMsg::State { d, .. } => Some(d.live.you),
        _ => None,
    })
    .await;
    assert_eq!(you, Some(marseillais::server::play::protocol::Side::Black));

    white.play("e2e4", "w1").await;
    agent_until(&mut agent, |m| match m {
        ServerMsg::Move { d, .. } if d.uci.to_string() == "e2e4" => Some(()),
        _ => None,
    })
    .await;
    for uci in ["e7e5", "g8f6"] {
        agent.act(mv(uci)).await.expect("room alive");
        let acked = agent_until(&mut agent, |m| match m {
            ServerMsg::Ack(ack) => Some(ack.clone()),
            ServerMsg::Error(e) => panic!("refused: {e:?}"),
            _ => None,
        })
        .await;
        assert_eq!(acked.id.as_deref(), Some(uci));
        let seen = white.recv_type("move").await;
        assert_eq!(seen.str("uci"), uci);
        assert_eq!(
            seen.v,
            Some(acked.v),
            "the human sees the agent's move as version {}",
            acked.v
        );
    }
    // The same ack id again: acknowledged again with the same version, not played twice.
    agent.act(mv("g8f6")).await.expect("room alive");
    let again = agent_until(&mut agent, |m| match m {
        ServerMsg::Ack(ack) => Some(ack.clone()),
        _ => None,
    })
    .await;
    let pgn = rig.pgn(&id).await;
    assert!(pgn.contains("1. e4 e5,Nf6"), "{pgn}");
    assert!(!pgn.contains("Nf6,"), "played once: {pgn}");
    assert_eq!(again.id.as_deref(), Some("g8f6"));
    agent.detach().await;
    rig.stop().await;
}

#[tokio::test]
async fn an_agent_without_a_seat_is_a_spectator_and_cannot_act() {
    let rig = Rig::start().await;
    let (id, _white, _black) = rig.game_between_two(json!({})).await;
    let handle = rig.handle.as_ref().expect("running");
    let mut agent = handle.attach_agent(&id, None).await.expect("joins");
    agent.act(mv("e2e4")).await.expect("room alive");
    let refusal = agent_until(&mut agent, |m| match m {
        ServerMsg::Error(e) => Some(e.clone()),
        _ => None,
    })
    .await;
    assert_eq!(
        serde_json::to_value(refusal.code).expect("code"),
        json!("not_a_player")
    );
    rig.stop().await;
}
