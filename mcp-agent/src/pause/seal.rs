//! The signature of a paused run's state: what an approval rests on.
//!
//! A paused run ([`PausedRun`](crate::pause::PausedRun)) leaves the agent (it serializes, to be resumed
//! later, elsewhere) and comes back from whoever kept it. Everything in it
//! decides what runs when it resumes: the calls waiting and their
//! arguments, the tools already approved for the run, the turn's results
//! so far, the transcript the model reads next. So the agent signs the
//! whole state with HMAC-SHA256 when the run pauses, and resumes only a
//! state one of its keys signed, unchanged. The signature covers every
//! field of the outcome, in a canonical form (object keys sorted), so a
//! store that reorders keys does not break it.

use std::fmt;

use oxmcp_wire::header::base64;
use oxmcp_wire::keyring::{fill_random, Entropy, KeyError, KeyRing, Purpose};
use serde_json::Value;

use crate::outcome::Outcome;

/// Why a state does not resume at all.
pub(crate) const NOT_PAUSED: &str = "the outcome is not a paused run: it has no pending calls";

/// What a signature is for, so a tag made for something else (a server's
/// `requestState`, say) never fits.
const PURPOSE: Purpose = Purpose::new("oxmcp-agent paused run state v1");

/// The keys that sign and check paused runs' states: one signs, the others
/// still verify (a rotation: a new key signs at once, the one before keeps
/// resuming the states it signed until it is retired).
///
/// Without keys an [`Agent`](crate::Agent) makes a random one when it is
/// built: its states resume on that agent (and its clones) only. Give the
/// same keys to every process that pauses or resumes the runs
/// ([`AgentBuilder::state_keys`](crate::AgentBuilder::state_keys)), and
/// keep them secret: whoever has a key can approve any call.
///
/// ```
/// use oxmcp_agent::pause::StateKeys;
///
/// # fn main() -> Result<(), oxmcp_agent::pause::StateKeyError> {
/// // Rotating: `2026-12` signs from now on; `2026-11` still verifies.
/// let keys = StateKeys::new("2026-12", *b"0123456789abcdef0123456789abcdef")?
///     .verifying("2026-11", *b"fedcba9876543210fedcba9876543210")?;
/// # let _ = keys;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct StateKeys {
    ring: KeyRing,
}

/// A key [`StateKeys`] does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateKeyError {
    /// The secret is too short to resist guessing.
    #[error("the secret of state key `{id}` has {len} bytes; it needs at least 32 random bytes")]
    TooShort {
        /// The key's name.
        id: String,
        /// The secret's length.
        len: usize,
    },
    /// A key without a name.
    #[error("a state key needs a name (each state names the key that signed it)")]
    Unnamed,
    /// Two keys with one name: a state naming it could not say which.
    #[error("two state keys are named `{id}`")]
    Duplicate {
        /// The name.
        id: String,
    },
}

impl StateKeyError {
    /// The ring's refusal, in this crate's words (not a `From`: the ring is
    /// internal, and no part of this crate's API).
    fn of(e: KeyError) -> StateKeyError {
        match e {
            KeyError::TooShort { id, len } => StateKeyError::TooShort { id, len },
            KeyError::Unnamed => StateKeyError::Unnamed,
            KeyError::Duplicate { id } => StateKeyError::Duplicate { id },
        }
    }
}

impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.ring.debug_as("StateKeys", f)
    }
}

