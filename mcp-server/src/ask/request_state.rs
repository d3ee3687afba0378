//! The 2026-07-28 `requestState` of an input round: what the server needs
//! to resume a request (the inputs answered so far), bound to that request
//! and to the caller it was issued to (with authorization), signed with
//! HMAC-SHA256 so the client can neither forge nor alter it, valid for a
//! while, and accepted once (a replayed state is refused; when too many
//! unexpired states are on record to remember one more, it is refused too).
//! The record here is this process's; behind several instances sharing a
//! store, the HTTP transport also claims each state in the store before it
//! is served (`transport/http/shared`), so that it is accepted once across
//! them.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use oxmcp_wire::header::base64;
use oxmcp_wire::keyring::{fill_random, Purpose};

use crate::state::SigningKeys;
use oxmcp_wire::sync::lock;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// How long a `requestState` stays valid by default.
pub(crate) const DEFAULT_STATE_TTL: Duration = Duration::from_secs(600);
/// The most states remembered as used (for replay refusal) before the oldest go.
const MAX_USED: usize = 100_000;
/// What a state's tag is for, so that no other tag made with the same key
/// (an agent's paused run, say) passes for one.
const PURPOSE: Purpose = Purpose::new("oxmcp-server requestState v1");

/// What a state says.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct State {
    /// The request it belongs to: method, name (or URI), and a digest of its arguments.
    pub(crate) method: String,
    pub(crate) target: String,
    pub(crate) args: String,
    /// Who it was issued to: a digest of the caller's identity (empty
    /// without authorization).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) caller: String,
    /// The inputs answered so far, by key.
    pub(crate) answers: BTreeMap<String, Value>,
    /// When it expires (ms since the Unix epoch).
    pub(crate) expires: u64,
    /// Makes every state unique, for replay refusal.
    pub(crate) nonce: String,
}

/// Why a state was refused: -32602 with this message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refused(pub(crate) &'static str);

/// Signs and checks states with the server's keys.
pub(crate) struct Signer {
    keys: SigningKeys,
    ttl: Duration,
    /// Nonces of states already accepted, with their expiry.
    used: Mutex<HashMap<String, u64>>,
    /// The most unexpired nonces kept.
    max_used: usize,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What binds a state to its caller: a digest of whom the request's token
/// speaks for (its subject or client, else all its claims), empty without
/// authorization.
pub(crate) fn caller_of(identity: Option<&crate::auth::Identity>) -> String {
    let Some(who) = identity else {
        return String::new();
    };
    let key = match who.principal() {
        Some(principal) => principal.key(),
        None => format!(
            "claims:{}",
            crate::common::json_text(&Value::Object(who.claims().clone()))
        ),
    };
    base64::encode(&Sha256::digest(key.as_bytes()))
}

/// A digest of a request's arguments (canonical: `serde_json` maps are sorted).
pub(crate) fn digest(args: &Value) -> String {
    let bytes = serde_json::to_vec(args).unwrap_or_default();
    base64::encode(&Sha256::digest(bytes))
}

impl Signer {
    /// A signer with `keys`, or a fresh random key (states then die with the process).
    pub(crate) fn new(keys: Option<SigningKeys>, ttl: Duration) -> Signer {
        Signer {
            keys: keys.unwrap_or_else(SigningKeys::random),
            ttl,
            used: Mutex::new(HashMap::new()),
            max_used: MAX_USED,
        }
    }

    /// A signed state for `method`/`target`/`args`, issued to `caller`
    /// (see [`caller_of`]), carrying `answers`.
    pub(crate) fn sign(
        &self,
        method: &str,
        target: &str,
        args: &str,
        caller: &str,
        answers: BTreeMap<String, Value>,
    ) -> String {
        let mut nonce = [0u8; 16];
        // A nonce needs to be unique, not secret: any source will do.
        let _ = fill_random(&mut nonce);
        let state = State {
            method: method.to_owned(),
            target: target.to_owned(),
            args: args.to_owned(),
            caller: caller.to_owned(),
            answers,
            expires: now_ms()
                .saturating_add(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)),
            nonce: base64::encode(&nonce),
        };
        let payload = base64::encode(&serde_json::to_vec(&state).unwrap_or_default());
        let key = self.keys.signing();
        let kid = base64::encode(key.id().as_bytes());
        let tag = base64::encode(&key.tag(PURPOSE, payload.as_bytes()));
        format!("{kid}.{payload}.{tag}")
    }

