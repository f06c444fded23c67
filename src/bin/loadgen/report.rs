//! What `loadgen` prints at the end of a run: the report of each mode as lines of text and, with
//! `--json`, the same report as one JSON object on the last line of stdout (scripts/ and
//! docs/performance.md read both: the wording and the field names are an interface).

use crate::idle::IdleReport;
use crate::memory::MemoryReport;
use crate::play::{BotsReport, PlayReport};
use crate::server::Memory;
use crate::stats::Percentiles;

pub fn print_bots(r: &BotsReport, json: bool) {
    let clock = r.bot_clock.map_or("untimed".to_string(), |(base, inc)| {
        format!("{}+{inc}", base / 60)
    });
    println!(
        "bots: {} human games at {} sub-moves/s per game x {:.0} s, {} {} computer games (level {}, {clock}); engine threads {}",
        r.with_bots.games,
        r.with_bots.rate_per_game,
        r.with_bots.duration_secs,
        if r.bots_first {
            "with and then without"
        } else {
            "without and then with"
        },
        r.bot_games,
        r.bot_level,
        r.engine_threads
            .map_or("unknown".to_string(), |n| n.to_string())
    );
    let phases = if r.bots_first {
        [
            ("with bots", &r.with_bots),
            ("without bots", &r.without_bots),
        ]
    } else {
        [
            ("without bots", &r.without_bots),
            ("with bots", &r.with_bots),
        ]
    };
    for (name, phase) in phases {
        println!(
            "{}  [{name}]",
            line("move -> opponent", &phase.move_to_opponent)
        );
        let cpu = phase.server_cpu_secs.map_or("unknown".to_string(), |secs| {
            format!(
                "{secs:.1} s ({:.0}% of one core)",
                secs * 100.0 / phase.duration_secs
            )
        });
        let load = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.2}"));
        println!(
            "  {name}: accepted {:.1} sub-moves/s; server CPU {cpu}; load average {} -> {}; errors {:?}; stalled {}",
            phase.accepted_per_sec,
            load(phase.load_average.0),
            load(phase.load_average.1),
            phase.errors,
            phase.games_stalled
        );
    }
    println!(
        "computer: {} sub-moves in the window ({:.2}/s); {}",
        r.computer_submoves,
        r.computer_submoves_per_sec,
        line("reply", &r.computer_reply)
    );
    println!(
        "computer games: {} of {} ready in {:.1} s; {} started, {} finished (endings {:?}), {} setup failures; errors {:?}; closes {:?}; unparsed {}",
        r.bot_slots_ready,
        r.bot_games,
        r.bot_setup_secs,
        r.bot_games_started,
        r.bot_games_finished,
        r.bot_endings,
        r.bot_setup_failures,
        r.bot_errors,
        r.bot_closes,
        r.bot_unparsed
    );
    println!(
        "engine searches running peak {} (engine threads {}: {})",
        r.engine_searches_running_peak
            .map_or("unknown".to_string(), |p| format!("{p:.0}")),
        r.engine_threads
            .map_or("unknown".to_string(), |n| n.to_string()),
        match r.engine_peak_within_threads {
            Some(true) => "within",
            Some(false) => "ABOVE THE CAP",
            None => "not checked",
        }
    );
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

fn line(name: &str, p: &Option<Percentiles>) -> String {
    match p {
        Some(p) => format!(
            "{name:<22} p50 {:>8.3} ms  p99 {:>8.3} ms  p999 {:>8.3} ms  max {:>8.3} ms  (n={})",
            p.p50_ms, p.p99_ms, p.p999_ms, p.max_ms, p.count
        ),
        None => format!("{name:<22} no samples"),
    }
}

fn mib(m: &Option<Memory>) -> String {
    match m {
        Some(m) => format!(
            "RSS {:.1} MiB (peak {:.1} MiB)",
            m.rss_kib as f64 / 1024.0,
            m.hwm_kib as f64 / 1024.0
        ),
        None => "unknown".to_string(),
    }
}

