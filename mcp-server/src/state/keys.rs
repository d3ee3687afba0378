//! The keys that sign 2026-07-28 `requestState`s ([`SigningKeys`]): shared
//! by every instance behind a load balancer, as the store is.

use oxmcp_wire::header::base64;
use oxmcp_wire::keyring::{Entropy, Key, KeyError, KeyRing};

/// The keys that sign and check 2026-07-28 `requestState`s: one signs,
/// the others still verify (a rotation: a new key signs at once, the one
/// before keeps verifying the states it signed until it is retired, at the
/// latest ten minutes later, when they have all expired). Every instance
/// behind a load balancer is given the same keys, so a retry may reach any
/// of them.
///
/// Each secret has 32 random bytes or more, and each key a name of its own:
/// a server is not built with keys that break this
/// ([`try_build`](crate::ServerBuilder::try_build) says which key).
///
/// ```
/// use oxmcp_server::state::SigningKeys;
///
/// // Rotating: `2026-12` signs from now on; `2026-11` still verifies.
/// let keys = SigningKeys::new("2026-12", *b"0123456789abcdef0123456789abcdef")
///     .verifying("2026-11", *b"fedcba9876543210fedcba9876543210");
/// let server = oxmcp_server::Server::builder("notes", "1.0")
///     .request_state_keys(keys)
///     .build();
/// # let _ = server;
/// ```
#[derive(Clone)]
pub struct SigningKeys {
    /// The names of the keys are sent base64url-encoded in every state.
    ring: KeyRing,
}

impl std::fmt::Debug for SigningKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.ring.debug_as("SigningKeys", f)
    }
}

impl SigningKeys {
    /// Signs (and verifies) with `secret` (32 random bytes or more), named
    /// `id`.
    pub fn new(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Self {
        SigningKeys {
            ring: KeyRing::unchecked(id, secret),
        }
    }

    /// Also accepts states signed with `secret`, named `id` (a key rotated
    /// out, kept until the states it signed have expired).
    #[must_use]
    pub fn verifying(self, id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Self {
        SigningKeys {
            ring: self.ring.verifying_unchecked(id, secret),
        }
    }

    /// The keys in the environment variable `MCP_REQUEST_STATE_KEYS`
    /// ([`ENV_VAR`](Self::ENV_VAR)), which every instance of a service is
    /// given alike, as [`parse`](Self::parse) reads them; `Ok(None)` when
    /// it is not set (one instance alone needs no keys: it makes its own).
    ///
    /// ```no_run
    /// use oxmcp_server::{state::SigningKeys, Server};
    ///
    /// # fn main() -> Result<(), oxmcp_server::state::KeysError> {
    /// let mut builder = Server::builder("notes", "1.0");
    /// if let Some(keys) = SigningKeys::from_env()? {
    ///     builder = builder.request_state_keys(keys);
    /// }
    /// # let _ = builder;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// A value that is not Unicode, or that [`parse`](Self::parse) refuses;
    /// the error names the variable and what to write.
    pub fn from_env() -> Result<Option<SigningKeys>, KeysError> {
        Self::from_var(std::env::var(Self::ENV_VAR))
    }

    /// [`from_env`](Self::from_env) given what the variable holds (tested
    /// without changing the environment, which other tests' threads read).
    fn from_var(
        value: Result<String, std::env::VarError>,
    ) -> Result<Option<SigningKeys>, KeysError> {
        match value {
            Ok(text) => Self::parse(&text).map(Some).map_err(KeysError::in_env),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(KeysError::new("is not Unicode").in_env())
            }
        }
    }

    /// The environment variable [`from_env`](Self::from_env) reads.
    pub const ENV_VAR: &'static str = "MCP_REQUEST_STATE_KEYS";

    /// Keys written as `id:hex[,id:hex...]`: each key's name, a colon, and
    /// its secret in hex, 32 bytes (64 hex digits) or more; the first key
    /// signs and the others only verify (keys being retired). Spaces
    /// around a pair are ignored. `openssl rand -hex 32` makes a secret.
    ///
    /// ```
    /// use oxmcp_server::state::SigningKeys;
    ///
    /// let secret = "00".repeat(32);
    /// assert!(SigningKeys::parse(&format!("k2:{secret}, k1:{secret}")).is_ok());
    /// assert!(SigningKeys::parse("k1:abc").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// No key, a pair without its colon, a name that is empty or used
    /// twice, or a secret that is not hex or shorter than 32 bytes.
    pub fn parse(text: &str) -> Result<SigningKeys, KeysError> {
        let mut keys: Option<SigningKeys> = None;
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((id, hex)) = pair.split_once(':') else {
                return Err(KeysError::new(format!(
                    "has `{}`, which is not id:hex",
                    shortened(pair)
                )));
            };
            let secret = crate::common::unhex(hex)
                .filter(|s| s.len() >= 32)
                .ok_or_else(|| {
                    KeysError::new(format!(
                        "has key `{id}` whose secret is not 64 hex digits or more"
                    ))
                })?;
            keys = Some(match keys {
                None => SigningKeys::new(id, secret),
                Some(keys) => keys.verifying(id, secret),
            });
        }
        let keys = keys.ok_or_else(|| KeysError::new("names no key"))?;
        // An empty name, a name used twice: what the builder would refuse.
        keys.check()
            .map_err(|e| KeysError::new(format!("is refused: {e}")))?;
        Ok(keys)
    }

