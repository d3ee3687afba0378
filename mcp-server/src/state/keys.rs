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
