//! The lobby across three in-process nodes (issue 13): one Postgres database, one private
//! redis-server, `cluster = Some(..)` on each. Challenges made, answered and seen on different
//! nodes; the lobby chat and the `online` count over every node; quick pairing, whose pools run
//! on the lobby's owner for pages of every node.

use crate::support;

use std::time::Duration;

use marseillais::server::lobby::channel::msg::{ChallengeState, GoneReason, LobbyMsg};
use marseillais::server::play::protocol::ErrorCode;
use marseillais::server::pool::msg::{LeftReason, PoolMsg};
use serde_json::{Value, json};
use support::lobby::LobbyClient;
use support::nodes::Nodes;
use support::s;
use support::session::Session;

/// Three nodes (`n1` starts first and so holds the lobby's lease), their database and bus.
struct Cluster(Nodes);

async fn cluster(test: &str) -> Option<Cluster> {
    let nodes = Nodes::start(test, 3, Duration::from_secs(3), |c| {
        c.lobby.challenge_burst = 100.0;
        c.lobby.online_every = Duration::from_millis(50);
        c.lobby.leave_grace = Duration::from_millis(300);
        c.lobby.pool_wave = Some(Duration::from_millis(20));
    })
    .await?;
    Some(Cluster(nodes))
}

impl Cluster {
    fn addr(&self, n: usize) -> std::net::SocketAddr {
        self.0.addr(n)
    }

    async fn page(&self, n: usize, who: Option<&Session>) -> LobbyClient {
        LobbyClient::connect(self.addr(n), who.map(|s| s.cookie.as_str())).await
    }

    async fn call(
        &self,
        n: usize,
        who: &Session,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        who.call(self.addr(n), method, path, body.as_ref()).await
    }
}

fn pending(msg: &LobbyMsg) -> Option<String> {
    match msg {
        LobbyMsg::Challenge(c) if c.state == ChallengeState::Pending => Some(c.id.clone()),
        _ => None,
    }
}

fn gone(msg: &LobbyMsg, id: &str) -> Option<GoneReason> {
    match msg {
        LobbyMsg::ChallengeGone(g) if g.id == id => Some(g.reason),
        _ => None,
    }
}

