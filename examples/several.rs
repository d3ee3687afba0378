//! What the examples share to run as several instances of one service
//! (`--redis URL`): the store on Redis for sessions, replay and the bus,
//! and the keys that sign 2026-07-28 `requestState`, the same on every
//! instance.

use oxmcp_server::state::SigningKeys;

/// The environment variable naming the `requestState` keys: `id:hex`
/// pairs separated by commas, the first one signing, the others only
/// verifying (keys being retired). Each secret is at least 32 bytes
/// (64 hex digits).
pub const KEYS_VAR: &str = "MCP_REQUEST_STATE_KEYS";

/// The store at `url` (`redis://host:port/db`) and the keys from
/// [`KEYS_VAR`]; exits with a message naming what is wrong.
pub async fn connect(program: &str, url: &str) -> (oxmcp_redis::RedisStore, SigningKeys) {
    let keys = match keys_from_env() {
        Ok(keys) => keys,
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

/// The keys [`KEYS_VAR`] names.
pub fn keys_from_env() -> Result<SigningKeys, String> {
    let value = std::env::var(KEYS_VAR).map_err(|_| {
        format!("with --redis, set {KEYS_VAR} to the requestState keys every instance shares (id:hex[,id:hex...], 32 bytes or more each; the first signs)")
    })?;
    let mut keys: Option<SigningKeys> = None;
    for pair in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (id, hex) = pair
            .split_once(':')
            .ok_or_else(|| format!("{KEYS_VAR}: `{pair}` is not id:hex"))?;
        let secret = decode_hex(hex)
            .filter(|s| s.len() >= 32)
            .ok_or_else(|| format!("{KEYS_VAR}: key `{id}` must be at least 64 hex digits"))?;
        keys = Some(match keys {
            None => SigningKeys::new(id, secret),
            Some(keys) => keys.verifying(id, secret),
        });
    }
    keys.ok_or_else(|| format!("{KEYS_VAR} names no key"))
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 || !hex.is_ascii() {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}
