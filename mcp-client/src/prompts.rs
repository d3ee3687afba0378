//! The rest of what a server offers, from the client: prompts, resources,
//! resource templates, subscriptions and completion. Every call works in
//! both eras (the 2026-07-28 `_meta` fields and `input_required` rounds are
//! handled as for tools).

use std::collections::{BTreeMap, HashSet};

use oxmcp_types::call::CallError;
use oxmcp_types::completion::{Completion, CompletionRef};
use oxmcp_types::{
    method, CompleteResult, ErrorObject, GetPromptResult, Prompt, ReadResourceResult, Resource,
    ResourceTemplate,
};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::client::{malformed, Client, MAX_PAGES};

impl Client {
    /// Every page of a `*/list` method's `field`.
    async fn list_all<T: DeserializeOwned>(
        &self,
        method: &str,
        field: &str,
    ) -> Result<Vec<T>, CallError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let mut page = self.request(method, params).await?;
            let list = page
                .get_mut(field)
                .map(Value::take)
                .ok_or_else(|| malformed(method, &format_args!("no `{field}`")))?;
            let list: Vec<T> = serde_json::from_value(list).map_err(|e| malformed(method, &e))?;
            items.extend(list);
            match page.get("nextCursor").and_then(Value::as_str) {
                None => return Ok(items),
                Some(next) => {
                    if !seen.insert(next.to_owned()) {
                        return Err(malformed(
                            method,
                            &format_args!("the cursor `{next}` came back twice"),
                        ));
                    }
                    cursor = Some(next.to_owned());
                }
            }
        }
        Err(malformed(
            method,
            &format_args!("more than {MAX_PAGES} pages"),
        ))
    }

    async fn typed<T: DeserializeOwned>(
        &self,
        method: &str,
        params: Value,
    ) -> Result<T, CallError> {
        let value = self.request(method, params).await?;
        serde_json::from_value(value).map_err(|e| malformed(method, &e))
    }

    /// Every prompt the server offers, following every page.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, CallError> {
        self.list_all(method::PROMPTS_LIST, "prompts").await
    }

    /// Renders prompt `name` with `arguments` (strings, by name).
    ///
    /// ```no_run
    /// # async fn _demo(client: oxmcp_client::Client) -> Result<(), oxmcp_client::Error> {
    /// let prompt = client.get_prompt("summarise", [("id", "7")]).await?;
    /// for message in &prompt.messages {
    ///     println!("{:?}: {:?}", message.role, message.content.as_text());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn get_prompt<K: Into<String>, V: Into<String>>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, CallError> {
        let arguments: BTreeMap<String, String> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        self.typed(
            method::PROMPTS_GET,
            json!({ "name": name, "arguments": arguments }),
        )
        .await
    }

    /// Every static resource the server offers, following every page.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, CallError> {
        self.list_all(method::RESOURCES_LIST, "resources").await
    }

    /// Every resource template the server offers, following every page.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, CallError> {
        self.list_all(method::RESOURCES_TEMPLATES_LIST, "resourceTemplates")
            .await
    }

    /// Reads the resource at `uri` (a static resource, or one a template names).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, CallError> {
        self.typed(method::RESOURCES_READ, json!({ "uri": uri }))
            .await
    }

    /// Asks for `notifications/resources/updated` about `uri` (legacy era;
    /// in the 2026-07-28 era name the URI in a [`listen`](Self::listen)
    /// filter's `resource_subscriptions` instead). Read the notifications
    /// from [`notifications`](Self::notifications).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), CallError> {
        self.subscription(method::RESOURCES_SUBSCRIBE, uri).await
    }

    /// Stops [`subscribe_resource`](Self::subscribe_resource).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), CallError> {
        self.subscription(method::RESOURCES_UNSUBSCRIBE, uri).await
    }

    async fn subscription(&self, method: &str, uri: &str) -> Result<(), CallError> {
        if self.is_modern() {
            return Err(CallError::Protocol(ErrorObject::invalid_request(format!(
                "{method} is not in the 2026-07-28 era: name the URI in a subscriptions/listen filter (Client::listen)"
            ))));
        }
        self.request(method, json!({ "uri": uri })).await.map(drop)
    }

    /// Suggestions for `argument` of a prompt or a resource template, given
    /// what was typed (`value`) and the other arguments already filled in.
    ///
    /// ```no_run
    /// # async fn _demo(client: oxmcp_client::Client) -> Result<(), oxmcp_client::Error> {
    /// use oxmcp_client::types::completion::CompletionRef;
    ///
    /// let prompt = CompletionRef::Prompt { name: "summarise".into(), title: None };
    /// let styles = client.complete(prompt, "style", "sh", [("id", "7")]).await?;
    /// println!("{:?}", styles.values);
    /// # Ok(()) }
    /// ```
    pub async fn complete<K: Into<String>, V: Into<String>>(
        &self,
        reference: CompletionRef,
        argument: &str,
        value: &str,
        context: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Completion, CallError> {
        let context: BTreeMap<String, String> = context
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let mut params = json!({
            "ref": reference,
            "argument": { "name": argument, "value": value },
        });
        if !context.is_empty() {
            params["context"] = json!({ "arguments": context });
        }
        let result: CompleteResult = self.typed(method::COMPLETION_COMPLETE, params).await?;
        Ok(result.completion)
    }
}
