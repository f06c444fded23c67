//! The Redis bus (src/server/cluster/bus.rs) against a real, private redis-server per test
//! (tests/support/redis.rs): ordering, two nodes, unsubscribing, a Redis restart, Redis down,
//! a slow subscriber, ping. Every wait is bounded; no test asserts a wall-clock limit.

use crate::support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use marseillais::server::cluster::bus::{Bus, BusEvent, BusUrl, Subscription};
use support::WAIT;
use support::redis::RedisServer;

async fn bus(server: &RedisServer) -> Arc<Bus> {
    let url: BusUrl = server.url().parse().expect("the test server's URL parses");
    Bus::connect(&url).await.expect("connect to the test Redis")
}

/// The next event, or a panic saying what was awaited.
async fn next(sub: &mut Subscription, what: &str) -> BusEvent {
    match tokio::time::timeout(WAIT, sub.recv()).await {
        Ok(Some(event)) => event,
        Ok(None) => panic!("{what}: the subscription ended"),
        Err(_) => panic!("{what}: nothing within {WAIT:?}"),
    }
}

async fn next_message(sub: &mut Subscription, what: &str) -> Vec<u8> {
    match next(sub, what).await {
        BusEvent::Message(m) => m,
        BusEvent::Gap => panic!("{what}: a Gap instead of a message"),
    }
}

fn number(payload: &[u8]) -> u32 {
    u32::from_be_bytes(payload.try_into().expect("a 4-byte payload"))
}

#[tokio::test]
async fn messages_arrive_in_publishing_order_also_across_two_channels() {
    let Some(server) = RedisServer::start("bus order").await else {
        return;
    };
    let publisher = bus(&server).await;
    let subscriber = bus(&server).await;
    let mut even = subscriber.subscribe("order:even", 16_384).await.unwrap();
    let mut odd = subscriber.subscribe("order:odd", 16_384).await.unwrap();
    const N: u32 = 10_000;
    for i in 0..N {
        let channel = if i % 2 == 0 {
            "order:even"
        } else {
            "order:odd"
        };
        publisher.publish(channel, i.to_be_bytes().to_vec());
    }
    let mut evens = Vec::new();
    let mut odds = Vec::new();
    while odds.len() < (N / 2) as usize {
        let k = number(&next_message(&mut odd, "an odd message").await);
        odds.push(k);
        // Everything published before k on the other channel was handed over before k.
        while let Ok(event) = even.events.try_recv() {
            match event {
                BusEvent::Message(m) => evens.push(number(&m)),
                BusEvent::Gap => panic!("a Gap on the even channel"),
            }
        }
        assert!(
            evens.last().is_some_and(|&e| e >= k - 1),
            "odd message {k} was received before even message {}",
            k - 1
        );
    }
    assert_eq!(odds, (0..N).filter(|i| i % 2 == 1).collect::<Vec<_>>());
    assert_eq!(evens, (0..N).filter(|i| i % 2 == 0).collect::<Vec<_>>());
    // The publisher counts a pipeline once Redis answered it, which can be after the
    // subscriber already has its messages.
    assert!(
        support::eventually(WAIT, || async {
            publisher.stats().published == u64::from(N)
        })
        .await,
        "{:?}",
        publisher.stats()
    );
    assert_eq!(publisher.stats().dropped, 0);
    assert_eq!(subscriber.stats().received, u64::from(N));
}

#[tokio::test]
async fn two_nodes_see_each_others_messages() {
    let Some(server) = RedisServer::start("bus two nodes").await else {
        return;
    };
    let one = bus(&server).await;
    let two = bus(&server).await;
    let mut on_one = one.subscribe("game:1", 16).await.unwrap();
    let mut on_two = two.subscribe("game:1", 16).await.unwrap();
    one.publish("game:1", b"from one".to_vec());
    two.publish("game:1", b"from two".to_vec());
    for (sub, name) in [(&mut on_one, "node one"), (&mut on_two, "node two")] {
        let mut got = vec![next_message(sub, name).await, next_message(sub, name).await];
        got.sort();
        assert_eq!(got, [b"from one".to_vec(), b"from two".to_vec()], "{name}");
    }
}

#[tokio::test]
async fn several_subscriptions_to_one_channel_each_get_every_message() {
    let Some(server) = RedisServer::start("bus several").await else {
        return;
    };
    let node = bus(&server).await;
    let mut a = node.subscribe("room", 16).await.unwrap();
    let mut b = node.subscribe("room", 16).await.unwrap();
    assert_eq!(server.subscribers("room").await, Some(1));
    node.publish("room", b"x".to_vec());
    assert_eq!(next_message(&mut a, "a").await, b"x");
    assert_eq!(next_message(&mut b, "b").await, b"x");
}

