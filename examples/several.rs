//! What the examples share to run as several instances of one service
//! (`--redis URL`): the store on Redis for sessions, replay and the bus,
//! and the keys that sign 2026-07-28 `requestState`, the same on every
//! instance, from `MCP_REQUEST_STATE_KEYS` (`SigningKeys::from_env`).

use oxmcp_server::state::SigningKeys;

/// The store at `url` (`redis://host:port/db`) and the keys from
/// `MCP_REQUEST_STATE_KEYS`; exits with a message naming what is wrong.
pub async fn connect(program: &str, url: &str) -> (oxmcp_redis::RedisStore, SigningKeys) {
    let keys = match SigningKeys::from_env() {
        Ok(Some(keys)) => keys,
        Ok(None) => {
            eprintln!(
                "{program}: with --redis, set {} to the requestState keys every instance shares (id:hex[,id:hex...], 32 bytes or more each; the first signs)",
                SigningKeys::ENV_VAR
            );
            std::process::exit(2);
        }
        Err(why) => {
            eprintln!("{program}: {why}");
            std::process::exit(2);
        }
    };
    match oxmcp_redis::RedisStore::connect(url).await {
        Ok(store) => (store, keys),
        Err(e) => {
            eprintln!("{program}: cannot connect to Redis at {url}: {e}");
            std::process::exit(1);
        }
    }
}