    /// The state in `token`, if one of our keys signed it as it is.
    fn open(&self, token: &str) -> Result<State, Refused> {
        const TAMPERED: Refused =
            Refused("invalid requestState: it was not issued by this server or was altered");
        let mut parts = token.splitn(3, '.');
        let (Some(kid), Some(payload), Some(tag)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(TAMPERED);
        };
        let key = self.keys.by_encoded_id(kid).ok_or(Refused(
            "invalid requestState: its key is not one this server knows (retired, or another server's): start the request again without it",
        ))?;
        let tag = base64::decode(tag).ok_or(TAMPERED)?;
        if !key.verifies(PURPOSE, payload.as_bytes(), &tag) {
            return Err(TAMPERED);
        }
        base64::decode(payload)
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .ok_or(TAMPERED)
    }

    /// What names an authentic, unexpired state across instances (its
    /// nonce), and how long it has left: what a shared store records as
    /// used. `None` for anything else ([`accept`](Self::accept) says why).
    #[cfg(feature = "http")]
    pub(crate) fn claim_of(&self, token: &str) -> Option<(String, std::time::Duration)> {
        let state = self.open(token).ok()?;
        let left = state.expires.checked_sub(now_ms())?;
        Some((state.nonce, std::time::Duration::from_millis(left)))
    }