#[tokio::test]
async fn a_dropped_subscription_stops_receiving_and_the_last_one_unsubscribes_in_redis() {
    let Some(server) = RedisServer::start("bus unsubscribe").await else {
        return;
    };
    let node = bus(&server).await;
    let first = node.subscribe("gone", 16).await.unwrap();
    let mut second = node.subscribe("gone", 16).await.unwrap();
    drop(first);
    node.publish("gone", b"still here".to_vec());
    assert_eq!(
        next_message(&mut second, "the remaining one").await,
        b"still here"
    );
    assert_eq!(server.subscribers("gone").await, Some(1));
    drop(second);
    assert!(
        support::eventually(WAIT, || async {
            server.subscribers("gone").await == Some(0)
        })
        .await,
        "PUBSUB NUMSUB still counts the channel after its last subscription was dropped"
    );
    // Subscribing again works (the channel is subscribed anew in Redis).
    let mut again = node.subscribe("gone", 16).await.unwrap();
    node.publish("gone", b"back".to_vec());
    assert_eq!(next_message(&mut again, "the new one").await, b"back");
}

/// Publishes `payload` every 50 ms until `sub` receives a message (bounded by WAIT): after a
/// restart the publisher may still be waiting out its backoff, and drops meanwhile.
async fn publish_until_received(node: &Bus, channel: &str, sub: &mut Subscription) -> Vec<u8> {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        node.publish(channel, b"after".to_vec());
        match tokio::time::timeout(Duration::from_millis(50), sub.recv()).await {
            Ok(Some(BusEvent::Message(m))) => return m,
            // A bus that dropped messages while Redis was away says Gap again once it can
            // publish (see the next test but one).
            Ok(Some(BusEvent::Gap)) => {}
            Ok(None) => panic!("the subscription ended"),
            Err(_) => {}
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no message came through within {WAIT:?} after the restart"
        );
    }
}

#[tokio::test]
async fn after_a_redis_restart_every_subscription_gets_a_gap_and_then_messages_again() {
    let Some(mut server) = RedisServer::start("bus restart").await else {
        return;
    };
    let node = bus(&server).await;
    let other = bus(&server).await;
    let mut a = node.subscribe("restart:a", 16).await.unwrap();
    let mut b = node.subscribe("restart:b", 16).await.unwrap();
    let mut c = other.subscribe("restart:a", 16).await.unwrap();
    server.restart().await;
    for (sub, name) in [
        (&mut a, "a"),
        (&mut b, "b"),
        (&mut c, "c on the other node"),
    ] {
        assert_eq!(next(sub, name).await, BusEvent::Gap, "{name}");
    }
    assert_eq!(server.subscribers("restart:a").await, Some(2));
    assert_eq!(server.subscribers("restart:b").await, Some(1));
    assert_eq!(
        publish_until_received(&node, "restart:a", &mut a).await,
        b"after"
    );
    assert_eq!(
        publish_until_received(&other, "restart:b", &mut b).await,
        b"after"
    );
    assert!(node.stats().reconnects >= 1, "{:?}", node.stats());
    assert!(
        support::eventually(WAIT, || async { node.stats().connected }).await,
        "the bus never reported itself connected again: {:?}",
        node.stats()
    );
}

#[tokio::test]
async fn publishing_while_redis_is_down_does_not_block_and_counts_dropped() {
    let Some(mut server) = RedisServer::start("bus down").await else {
        return;
    };
    let node = bus(&server).await;
    server.stop();
    const N: u64 = 1_000;
    for i in 0..N {
        // `publish` is not async: that it returns at all while Redis is gone is the point.
        node.publish("down", i.to_be_bytes().to_vec());
    }
    assert!(
        support::eventually(WAIT, || async { node.stats().dropped >= N }).await,
        "{:?}",
        node.stats()
    );
    assert_eq!(node.stats().published, 0);
    assert!(!node.stats().connected);
}

#[tokio::test]
async fn a_bus_that_dropped_messages_tells_its_subscriptions_gap_once_it_publishes_again() {
    let Some(mut server) = RedisServer::start("bus dropped then back").await else {
        return;
    };
    let node = bus(&server).await;
    let quiet = bus(&server).await;
    let mut mine = node.subscribe("back:mine", 16).await.unwrap();
    let mut theirs = quiet.subscribe("back:theirs", 16).await.unwrap();
    server.stop();
    // Dropped: a request nobody will ever see a sequence hole for.
    node.publish("back:elsewhere", b"lost".to_vec());
    assert!(
        support::eventually(WAIT, || async { node.stats().dropped >= 1 }).await,
        "{:?}",
        node.stats()
    );
    server.restart().await;
    assert_eq!(next(&mut mine, "the restart").await, BusEvent::Gap);
    assert_eq!(next(&mut theirs, "the restart").await, BusEvent::Gap);
    // Publishing works again: the bus that dropped says Gap once more (bounded wait), in
    // whatever order against its own message.
    let deadline = tokio::time::Instant::now() + WAIT;
    let (mut gaps, mut got) = (0, false);
    while gaps == 0 || !got {
        assert!(
            tokio::time::Instant::now() < deadline,
            "gaps {gaps}, message {got}: {:?}",
            node.stats()
        );
        if !got {
            node.publish("back:mine", b"again".to_vec());
        }
        match tokio::time::timeout(Duration::from_millis(50), mine.recv()).await {
            Ok(Some(BusEvent::Gap)) => gaps += 1,
            Ok(Some(BusEvent::Message(m))) => {
                assert_eq!(m, b"again");
                got = true;
            }
            Ok(None) => panic!("the subscription ended"),
            Err(_) => {}
        }
    }
    // The bus that dropped nothing (it has not tried to publish since) says nothing more.
    let more = tokio::time::timeout(Duration::from_millis(300), theirs.recv()).await;
    assert!(more.is_err(), "the quiet bus said more: {more:?}");
}

