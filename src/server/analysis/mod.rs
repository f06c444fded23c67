//! Analysis (issue 10): the engine's evaluation and best turn for every position of a game,
//! streamed as it is computed. Two entry points, one engine:
//! - `POST /api/analysis`: the body of `POST /api/replay` (`{"pgn": ...}` or `{"fen": ...}`),
//!   read by the very same code ([`replay::game_of_body`]), so bad input gets exactly the
//!   replay's typed errors (400, with the turn and sub-move it failed at);
//! - `GET /api/games/{id}/analysis`: a finished game of this server. An open or playing game
//!   is refused (`409 game_not_over`): analysis of a live game would be a cheating aid.
//!
//! The answer is `application/x-ndjson`: one JSON line per position (the start, then after
//! each sub-move), then `{"done": true, ...}`, or `{"error": ...}` if a search failed. Lines
//! are written as they are computed, so a long game shows its first evaluations at once.
//!
//! Cost: every search goes through the engine pool
//! ([`crate::server::computer::engine_pool::EnginePool::run`]), one position per run, so
//! analyses and computer games take turns on the `--engine-threads` slots (the pool's semaphore
//! is fair). One [`crate::engine::Engine`] per analysis (a small table, [`stream::HASH_MB`]),
//! moved into each search and back out, so what it learnt on one position (TT, history) helps
//! the next. The engine time of an analysis is bounded by [`budget::Budget`]; how many
//! analyses run at once by `--max-concurrent-analyses` (503 `busy` beyond it, so analyses
//! can never hold every engine slot); how often one address may start one by
//! `--analysis-rate-per-min` (429 `rate_limited`).
//!
//! A client that goes away stops its analysis: hyper drops the response body, which drops
//! the search future, and the pool then raises the search's stop flag (the thread is back
//! at the engine's next node check). A server shutdown ends the stream with an error line.
//!
//! | part | module |
//! |---|---|
//! | the routes, the request read and admitted | [`routes`] |
//! | what an analysis may cost, how many at once | [`budget`] |
//! | one analysis as it runs, its NDJSON lines | [`stream`] |
//! | the replay page and the record a body names | [`replay`] |
//! | the analysis board's routes: its page, a position, PGN with variations, lines | [`board`] |
//! | one position's legal sub-moves as the board shows them | [`position`] |
//! | the move tree as JSON, read and written on a deep stack | [`tree`] |
//! | judgements and accuracy of a game analysis (its `done` line), pure | [`accuracy`] |
//! | the board's engine lines: budget, rate, newest wins, the NDJSON stream | [`lines`] |
//! | several best turns at one depth (multi-PV), the threat's position | [`multipv`] |

pub mod accuracy;
pub mod board;
pub mod budget;
pub mod lines;
pub mod multipv;
pub mod position;
pub mod replay;
pub mod routes;
pub mod stream;
pub mod tree;

pub use budget::Analyses;
pub use routes::{AnalysisState, router};
