//! The code `#[tool]` generates for the methods of a block that are not
//! tools: prompts, resources and resource templates, and the completion
//! functions attached to them.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Ident;

use crate::ast::{Arg, ArgKind, ItemKind, Tool, ToolImpl};
use crate::glue::{erase_lifetimes, inject, scopes_field, Call};
use crate::tokens::{default_value, option};

/// Whether the block has anything besides tools.
pub(crate) fn has_items(model: &ToolImpl) -> bool {
    model.tools.iter().any(|t| !t.is_tool())
}

/// The statements that push the block's prompts, resources and templates
/// into `__mcp_items`.
pub(crate) fn push_items(model: &ToolImpl) -> TokenStream {
    let pushes = model.tools.iter().filter_map(|item| {
        let cfgs = &item.cfgs;
        let pushed = match &item.kind {
            ItemKind::Prompt(_) => {
                let entry = prompt_entry(item, model);
                quote!(__mcp_items.prompts.push(#entry);)
            }
            ItemKind::Resource(r) if r.template.is_some() => {
                let entry = resource_entry(item, model, true);
                quote!(__mcp_items.templates.push(#entry);)
            }
            ItemKind::Resource(_) => {
                let entry = resource_entry(item, model, false);
                quote!(__mcp_items.resources.push(#entry);)
            }
            ItemKind::Tool | ItemKind::Complete(_) | ItemKind::Broken => return None,
        };
        Some(quote!(#(#cfgs)* #pushed))
    });
    quote!(#(#pushes)*)
}

/// The parameters decoded from string arguments: their list entries (for a
/// prompt), their decoding, and the call's arguments.
struct StringParams {
    listed: Vec<TokenStream>,
    decode: Vec<TokenStream>,
    taken: Vec<Ident>,
    values: Vec<Ident>,
    call_args: Vec<TokenStream>,
}

fn string_params(item: &Tool) -> StringParams {
    let mut p = StringParams {
        listed: Vec::new(),
        decode: Vec::new(),
        taken: Vec::new(),
        values: Vec::new(),
        call_args: Vec::new(),
    };
    for (i, arg) in item.args.iter().enumerate() {
        let ArgKind::Param(info) = &arg.kind else {
            p.call_args.push(inject(&arg.ty));
            continue;
        };
        let ty = erase_lifetimes(&arg.ty);
        let span = arg.ty.span();
        let wire = arg.wire_name();
        let taken = format_ident!("__mcp_arg_{}", i);
        let value = format_ident!("__mcp_value_{}", i);
        let mut description = option(
            info.description
                .as_ref()
                .map(|d| quote!(::std::string::String::from(#d))),
        );
        // A default is shown to clients in the description: "... (default: 3)".
        if let Some(default) = &info.default {
            let default = default_value(default, &ty);
            description = quote_spanned! {span=>
                ::oxmcp_server::__private::with_default_text(#description, {
                    #[allow(unused_imports)]
                    use ::oxmcp_server::__private::{
                        DefaultTextDisplay as _, DefaultTextNone as _, DefaultTextOption as _,
                    };
                    let __mcp_default: #ty = #default;
                    (&&&::oxmcp_server::__private::DefaultText(&__mcp_default)).text()
                })
            };
        }
        // The kind (required, optional) is the compiler's answer for the type.
        let kind = quote_spanned! {span=>
            (&&::oxmcp_server::__private::Probe::<#ty>::new()).kind()
        };
        // The words of its errors ("an integer from 0 to 255"), from its
        // schema when the type has one.
        let words = quote_spanned! {span=>
            (&&::oxmcp_server::__private::Words::<#ty>::new()).words()
        };
        let required = if info.default.is_some() {
            quote!(false)
        } else {
            quote_spanned!(span=> ::oxmcp_server::__private::ArgKind::required(&#kind))
        };
        p.listed.push(quote! {
            ::oxmcp_server::types::PromptArgument {
                name: ::std::string::String::from(#wire),
                title: ::core::option::Option::None,
                description: #description,
                required: ::core::option::Option::Some(#required),
            }
        });
        let decode = if let Some(default) = &info.default {
            let default = default_value(default, &ty);
            quote_spanned! {span=>
                let #taken = __mcp_args.arg_or(#wire, #kind, #words, || -> #ty { #default });
            }
        } else {
            quote_spanned! {span=>
                let #taken = __mcp_args.arg(#wire, #kind, #words);
            }
        };
        p.decode.push(decode);
        p.taken.push(taken);
        p.values.push(value.clone());
        p.call_args.push(value.into_token_stream());
    }
    p
}

/// What every generated handler starts with: the probe traits in scope.
fn probe_traits() -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use ::oxmcp_server::__private::{
            ProbeOptional as _, ProbeRequired as _, WordsNone as _, WordsSchema as _,
        };
    }
}

fn prompt_entry(item: &Tool, model: &ToolImpl) -> TokenStream {
    let name = item.name();
    let title = option(item.title());
    let description = &item.description;
    let StringParams {
        listed,
        decode,
        taken,
        values,
        call_args,
    } = string_params(item);
    let Call {
        capture,
        lock,
        expr,
    } = Call::new(item, &call_args);
    let output = erase_lifetimes(&item.output);
    let into =
        quote_spanned!(item.output_span=> ::oxmcp_server::__private::into_prompt_result::<#output>);
    let probes = probe_traits();
    let completions = completions_of(item, model);
    let scopes = scopes_field(item);
    quote! {{
        #probes
        let mut __mcp_entry = {
        #capture
        ::oxmcp_server::__private::PromptEntry::new(
            &::oxmcp_server::__private::PromptSpec {
                name: #name,
                title: #title,
                description: #description,
                #scopes
                ..::core::default::Default::default()
            },
            ::std::vec![#(#listed),*],
            move |mut __mcp_args: ::oxmcp_server::__private::StringArgs,
                  __mcp_ctx: ::oxmcp_server::__private::Context|
                  -> ::oxmcp_server::__private::BoxFuture<'static, ::core::result::Result<::oxmcp_server::__private::GetPromptResult, ::oxmcp_server::__private::RequestError>> {
                #probes
                #capture
                #(#decode)*
                ::std::boxed::Box::pin(async move {
                    let (#(::core::option::Option::Some(#values),)*) = (#(#taken,)*) else {
                        return ::core::result::Result::Err(__mcp_args.error());
                    };
                    #lock
                    #into(#expr)
                })
            },
        )
        };
        #(#completions)*
        __mcp_entry
    }}
}

fn resource_entry(item: &Tool, model: &ToolImpl, template: bool) -> TokenStream {
    let ItemKind::Resource(r) = &item.kind else {
        return TokenStream::new();
    };
    let name = item.name();
    let title = option(item.title());
    let description = &item.description;
    let address = r.address();
    // An app's page is served as the Apps MIME type, whatever it returns.
    let mime_type = if r.is_page() {
        let mime = crate::ast::APP_MIME_TYPE;
        quote!(::core::option::Option::Some(#mime))
    } else {
        option(r.mime_type.as_ref())
    };
    let (app, origin_checks) = page_spec(r);
    let StringParams {
        decode,
        taken,
        values,
        call_args,
        ..
    } = string_params(item);
    let Call {
        capture,
        lock,
        expr,
    } = Call::new(item, &call_args);
    let output = erase_lifetimes(&item.output);
    let into =
        quote_spanned!(item.output_span=> ::oxmcp_server::__private::into_read_result::<#output>);
    let probes = probe_traits();
    let (ctor, completions) = if template {
        (quote!(TemplateEntry), completions_of(item, model))
    } else {
        (quote!(ResourceEntry), Vec::new())
    };
    let scopes = scopes_field(item);
    quote! {{
        #probes
        #origin_checks
        let mut __mcp_entry = {
        #capture
        ::oxmcp_server::__private::#ctor::new(
            &::oxmcp_server::__private::ResourceSpec {
                uri: #address,
                name: #name,
                title: #title,
                description: #description,
                mime_type: #mime_type,
                #app
                #scopes
                ..::core::default::Default::default()
            },
            move |__mcp_reading: ::oxmcp_server::__private::Reading,
                  __mcp_ctx: ::oxmcp_server::__private::Context|
                  -> ::oxmcp_server::__private::BoxFuture<'static, ::core::result::Result<::oxmcp_server::__private::ReadResourceResult, ::oxmcp_server::__private::RequestError>> {
                #probes
                #capture
                let mut __mcp_args = __mcp_reading.variables;
                let __mcp_uri = __mcp_reading.uri;
                #(#decode)*
                ::std::boxed::Box::pin(async move {
                    let (#(::core::option::Option::Some(#values),)*) = (#(#taken,)*) else {
                        return ::core::result::Result::Err(__mcp_args.error());
                    };
                    #lock
                    #into(#expr, &__mcp_uri, #mime_type)
                })
            },
        )
        };
        #(#completions)*
        __mcp_entry
    }}
}

/// `app: Some(PageSpec { .. }),` of an app's page, and the checks of its
/// origins (each a `const` evaluated as the code compiles).
fn page_spec(r: &crate::ast::ResourceAttr) -> (Option<TokenStream>, TokenStream) {
    if !r.is_page() {
        return (None, TokenStream::new());
    }
    let default = crate::ast::AppAttr::default();
    let app = r.app.as_ref().unwrap_or(&default);
    let mut checks = Vec::new();
    let lists = app.domains.iter().map(|(key, origins)| {
        checks.extend(origins.iter().map(|o| {
            quote_spanned! {o.span()=>
                const _: () = ::oxmcp_server::__private::app_origin(#o);
            }
        }));
        quote!(#key: &[#(#origins),*],)
    });
    let lists: Vec<TokenStream> = lists.collect();
    let permissions = app.permissions.iter().map(ToString::to_string);
    let domain = option(app.domain.as_ref());
    let prefers_border = option(app.prefers_border.as_ref().map(|b| b.value));
    (
        Some(quote! {
            app: ::core::option::Option::Some(::oxmcp_server::__private::PageSpec {
                #(#lists)*
                permissions: &[#(#permissions),*],
                domain: #domain,
                prefers_border: #prefers_border,
                ..::core::default::Default::default()
            }),
        }),
        quote!(#(#checks)*),
    )
}

/// `__mcp_entry = __mcp_entry.with_completion(..)` for each `#[complete]`
/// function of the block that targets `target`.
fn completions_of(target: &Tool, model: &ToolImpl) -> Vec<TokenStream> {
    model
        .tools
        .iter()
        .filter_map(|f| match &f.kind {
            ItemKind::Complete(c) if c.target == target.ident => Some((f, c)),
            _ => None,
        })
        .map(|(f, c)| {
            // Named in Rust (`dry_run`) or on the wire: the wire name either way.
            let argument = c.argument.to_string();
            let argument = target
                .args
                .iter()
                .find(|a| matches!(a.kind, ArgKind::Param(_)) && a.rust_name() == argument)
                .map_or(argument, Arg::wire_name);
            let handler = completion_handler(f);
            let cfgs = &f.cfgs;
            quote! {
                #(#cfgs)*
                {
                    __mcp_entry = __mcp_entry.with_completion(#argument, #handler);
                }
            }
        })
        .collect()
}

fn completion_handler(f: &Tool) -> TokenStream {
    let call_args: Vec<TokenStream> = f
        .args
        .iter()
        .map(|arg| {
            let ty = erase_lifetimes(&arg.ty);
            quote_spanned! {arg.ty.span()=>
                <#ty as ::oxmcp_server::__private::FromCompleting<'_>>::from_completing(&__mcp_request, &__mcp_ctx)
            }
        })
        .collect();
    let Call {
        capture,
        lock,
        expr,
    } = Call::new(f, &call_args);
    let output = erase_lifetimes(&f.output);
    let into =
        quote_spanned!(f.output_span=> ::oxmcp_server::__private::into_completion::<#output>);
    quote! {{
        #capture
        ::std::sync::Arc::new(
            move |__mcp_request: ::oxmcp_server::__private::Completing,
                  __mcp_ctx: ::oxmcp_server::__private::Context|
                  -> ::oxmcp_server::__private::BoxFuture<'static, ::core::result::Result<::oxmcp_server::__private::Completion, ::oxmcp_server::__private::RequestError>> {
                #capture
                ::std::boxed::Box::pin(async move {
                    #lock
                    #into(#expr)
                })
            },
        )
    }}
}
