//! Failures of a cluster mid-game (issue 13), with three real nodes on one PostgreSQL and one
//! Redis: the game's owner killed with SIGKILL (another node takes the game over within about
//! the lease time and the game goes on, no acknowledged sub-move lost, none applied twice),
//! Redis restarted (every socket resyncs, nothing lost or doubled), Postgres unreachable (moves
//! refused with `store_failure`, nothing acknowledged, and accepted again once it is back).
//!
//! Prints the failover time (kill -> the first sub-move accepted after it); more runs of it:
//! `CLUSTER_FAILOVER_RUNS=5 scripts/test-services.sh cargo test --release --test
//! cluster failover::the_owner -- --nocapture`.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::cluster::{Cluster, LEASE_SECS};
use support::http::http;
use support::roaming::{Answer, Roamer};
use support::s;
use support::ws::Ended;

/// How long one move may wait for its answer, a failover included: many leases, on a loaded
/// machine. Only a bound against a hang: the time itself is printed, never asserted.
const ANSWER: Duration = Duration::from_secs(60);

/// A game created on node 1 and joined there, White's home node 2, Black's node 3 (so that the
/// node which created the game, the likely owner, holds no player socket).
async fn game_on(
    cluster: &Cluster,
    white_home: usize,
    black_home: usize,
) -> (String, Roamer, Roamer) {
    let (status, created) = http(
        cluster.addr(1),
        "POST",
        "/api/games",
        Some(r#"{"color":"white"}"#),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let created: Value = serde_json::from_str(&created).expect("json");
    let id = s(&created["id"]);
    let (status, joined) = http(
        cluster.addr(1),
        "POST",
        &format!("/api/games/{id}/join"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{joined}");
    let black = s(&serde_json::from_str::<Value>(&joined).expect("json")["token"]);
    let white = Roamer::join(&id, &s(&created["token"]), white_home, cluster).await;
    let black = Roamer::join(&id, &black, black_home, cluster).await;
    (id, white, black)
}

/// The side to move plays its first legal sub-move (bounded by [`ANSWER`]); both players then
/// read up to it. Returns the ack's version.
async fn step(cluster: &Cluster, white: &mut Roamer, black: &mut Roamer) -> u64 {
    let mover = if white.turn == "white" {
        &mut *white
    } else {
        &mut *black
    };
    let uci = mover.legal.first().cloned().expect("a legal sub-move");
    let answer = mover.play(cluster, &uci, ANSWER).await;
    let Answer::Acked(v) = answer else {
        panic!("{uci}: {answer:?}");
    };
    white.sync_to(cluster, v, ANSWER).await;
    black.sync_to(cluster, v, ANSWER).await;
    v
}

/// Every sub-move either player saw acknowledged is stored at its version, none twice, and the
/// stored game is what both players saw.
async fn assert_nothing_lost_or_doubled(cluster: &Cluster, id: &str, players: [&Roamer; 2]) {
    let acked: Vec<(String, u64, String)> = players
        .iter()
        .flat_map(|p| p.acked.iter().map(|a| (a.id.clone(), a.v, a.uci.clone())))
        .collect();
    let failures = cluster.check_acked(id, &acked).await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let stored: Vec<String> = cluster
        .events(id)
        .await
        .iter()
        .filter(|e| e["k"] == "move")
        .map(|e| s(&e["uci"]))
        .collect();
    for player in players {
        assert_eq!(player.moves, stored, "what a player saw is what is stored");
    }
}

/// How the sockets of a failure may end: closed 1012 (the relay lost track of the game), 1001
/// (a node going away), dropped (the node died), or given up by the client on a version gap.
fn expected_end(end: &Ended) -> bool {
    matches!(
        end,
        Ended::Closed(1012, _) | Ended::Closed(1001, _) | Ended::Dropped | Ended::Open
    )
}

/// Polls the lease table (every 20 ms, bounded by [`ANSWER`]) until a node other than
/// `dead` holds `game`'s lease; the time from `killed`.
async fn takeover(cluster: &Cluster, game: &str, dead: usize, killed: Instant) -> Option<Duration> {
    for _ in 0..(ANSWER.as_millis() / 20) {
        if let Some((owner, _)) = cluster.owner(game).await
            && owner != dead
        {
            return Some(killed.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

/// One failover: returns the times from the kill to another node's lease on the game and to
/// the first sub-move accepted after it.
async fn one_failover(run: usize) -> Option<(Duration, Duration)> {
    let mut cluster = Cluster::start("cluster_failover", 3).await?;
    let (id, mut white, mut black) = game_on(&cluster, 2, 3).await;
    for _ in 0..6 {
        step(&cluster, &mut white, &mut black).await;
    }
    let (owner, epoch) = cluster
        .owner_within(&id, ANSWER)
        .await
        .expect("a node owns the game being played");
    cluster.kill9(owner).await;
    let killed = Instant::now();
    // The next sub-move goes out at once: it waits through the failover (resent with its ack
    // id on every reconnect).
    let (v, owned) = tokio::join!(
        async {
            let v = step(&cluster, &mut white, &mut black).await;
            (v, killed.elapsed())
        },
        takeover(&cluster, &id, owner, killed)
    );
    let (v, failover) = v;
    let owned = owned.expect("another node took the lease");
    let (new_owner, new_epoch) = cluster
        .owner_within(&id, ANSWER)
        .await
        .expect("another node owns the game");
    assert_ne!(new_owner, owner, "the killed node cannot own the game");
    assert!(
        new_epoch > epoch,
        "a takeover increments the epoch ({epoch} -> {new_epoch})"
    );
    for _ in 0..6 {
        step(&cluster, &mut white, &mut black).await;
    }
    assert!(v > 0);
    for player in [&white, &black] {
        assert!(
            player.ends.iter().all(expected_end),
            "a socket ended otherwise: {:?}",
            player.ends
        );
    }
    assert!(
        white.reconnects + black.reconnects > 0 || owner == 1,
        "a player whose node died must have reconnected"
    );
    assert_nothing_lost_or_doubled(&cluster, &id, [&white, &black]).await;
    eprintln!(
        "failover run {run}: owner n{owner} (epoch {epoch}) killed; n{new_owner} (epoch \
         {new_epoch}) held the lease {:.0} ms and accepted the next sub-move {:.0} ms after the \
         kill (lease {LEASE_SECS} s); closes: white {:?}, black {:?}",
        owned.as_secs_f64() * 1000.0,
        failover.as_secs_f64() * 1000.0,
        white.ends,
        black.ends
    );
    Some((owned, failover))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_owner_killed_mid_game_another_node_takes_it_over_and_no_acked_sub_move_is_lost() {
    let runs: usize = std::env::var("CLUSTER_FAILOVER_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let (mut owned, mut acked) = (Vec::new(), Vec::new());
    for run in 1..=runs.max(1) {
        match one_failover(run).await {
            Some((lease, ack)) => {
                owned.push(lease.as_secs_f64() * 1000.0);
                acked.push(ack.as_secs_f64() * 1000.0);
            }
            None => return,
        }
    }
    for (what, times) in [
        ("kill -> another node's lease", &mut owned),
        ("kill -> next ack", &mut acked),
    ] {
        times.sort_by(f64::total_cmp);
        eprintln!(
            "failover, {what} (ms, lease {LEASE_SECS} s, {} runs): min {:.0}, median {:.0}, max {:.0}",
            times.len(),
            times[0],
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restarted_mid_game_every_socket_resyncs_and_nothing_acked_is_lost_or_doubled() {
    let Some(mut cluster) = Cluster::start("cluster_redis_restart", 3).await else {
        return;
    };
    let (id, mut white, mut black) = game_on(&cluster, 2, 3).await;
    let mut spectator = Roamer::join(&id, "", 1, &cluster).await;
    for _ in 0..6 {
        step(&cluster, &mut white, &mut black).await;
    }
    // A sub-move sent, Redis gone under it.
    let mover_is_white = white.turn == "white";
    let uci = if mover_is_white { &white } else { &black }
        .legal
        .first()
        .cloned()
        .expect("legal");
    let mover = if mover_is_white {
        &mut white
    } else {
        &mut black
    };
    let sent = mover
        .send(
            &cluster,
            &json!({"t": "move", "d": {"uci": uci, "id": "in-flight"}}),
        )
        .await;
    mover.pending = Some((uci.clone(), "in-flight".to_owned()));
    assert!(sent);
    cluster.redis().restart().await;
    let answer = mover.answer(&cluster, "in-flight", ANSWER).await;
    let Answer::Acked(v) = answer else {
        panic!("the move sent as Redis restarted: {answer:?}");
    };
    white.sync_to(&cluster, v, ANSWER).await;
    black.sync_to(&cluster, v, ANSWER).await;
    spectator.sync_to(&cluster, v, ANSWER).await;
    // And the game goes on through the new Redis.
    for _ in 0..6 {
        step(&cluster, &mut white, &mut black).await;
    }
    spectator.sync_to(&cluster, white.v, ANSWER).await;
    assert_eq!(spectator.moves, white.moves, "the spectator resynced");
    for player in [&white, &black, &spectator] {
        assert!(
            player.ends.iter().all(expected_end),
            "a socket ended otherwise: {:?}",
            player.ends
        );
    }
    assert_nothing_lost_or_doubled(&cluster, &id, [&white, &black]).await;
    eprintln!(
        "redis restart: closes white {:?}, black {:?}, spectator {:?}; reconnects {}, gaps {}",
        white.ends,
        black.ends,
        spectator.ends,
        white.reconnects + black.reconnects + spectator.reconnects,
        white.gaps + black.gaps + spectator.gaps
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_postgres_is_unreachable_moves_are_refused_with_store_failure_and_accepted_after() {
    let Some(cluster) = Cluster::builder("cluster_postgres_cut", 3)
        .through_proxy()
        .start()
        .await
    else {
        return;
    };
    let (id, mut white, mut black) = game_on(&cluster, 2, 3).await;
    for _ in 0..4 {
        step(&cluster, &mut white, &mut black).await;
    }
    let before = cluster.events(&id).await.len();
    cluster.proxy().cut();
    let mover_is_white = white.turn == "white";
    let mover = if mover_is_white {
        &mut white
    } else {
        &mut black
    };
    let uci = mover.legal.first().cloned().expect("legal");
    let answer = mover.play(&cluster, &uci, ANSWER).await;
    assert_eq!(
        answer,
        Answer::Refused("store_failure".to_owned()),
        "a move while Postgres is unreachable"
    );
    cluster.proxy().restore();
    assert_eq!(
        cluster.events(&id).await.len(),
        before,
        "nothing was stored while Postgres was cut"
    );
    // Once Postgres is back, the same sub-move (a new ack id) goes through.
    let answer = mover.play(&cluster, &uci, ANSWER).await;
    let Answer::Acked(v) = answer else {
        panic!("after Postgres came back: {answer:?}");
    };
    white.sync_to(&cluster, v, ANSWER).await;
    black.sync_to(&cluster, v, ANSWER).await;
    step(&cluster, &mut white, &mut black).await;
    assert_nothing_lost_or_doubled(&cluster, &id, [&white, &black]).await;
}