impl StateKeys {
    /// Signs (and verifies) with `secret` (at least 32 random bytes), named `id`.
    ///
    /// # Errors
    ///
    /// [`StateKeyError::TooShort`] for a shorter secret,
    /// [`StateKeyError::Unnamed`] for an empty name.
    pub fn new(
        id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Result<StateKeys, StateKeyError> {
        Ok(StateKeys {
            ring: KeyRing::new(id, secret).map_err(StateKeyError::of)?,
        })
    }

    /// Also resumes states signed with `secret`, named `id` (a key rotated
    /// out, kept while states it signed may still come back).
    ///
    /// # Errors
    ///
    /// As [`StateKeys::new`], and [`StateKeyError::Duplicate`] for a name
    /// already used.
    pub fn verifying(
        self,
        id: impl Into<String>,
        secret: impl Into<Vec<u8>>,
    ) -> Result<StateKeys, StateKeyError> {
        Ok(StateKeys {
            ring: self.ring.verifying(id, secret).map_err(StateKeyError::of)?,
        })
    }

    /// A random key of this agent alone, under a random name (so a state
    /// of another agent is told apart from an altered one).
    pub(crate) fn random() -> StateKeys {
        let (ring, entropy) = KeyRing::random("random");
        log_weak(entropy);
        StateKeys { ring }
    }

    /// Signs a paused outcome (nothing to do for a finished one).
    pub(crate) fn sign(&self, outcome: &mut Outcome) {
        let Some(paused) = outcome.paused.as_mut() else {
            return;
        };
        let key = self.ring.signing();
        key.id().clone_into(&mut paused.key);
        paused.signature.clear();
        // An outcome that does not serialize stays unsigned: it will not resume.
        if let Some(tag) = signed_bytes(outcome).map(|bytes| key.tag(PURPOSE, &bytes)) {
            if let Some(paused) = outcome.paused.as_mut() {
                paused.signature = base64::encode(&tag);
            }
        }
    }

    /// Checks that one of these keys signed `outcome` as it is; the problem
    /// otherwise, for [`RunError::Resume`](crate::RunError::Resume).
    pub(crate) fn verify(&self, outcome: &Outcome) -> Result<(), String> {
        let Some(paused) = &outcome.paused else {
            return Err(NOT_PAUSED.to_owned());
        };
        if paused.signature.is_empty() {
            return Err("the paused state is not signed (it was edited, or saved by a version of oxmcp-agent that did not sign): nothing ran".to_owned());
        }
        let Some(key) = self.ring.by_id(&paused.key) else {
            return Err(format!(
                "the paused state was signed with a key this agent does not hold (`{}`): resume it on the agent that paused it, or give every agent the same keys (AgentBuilder::state_keys); nothing ran",
                paused.key
            ));
        };
        let authentic = base64::decode(&paused.signature)
            .zip(signed_bytes(outcome))
            .is_some_and(|(tag, bytes)| key.verifies(PURPOSE, &bytes, &tag));
        if authentic {
            Ok(())
        } else {
            Err("the paused state was altered after it was signed: nothing ran".to_owned())
        }
    }
}

/// What the signature of `outcome` covers: all of it but the signature, in
/// canonical form (`None` if it does not serialize).
fn signed_bytes(outcome: &Outcome) -> Option<Vec<u8>> {
    let mut state = serde_json::to_value(outcome).ok()?;
    if let Some(paused) = state.get_mut("paused").and_then(Value::as_object_mut) {
        paused.remove("signature");
    }
    let mut bytes = Vec::new();
    canonical(&state, &mut bytes).ok()?;
    Some(bytes)
}

/// `value` as JSON with every object's keys sorted: the same bytes for the
/// same state, however a store ordered its keys.
fn canonical(value: &Value, out: &mut Vec<u8>) -> serde_json::Result<()> {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key)?;
                out.push(b':');
                canonical(value, out)?;
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out)?;
            }
            out.push(b']');
        }
        scalar => serde_json::to_writer(&mut *out, scalar)?,
    }
    Ok(())
}

/// A name for one pause, unique to it: what an application records to
/// resume each state once ([`PausedRun::pause_id`](crate::pause::PausedRun::pause_id)).
pub(crate) fn pause_id() -> String {
    let mut bytes = [0u8; 16];
    log_weak(fill_random(&mut bytes));
    base64::encode(&bytes)
}