#[tokio::test]
async fn a_full_publishing_queue_drops_and_counts_instead_of_waiting() {
    let Some(mut server) = RedisServer::start("bus full queue").await else {
        return;
    };
    let node = bus(&server).await;
    server.stop();
    let n = marseillais::server::cluster::bus::QUEUE as u64 * 2;
    for _ in 0..n {
        node.publish("full", vec![0]);
    }
    assert!(
        support::eventually(WAIT, || async { node.stats().dropped >= n }).await,
        "{:?}",
        node.stats()
    );
}

#[tokio::test]
async fn a_slow_subscriber_gets_a_gap_and_the_others_are_not_held_up() {
    let Some(server) = RedisServer::start("bus slow").await else {
        return;
    };
    let node = bus(&server).await;
    let mut slow = node.subscribe("slow", 4).await.unwrap();
    let mut fast = node.subscribe("slow", 1_024).await.unwrap();
    for i in 0u32..100 {
        node.publish("slow", i.to_be_bytes().to_vec());
    }
    for i in 0u32..100 {
        assert_eq!(number(&next_message(&mut fast, "the fast one").await), i);
    }
    for i in 0u32..4 {
        assert_eq!(number(&next_message(&mut slow, "the slow one").await), i);
    }
    assert_eq!(next(&mut slow, "the slow one's gap").await, BusEvent::Gap);
    node.publish("slow", 1_000u32.to_be_bytes().to_vec());
    assert_eq!(
        number(&next_message(&mut slow, "after the gap").await),
        1_000
    );
    assert_eq!(
        number(&next_message(&mut fast, "after the gap").await),
        1_000
    );
}

#[tokio::test]
async fn ping_answers_and_fails_while_redis_is_down() {
    let Some(mut server) = RedisServer::start("bus ping").await else {
        return;
    };
    let node = bus(&server).await;
    assert!(node.ping().await.is_ok());
    server.stop();
    assert!(node.ping().await.is_err());
    server.restart().await;
    assert!(
        support::eventually(WAIT, || async { node.ping().await.is_ok() }).await,
        "ping never answered again after the restart"
    );
}

#[tokio::test]
async fn connecting_to_a_redis_that_is_not_there_fails() {
    let Some(mut server) = RedisServer::start("bus no server").await else {
        return;
    };
    let url: BusUrl = server.url().parse().unwrap();
    server.stop();
    assert!(Bus::connect(&url).await.is_err());
}

#[tokio::test]
async fn close_flushes_what_was_published_and_ends_subscriptions() {
    let Some(server) = RedisServer::start("bus close").await else {
        return;
    };
    let publisher = bus(&server).await;
    let subscriber = bus(&server).await;
    let mut sub = subscriber.subscribe("close", 1_024).await.unwrap();
    for i in 0u32..500 {
        publisher.publish("close", i.to_be_bytes().to_vec());
    }
    publisher.close().await;
    assert_eq!(publisher.stats().published, 500);
    for i in 0u32..500 {
        assert_eq!(
            number(&next_message(&mut sub, "a flushed message").await),
            i
        );
    }
    subscriber.close().await;
    assert_eq!(
        tokio::time::timeout(WAIT, sub.recv()).await.ok(),
        Some(None),
        "the subscription did not end when its bus closed"
    );
    assert!(subscriber.subscribe("close", 4).await.is_err());
}

/// The figure in docs/performance.md ("Redis bus"): messages/s from one Bus to one
/// subscription on another Bus, over a unix socket, 50,000 messages of 64 bytes. Printed,
/// not asserted.
#[tokio::test]
async fn publishes_per_second_through_one_bus_to_one_subscriber() {
    let Some(server) = RedisServer::start("bus throughput").await else {
        return;
    };
    let publisher = bus(&server).await;
    let subscriber = bus(&server).await;
    let mut sub = subscriber.subscribe("bench", 65_536).await.unwrap();
    const N: usize = 50_000;
    let start = Instant::now();
    for i in 0..N {
        let mut payload = vec![0u8; 64];
        payload[..8].copy_from_slice(&(i as u64).to_be_bytes());
        publisher.publish("bench", payload);
    }
    for _ in 0..N {
        next_message(&mut sub, "a benchmark message").await;
    }
    let elapsed = start.elapsed();
    eprintln!(
        "bus throughput: {N} messages of 64 bytes in {elapsed:?}: {:.0} messages/s",
        N as f64 / elapsed.as_secs_f64()
    );
    assert_eq!(publisher.stats().dropped, 0);
}