#[tokio::test]
async fn a_challenge_made_on_node_1_reaches_a_page_on_node_2_and_an_accept_through_node_3_seats_both()
 {
    let Some(c) = cluster("cluster_lobby_accept").await else {
        return;
    };
    let alice = Session::register(c.addr(1), "alice").await;
    let bob = Session::register(c.addr(2), "bob").await;
    let mut alice_page = c.page(1, Some(&alice)).await;
    let mut bob_page = c.page(2, Some(&bob)).await;
    let body =
        json!({"to": "bob", "clock": {"base_secs": 300, "increment_secs": 0}, "color": "white"});
    let (status, made) = c
        .call(2, &alice, "POST", "/api/challenges", Some(body))
        .await;
    assert_eq!(status, 201, "{made}");
    let id = s(&made["id"]);
    bob_page
        .until("the challenge on node 2", |m| {
            pending(m).as_deref() == Some(&id)
        })
        .await;
    let (status, mine) = c.call(3, &bob, "GET", "/api/challenges", None).await;
    assert_eq!(status, 200, "{mine}");
    assert_eq!(s(&mine["challenges"][0]["id"]), id, "listed from node 3");
    let (status, grant) = c
        .call(
            3,
            &bob,
            "POST",
            &format!("/api/challenges/{id}/accept"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{grant}");
    let game = s(&grant["id"]);
    assert_eq!(s(&grant["color"]), "black", "{grant}");
    for page in [&mut alice_page, &mut bob_page] {
        page.until(
            "the accepted challenge",
            |m| matches!(m, LobbyMsg::Challenge(v) if v.game.as_deref() == Some(game.as_str())),
        )
        .await;
    }
    let (status, again) = c
        .call(
            1,
            &bob,
            "POST",
            &format!("/api/challenges/{id}/accept"),
            None,
        )
        .await;
    assert_eq!(status, 404, "a challenge makes one game: {again}");
}

#[tokio::test]
async fn a_decline_on_node_3_and_a_cancel_on_node_2_reach_both_users_on_their_nodes() {
    let Some(c) = cluster("cluster_lobby_decline").await else {
        return;
    };
    let alice = Session::register(c.addr(1), "alice").await;
    let bob = Session::register(c.addr(1), "bob").await;
    let mut alice_page = c.page(1, Some(&alice)).await;
    let mut bob_page = c.page(2, Some(&bob)).await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let (status, made) = c
            .call(
                3,
                &alice,
                "POST",
                "/api/challenges",
                Some(json!({"to": "bob"})),
            )
            .await;
        assert_eq!(status, 201, "{made}");
        ids.push(s(&made["id"]));
    }
    let (status, _) = c
        .call(
            3,
            &bob,
            "POST",
            &format!("/api/challenges/{}/decline", ids[0]),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let (status, _) = c
        .call(
            2,
            &alice,
            "POST",
            &format!("/api/challenges/{}/cancel", ids[1]),
            None,
        )
        .await;
    assert_eq!(status, 204);
    for page in [&mut alice_page, &mut bob_page] {
        let declined = page.until("declined", |m| gone(m, &ids[0]).is_some()).await;
        assert_eq!(gone(&declined, &ids[0]), Some(GoneReason::Declined));
        let cancelled = page
            .until("cancelled", |m| gone(m, &ids[1]).is_some())
            .await;
        assert_eq!(gone(&cancelled, &ids[1]), Some(GoneReason::Cancelled));
    }
}

#[tokio::test]
async fn a_challenger_whose_last_page_on_node_2_closed_has_their_challenges_withdrawn_on_the_owner()
{
    let Some(c) = cluster("cluster_lobby_left").await else {
        return;
    };
    let alice = Session::register(c.addr(1), "alice").await;
    let bob = Session::register(c.addr(1), "bob").await;
    let alice_page = c.page(2, Some(&alice)).await;
    let mut bob_page = c.page(3, Some(&bob)).await;
    let (status, made) = c
        .call(
            2,
            &alice,
            "POST",
            "/api/challenges",
            Some(json!({"to": "bob"})),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let id = s(&made["id"]);
    bob_page
        .until("the challenge", |m| pending(m).as_deref() == Some(&id))
        .await;
    alice_page.close().await;
    let left = bob_page
        .until("withdrawn", |m| gone(m, &id).is_some())
        .await;
    assert_eq!(gone(&left, &id), Some(GoneReason::ChallengerLeft));
}

#[tokio::test]
async fn a_lobby_line_said_on_node_1_reaches_node_2_and_is_in_chat_history_on_node_3() {
    let Some(c) = cluster("cluster_lobby_chat").await else {
        return;
    };
    let alice = Session::register(c.addr(1), "alice").await;
    let mut speaker = c.page(1, Some(&alice)).await;
    let mut listener = c.page(2, None).await;
    // Node 3 read its (empty) history before the line: it has it from the bus.
    let early = c.page(3, None).await;
    speaker
        .send_text(r#"{"t":"chat","d":{"room":"lobby","text":"hello from node 1"}}"#)
        .await;
    let said = |m: &LobbyMsg| matches!(m, LobbyMsg::Chat(l) if l.text == "hello from node 1");
    listener.until("the line on node 2", said).await;
    speaker.until("the line back on node 1", said).await;
    let mut late = c.page(3, None).await;
    let history = late
        .until("chat_history", |m| matches!(m, LobbyMsg::ChatHistory(_)))
        .await;
    let LobbyMsg::ChatHistory(history) = history else {
        unreachable!()
    };
    assert_eq!(history.lines.len(), 1, "once: {history:?}");
    assert_eq!(history.lines[0].text, "hello from node 1");
    early.close().await;
}

#[tokio::test]
async fn the_online_count_on_every_node_counts_the_pages_of_all_nodes_and_a_user_once() {
    let Some(c) = cluster("cluster_lobby_online").await else {
        return;
    };
    let alice = Session::register(c.addr(1), "alice").await;
    let mut one = c.page(1, None).await;
    let _two = c.page(2, Some(&alice)).await;
    let _alice_again = c.page(3, Some(&alice)).await;
    let mut three = c.page(3, None).await;
    // Two anonymous pages and alice (on two nodes): 3.
    one.online(3).await;
    three.online(3).await;
}

/// `pool_in` again after each `not_available` (the lobby's owner is gone and its lease has not
/// moved yet: each try waits for the ask's timeout), a bounded number of times.
async fn pool_in_until_the_owner_answers(page: &mut LobbyClient, pool: &str) {
    for _ in 0..5 {
        page.pool_in(pool, false).await;
        let answer = page
            .pool_or_error("pool_joined", |m| matches!(m, PoolMsg::PoolJoined(_)))
            .await;
        match answer {
            Ok(_) => return,
            Err(error) if error.code == ErrorCode::NotAvailable => continue,
            Err(error) => panic!("{error:?}"),
        }
    }
    panic!("the pools never answered");
}

#[tokio::test]
async fn pages_on_two_nodes_are_paired_by_the_pools_of_the_lobbys_owner() {
    let Some(c) = cluster("cluster_pools_pair").await else {
        return;
    };
    let mut on_2 = c.page(2, None).await;
    let mut on_3 = c.page(3, None).await;
    on_2.join_pool("3+2", false).await;
    on_3.join_pool("3+2", false).await;
    let (seat_2, seat_3) = (on_2.pool_paired().await, on_3.pool_paired().await);
    assert_eq!(
        seat_2.game, seat_3.game,
        "one game for the two nodes' pages"
    );
    assert_ne!(seat_2.color, seat_3.color);
    // Each seat is taken on the page's own node.
    for (n, seat) in [(2, &seat_2), (3, &seat_3)] {
        let mut player = support::ws::Client::seat(c.addr(n), &seat.game, &seat.token).await;
        let state = player.recv_type("state").await;
        assert_eq!(state.d["you"], json!(seat.color), "{state}");
        assert_eq!(state.d["status"], json!("playing"), "{state}");
    }
}

#[tokio::test]
async fn every_node_shows_the_owners_count_and_a_page_closed_on_node_2_leaves_at_once() {
    let Some(c) = cluster("cluster_pools_leave").await else {
        return;
    };
    let mut watcher = c.page(3, None).await;
    watcher.watch_pools().await;
    let mut leaver = c.page(2, None).await;
    leaver.join_pool("5+3", false).await;
    watcher.pools_show("5+3", 0, 1).await;
    leaver.close().await;
    watcher.pools_show("5+3", 0, 0).await;
    let mut canceller = c.page(2, None).await;
    canceller.join_pool("5+3", false).await;
    watcher.pools_show("5+3", 0, 1).await;
    canceller.send_text(r#"{"t":"pool_out"}"#).await;
    assert_eq!(canceller.pool_left().await.reason, LeftReason::Cancelled);
    watcher.pools_show("5+3", 0, 0).await;
}

#[tokio::test]
async fn when_the_pools_node_stops_a_page_waiting_on_another_node_is_told_and_pairs_on_the_next_owner()
 {
    let Some(mut c) = cluster("cluster_pools_owner_gone").await else {
        return;
    };
    let mut on_2 = c.page(2, None).await;
    on_2.join_pool("10+5", false).await;
    // n1 runs the pools; it stops, and n2 or n3 takes the lobby's lease.
    c.0.node_mut(1).pause().await;
    assert_eq!(on_2.pool_left().await.reason, LeftReason::Interrupted);
    // Joined again (as the client does: again after `not_available` while the lobby's lease
    // has not moved yet), it meets a page of the third node.
    let mut on_3 = c.page(3, None).await;
    for page in [&mut on_2, &mut on_3] {
        pool_in_until_the_owner_answers(page, "10+5").await;
    }
    let (seat_2, seat_3) = (on_2.pool_paired().await, on_3.pool_paired().await);
    assert_eq!(seat_2.game, seat_3.game);
}

#[tokio::test]
async fn a_page_on_node_2_that_moves_to_another_pool_waits_in_that_one_alone_and_is_told_nothing_of_the_first()
 {
    let Some(c) = cluster("cluster_pools_move").await else {
        return;
    };
    let mut watcher = c.page(3, None).await;
    watcher.watch_pools().await;
    let mut mover = c.page(2, None).await;
    mover.join_pool("3+2", false).await;
    watcher.pools_show("3+2", 0, 1).await;
    mover.join_pool("5+3", false).await;
    watcher.pools_show("3+2", 0, 0).await;
    watcher.pools_show("5+3", 0, 1).await;
    assert!(
        mover
            .pool_quiet_for(Duration::from_millis(300), |m| matches!(
                m,
                PoolMsg::PoolLeft(_)
            ))
            .await,
        "the page's own second join is no replacement to tell it of"
    );
}

#[tokio::test]
async fn a_lobby_line_reaches_no_page_on_another_node_of_a_user_in_a_block_with_its_author() {
    let Some(c) = cluster("cluster_lobby_block").await else {
        return;
    };
    let alice = Session::register(c.addr(1), "alice").await;
    let bob = Session::register(c.addr(1), "bob").await;
    let (status, body) = c.call(3, &bob, "POST", "/api/blocks/alice", None).await;
    assert_eq!(status, 200, "{body}");
    let mut speaker = c.page(1, Some(&alice)).await;
    let mut blocker = c.page(2, Some(&bob)).await;
    let mut anonymous = c.page(2, None).await;
    speaker
        .send_text(r#"{"t":"chat","d":{"room":"lobby","text":"from alice"}}"#)
        .await;
    let said =
        |text: &'static str| move |m: &LobbyMsg| matches!(m, LobbyMsg::Chat(l) if l.text == text);
    anonymous
        .until("alice's line on node 2", said("from alice"))
        .await;
    speaker
        .until("alice's line back on node 1", said("from alice"))
        .await;
    // Bob's next line is his own: the bus brought Alice's to node 2, which did not send it.
    blocker
        .send_text(r#"{"t":"chat","d":{"room":"lobby","text":"from bob"}}"#)
        .await;
    let first = blocker
        .until("a chat line", |m| matches!(m, LobbyMsg::Chat(_)))
        .await;
    let LobbyMsg::Chat(first) = first else {
        unreachable!()
    };
    assert_eq!(first.text, "from bob");
    anonymous
        .until("bob's line on node 2", said("from bob"))
        .await;
}
