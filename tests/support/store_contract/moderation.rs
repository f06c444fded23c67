//! The contract of moderation (SQLite schema v11, Postgres v8; issue 32): reports filed under
//! their limit and listed newest first, each action applied with its log row and the reports
//! it settles, bans read against a clock, marks that keep a rated end from rating anyone, the
//! leaderboard without marked players, a user's recent chat lines; writes fail under failure
//! injection.

use std::sync::Arc;

use marseillais::server::chat::{ChatRoom, ChatText, NewChatLine};
use marseillais::server::domain::user::UserId;
use marseillais::server::players::rating::Speed;
use marseillais::server::store::{
    FailingStore, GameStatus, Mark, ModAction, ModActionKind, NewReport, RatedEnd, ReportFiled,
    ReportReason, ReportStatus, Store,
};

use super::accounts::seated_commit;
use super::puzzles::puzzle_user;

/// A blitz game between `white` and `black` started, then ended rated (`score_white`).
async fn rate_one_game(
    store: &dyn Store,
    game: &str,
    white: UserId,
    black: UserId,
    score_white: f64,
) {
    store
        .commit(seated_commit(game, 0, 100, true, Some(white), Some(black)))
        .await
        .expect("starts");
    let mut end = seated_commit(game, 1, 200, true, Some(white), Some(black));
    end.listing.status = GameStatus::Finished;
    end.rating = Some(RatedEnd {
        white,
        black,
        speed: Speed::Blitz,
        score_white,
    });
    store.commit(end).await.expect("ends");
}

fn new_report(reporter: UserId, reported: UserId, at_ms: i64) -> NewReport {
    NewReport {
        reporter,
        reported,
        reason: ReportReason::Cheating,
        text: "engine moves".into(),
        game_id: Some("g1".into()),
        at_ms,
    }
}

fn action(target: UserId, kind: ModActionKind, at_ms: i64) -> ModAction {
    ModAction {
        moderator: "mod".into(),
        target,
        kind,
        reason: "why".into(),
        at_ms,
    }
}

/// At most `max_open` open reports since `since_ms`; a settled one no longer counts; listed
/// newest first with both names; a reporter's own listed apart.
pub async fn check_reports_are_filed_under_their_limit_and_listed_newest_first(store: &dyn Store) {
    let alice = puzzle_user(store, "alice").await;
    let bob = puzzle_user(store, "bob").await;
    let carol = puzzle_user(store, "carol").await;
    let mut ids = Vec::new();
    for at in [10, 20] {
        match store
            .file_report(new_report(alice, bob, at), 0, 2)
            .await
            .expect("file")
        {
            ReportFiled::Filed(id) => ids.push(id),
            ReportFiled::TooMany => panic!("under the limit"),
        }
    }
    assert_eq!(
        store
            .file_report(new_report(alice, carol, 30), 0, 2)
            .await
            .expect("file"),
        ReportFiled::TooMany
    );
    // Reports older than the window do not count.
    assert!(matches!(
        store
            .file_report(new_report(alice, carol, 30), 15, 2)
            .await
            .expect("file"),
        ReportFiled::Filed(_)
    ));
    let open = store.open_reports(10).await.expect("read");
    let times: Vec<i64> = open.iter().map(|r| r.created_ms).collect();
    assert_eq!(times, [30, 20, 10]);
    assert_eq!(open[2].id, ids[0]);
    assert_eq!(open[2].reporter_name, "alice");
    assert_eq!(open[2].reported_name, "bob");
    assert_eq!(open[2].reason, ReportReason::Cheating);
    assert_eq!(open[2].game_id.as_deref(), Some("g1"));
    assert_eq!(open[2].status, ReportStatus::Open);
    assert_eq!(store.reports_by(alice, 10).await.expect("read").len(), 3);
    assert_eq!(store.reports_by(bob, 10).await.expect("read"), []);
    assert_eq!(
        store
            .report(ids[1])
            .await
            .expect("read")
            .map(|r| r.created_ms),
        Some(20)
    );
    assert_eq!(store.report(9999).await.expect("read"), None);
}

