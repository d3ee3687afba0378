//! The HMAC-SHA256 key ring behind every state this project signs and later
//! takes back from someone it does not trust: the server's 2026-07-28
//! `requestState` and the agent's paused runs. One key signs, the others
//! still verify (a rotation: a new key signs at once, the one before keeps
//! verifying what it signed until it is retired); each key has a name, which
//! every signed state carries so that the right key checks it.
//!
//! Each user names what its tags are for (a [`Purpose`]): the MAC covers the
//! purpose, the key's name and the state, so a tag made for one user never
//! verifies for another, even when both were given the same secret.

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::header::base64;

type HmacSha256 = Hmac<Sha256>;

/// The least secret a key takes, in bytes: what resists guessing.
pub const MIN_SECRET: usize = 32;

/// What a tag is for: the first thing its MAC covers, so that a tag made for
/// one purpose never fits another. Made in a `const`, where a bad name
/// fails the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Purpose(&'static str);

impl Purpose {
    /// A purpose named `name`: not empty and without a NUL byte, which ends
    /// it in the MAC (so no purpose is the start of another).
    ///
    /// # Panics
    ///
    /// For an empty name or one with a NUL byte (at compile time in a `const`).
    pub const fn new(name: &'static str) -> Purpose {
        let bytes = name.as_bytes();
        assert!(!bytes.is_empty(), "a purpose needs a name");
        let mut i = 0;
        while i < bytes.len() {
            assert!(bytes[i] != 0, "a purpose has no NUL byte");
            i += 1;
        }
        Purpose(name)
    }
}

/// A key a [`KeyRing`] does not take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// The secret is too short to resist guessing.
    TooShort {
        /// The key's name.
        id: String,
        /// The secret's length.
        len: usize,
    },
    /// A key without a name.
    Unnamed,
    /// Two keys with one name: a state naming it could not say which.
    Duplicate {
        /// The name.
        id: String,
    },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::TooShort { id, len } => write!(
                f,
                "the secret of key `{id}` has {len} bytes; it needs at least {MIN_SECRET} random bytes"
            ),
            KeyError::Unnamed => {
                f.write_str("a key needs a name (each signed state names the key that signed it)")
            }
            KeyError::Duplicate { id } => write!(f, "two keys are named `{id}`"),
        }
    }
}

impl std::error::Error for KeyError {}

/// One named secret.
#[derive(Clone)]
pub struct Key {
    id: String,
    secret: Vec<u8>,
}

impl fmt::Debug for Key {
    /// The name only: a secret is never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Key {
    /// The key's name, as states carry it.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The HMAC-SHA256 tag of `state` under this key, for `purpose`.
    pub fn tag(&self, purpose: Purpose, state: &[u8]) -> [u8; 32] {
        self.mac(purpose, state).finalize().into_bytes().into()
    }

    /// Whether `tag` is this key's tag of `state` for `purpose` (compared in
    /// constant time).
    pub fn verifies(&self, purpose: Purpose, state: &[u8], tag: &[u8]) -> bool {
        self.mac(purpose, state).verify_slice(tag).is_ok()
    }

    /// The MAC over `purpose` NUL `name` NUL `state`.
    fn mac(&self, purpose: Purpose, state: &[u8]) -> HmacSha256 {
        let mut mac =
            HmacSha256::new_from_slice(&self.secret).expect("HMAC takes keys of any length");
        mac.update(purpose.0.as_bytes());
        mac.update(&[0]);
        mac.update(self.id.as_bytes());
        mac.update(&[0]);
        mac.update(state);
        mac
    }

    /// Why this key alone is not fit to sign, if it is not.
    fn check(&self) -> Result<(), KeyError> {
        if self.id.is_empty() {
            return Err(KeyError::Unnamed);
        }
        if self.secret.len() < MIN_SECRET {
            return Err(KeyError::TooShort {
                id: self.id.clone(),
                len: self.secret.len(),
            });
        }
        Ok(())
    }
}

/// The keys that sign and check one kind of state: one signs, the others
/// still verify.
#[derive(Clone)]
pub struct KeyRing {
    signing: Key,
    verifying: Vec<Key>,
}

