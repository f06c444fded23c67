//! The store contract (docs: src/server/store/mod.rs) as checks on any `&dyn Store`, one file
//! per part of the store: a game's log and its listing (`games`), accounts, sessions and
//! ratings (`accounts`), chat lines (`chat`), the turn-deadline index (`deadlines`), personal
//! settings (`settings`), arena tournaments (`arenas`), puzzles (`puzzles`, and their searches
//! over thousands in `puzzle_search`), lesson progress (`lessons`), the opening explorer
//! (`explorer`), the account's own controls (`account_controls`), moderation (`moderation`),
//! ownership leases and fencing (`leases`). Each check wants a fresh, empty store.
//!
//! This file holds the fixtures the checks share and [`store_contract_tests!`], the one list of
//! the checks as tests: every backend (tests/store/sqlite.rs, memory.rs, postgres.rs) runs the
//! contract through it, the same way; a new backend runs it unchanged.

mod account_controls;
mod accounts;
mod arenas;
mod blocks;
mod chat;
mod deadlines;
mod explorer;
mod games;
mod leases;
mod lessons;
mod moderation;
mod playban;
mod puzzle_search;
mod puzzles;
mod settings;

// Every test binary mounts support/; those without a store leave these unused.
#[allow(unused_imports)]
pub use self::{
    account_controls::*, accounts::*, arenas::*, blocks::*, chat::*, deadlines::*, explorer::*,
    games::*, leases::*, lessons::*, moderation::*, playban::*, puzzle_search::*, puzzles::*,
    settings::*,
};

use std::time::Duration;

use marseillais::server::store::{Commit, DeadlineChange, GameListing, GameStatus, Store};

/// Every check is bounded: a hang is a failure, not a stuck CI job.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(120);

/// `f`, or a panic once [`TEST_TIMEOUT`] passes.
pub async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(TEST_TIMEOUT, f)
        .await
        .expect("test took longer than its bound")
}