/// Dismiss settles one report; a sanction settles all of its target's open reports; each
/// action is one log row, newest first; role, ban and mark follow the actions.
pub async fn check_each_action_is_applied_logged_and_settles_the_related_reports(
    store: &dyn Store,
) {
    let alice = puzzle_user(store, "alice").await;
    let bob = puzzle_user(store, "bob").await;
    let Ok(ReportFiled::Filed(first)) = store.file_report(new_report(alice, bob, 1), 0, 9).await
    else {
        panic!("filed");
    };
    store
        .file_report(new_report(alice, bob, 2), 0, 9)
        .await
        .expect("filed");
    store
        .file_report(new_report(bob, alice, 3), 0, 9)
        .await
        .expect("filed");
    assert_eq!(
        store
            .moderate(action(bob, ModActionKind::Dismiss { report: first }, 10))
            .await
            .expect("dismiss"),
        1
    );
    assert_eq!(
        store
            .moderate(action(bob, ModActionKind::Dismiss { report: first }, 11))
            .await
            .expect("again"),
        0,
        "a settled report is not dismissed twice"
    );
    let dismissed = store.report(first).await.expect("read").expect("kept");
    assert_eq!(dismissed.status, ReportStatus::Dismissed);
    assert_eq!(dismissed.handled_by.as_deref(), Some("mod"));
    assert_eq!(dismissed.handled_ms, Some(10));

    assert!(!store.is_moderator(alice).await.expect("read"));
    store
        .moderate(action(alice, ModActionKind::GrantMod, 12))
        .await
        .expect("grant");
    assert!(store.is_moderator(alice).await.expect("read"));
    assert_eq!(
        store
            .moderate(action(
                bob,
                ModActionKind::ChatBan {
                    until_ms: Some(100)
                },
                13
            ))
            .await
            .expect("ban"),
        1,
        "bob's other open report"
    );
    let ban = store
        .chat_ban(bob, 99)
        .await
        .expect("read")
        .expect("banned");
    assert_eq!(
        (ban.until_ms, ban.reason.as_str(), ban.by.as_str()),
        (Some(100), "why", "mod")
    );
    assert_eq!(store.chat_ban(bob, 100).await.expect("read"), None, "ended");
    store
        .moderate(action(bob, ModActionKind::ChatBan { until_ms: None }, 14))
        .await
        .expect("ban for good");
    assert!(store.chat_ban(bob, i64::MAX).await.expect("read").is_some());
    store
        .moderate(action(bob, ModActionKind::LiftChatBan, 15))
        .await
        .expect("lift");
    assert_eq!(store.chat_ban(bob, 16).await.expect("read"), None);
    store
        .moderate(action(bob, ModActionKind::Mark(Mark::Engine), 16))
        .await
        .expect("mark");
    let mark = store.user_mark(bob).await.expect("read").expect("marked");
    assert_eq!((mark.mark, mark.at_ms), (Mark::Engine, 16));
    store
        .moderate(action(bob, ModActionKind::Unmark, 17))
        .await
        .expect("unmark");
    assert_eq!(store.user_mark(bob).await.expect("read"), None);
    store
        .moderate(action(alice, ModActionKind::RevokeMod, 18))
        .await
        .expect("revoke");
    assert!(!store.is_moderator(alice).await.expect("read"));

    let log = store.mod_log(3).await.expect("read");
    let rows: Vec<(&str, &str, i64)> = log
        .iter()
        .map(|e| (e.action.as_str(), e.target_name.as_str(), e.at_ms))
        .collect();
    assert_eq!(
        rows,
        [
            ("revoke_mod", "alice", 18),
            ("unmark", "bob", 17),
            ("mark", "bob", 16)
        ]
    );
    assert_eq!(log[2].details, "engine");
    assert_eq!(
        store.mod_log(100).await.expect("read").len(),
        8,
        "every action but the refused dismissal"
    );
    let open = store.open_reports(10).await.expect("read");
    assert_eq!(open.len(), 1, "alice's report by bob stays open");
    assert_eq!(open[0].reported, alice);
}

