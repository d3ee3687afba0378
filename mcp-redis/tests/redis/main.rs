//! The tests on a real `redis-server`, one binary: the store itself
//! (`redis_store`), several server instances sharing it (`shared_redis`,
//! with the task owners in `shared_redis::task_owner`), and DPoP's replay
//! record across instances (`dpop_replay`). Each test starts a Redis of its
//! own on a free loopback port (`mcp_test_support::redis_server`), so they
//! run side by side.
//!
//! The modules are `pub`, as each file's items were at the root of a binary
//! of its own: the lints see the same reachable items as before.

pub mod dpop_replay;
pub mod redis_store;
pub mod shared_redis;
