//! What the front server offers of a mount: the mounted server's lists,
//! filtered and renamed, each item forwarding to it; refreshed when the
//! mounted server says a list changed.

use std::sync::Arc;

use oxmcp_client::Client;
use oxmcp_server::complete::{CompleteHandler, Completing};
use oxmcp_server::prompt::PromptEntry;
use oxmcp_server::resource::{Reading, ResourceEntry, TemplateEntry};
use oxmcp_server::tool::Items;
use oxmcp_server::types::completion::CompletionRef;
use oxmcp_server::types::{Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool};
use oxmcp_server::{Context, RequestError, ToolEntry};
use oxmcp_types::call::CallError;

use crate::link::Link;
use oxmcp_wire::sync::lock;

/// The mounted server's lists, as it gave them (before renaming).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Listing {
    tools: Vec<Tool>,
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    /// Whether it answers `completion/complete`.
    completes: bool,
}

impl Listing {
    /// Lists what `client`'s server offers of each kind it declares, with
    /// the mount's filters applied.
    pub(crate) async fn of(link: &Link, client: &Client) -> Result<Listing, CallError> {
        let declared = client.server_capabilities();
        let filters = &link.filters;
        let mut listing = Listing {
            completes: declared.completions.is_some(),
            ..Listing::default()
        };
        if declared.tools.is_some() {
            listing.tools = client.list_tools().await?;
            listing.tools.retain(|t| filters.tools.offers(&t.name));
        }
        if declared.prompts.is_some() {
            listing.prompts = client.list_prompts().await?;
            listing.prompts.retain(|p| filters.prompts.offers(&p.name));
        }
        if declared.resources.is_some() {
            listing.resources = client.list_resources().await?;
            listing
                .resources
                .retain(|r| filters.resources.offers(&r.uri));
            listing.templates = client.list_resource_templates().await?;
            listing
                .templates
                .retain(|t| filters.resources.offers(&t.uri_template));
        }
        Ok(listing)
    }
}

/// Lists the mounted server's items again and offers them on the front
/// server in place of the earlier ones (nothing changes, and nobody hears
/// of it, when the lists are the same).
pub(crate) async fn refresh(link: &Arc<Link>, client: &Client) -> Result<(), String> {
    let listing = Listing::of(link, client)
        .await
        .map_err(|e| format!("cannot list its items: {}", oxmcp_types::error::Chain(&e)))?;
    let mut offered = lock(&link.offered);
    if offered.as_ref() == Some(&listing) {
        return Ok(());
    }
    let items = items(link, &listing).map_err(|e| e.to_string())?;
    link.handle
        .replace_toolbox(&link.group(), items)
        .map_err(|e| format!("cannot offer its items: {e}"))?;
    *offered = Some(listing);
    Ok(())
}

/// The front server's items for `listing`, each forwarding to the mount.
fn items(link: &Arc<Link>, listing: &Listing) -> Result<Items, oxmcp_server::Error> {
    let mut items = Items::default();
    for tool in &listing.tools {
        items.tools.push(tool_entry(link, tool)?);
    }
    for prompt in &listing.prompts {
        items
            .prompts
            .push(prompt_entry(link, prompt, listing.completes)?);
    }
    for resource in &listing.resources {
        items.resources.push(resource_entry(link, resource)?);
    }
    for template in &listing.templates {
        items
            .templates
            .push(template_entry(link, template, listing.completes)?);
    }
    Ok(items)
}

fn tool_entry(link: &Arc<Link>, tool: &Tool) -> Result<ToolEntry, oxmcp_server::Error> {
    let mut def = tool.clone();
    def.name = link.names.name(&tool.name);
    let upstream = tool.name.clone();
    let link = Arc::clone(link);
    // The cap the mounted server announced for this tool is kept: the
    // front server cuts its results no shorter than the server meant them.
    let announced = def
        .meta
        .as_ref()
        .and_then(|m| m.get(oxmcp_server::tool::ANTHROPIC_MAX_RESULT_SIZE))
        .and_then(serde_json::Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n > 0);
    let entry = ToolEntry::from_tool(def, move |arguments, ctx| {
        Arc::clone(&link).call_tool(upstream.clone(), arguments, ctx)
    })?;
    Ok(match announced {
        Some(cap) => entry.with_max_result_chars(cap.min(oxmcp_server::tool::MAX_RESULT_CHARS)),
        None => entry,
    })
}