/// The leaderboard is best first, with at least `min_games`, without marked players; a user's
/// chat lines come back oldest first, the newest `limit` of them, from every room.
pub async fn check_the_leaderboard_leaves_out_marked_players_and_a_users_lines_are_found(
    store: &dyn Store,
) {
    let alice = puzzle_user(store, "alice").await;
    let bob = puzzle_user(store, "bob").await;
    rate_one_game(store, "lb1", alice, bob, 1.0).await;
    let names = |rows: Vec<marseillais::server::store::LeaderboardRow>| -> Vec<String> {
        rows.into_iter().map(|r| r.name).collect()
    };
    assert_eq!(
        names(store.leaderboard(Speed::Blitz, 1, 10).await.expect("read")),
        ["alice", "bob"]
    );
    assert_eq!(
        store.leaderboard(Speed::Blitz, 2, 10).await.expect("read"),
        []
    );
    assert_eq!(
        store.leaderboard(Speed::Rapid, 0, 10).await.expect("read"),
        []
    );
    store
        .moderate(action(alice, ModActionKind::Mark(Mark::Booster), 5))
        .await
        .expect("mark");
    assert_eq!(
        names(store.leaderboard(Speed::Blitz, 1, 10).await.expect("read")),
        ["bob"]
    );

    for (game, room, text) in [
        (Some("g1"), ChatRoom::Player, "one"),
        (None, ChatRoom::Lobby, "two"),
        (Some("g2"), ChatRoom::Spectator, "three"),
    ] {
        store
            .append_chat(NewChatLine {
                game_id: game.map(str::to_owned),
                room,
                at_ms: 1,
                user_id: Some(bob),
                author: "bob".into(),
                text: ChatText::parse(text).expect("text"),
            })
            .await
            .expect("append");
    }
    let lines = store.user_chat_lines(bob, 2).await.expect("read");
    let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["two", "three"]);
    assert_eq!(store.user_chat_lines(alice, 5).await.expect("read"), []);
}

/// A rated end with a marked player is stored but rates nobody.
pub async fn check_a_rated_end_with_a_marked_player_rates_nobody(store: &dyn Store) {
    let alice = puzzle_user(store, "alice").await;
    let bob = puzzle_user(store, "bob").await;
    store
        .moderate(action(bob, ModActionKind::Mark(Mark::Engine), 1))
        .await
        .expect("mark");
    rate_one_game(store, "marked1", alice, bob, 0.0).await;
    assert_eq!(store.game_rating("marked1").await.expect("read"), None);
    assert_eq!(store.ratings(alice).await.expect("read"), []);
    assert_eq!(store.ratings(bob).await.expect("read"), []);
    assert!(
        store.load_game("marked1").await.expect("read").is_some(),
        "the end is stored"
    );
}

pub async fn check_moderation_writes_fail_under_failure_injection(inner: Arc<dyn Store>) {
    let alice = puzzle_user(inner.as_ref(), "alice").await;
    let bob = puzzle_user(inner.as_ref(), "bob").await;
    let failing = FailingStore::new(Arc::clone(&inner));
    failing.set_failing(true);
    assert!(
        failing
            .file_report(new_report(alice, bob, 1), 0, 3)
            .await
            .is_err()
    );
    assert!(
        failing
            .moderate(action(bob, ModActionKind::Mark(Mark::Engine), 1))
            .await
            .is_err()
    );
    assert_eq!(inner.open_reports(5).await.expect("read"), []);
    assert_eq!(inner.user_mark(bob).await.expect("read"), None);
    assert_eq!(inner.mod_log(5).await.expect("read"), []);
}