impl KeyRing {
    /// Signs (and verifies) with `secret` (at least [`MIN_SECRET`] random
    /// bytes), named `id`.
    ///
    /// # Errors
    ///
    /// [`KeyError::TooShort`] for a shorter secret, [`KeyError::Unnamed`]
    /// for an empty name.
    pub fn new(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> Result<KeyRing, KeyError> {
        let ring = KeyRing::unchecked(id, secret);
        ring.signing.check()?;
        Ok(ring)
    }

    /// Also verifies with `secret`, named `id` (a key rotated out).
    ///
    /// # Errors
    ///
    /// As [`KeyRing::new`], and [`KeyError::Duplicate`] for a name already used.
    pub fn verifying(
        self,
        id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Result<KeyRing, KeyError> {
        let ring = self.verifying_unchecked(id, secret);
        let added = ring.verifying.last().unwrap_or(&ring.signing);
        added.check()?;
        if ring.keys().filter(|k| k.id == added.id).count() > 1 {
            return Err(KeyError::Duplicate {
                id: added.id.clone(),
            });
        }
        Ok(ring)
    }

    /// A ring of `secret` named `id`, not checked yet: for an API that
    /// cannot fail where the key is given, and checks it
    /// ([`check`](Self::check)) where it can.
    pub fn unchecked(id: impl Into<String>, secret: impl Into<Vec<u8>>) -> KeyRing {
        KeyRing {
            signing: Key {
                id: id.into(),
                secret: secret.into(),
            },
            verifying: Vec::new(),
        }
    }

    /// [`verifying`](Self::verifying), not checked yet (see
    /// [`unchecked`](Self::unchecked)).
    #[must_use]
    pub fn verifying_unchecked(
        mut self,
        id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> KeyRing {
        self.verifying.push(Key {
            id: id.into(),
            secret: secret.into(),
        });
        self
    }

    /// Why the ring is not fit to sign, if it is not: the first key that
    /// is too short or unnamed, or the first name given twice.
    ///
    /// # Errors
    ///
    /// As [`KeyRing::verifying`].
    pub fn check(&self) -> Result<(), KeyError> {
        for (i, key) in self.keys().enumerate() {
            key.check()?;
            if self.keys().take(i).any(|earlier| earlier.id == key.id) {
                return Err(KeyError::Duplicate { id: key.id.clone() });
            }
        }
        Ok(())
    }

    /// A random key of this process alone, named `prefix-` and random
    /// characters (so a state of another process is told apart from an
    /// altered one), and where its bytes came from: log a
    /// [`Entropy::Fallback`], asking for configured keys.
    pub fn random(prefix: &str) -> (KeyRing, Entropy) {
        let mut bytes = [0u8; MIN_SECRET + 8];
        let entropy = fill_random(&mut bytes);
        let (secret, name) = bytes.split_at(MIN_SECRET);
        let ring = KeyRing::unchecked(format!("{prefix}-{}", base64::encode(name)), secret);
        (ring, entropy)
    }

    /// The key that signs.
    pub fn signing(&self) -> &Key {
        &self.signing
    }

    /// Every key, the signing one first.
    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        std::iter::once(&self.signing).chain(&self.verifying)
    }

    /// The key named `id`, signing or verifying.
    pub fn by_id(&self, id: &str) -> Option<&Key> {
        self.keys().find(|k| k.id == id)
    }

    /// Writes the ring for `Debug` as `name` (the type wrapping it): the
    /// keys' names, never their secrets.
    ///
    /// # Errors
    ///
    /// The formatter's.
    pub fn debug_as(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verifying: Vec<&str> = self.verifying.iter().map(Key::id).collect();
        f.debug_struct(name)
            .field("signing", &self.signing.id)
            .field("verifying", &verifying)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.debug_as("KeyRing", f)
    }
}

/// Where random bytes came from.
#[must_use = "a fallback is weak: log it"]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entropy {
    /// The system's random source.
    System,
    /// No random source (never seen on the platforms Tokio runs on): the
    /// standard library's per-process hash seeds and the clock, which are
    /// not secret enough for a key.
    Fallback,
}

/// Fills `bytes` with random bytes, from the system when it can.
pub fn fill_random(bytes: &mut [u8]) -> Entropy {
    if getrandom::fill(bytes).is_ok() {
        return Entropy::System;
    }
    let now = std::time::SystemTime::now();
    for chunk in bytes.chunks_mut(8) {
        use std::hash::BuildHasher as _;
        let seed = std::collections::hash_map::RandomState::new().hash_one((chunk.as_ptr(), now));
        chunk.copy_from_slice(&seed.to_le_bytes()[..chunk.len()]);
    }
    Entropy::Fallback
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: Purpose = Purpose::new("one");
    const OTHER: Purpose = Purpose::new("other");

    #[test]
    fn a_tag_is_the_hmac_of_purpose_name_and_state() {
        let ring = KeyRing::new("k", vec![1; 32]).unwrap();
        let mut mac = HmacSha256::new_from_slice(&[1; 32]).unwrap();
        mac.update(b"one\0k\0state");
        let expected: [u8; 32] = mac.finalize().into_bytes().into();
        assert_eq!(ring.signing().tag(ONE, b"state"), expected);
        assert!(ring.signing().verifies(ONE, b"state", &expected));
        assert!(!ring.signing().verifies(ONE, b"statE", &expected));
        assert!(!ring.signing().verifies(ONE, b"state", &expected[..31]));
    }

    #[test]
    fn a_tag_made_for_one_purpose_or_key_never_verifies_for_another() {
        let ring = KeyRing::new("k", vec![1; 32]).unwrap();
        let tag = ring.signing().tag(ONE, b"state");
        assert!(!ring.signing().verifies(OTHER, b"state", &tag));
        // The same secret under another name is another key.
        let renamed = KeyRing::new("j", vec![1; 32]).unwrap();
        assert!(!renamed.signing().verifies(ONE, b"state", &tag));
        // Another secret under the same name is a forgery, not a rotation.
        let impostor = KeyRing::new("k", vec![2; 32]).unwrap();
        assert!(!impostor.signing().verifies(ONE, b"state", &tag));
    }

    #[test]
    fn a_rotated_key_is_found_by_its_name() {
        let ring = KeyRing::new("new", vec![2; 32])
            .and_then(|r| r.verifying("old", vec![1; 32]))
            .unwrap();
        let old = KeyRing::new("old", vec![1; 32]).unwrap();
        let tag = old.signing().tag(ONE, b"s");
        assert_eq!(ring.signing().id(), "new");
        assert!(ring.by_id("old").unwrap().verifies(ONE, b"s", &tag));
        assert!(ring.by_id("gone").is_none());
        assert_eq!(ring.keys().map(Key::id).collect::<Vec<_>>(), ["new", "old"]);
    }

    #[test]
    fn weak_unnamed_and_duplicate_keys_are_refused() {
        let short = KeyError::TooShort {
            id: "k".to_owned(),
            len: 5,
        };
        assert_eq!(KeyRing::new("k", b"short".to_vec()).unwrap_err(), short);
        assert_eq!(
            KeyRing::new("", vec![1; 32]).unwrap_err(),
            KeyError::Unnamed
        );
        let duplicate = KeyError::Duplicate { id: "k".to_owned() };
        assert_eq!(
            KeyRing::new("k", vec![1; 32])
                .and_then(|r| r.verifying("k", vec![2; 32]))
                .unwrap_err(),
            duplicate
        );
        assert_eq!(
            KeyRing::new("k", vec![1; 32])
                .and_then(|r| r.verifying("j", vec![2; 31]))
                .unwrap_err(),
            KeyError::TooShort {
                id: "j".to_owned(),
                len: 31
            }
        );
        // What was not checked where it was given is checked later.
        assert_eq!(
            KeyRing::unchecked("k", b"short".to_vec()).check(),
            Err(short)
        );
        assert_eq!(
            KeyRing::unchecked("k", vec![1; 32])
                .verifying_unchecked("j", vec![2; 32])
                .verifying_unchecked("k", vec![3; 32])
                .check(),
            Err(duplicate)
        );
        assert_eq!(
            KeyRing::unchecked("k", vec![1; 32])
                .verifying_unchecked("j", vec![2; 32])
                .check(),
            Ok(())
        );
    }

    #[test]
    fn random_keys_are_valid_and_each_has_a_name_of_its_own() {
        let (a, entropy) = KeyRing::random("local");
        assert_eq!(entropy, Entropy::System);
        let (b, _) = KeyRing::random("local");
        assert_eq!(a.check(), Ok(()));
        assert!(a.signing().id().starts_with("local-"));
        assert_ne!(a.signing().id(), b.signing().id());
        let tag = a.signing().tag(ONE, b"s");
        assert!(!b.signing().verifies(ONE, b"s", &tag));
    }

    #[test]
    fn debug_shows_names_never_secrets() {
        let ring = KeyRing::new("new", *b"0123456789abcdef0123456789abcdef")
            .and_then(|r| r.verifying("old", vec![b'z'; 32]))
            .unwrap();
        let shown = format!("{ring:?} {:?}", ring.signing());
        assert!(
            shown.contains("\"new\"") && shown.contains("\"old\""),
            "{shown}"
        );
        assert!(
            !shown.contains("48, 49") && !shown.contains("122"),
            "{shown}"
        );
    }
}
