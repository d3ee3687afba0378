//! The 2026-07-28 input rounds of a request (MRTR) as dispatch sees them:
//! reading `inputResponses` and a signed `requestState` into the answers a
//! request resumes with, and answering `input_required` with the inputs its
//! code asked for and a new signed state.

use std::collections::BTreeMap;
use std::sync::Arc;

use oxmcp_types::jsonrpc::RawJson;
use oxmcp_types::jsonrpc::Response;
use oxmcp_types::modern::InputRequiredResult;
use oxmcp_types::{ErrorObject, RequestId, ResultType};
use serde_json::Value;

#[cfg(feature = "http")]
use super::era::is_modern_request;
use super::era::Era;
use super::session::Session;
#[cfg(feature = "http")]
use super::Refusal;
use super::{encode, ServerCore};
use crate::ask::request_state::{caller_of, digest};
use crate::ask::{arguments_of, Asker, Binding, BoundArgs, Rounds};
use crate::auth::Identity;
use crate::common::Outbound;

/// The arguments a request's input rounds are bound to.
pub(super) enum Bound<'a> {
    /// Already read.
    Value(&'a Value),
    /// The request's raw params (`tools/call`): their `arguments` are read
    /// only if a state is checked or signed.
    Params(Option<RawJson<'a>>),
}

/// What a request brought for its input rounds.
pub(super) struct Retry<'a> {
    pub(super) input_responses: Option<&'a Value>,
    pub(super) request_state: Option<&'a str>,
}

impl ServerCore {
    /// Claims a 2026-07-28 request's signed `requestState` in the store
    /// the instances share, when there is one: each state is accepted once
    /// across them (-32602 the second time). A state this server did not
    /// sign, or that expired, is left to dispatch to refuse.
    #[cfg(feature = "http")]
    pub(super) async fn claim_state(
        &self,
        id: &RequestId,
        params: Option<RawJson<'_>>,
    ) -> Result<(), Refusal> {
        let (Some(store), Some(params)) = (self.claims.get(), params) else {
            return Ok(());
        };
        if !is_modern_request(Some(params)) {
            return Ok(());
        }
        let Some(state) = request_state_of(params) else {
            return Ok(());
        };
        let Some((nonce, left)) = self.signer.claim_of(&state) else {
            return Ok(());
        };
        let claim = store.claim(&format!("request-state:{nonce}"), left);
        match crate::state::within(&**store, claim).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(Refusal::Failed {
                bytes: crate::common::error_reply(
                    Some(id.clone()),
                    ErrorObject::invalid_params(
                        "requestState already used: each state is accepted once",
                    ),
                ),
                code: oxmcp_types::jsonrpc::code::INVALID_PARAMS,
            }),
            Err(e) => Err(Refusal::Unavailable(e)),
        }
    }

    /// How the code serving a request asks the client: its legacy session's
    /// stream, or (2026-07-28) input rounds bound to `method`, `target` and
    /// `args` and to the caller `identity` speaks for, resumed from what the
    /// retry brought (a tampered, foreign, expired or replayed state, or one
    /// issued to another caller, is -32602).
    /// How a request that cannot wait for input asks the client: its legacy
    /// session's stream, or nobody (2026-07-28 asks through input rounds).
    pub(super) fn session_asker(
        session: &Arc<Session>,
        era: &Era,
        out: &Arc<dyn Outbound>,
    ) -> Asker {
        match era {
            Era::Legacy(_) => Asker::Session {
                out: Arc::clone(out),
                pending: Arc::clone(&session.pending),
            },
            Era::Modern(_) => Asker::Nobody,
        }
    }

    pub(super) fn asker(
        &self,
        session: &Arc<Session>,
        era: &Era,
        out: &Arc<dyn Outbound>,
        bound: Option<(&'static str, &str, Bound<'_>)>,
        retry: &Retry<'_>,
        identity: Option<&Identity>,
    ) -> Result<Asker, ErrorObject> {
        match (era, bound) {
            (Era::Legacy(_), _) | (Era::Modern(_), None) => {
                Ok(Self::session_asker(session, era, out))
            }
            (Era::Modern(_), Some((method, target, args))) => {
                let caller = caller_of(identity);
                let (args, mut answers) = match retry.request_state {
                    // A retry: its arguments must be those the state was signed for.
                    Some(state) => {
                        let digest = match args {
                            Bound::Value(v) => digest(v),
                            Bound::Params(raw) => digest(&arguments_of(raw.map(RawJson::get))),
                        };
                        let answers = self
                            .signer
                            .accept(state, method, target, &digest, &caller)
                            .map_err(|r| ErrorObject::invalid_params(r.0))?;
                        (BoundArgs::Digest(digest), answers)
                    }
                    None => (
                        match args {
                            Bound::Value(v) => BoundArgs::Digest(digest(v)),
                            Bound::Params(raw) => {
                                BoundArgs::Params(raw.map(|r| Box::from(r.get())))
                            }
                        },
                        BTreeMap::new(),
                    ),
                };
                let binding = Binding {
                    method,
                    target: target.to_owned(),
                    args,
                    caller,
                };
                let resumed = retry.request_state.is_some();
                match retry.input_responses {
                    None | Some(Value::Null) => {}
                    Some(Value::Object(responses)) => {
                        for (key, value) in responses {
                            if !value.is_object() {
                                return Err(ErrorObject::invalid_params(format!(
                                    "inputResponses[\"{key}\"] must be the result object of the input request"
                                )));
                            }
                            answers.insert(key.clone(), value.clone());
                        }
                    }
                    Some(_) => {
                        return Err(ErrorObject::invalid_params(
                            "inputResponses must be an object of results by input request key",
                        ))
                    }
                }
                Ok(Asker::Rounds(Arc::new(Rounds::new(
                    binding, answers, resumed,
                ))))
            }
        }
    }

    /// The `input_required` result for the inputs `rounds` asked for.
    pub(super) fn input_required(&self, id: RequestId, rounds: &Rounds) -> Vec<u8> {
        let (requests, answers) = rounds.take();
        let b = &rounds.binding;
        let state = self
            .signer
            .sign(b.method, &b.target, &b.args.digest(), &b.caller, answers);
        let result = InputRequiredResult {
            result_type: ResultType::InputRequired,
            input_requests: Some(requests),
            request_state: Some(state),
            meta: Some(self.complete_meta()),
        };
        encode(&Response::new(id, result))
    }
}

/// The rounds of a context, if it serves a 2026-07-28 request.
pub(super) fn rounds_of(ctx: &crate::context::Context) -> Option<Arc<Rounds>> {
    match ctx.asker() {
        Asker::Rounds(r) => Some(Arc::clone(r)),
        _ => None,
    }
}

/// Waits until `rounds` (if any) needs input; never otherwise.
pub(super) async fn input_needed(rounds: Option<&Arc<Rounds>>) {
    match rounds {
        Some(r) => r.needed().await,
        None => std::future::pending().await,
    }
}

/// The `requestState` a request's params carry, if any (read only when
/// the params name one).
#[cfg(feature = "http")]
fn request_state_of(params: RawJson<'_>) -> Option<std::borrow::Cow<'_, str>> {
    #[derive(serde::Deserialize)]
    struct StateOnly<'a> {
        #[serde(rename = "requestState", borrow, default)]
        request_state: Option<std::borrow::Cow<'a, str>>,
    }
    let mut named = false;
    let scanned = params.members(|key, _| named |= key == "requestState");
    if scanned.is_some() && !named {
        return None;
    }
    serde_json::from_str::<StateOnly<'_>>(params.get())
        .ok()?
        .request_state
}