/// Logs random bytes that did not come from the system (never seen on the
/// platforms Tokio runs on): configure keys then.
fn log_weak(entropy: Entropy) {
    if entropy == Entropy::Fallback {
        tracing::error!(
            "no random source for the agent's state key; configure one with AgentBuilder::state_keys"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pause::Paused;

    fn paused() -> Outcome {
        Outcome {
            text: "t".to_owned(),
            paused: Some(Paused::default()),
            ..Outcome::default()
        }
    }

    #[test]
    fn a_signed_state_verifies_after_a_json_round_trip_with_its_keys_reordered() {
        let keys = StateKeys::new("k", vec![1; 32]).unwrap();
        let mut outcome = paused();
        outcome.pending.push(crate::pause::PendingCall {
            call_id: "c".to_owned(),
            tool: "write".to_owned(),
            arguments: serde_json::json!({"b": 1.5e-300, "a": [1, {"z": null, "y": "é"}]})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            kind: crate::pause::PendingKind::Approve,
        });
        keys.sign(&mut outcome);
        let saved = serde_json::to_string(&outcome).unwrap();
        let back: Outcome = serde_json::from_str(&saved).unwrap();
        assert_eq!(keys.verify(&back), Ok(()));
        assert_ne!(
            canonical_of(&serde_json::json!({"b": 1, "a": 2})),
            br#"{"b":1,"a":2}"#.to_vec()
        );
        assert_eq!(
            canonical_of(&serde_json::json!({"b": 1, "a": [{"d": 1, "c": 2}]})),
            br#"{"a":[{"c":2,"d":1}],"b":1}"#.to_vec()
        );
    }

    fn canonical_of(value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        canonical(value, &mut out).unwrap();
        out
    }

    #[test]
    fn any_change_unsigned_states_and_unknown_keys_are_refused() {
        let keys = StateKeys::new("k", vec![1; 32]).unwrap();
        let mut outcome = paused();
        keys.sign(&mut outcome);
        let mut changed = outcome.clone();
        changed.text.push('!');
        assert!(keys.verify(&changed).unwrap_err().contains("altered"));
        let mut unsigned = outcome.clone();
        if let Some(p) = unsigned.paused.as_mut() {
            p.signature.clear();
        }
        assert!(keys.verify(&unsigned).unwrap_err().contains("not signed"));
        let other = StateKeys::random();
        assert!(other
            .verify(&outcome)
            .unwrap_err()
            .contains("does not hold"));
        // Another secret under the same name is a forgery, not a rotation.
        let impostor = StateKeys::new("k", vec![2; 32]).unwrap();
        assert!(impostor.verify(&outcome).unwrap_err().contains("altered"));
    }

    #[test]
    fn a_rotated_key_verifies_until_it_is_retired() {
        let old = StateKeys::new("old", vec![1; 32]).unwrap();
        let mut before = paused();
        old.sign(&mut before);
        let rotated = StateKeys::new("new", vec![2; 32])
            .and_then(|k| k.verifying("old", vec![1; 32]))
            .unwrap();
        assert_eq!(rotated.verify(&before), Ok(()));
        let mut now = paused();
        rotated.sign(&mut now);
        assert_eq!(now.paused.as_ref().map(|p| p.key.as_str()), Some("new"));
        let retired = StateKeys::new("new", vec![2; 32]).unwrap();
        assert!(retired.verify(&before).is_err());
        assert_eq!(retired.verify(&now), Ok(()));
    }

    #[test]
    fn weak_unnamed_and_duplicate_keys_are_refused() {
        assert_eq!(
            StateKeys::new("k", b"short".to_vec()).unwrap_err(),
            StateKeyError::TooShort {
                id: "k".to_owned(),
                len: 5
            }
        );
        assert_eq!(
            StateKeys::new("", vec![1; 32]).unwrap_err(),
            StateKeyError::Unnamed
        );
        assert_eq!(
            StateKeys::new("k", vec![1; 32])
                .and_then(|k| k.verifying("k", vec![2; 32]))
                .unwrap_err(),
            StateKeyError::Duplicate { id: "k".to_owned() }
        );
        assert_ne!(
            StateKeys::random().ring.signing().id(),
            StateKeys::random().ring.signing().id()
        );
    }
}