    /// Why these keys may not sign, if they may not: a secret shorter than
    /// 32 bytes, a key without a name, or two keys with one name. Checked
    /// when the server is built, as [`SigningKeys::new`] cannot fail.
    pub(crate) fn check(&self) -> Result<(), KeyError> {
        self.ring.check()
    }

    /// A random key of this process alone (states then die with it), under
    /// a random name, so that a state of another process is told apart from
    /// an altered one.
    pub(crate) fn random() -> Self {
        let (ring, entropy) = KeyRing::random("local");
        if entropy == Entropy::Fallback {
            tracing::error!("no random source for the requestState key; configure one with ServerBuilder::request_state_keys");
        }
        SigningKeys { ring }
    }

    /// The key that signs.
    pub(crate) fn signing(&self) -> &Key {
        self.ring.signing()
    }

    /// The key named `id` (base64url), signing or verifying.
    pub(crate) fn by_encoded_id(&self, id: &str) -> Option<&Key> {
        self.ring
            .keys()
            .find(|k| base64::encode(k.id().as_bytes()) == id)
    }
}

/// A pair cut after 12 characters for an error (it may be a secret
/// written without its name: no more than its start is shown).
fn shortened(pair: &str) -> String {
    match pair.char_indices().nth(12) {
        Some((cut, _)) => format!("{}…", &pair[..cut]),
        None => pair.to_owned(),
    }
}

/// Keys that [`SigningKeys::parse`] or [`SigningKeys::from_env`] refuse:
/// the message says what is wrong and the form to write
/// (``MCP_REQUEST_STATE_KEYS has key `k1` whose secret is not 64 hex digits
/// or more: write id:hex[,id:hex...], ...``).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeysError {
    /// The environment variable the keys came from, if they did.
    var: Option<&'static str>,
    problem: String,
}

impl KeysError {
    fn new(problem: impl Into<String>) -> KeysError {
        KeysError {
            var: None,
            problem: problem.into(),
        }
    }

    fn in_env(self) -> KeysError {
        KeysError {
            var: Some(SigningKeys::ENV_VAR),
            ..self
        }
    }
}

impl std::fmt::Display for KeysError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}: write id:hex[,id:hex...], the same on every instance, each secret 32 random bytes or more in hex (openssl rand -hex 32), the first key signing",
            self.var.unwrap_or("the requestState keys"),
            self.problem
        )
    }
}

impl std::error::Error for KeysError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret() -> String {
        "0f".repeat(32)
    }

    #[test]
    fn keys_parse_with_the_first_signing() {
        let keys = SigningKeys::parse(&format!(" new:{}, old:{} ", secret(), "AB".repeat(40)))
            .expect("two good keys");
        assert_eq!(keys.signing().id(), "new");
        let ids: Vec<&str> = keys.ring.keys().map(Key::id).collect();
        assert_eq!(ids, ["new", "old"]);
    }

    #[test]
    fn malformed_keys_are_named_with_the_form_to_write() {
        let cases = [
            (String::new(), "the requestState keys names no key"),
            (" , ".to_owned(), "names no key"),
            (secret(), "has `0f0f0f0f0f0f…`, which is not id:hex"),
            (
                "k1:abc".to_owned(),
                "has key `k1` whose secret is not 64 hex digits or more",
            ),
            (
                format!("k1:{}", "0f".repeat(31)),
                "key `k1` whose secret is not 64",
            ),
            (
                format!("k1:+{}", "0".repeat(63)),
                "key `k1` whose secret is not 64",
            ),
            (format!("k1:{},k1:{}", secret(), secret()), "is refused"),
            (format!(":{}", secret()), "is refused"),
        ];
        for (text, want) in cases {
            let e = SigningKeys::parse(&text).expect_err(&text).to_string();
            assert!(e.contains(want), "{text}: {e}");
            assert!(e.contains("write id:hex[,id:hex...]"), "{e}");
            assert!(!e.contains(&secret()), "no secret in {e}");
        }
    }

    #[test]
    fn the_variable_gives_keys_nothing_or_an_error_naming_it() {
        use std::env::VarError;
        let read = |v| SigningKeys::from_var(v).map(|k| k.is_some());
        assert_eq!(read(Err(VarError::NotPresent)), Ok(false));
        assert_eq!(read(Ok(format!("k1:{}", secret()))), Ok(true));
        let e = read(Ok("k1".to_owned()))
            .expect_err("malformed")
            .to_string();
        assert!(
            e.starts_with("MCP_REQUEST_STATE_KEYS has `k1`, which is not id:hex: write id:hex"),
            "{e}"
        );
        let e = read(Err(VarError::NotUnicode("\u{fffd}".into())))
            .expect_err("not Unicode")
            .to_string();
        assert!(
            e.starts_with("MCP_REQUEST_STATE_KEYS is not Unicode"),
            "{e}"
        );
    }
}