pub fn print_play(r: &PlayReport, json: bool) {
    if r.nodes > 1 {
        println!(
            "{} nodes, players placed: {:?} (on the node that created the game, or on others)",
            r.nodes, r.placement
        );
    }
    println!(
        "mode {:?}: {} games x {} spectators, {} sub-moves/s per game, {:.0} s window (setup took {:.1} s)",
        r.mode, r.games, r.spectators_per_game, r.rate_per_game, r.duration_secs, r.setup_secs
    );
    println!(
        "accepted sub-moves/s   {:.1}  (sent {:.1}/s; {} acks in window, {} in all)",
        r.accepted_per_sec, r.sent_per_sec, r.accepted, r.accepted_total
    );
    println!("{}", line("move -> opponent", &r.move_to_opponent));
    println!("{}", line("move -> spectator", &r.move_to_spectator));
    println!("{}", line("move -> own ack", &r.move_to_ack));
    println!(
        "{}  [{} conns, {} B messages (move events avg {:.0} B), {} lost]",
        line("echo round trip", &r.echo_round_trip),
        r.echo_connections,
        r.echo_bytes,
        r.mean_move_event_bytes,
        r.echo_lost
    );
    println!(
        "{}  [4 KiB write + fsync every 50 ms next to the data]",
        line("disk fsync", &r.fsync)
    );
    if r.hellos_sent_per_sec > 0.0 {
        println!(
            "spectator hellos        {:.1}/s sent, {:.1} state replies/s (avg {:.0} B)",
            r.hellos_sent_per_sec, r.states_per_sec, r.mean_state_bytes
        );
    }
    println!(
        "games: {} started, {} finished, {} stalled, {} setup failures; errors {:?}; closes {:?}; unparsed {}",
        r.games_started,
        r.games_finished,
        r.games_stalled,
        r.setup_failures,
        r.errors,
        r.closes,
        r.unparsed
    );
    println!(
        "connections: {} opened by the load generator; server reports {}",
        r.client_connections,
        r.counters_after_setup.map_or("?".to_string(), |c| format!(
            "{:.0} (live games {:.0})",
            c.connections, c.live_games
        ))
    );
    println!("server memory before     {}", mib(&r.server_before));
    println!("server memory after setup {}", mib(&r.server_after_setup));
    println!("server memory at the end {}", mib(&r.server_end));
    println!("loadgen memory at the end {}", mib(&r.loadgen_end));
    if let Some(c) = r.counters_end {
        println!(
            "server: {:.0} sub-moves accepted in all; mean receive->broadcast {:.3} ms; mean commit {:.3} ms",
            c.submoves_accepted_total, c.move_seconds_mean_ms, c.commit_seconds_mean_ms
        );
    }
    let per_move = |cpu: Option<f64>| match cpu {
        Some(secs) if r.accepted > 0 => format!(
            "{secs:.1} s ({:.0} us per accepted sub-move, {:.0}% of one core)",
            secs * 1e6 / r.accepted as f64,
            secs * 100.0 / r.duration_secs
        ),
        Some(secs) => format!("{secs:.1} s"),
        None => "unknown".to_string(),
    };
    println!("server CPU in window     {}", per_move(r.server_cpu_secs));
    println!("loadgen CPU in window    {}", per_move(r.loadgen_cpu_secs));
    let echoes = r.echo_round_trip.map_or(0, |p| p.count);
    println!(
        "echo server CPU          {}",
        match r.echo_cpu_secs {
            Some(secs) if echoes > 0 => format!(
                "{secs:.2} s ({:.1} us per echoed message, {echoes} messages)",
                secs * 1e6 / echoes as f64
            ),
            _ => "unknown".to_string(),
        }
    );
    let load = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x:.2}"));
    println!(
        "machine load average     {} at the start, {} at the end (2 cores)",
        load(r.load_average.0),
        load(r.load_average.1)
    );
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

