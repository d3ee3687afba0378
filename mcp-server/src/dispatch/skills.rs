//! The skills extension's methods (SEP-2640): `skills/list`, `skills/get`
//! and `resources/directory/read`, over the skills the server was built
//! with ([`crate::skills`]).

use std::sync::Arc;

use oxmcp_types::jsonrpc::Response;
use oxmcp_types::ErrorObject;
use serde_json::{json, Value};

use super::{encode, failed, Capability, Outcome, Request, ServerCore};

/// `skills/list`, `skills/get`, `resources/directory/read`, over the
/// skills the server was built with (none: it answers nothing).
pub(crate) struct SkillMethods {
    skills: Option<Arc<crate::skills::Skills>>,
}

impl SkillMethods {
    pub(super) fn new(skills: Option<Arc<crate::skills::Skills>>) -> SkillMethods {
        SkillMethods { skills }
    }
}

/// Params that name a URI.
#[derive(serde::Deserialize, Default)]
struct UriParams {
    #[serde(default)]
    uri: Option<String>,
}

impl Capability for SkillMethods {
    fn methods(&self) -> &'static [&'static str] {
        &["skills/list", "skills/get", "resources/directory/read"]
    }

    fn request<'a>(
        &self,
        core: &Arc<ServerCore>,
        req: Request<'a>,
    ) -> Result<Outcome, Request<'a>> {
        let Some(skills) = &self.skills else {
            return Err(req);
        };
        if !matches!(
            req.method,
            "skills/list" | "skills/get" | "resources/directory/read"
        ) {
            return Err(req);
        }
        let uri = || -> Result<String, ErrorObject> {
            let p: UriParams = match req.params {
                Some(raw) => serde_json::from_str(raw.get())
                    .map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))?,
                None => UriParams::default(),
            };
            p.uri
                .ok_or_else(|| ErrorObject::invalid_params("missing `uri`"))
        };
        let cached = |mut result: Value| {
            result["resultType"] = "complete".into();
            result["ttlMs"] = core.list_ttl_ms.into();
            result["cacheScope"] = "public".into();
            Outcome::Reply(encode(&Response::new(req.id.clone(), result)))
        };
        Ok(match req.method {
            "skills/list" => {
                let entries: Vec<Value> = skills
                    .skills
                    .iter()
                    .map(crate::skills::Skill::entry)
                    .collect();
                cached(json!({ "skills": entries }))
            }
            "skills/get" => match uri() {
                Ok(uri) => match skills.find(&uri) {
                    Some(skill) => cached(json!({ "skill": skill.entry() })),
                    None => failed(
                        req.id,
                        ErrorObject::invalid_params(format!("no skill at {uri}")),
                    ),
                },
                Err(e) => failed(req.id, e),
            },
            _ => match uri() {
                Ok(uri) => match skills.directory(&uri) {
                    Some(children) => cached(json!({ "resources": children })),
                    None => failed(
                        req.id,
                        ErrorObject::invalid_params(format!("{uri} is not a directory of a skill")),
                    ),
                },
                Err(e) => failed(req.id, e),
            },
        })
    }
}