    /// Checks a state presented by `caller` with a retry of
    /// `method`/`target`/`args`: its signature, its binding, its expiry,
    /// and that it was not used before; then remembers it as used.
    pub(crate) fn accept(
        &self,
        token: &str,
        method: &str,
        target: &str,
        args: &str,
        caller: &str,
    ) -> Result<BTreeMap<String, Value>, Refused> {
        let state = self.open(token)?;
        if state.method != method || state.target != target || state.args != args {
            return Err(Refused(
                "invalid requestState: it belongs to another request",
            ));
        }
        if state.caller != caller {
            return Err(Refused(
                "invalid requestState: it was issued to another caller",
            ));
        }
        let now = now_ms();
        if state.expires < now {
            return Err(Refused(
                "expired requestState: start the request again without it",
            ));
        }
        let mut used = lock(&self.used);
        if used.contains_key(&state.nonce) {
            return Err(Refused(
                "requestState already used: each state is accepted once",
            ));
        }
        if used.len() >= self.max_used {
            used.retain(|_, &mut expires| expires >= now);
        }
        if used.len() >= self.max_used {
            // Accepting a state not on record would let it be replayed.
            return Err(Refused(
                "too many input rounds in progress to accept this requestState now: start the request again later",
            ));
        }
        used.insert(state.nonce, state.expires);
        Ok(state.answers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_round_trips_once() {
        let s = Signer::new(None, DEFAULT_STATE_TTL);
        let mut answers = BTreeMap::new();
        answers.insert(
            "user_name".to_owned(),
            serde_json::json!({"action": "accept"}),
        );
        let token = s.sign("tools/call", "t", "d", "", answers.clone());
        assert_eq!(s.accept(&token, "tools/call", "t", "d", ""), Ok(answers));
        assert_eq!(
            s.accept(&token, "tools/call", "t", "d", ""),
            Err(Refused(
                "requestState already used: each state is accepted once"
            ))
        );
    }

    #[test]
    fn altered_foreign_or_misbound_states_are_refused() {
        let s = Signer::new(None, DEFAULT_STATE_TTL);
        let token = s.sign("tools/call", "t", "d", "", BTreeMap::new());
        let mut altered = token.clone().into_bytes();
        // A byte of the payload, after the key's name.
        altered[token.find('.').unwrap() + 4] ^= 1;
        let altered = String::from_utf8(altered).unwrap();
        assert!(s
            .accept(&altered, "tools/call", "t", "d", "")
            .unwrap_err()
            .0
            .contains("altered"));
        let other = Signer::new(None, DEFAULT_STATE_TTL);
        assert!(other.accept(&token, "tools/call", "t", "d", "").is_err());
        assert!(s
            .accept(&token, "tools/call", "other", "d", "")
            .unwrap_err()
            .0
            .contains("another request"));
        assert!(s.accept("garbage", "tools/call", "t", "d", "").is_err());
        let quick = Signer::new(Some(SigningKeys::new("k", vec![7; 32])), Duration::ZERO);
        let expired = quick.sign("m", "t", "d", "", BTreeMap::new());
        std::thread::sleep(Duration::from_millis(2));
        assert!(quick
            .accept(&expired, "m", "t", "d", "")
            .unwrap_err()
            .0
            .contains("expired"));
    }

    #[test]
    fn a_state_is_accepted_from_the_caller_it_was_issued_to_only() {
        let s = Signer::new(None, DEFAULT_STATE_TTL);
        let alice = crate::auth::Identity::new().with_subject("alice");
        let bob = crate::auth::Identity::new().with_subject("bob");
        let (a, b) = (caller_of(Some(&alice)), caller_of(Some(&bob)));
        assert_ne!(a, b);
        assert_ne!(a, caller_of(None));
        let token = s.sign("tools/call", "t", "d", &a, BTreeMap::new());
        for other in [b.as_str(), ""] {
            assert!(s
                .accept(&token, "tools/call", "t", "d", other)
                .unwrap_err()
                .0
                .contains("another caller"));
        }
        assert!(s.accept(&token, "tools/call", "t", "d", &a).is_ok());
    }

    #[test]
    fn a_full_replay_record_refuses_instead_of_forgetting() {
        let mut s = Signer::new(None, DEFAULT_STATE_TTL);
        s.max_used = 2;
        let states: Vec<String> = (0..3)
            .map(|_| s.sign("m", "t", "d", "", BTreeMap::new()))
            .collect();
        assert!(s.accept(&states[0], "m", "t", "d", "").is_ok());
        assert!(s.accept(&states[1], "m", "t", "d", "").is_ok());
        assert!(s
            .accept(&states[2], "m", "t", "d", "")
            .unwrap_err()
            .0
            .contains("too many"));
        // Still refused as used: nothing was forgotten to make room.
        assert!(s.accept(&states[0], "m", "t", "d", "").is_err());
    }

    #[test]
    fn a_rotated_key_verifies_until_it_is_retired() {
        let old = SigningKeys::new("old", vec![1; 32]);
        let rotated = SigningKeys::new("new", vec![2; 32]).verifying("old", vec![1; 32]);
        let retired = SigningKeys::new("new", vec![2; 32]);
        let signed_before =
            Signer::new(Some(old), DEFAULT_STATE_TTL).sign("m", "t", "d", "", BTreeMap::new());
        let now = Signer::new(Some(rotated), DEFAULT_STATE_TTL);
        assert!(now.accept(&signed_before, "m", "t", "d", "").is_ok());
        let signed_now = now.sign("m", "t", "d", "", BTreeMap::new());
        assert!(
            signed_now.starts_with(&base64::encode(b"new")),
            "the new key signs"
        );
        let later = Signer::new(Some(retired), DEFAULT_STATE_TTL);
        assert!(later
            .accept(&signed_before, "m", "t", "d", "")
            .unwrap_err()
            .0
            .contains("not one this server knows"));
        assert!(later.accept(&signed_now, "m", "t", "d", "").is_ok());
        // Another secret under a known name is a forgery, not a rotation.
        let impostor = Signer::new(
            Some(SigningKeys::new("new", vec![3; 32])),
            DEFAULT_STATE_TTL,
        )
        .sign("m", "t", "d", "", BTreeMap::new());
        assert!(later
            .accept(&impostor, "m", "t", "d", "")
            .unwrap_err()
            .0
            .contains("altered"));
    }

    #[test]
    fn a_state_of_another_process_is_told_apart_from_an_altered_one() {
        // Two processes without configured keys each draw a key of their
        // own, under a name of its own.
        let here = Signer::new(None, DEFAULT_STATE_TTL);
        let elsewhere = Signer::new(None, DEFAULT_STATE_TTL);
        let token = elsewhere.sign("m", "t", "d", "", BTreeMap::new());
        assert!(here
            .accept(&token, "m", "t", "d", "")
            .unwrap_err()
            .0
            .contains("not one this server knows"));
    }

    #[test]
    fn a_weak_unnamed_or_ambiguous_key_is_refused_when_the_server_is_built() {
        let build = |keys: SigningKeys| {
            crate::Server::builder("s", "1")
                .request_state_keys(keys)
                .try_build()
                .err()
                .map(|e| e.to_string())
        };
        let short = build(SigningKeys::new("k", b"short".to_vec())).unwrap_or_default();
        assert!(
            short.contains("`k`") && short.contains("5 bytes"),
            "{short}"
        );
        let retired_short = build(SigningKeys::new("k", vec![1; 32]).verifying("old", vec![1; 31]))
            .unwrap_or_default();
        assert!(retired_short.contains("`old`"), "{retired_short}");
        assert!(build(SigningKeys::new("", vec![1; 32]))
            .unwrap_or_default()
            .contains("name"));
        assert!(
            build(SigningKeys::new("k", vec![1; 32]).verifying("k", vec![2; 32]))
                .unwrap_or_default()
                .contains("two")
        );
        assert_eq!(build(SigningKeys::new("k", vec![1; 32])), None);
        let one_key = crate::Server::builder("s", "1")
            .request_state_key(vec![1; 16])
            .try_build();
        assert!(one_key.is_err(), "request_state_key checks its key too");
    }
}