pub fn print_memory(r: &MemoryReport, json: bool) {
    println!(
        "memory: {} games x {} spectators ({} set up in {:.1} s); {} games replaced (endings {:?}), {} stalled, {} setup failures; errors {:?}; closes {:?}; unparsed {}",
        r.games,
        r.spectators_per_game,
        r.games_set_up,
        r.setup_secs,
        r.games_replaced,
        r.endings,
        r.games_stalled,
        r.setup_failures,
        r.errors,
        r.closes,
        r.unparsed
    );
    println!("server memory before      {}", mib(&r.server_before));
    println!(
        "server memory after warm-up {} ({} of {} games to the last checkpoint)",
        mib(&r.server_after_warmup),
        r.warmup_reached,
        r.warmup_games
    );
    println!("server memory after setup {}", mib(&r.server_after_setup));
    for c in &r.checkpoints {
        let per =
            |x: Option<f64>, unit: &str| x.map_or("?".to_string(), |x| format!("{x:.1} {unit}"));
        println!(
            "{:>6} sub-moves/game: {} ({} of {} games there, {:.1} s, {} sub-moves since setup, {} replaced): {} per live game, {} per sub-move",
            c.submoves_per_game,
            mib(&c.server),
            c.games_reached,
            r.games_set_up,
            c.phase_secs,
            c.accepted_since_setup,
            c.games_replaced_so_far,
            per(c.rss_per_game_kib, "KiB"),
            per(c.rss_per_submove_bytes, "B")
        );
    }
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

pub fn print_pools(r: &crate::pools::PoolsReport, json: bool) {
    println!(
        "pools: {} pages ({} failed) in {} for {:.1} s: {} pairings ({:.1} games/s), {} refused",
        r.pages, r.pages_failed, r.pool, r.seconds, r.pairings, r.games_per_sec, r.refused
    );
    if let Some(w) = &r.wait_ms {
        println!(
            "pool_in -> pool_paired: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} samples)",
            w.p50_ms, w.p99_ms, w.max_ms, w.count
        );
    }
    if let (Some(cpu), Some(per_game)) = (r.server_cpu_secs, r.server_cpu_ms_per_game) {
        println!("server CPU: {cpu:.2} s, {per_game:.2} ms per game made");
    }
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

pub fn print_puzzles(r: &crate::puzzles::PuzzlesReport, json: bool) {
    println!(
        "puzzles: {} stored, {} accounts ({} failed) for {:.1} s: {} rounds, {} errors",
        r.puzzles_stored, r.accounts, r.accounts_failed, r.seconds, r.rounds, r.errors
    );
    for (what, p) in [
        ("next puzzle (signed in)", &r.next_ms),
        ("next puzzle (anonymous)", &r.next_anonymous_ms),
    ] {
        if let Some(p) = p {
            println!(
                "{what}: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} samples)",
                p.p50_ms, p.p99_ms, p.max_ms, p.count
            );
        }
    }
    if let Some(cpu) = r.server_cpu_secs {
        println!("server CPU: {cpu:.2} s");
    }
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

pub fn print_tournament(r: &crate::tournament::TournamentReport, json: bool) {
    println!(
        "tournament: {} players ({} failed), set up in {:.1} s, {:.1} s of play: {} games opened, {} finished",
        r.players,
        r.players_failed,
        r.setup_seconds,
        r.seconds,
        r.games_opened / 2,
        r.games_finished / 2
    );
    for (what, p) in [
        ("join -> first game", &r.first_pairing_ms),
        ("game end -> next game", &r.next_pairing_ms),
    ] {
        if let Some(p) = p {
            println!(
                "{what}: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms ({} samples)",
                p.p50_ms, p.p99_ms, p.max_ms, p.count
            );
        }
    }
    if let (Some(steps), Some(mean)) = (r.pairing_steps, r.pairing_step_mean_ms) {
        println!(
            "server pairing steps that paired: {steps:.0}, mean decision {mean:.2} ms, mean whole step {:.0} ms",
            r.step_mean_ms.unwrap_or(0.0)
        );
    }
    if let (Some(cpu), Some(per_game)) = (r.server_cpu_secs, r.server_cpu_ms_per_game) {
        println!("server CPU: {cpu:.2} s, {per_game:.2} ms per game made");
    }
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}

pub fn print_idle(r: &IdleReport, json: bool) {
    println!(
        "idle: {} rooms ({} failed), {} connections ({} failed)",
        r.rooms, r.rooms_failed, r.connections, r.connections_failed
    );
    println!(
        "server RSS: baseline {} KiB, after rooms {} KiB, after connections {} KiB (peak {} KiB)",
        r.baseline.rss_kib,
        r.after_rooms.rss_kib,
        r.after_connections.rss_kib,
        r.after_connections.hwm_kib
    );
    println!(
        "per room {:.0} B ({:.2} KiB); per connection {:.0} B ({:.2} KiB); server reports {:.0} connections, {:.0} live games",
        r.bytes_per_room,
        r.bytes_per_room / 1024.0,
        r.bytes_per_connection,
        r.bytes_per_connection / 1024.0,
        r.server_connections_metric,
        r.server_live_games_metric
    );
    println!(
        "marginal (the second half alone): per room {:.0} B ({:.2} KiB); per connection {:.0} B ({:.2} KiB)",
        r.marginal_bytes_per_room,
        r.marginal_bytes_per_room / 1024.0,
        r.marginal_bytes_per_connection,
        r.marginal_bytes_per_connection / 1024.0
    );
    println!(
        "server CPU over {:.0} s windows: base {:.0} µs/s; per idle connection {:.2} µs/s; games being played, nobody moving ({} failed): per untimed game {:.2} µs/s ({} games), per game with a clock {:.2} µs/s ({} games)",
        r.window_secs,
        r.cpu_base_us_per_sec,
        r.cpu_us_per_connection_per_sec,
        r.playing_games_failed,
        r.cpu_us_per_untimed_game_per_sec,
        r.untimed_games,
        r.cpu_us_per_playing_game_per_sec,
        r.playing_games
    );
    if json {
        println!("{}", serde_json::to_string(r).unwrap_or_default());
    }
}