/// The listing row the fixtures commit (its summary names the id and time).
pub fn listing(id: &str, status: GameStatus, updated_ms: i64) -> GameListing {
    GameListing {
        id: id.to_owned(),
        status,
        created_ms: 1_000,
        updated_ms,
        summary: format!(r#"{{"id":"{id}","updated":{updated_ms}}}"#),
        listed: true,
        white_user: None,
        black_user: None,
        arena: None,
    }
}

pub fn event(game: &str, seq: u64) -> String {
    format!(r#"{{"t":"move","game":"{game}","v":{seq}}}"#)
}

/// A commit of `count` events starting at `first_seq`, status Playing.
pub fn commit(game: &str, first_seq: u64, count: u64) -> Commit {
    Commit {
        game_id: game.to_owned(),
        first_seq,
        events: (first_seq..first_seq + count)
            .map(|seq| event(game, seq))
            .collect(),
        listing: listing(game, GameStatus::Playing, 2_000 + first_seq as i64),
        rating: None,
        explorer: None,
        playban: None,
        deadline: DeadlineChange::Unchanged,
        fence: None,
    }
}

pub fn expected_events(game: &str, count: u64) -> Vec<String> {
    (0..count).map(|seq| event(game, seq)).collect()
}

pub async fn events_of(store: &dyn Store, game: &str) -> Vec<String> {
    store
        .load_game(game)
        .await
        .expect("load_game")
        .map(|(_, events)| events)
        .unwrap_or_default()
}

/// The contract as tests: one `#[tokio::test]` per check, named after what it checks, each on
/// a fresh store from `$fresh(label).await`, an `Option<(guard, store)>` (the guard, a temporary
/// directory or a test database, lives as long as the test; `None` skips the test, as the
/// PostgreSQL tests do without a server). The store is closed after its check.
///
/// The second argument says which lease contract the backend keeps: `one_node` (SQLite,
/// MemoryStore: the trait's defaults, every claim granted) or `shared` (PostgreSQL: a store
/// several nodes share, with leases, epochs and fencing).
///
/// ```ignore
/// async fn fresh(label: &str) -> Option<((), MemoryStore)> { Some(((), MemoryStore::new())) }
/// crate::store_contract_tests!(fresh, one_node);
/// ```
#[macro_export]
macro_rules! store_contract_tests {
    ($fresh:path, one_node) => {
        $crate::store_contract_tests!(@all $fresh);
        $crate::store_contract_tests! {
            @each $fresh;
            ref a_one_node_store_grants_every_claim_and_knows_no_other_node = check_a_one_node_store_grants_every_claim_and_knows_no_other_node;
        }
    };
    ($fresh:path, shared) => {
        $crate::store_contract_tests!(@all $fresh);
        $crate::store_contract_tests! {
            @each $fresh;
            ref a_free_game_is_owned_at_epoch_one_and_held_against_other_nodes = check_a_free_game_is_owned_at_epoch_one_and_held_against_other_nodes;
            ref an_expired_lease_is_taken_over_by_another_node_at_the_next_epoch = check_an_expired_lease_is_taken_over_at_the_next_epoch;
            ref a_commit_under_a_stale_fence_is_fenced_and_stores_nothing = check_a_commit_under_a_stale_fence_is_fenced_and_stores_nothing;
            ref a_fenced_unit_fails_alone_and_the_rest_of_its_batch_commits = check_a_fenced_unit_fails_alone_in_its_batch;
            ref a_rated_end_under_a_stale_fence_is_fenced_and_rates_nobody = check_a_rated_end_under_a_stale_fence_is_fenced_and_rates_nobody;
            ref commit_all_with_one_stale_fence_stores_nothing = check_commit_all_with_one_stale_fence_stores_nothing;
            ref a_renewal_returns_the_leases_held_and_does_not_revive_an_expired_one = check_renewal_returns_held_leases_and_does_not_revive_an_expired_one;
            ref a_released_game_is_claimed_by_another_node_at_the_next_epoch = check_a_released_game_is_claimed_by_another_node_at_the_next_epoch;
            ref a_restarted_node_gives_up_every_lease_of_its_previous_life = check_a_restarted_node_gives_up_every_lease_of_its_previous_life;
            ref orphaned_games_are_live_playing_games_no_node_holds = check_orphaned_games_are_live_games_no_node_holds;
            ref live_nodes_are_the_nodes_renewed_within_their_ttl = check_live_nodes_are_those_renewed_within_their_ttl;
            arc concurrent_claims_of_one_game_by_several_nodes_have_exactly_one_winner = check_concurrent_claims_of_one_game_have_exactly_one_winner;
            arc a_takeover_during_a_fenced_commit_never_leaves_it_stored_but_unseen = check_a_takeover_during_a_fenced_commit_never_leaves_it_stored_but_unseen;
        }
    };
    // The checks every backend passes.
    (@all $fresh:path) => {
        $crate::store_contract_tests! {
            @each $fresh;
            ref a_commit_with_the_wrong_first_seq_is_rejected_and_stores_nothing = check_sequence_conflicts_store_nothing;
            ref list_pages_newest_first_and_filters_by_status = check_list_pages_newest_first_by_status;
            ref listings_follow_updated_ms_exactly_across_and_within_minutes = check_listings_follow_updated_ms_exactly_across_and_within_minutes;
            ref load_unfinished_skips_finished_games = check_load_unfinished_skips_finished_games;
            arc failing_store_fails_commits_and_stores_nothing = check_failing_store_fails_commits_and_stores_nothing;
            ref a_commit_after_close_is_refused_and_close_is_idempotent = check_commit_after_close_is_refused;
            ref commit_all_stores_every_commit_of_its_unit_or_none = check_commit_all_stores_every_commit_or_none;
            ref unlisted_games_are_in_no_listing_but_load_by_id = check_unlisted_games_are_in_no_listing_but_load;
            ref load_stale_pages_old_games_of_one_status_oldest_first = check_load_stale_pages_old_games_of_one_status_oldest_first;
            ref usernames_are_unique_case_insensitively_and_found_in_any_case = check_usernames_are_unique_case_insensitively;
            ref sessions_expire_after_thirty_idle_days_and_are_touched_at_most_hourly = check_sessions_expire_after_thirty_idle_days_touched_at_most_hourly;
            ref a_deleted_session_no_longer_resolves = check_a_deleted_session_is_gone_and_deleting_twice_is_fine;
            ref user_games_pages_a_users_games_newest_first_listed_or_not = check_user_games_pages_a_users_games_newest_first_listed_or_not;
            ref a_rated_end_rates_both_players_once_in_the_transaction_of_its_commit = check_a_rated_end_rates_both_players_once_with_its_commit;
            arc account_writes_fail_under_failure_injection_and_after_close = check_account_writes_fail_while_failing_and_after_close;
            ref chat_lines_come_back_per_room_oldest_first_and_the_newest_only = check_chat_lines_come_back_per_room_oldest_first;
            ref a_chat_room_keeps_only_its_last_lines = check_a_chat_room_keeps_only_its_last_lines;
            arc chat_appends_fail_under_failure_injection_and_after_close = check_chat_appends_fail_while_failing_and_after_close;
            ref the_turn_deadline_index_follows_each_commit_in_its_transaction = check_turn_deadlines_follow_the_commits;
            ref load_playing_leaves_out_correspondence_games_in_the_deadline_index = check_load_playing_leaves_out_games_in_the_index;
            arc a_failing_store_writes_no_deadline = check_failing_store_writes_no_deadline;
            ref account_settings_are_kept_per_user_replaced_whole_and_durable = check_account_settings_are_kept_per_user_and_replaced_whole;
            arc settings_saves_fail_while_the_store_is_failing_and_after_close = check_settings_saves_fail_while_failing_and_after_close;
            ref arenas_are_made_once_and_listed_by_range = check_arenas_are_made_once_and_listed_by_range;
            ref arena_players_come_back_in_join_order_and_keep_their_first_join = check_arena_players_keep_their_first_join;
            ref an_arenas_games_are_the_games_that_name_it_in_the_order_made = check_arena_games_are_the_games_that_name_it;
            arc arena_writes_fail_under_failure_injection_and_after_close = check_arena_writes_fail_while_failing_and_after_close;
            ref puzzles_are_imported_once_with_their_themes_sorted = check_puzzles_are_imported_once_with_their_themes_sorted;
            ref a_puzzle_round_rates_the_player_and_the_puzzle_once = check_a_round_rates_the_player_and_the_puzzle_once;
            ref puzzle_attempts_come_newest_first_with_the_rating_after = check_attempts_come_newest_first_with_the_rating_after;
            arc rounds_of_one_puzzle_at_once_all_count = check_rounds_of_one_puzzle_at_once_all_count;
            arc puzzle_writes_fail_under_failure_injection_and_after_close = check_puzzle_writes_fail_while_failing_and_after_close;
            ref the_nearest_puzzle_is_the_first_unplayed_at_or_above_the_target_else_below = check_the_nearest_puzzle_is_the_first_unplayed_at_or_above_else_below;
            ref puzzles_after_an_id_go_by_id_within_a_theme_and_wrap_round = check_puzzles_after_an_id_go_by_id_within_a_theme_and_wrap_round;
            ref lesson_steps_are_kept_once_per_user_with_their_first_time = check_lesson_steps_are_kept_once_per_user_with_their_first_time;
            arc lesson_writes_fail_under_failure_injection_and_after_close = check_lesson_writes_fail_while_failing_and_after_close;
            ref a_counted_game_adds_its_turns_once_whichever_way_it_comes = check_a_counted_game_adds_its_turns_once_whichever_way_it_comes;
            ref explorer_rows_are_apart_per_family_and_rated = check_explorer_rows_are_apart_per_family_and_rated;
            ref each_bucket_keeps_its_newest_examples_only = check_each_bucket_keeps_its_newest_examples_only;
            arc explorer_writes_fail_while_failing_and_count_nothing = check_explorer_writes_fail_while_failing_and_count_nothing;
            ref reports_are_filed_under_their_limit_and_listed_newest_first = check_reports_are_filed_under_their_limit_and_listed_newest_first;
            ref each_moderation_action_is_applied_logged_and_settles_the_related_reports = check_each_action_is_applied_logged_and_settles_the_related_reports;
            ref the_leaderboard_leaves_out_marked_players_and_a_users_lines_are_found = check_the_leaderboard_leaves_out_marked_players_and_a_users_lines_are_found;
            ref a_rated_end_with_a_marked_player_rates_nobody = check_a_rated_end_with_a_marked_player_rates_nobody;
            arc moderation_writes_fail_under_failure_injection = check_moderation_writes_fail_under_failure_injection;
            ref a_closed_or_deleted_account_has_no_session = check_a_closed_or_deleted_account_has_no_session;
            ref sessions_are_listed_live_newest_first_and_the_others_ended = check_sessions_are_listed_and_the_others_ended;
            ref a_deletion_keeps_the_games_without_the_name_or_the_data = check_a_deletion_keeps_the_games_without_the_name_or_the_data;
            arc account_control_writes_fail_under_failure_injection_and_after_close = check_account_control_writes_fail_while_failing_and_after_close;
            ref blocks_are_kept_once_listed_newest_first_and_related_both_ways = check_blocks_are_kept_once_listed_newest_first_and_related_both_ways;
            arc block_writes_fail_while_failing_and_after_close = check_block_writes_fail_while_failing_and_after_close;
            ref a_games_playban_outcome_counts_once_per_player_whichever_way_it_comes = check_a_games_playban_outcome_counts_once_per_player_whichever_way_it_comes;
            ref playban_outcomes_are_the_newest_of_a_window_oldest_first = check_playban_outcomes_are_the_newest_of_a_window_oldest_first;
            arc playban_writes_fail_while_failing = check_playban_writes_fail_while_failing;
        }
    };
    // `ref`: the check takes `&dyn Store`; `arc`: an `Arc<dyn Store>` (it wraps or shares it).
    (@each $fresh:path; $($kind:ident $name:ident = $check:ident;)*) => {
        $($crate::store_contract_tests!(@test $kind $fresh, $name, $check);)*
    };
    (@test ref $fresh:path, $name:ident, $check:ident) => {
        #[tokio::test]
        async fn $name() {
            use $crate::support::store_contract::{$check, bounded};
            let Some((_guard, store)) = $fresh(stringify!($name)).await else {
                return;
            };
            bounded($check(&store)).await;
            bounded(marseillais::server::store::Store::close(&store)).await;
        }
    };
    (@test arc $fresh:path, $name:ident, $check:ident) => {
        #[tokio::test]
        async fn $name() {
            use $crate::support::store_contract::{$check, bounded};
            let Some((_guard, store)) = $fresh(stringify!($name)).await else {
                return;
            };
            let store: std::sync::Arc<dyn marseillais::server::store::Store> =
                std::sync::Arc::new(store);
            bounded($check(std::sync::Arc::clone(&store))).await;
            bounded(store.close()).await;
        }
    };
}
