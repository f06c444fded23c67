//! Several nodes on one PostgreSQL and one Redis: the bus, ownership, failover, features across
//! nodes and the kill -9 run (docs/reliability.md, section 15).

mod arenas;
mod bus_redis;
mod crash;
mod explorer;
mod failover;
mod features;
mod health;
mod lobby;
mod nodes;
mod puzzles;