fn prompt_entry(
    link: &Arc<Link>,
    prompt: &Prompt,
    completes: bool,
) -> Result<PromptEntry, oxmcp_server::Error> {
    let mut def = prompt.clone();
    def.name = link.names.name(&prompt.name);
    let upstream = prompt.name.clone();
    let forward = Arc::clone(link);
    let mut entry =
        PromptEntry::from_prompt(def, move |args: oxmcp_server::prompt::StringArgs, _ctx| {
            let link = Arc::clone(&forward);
            let upstream = upstream.clone();
            async move {
                let client = link
                    .client()
                    .await
                    .map_err(|why| unavailable(&link, &why))?;
                client
                    .get_prompt(&upstream, args.values().clone())
                    .await
                    .map_err(|e| link.request_error(e))
            }
        })?;
    if completes {
        for argument in prompt.arguments.iter().flatten() {
            let reference = CompletionRef::Prompt {
                name: prompt.name.clone(),
                title: None,
            };
            entry = entry.with_completion(&argument.name, completion(link, reference));
        }
    }
    Ok(entry)
}

fn resource_entry(
    link: &Arc<Link>,
    resource: &Resource,
) -> Result<ResourceEntry, oxmcp_server::Error> {
    let mut def = resource.clone();
    def.uri = link.names.uri(&resource.uri);
    let upstream = resource.uri.clone();
    let forward = Arc::clone(link);
    let entry = ResourceEntry::dynamic(def, move |reading: Reading, _ctx: Context| {
        read(Arc::clone(&forward), upstream.clone(), reading.uri)
    })?;
    Ok(entry.on_subscribe(following(link)))
}

/// The subscription hook of a mounted resource or template: the mounted
/// server is asked to report the URI's updates.
fn following(link: &Arc<Link>) -> impl Fn(&str) + Send + Sync + 'static {
    let link = Arc::clone(link);
    move |uri: &str| {
        if let Some(upstream) = link.names.upstream_uri(uri) {
            link.follow(upstream);
        }
    }
}

fn template_entry(
    link: &Arc<Link>,
    template: &ResourceTemplate,
    completes: bool,
) -> Result<TemplateEntry, oxmcp_server::Error> {
    let mut def = template.clone();
    def.uri_template = link.names.uri(&template.uri_template);
    let forward = Arc::clone(link);
    let mut entry = TemplateEntry::dynamic(def, move |reading: Reading, _ctx: Context| {
        let link = Arc::clone(&forward);
        async move {
            let upstream = link
                .names
                .upstream_uri(&reading.uri)
                .ok_or_else(RequestError::not_found)?
                .to_owned();
            read(link, upstream, reading.uri).await
        }
    })?
    .on_subscribe(following(link));
    if completes {
        if let Ok(parsed) = oxmcp_uri_template::UriTemplate::parse(&template.uri_template) {
            for variable in parsed.variables() {
                let reference = CompletionRef::Resource {
                    uri: template.uri_template.clone(),
                };
                entry = entry.with_completion(variable, completion(link, reference));
            }
        }
    }
    Ok(entry)
}

/// Reads `upstream` from the mount, for the front URI `uri`: the contents
/// and a not-found error name the front URI.
async fn read(
    link: Arc<Link>,
    upstream: String,
    uri: String,
) -> Result<ReadResourceResult, RequestError> {
    let client = link
        .client()
        .await
        .map_err(|why| unavailable(&link, &why))?;
    let mut result = match client.read_resource(&upstream).await {
        Ok(result) => result,
        Err(CallError::Protocol(mut error)) => {
            if let Some(data) = error.data.as_mut().and_then(|d| d.as_object_mut()) {
                if data.contains_key("uri") {
                    data.insert("uri".into(), uri.into());
                }
            }
            return Err(RequestError::object(error));
        }
        Err(e) => return Err(link.request_error(e)),
    };
    for contents in &mut result.contents {
        let own = contents.uri_mut();
        *own = link.names.uri(own);
    }
    Ok(result)
}

/// A completion handler asking the mount about `reference`.
fn completion(link: &Arc<Link>, reference: CompletionRef) -> Arc<CompleteHandler> {
    let link = Arc::clone(link);
    Arc::new(move |completing: Completing, _ctx: Context| {
        let link = Arc::clone(&link);
        let reference = reference.clone();
        Box::pin(async move {
            let client = link
                .client()
                .await
                .map_err(|why| unavailable(&link, &why))?;
            client
                .complete(
                    reference,
                    &completing.argument,
                    &completing.value,
                    completing.arguments,
                )
                .await
                .map_err(|e| link.request_error(e))
        })
    })
}

fn unavailable(link: &Link, why: &str) -> RequestError {
    RequestError::internal(format!(
        "the mounted server `{}` is unavailable: {why}",
        link.name
    ))
}
