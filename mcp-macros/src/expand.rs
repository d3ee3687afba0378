//! The pipeline of `#[tool]`: parse → validate → expand (or fall back), and
//! the code it generates.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Ident, Item, ItemFn, ItemImpl, ItemTrait};

use crate::ast::{Access, Arg, ArgKind, ParamInfo, Tool, ToolFn, ToolImpl, ToolTrait};
use crate::check;
use crate::client;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::glue::{erase_lifetimes, inject, scopes_field, toolbox_generics, unit_struct, Call};
use crate::tokens::{default_value, option};

pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: Item = match syn::parse2(input.clone()) {
        Ok(item) => item,
        // Give the input back, so the only error is syn's (tokio-macros `entry.rs`).
        Err(err) => return with_error(input, &err),
    };
    match item {
        Item::Impl(item) => tool_impl(args, item),
        Item::Fn(item) => tool_fn(args, item),
        Item::Trait(item) => tool_trait(args, item),
        other => {
            let err = syn::Error::new(
                Span::call_site(),
                "#[tool] goes on an impl block (a toolbox: `#[tool(description = \"...\")] impl MyTools { ... }`), on a function (one tool), or on a trait (the tools of a server written elsewhere, for a typed client)",
            );
            with_error(other.into_token_stream(), &err)
        }
    }
}

fn with_error(item: TokenStream, err: &syn::Error) -> TokenStream {
    let err = err.to_compile_error();
    quote!(#item #err)
}

fn tool_impl(args: TokenStream, mut item: ItemImpl) -> TokenStream {
    let cx = Ctxt::new();
    let model = ToolImpl::from_syn(&cx, args, &mut item);
    check::check_impl(&cx, &model);
    match cx.check() {
        Ok(()) => {
            let toolbox = impl_toolbox(&model);
            let client = client::toolbox_client(&model, false);
            quote!(#item #toolbox #client)
        }
        Err(err) => {
            let stub = fallback::impl_stub(&model);
            let client = client::toolbox_client(&model, true);
            let err = err.into_compile_error();
            quote!(#item #stub #client #err)
        }
    }
}

/// A trait declares a foreign server's tools: only its client is emitted
/// (the trait is a declaration, which nothing implements; see `lib.rs`).
fn tool_trait(args: TokenStream, mut item: ItemTrait) -> TokenStream {
    let cx = Ctxt::new();
    let model = ToolTrait::from_syn(&cx, args, &mut item);
    check::check_trait(&cx, &model);
    match cx.check() {
        Ok(()) => client::declared_client(&model, false),
        Err(err) => {
            let stub = client::declared_client(&model, true);
            let err = err.into_compile_error();
            quote!(#stub #err)
        }
    }
}

fn tool_fn(args: TokenStream, mut item: ItemFn) -> TokenStream {
    let cx = Ctxt::new();
    let model = ToolFn::from_syn(&cx, args, &mut item);
    check::check_fn(&cx, &model);
    match cx.check() {
        Ok(()) => {
            let toolbox = fn_toolbox(&model);
            quote!(#item #toolbox)
        }
        Err(err) => {
            let stub = fallback::fn_stub(&model);
            let err = err.into_compile_error();
            quote!(#item #stub #err)
        }
    }
}

/// Lints that the generated glue may trip in a user's crate.
pub(crate) fn allow_lints() -> TokenStream {
    quote! {
        #[allow(
            unused_mut,
            deprecated,
            clippy::vec_init_then_push,
            clippy::too_many_lines,
            clippy::needless_update,
            clippy::redundant_closure,
            clippy::used_underscore_binding,
            clippy::significant_drop_tightening,
            clippy::needless_borrow,
        )]
    }
}

fn impl_toolbox(model: &ToolImpl) -> TokenStream {
    let self_ty = &model.self_ty;
    let generics = toolbox_generics(self_ty, &model.generics);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let name = model.type_name.as_deref().unwrap_or_default();
    let description = &model.description;
    let cfgs = &model.cfgs;
    let allow = allow_lints();
    // A lock only where some method takes `&mut self`; `&self` methods of a
    // block without one share the toolbox as it is.
    let locked = model.tools.iter().any(|t| t.access == Access::Exclusive);
    let tools = model
        .tools
        .iter()
        .filter(|tool| tool.is_tool())
        .map(|tool| tool_entry(tool, true, locked));
    let wrap = if locked {
        quote!(shared)
    } else {
        quote!(unlocked)
    };
    if !crate::items::has_items(model) {
        return quote! {
            #(#cfgs)*
            #[automatically_derived]
            #allow
            impl #impl_generics ::oxmcp_server::__private::ToolBox for #self_ty #where_clause {
                const NAME: &'static str = #name;
                const DESCRIPTION: &'static str = #description;

                fn into_tools(self) -> ::std::vec::Vec<::oxmcp_server::__private::ToolEntry> {
                    let __mcp_shared = ::oxmcp_server::__private::#wrap(self);
                    let mut __mcp_tools = ::std::vec::Vec::new();
                    #(#tools)*
                    __mcp_tools
                }
            }
        };
    }
    let items = crate::items::push_items(model);
    quote! {
        #(#cfgs)*
        #[automatically_derived]
        #allow
        impl #impl_generics ::oxmcp_server::__private::ToolBox for #self_ty #where_clause {
            const NAME: &'static str = #name;
            const DESCRIPTION: &'static str = #description;

            fn into_tools(self) -> ::std::vec::Vec<::oxmcp_server::__private::ToolEntry> {
                ::oxmcp_server::__private::ToolBox::into_items(self).tools
            }

            fn into_items(self) -> ::oxmcp_server::__private::Items {
                let __mcp_shared = ::oxmcp_server::__private::#wrap(self);
                let mut __mcp_tools = ::std::vec::Vec::new();
                #(#tools)*
                let mut __mcp_items = ::oxmcp_server::__private::Items::default();
                #items
                __mcp_items.tools = __mcp_tools;
                __mcp_items
            }
        }
    }
}

fn fn_toolbox(model: &ToolFn) -> TokenStream {
    let Some(tool) = &model.tool else {
        return TokenStream::new();
    };
    let ident = &model.struct_ident;
    let unit = unit_struct(model, tool);
    let name = tool.name();
    let description = &tool.description;
    let cfgs = &tool.cfgs;
    let allow = allow_lints();
    let entry = tool_entry(tool, false, false);
    quote! {
        #unit

        #(#cfgs)*
        #[automatically_derived]
        #allow
        impl ::oxmcp_server::__private::ToolBox for #ident {
            const NAME: &'static str = #name;
            const DESCRIPTION: &'static str = #description;

            fn into_tools(self) -> ::std::vec::Vec<::oxmcp_server::__private::ToolEntry> {
                let mut __mcp_tools = ::std::vec::Vec::new();
                #entry
                __mcp_tools
            }
        }
    }
}

/// `ToolSpec { .. }`: the static facts.
fn spec(tool: &Tool) -> TokenStream {
    let name = tool.name();
    let description = &tool.description;
    let title = option(tool.options.title.as_ref());
    let read_only = option(tool.options.read_only);
    let destructive = option(tool.options.destructive);
    let idempotent = option(tool.options.idempotent);
    let open_world = option(tool.options.open_world);
    // `requires_client(sampling, ...)`: the names, checked by the parser.
    let requires_client = tool.options.requires_client.as_ref().map(|r| {
        let names = r.names.iter().map(ToString::to_string);
        quote!(requires_client: &[#(#names),*],)
    });
    // `requires_extensions("...")`: each identifier checked as the code
    // compiles (a const evaluation that fails names the rule it breaks).
    let (requires_extensions, id_checks) = match &tool.options.requires_extensions {
        Some(ids) => {
            let checks = ids.iter().map(|id| {
                quote::quote_spanned! {id.span()=>
                    const _: () = ::oxmcp_server::__private::extension_id(#id);
                }
            });
            (
                Some(quote!(requires_extensions: &[#(#ids),*],)),
                quote!(#(#checks)*),
            )
        }
        None => (None, TokenStream::new()),
    };
    let task = tool.options.task.as_ref().map(|mode| {
        let variant = if mode == "required" {
            quote!(Required)
        } else {
            quote!(Optional)
        };
        quote!(task: ::oxmcp_server::__private::TaskSupport::#variant,)
    });
    let scopes = scopes_field(tool);
    let timeout = tool
        .options
        .timeout
        .map(|ms| quote!(timeout: ::core::option::Option::Some(::core::time::Duration::from_millis(#ms)),));
    let max_result_chars = tool.options.max_result_chars.map(|chars| {
        let chars = usize::try_from(chars).unwrap_or(usize::MAX);
        quote!(max_result_chars: ::core::option::Option::Some(#chars),)
    });
    let cache = tool
        .options
        .cache
        .map(|(ms, _)| quote!(cache: ::core::option::Option::Some(::core::time::Duration::from_millis(#ms)),));
    let keep_full_result = tool
        .options
        .keep_full_result
        .map(|ms| quote!(keep_full_result: ::core::option::Option::Some(::core::time::Duration::from_millis(#ms)),));
    let ui = tool
        .options
        .ui
        .as_ref()
        .map(|uri| quote!(ui: ::core::option::Option::Some(#uri),));
    let visibility = tool.options.visibility.as_ref().map(|who| {
        let variants = who.iter().map(|w| {
            if w == "app" {
                quote!(::oxmcp_server::__private::Visibility::App)
            } else {
                quote!(::oxmcp_server::__private::Visibility::Model)
            }
        });
        quote!(visibility: &[#(#variants),*],)
    });
    quote! {{
        #id_checks
        ::oxmcp_server::__private::ToolSpec {
            name: #name,
            title: #title,
            description: #description,
            read_only: #read_only,
            destructive: #destructive,
            idempotent: #idempotent,
            open_world: #open_world,
            #requires_client
            #requires_extensions
            #task
            #timeout
            #max_result_chars
            #keep_full_result
            #cache
            #scopes
            #ui
            #visibility
            ..::core::default::Default::default()
        }
    }}
}

/// The code generated for a tool's arguments.
#[derive(Default)]
struct ArgsCode {
    /// Adds each parameter to the input schema.
    schema: Vec<TokenStream>,
    /// Takes each parameter out of the call's arguments (an `Option`).
    decode: Vec<TokenStream>,
    /// The names of those `Option`s, and of the values they hold.
    taken: Vec<Ident>,
    values: Vec<Ident>,
    /// The function's arguments, in order.
    call_args: Vec<TokenStream>,
}

impl ArgsCode {
    fn new(tool: &Tool) -> Self {
        let mut code = ArgsCode::default();
        for arg in &tool.args {
            match &arg.kind {
                ArgKind::Injected => code.call_args.push(inject(&arg.ty)),
                ArgKind::Param(info) => code.param(arg, info),
            }
        }
        code
    }

    /// One parameter: its schema and rules, its decoding, its value.
    ///
    /// The schema and the decoding are spanned on its type, so that a type
    /// lacking `Deserialize` or `JsonSchema` is reported there; a default
    /// lacking `Serialize`, on the default; a rule the type cannot take, on
    /// the rule's key.
    fn param(&mut self, arg: &Arg, info: &ParamInfo) {
        let i = self.taken.len();
        let ty = erase_lifetimes(&arg.ty);
        let span = arg.ty.span();
        let wire = arg.wire_name();
        let description = &info.description;
        let taken = format_ident!("__mcp_arg_{}", i);
        let value = format_ident!("__mcp_value_{}", i);
        if let Some(default) = &info.default {
            // One closure, so a mistyped default is reported once. It
            // captures nothing, so it is `Copy` into the handler.
            let default_ident = format_ident!("__mcp_default_{}", i);
            let default_span = default.span();
            let default = default_value(default, &ty);
            self.schema.push(quote_spanned! {span=>
                let #default_ident = || -> #ty { #default };
            });
            // Spanned on the default: a type without `Serialize` is reported there.
            let default_at = format_ident!("__mcp_default_{}", i, span = default_span);
            self.schema.push(quote_spanned! {default_span=>
                ::oxmcp_server::__private::param_with_default(
                    &mut __mcp_schema, #wire, #description, &#default_at(),
                );
            });
            self.decode.push(quote_spanned! {span=>
                let #taken = __mcp_args.param_or::<#ty>(&__mcp_params, #i, #default_ident);
            });
        } else {
            self.schema.push(quote_spanned! {span=>
                __mcp_schema.param::<#ty>(#wire, #description);
            });
            self.decode.push(quote_spanned! {span=>
                let #taken = __mcp_args.param::<#ty>(&__mcp_params, #i);
            });
        }
        self.schema.push(info.rules.schema_calls(&ty));
        self.taken.push(taken);
        self.values.push(value.clone());
        self.call_args.push(value.into_token_stream());
    }
}

/// How a tool's handler checks its arguments once each is taken: every
/// value decoded, and (unless the tool opts out) no argument it does not
/// declare; else it answers with the `isError` result naming each problem.
struct Checks {
    schema_binding: TokenStream,
    args_binding: TokenStream,
    /// After the decoding: notes the arguments no parameter took.
    unknown: Option<TokenStream>,
    /// Binds the values, or returns the error result.
    bind: TokenStream,
}

impl Checks {
    fn new(tool: &Tool, taken: &[Ident], values: &[Ident]) -> Self {
        let has_params = !taken.is_empty();
        let refuse = tool.options.allow_unknown_arguments != Some(true);
        let (schema_binding, args_binding) = match (has_params, refuse) {
            (true, _) => (quote!(let mut __mcp_schema), quote!(mut __mcp_args)),
            (false, true) => (quote!(let __mcp_schema), quote!(mut __mcp_args)),
            (false, false) => (quote!(let __mcp_schema), quote!(__mcp_args)),
        };
        let unknown = refuse.then(|| quote!(__mcp_args.refuse_unknown(&__mcp_params);));
        let bind_values = has_params.then(|| {
            quote! {
                let (#(::core::option::Option::Some(#values),)*) = (#(#taken,)*) else {
                    return __mcp_args.error_result();
                };
            }
        });
        let bind_unknown = refuse.then(|| {
            quote! {
                if !__mcp_args.is_ok() {
                    return __mcp_args.error_result();
                }
            }
        });
        Checks {
            schema_binding,
            args_binding,
            unknown,
            bind: quote!(#bind_values #bind_unknown),
        }
    }
}

/// `__mcp_tools.push(__private::tool_entry(..));` for one tool.
///
/// A `fn` tool that takes no lock (`locked`: the toolbox is behind one)
/// gets a handler that returns its result at once, without a future.
///
/// The output conversion is spanned on the return type, so that a type
/// lacking `IntoToolResult` is reported there.
fn tool_entry(tool: &Tool, with_cfgs: bool, locked: bool) -> TokenStream {
    let spec = spec(tool);
    let ArgsCode {
        schema,
        decode,
        taken,
        values,
        call_args,
    } = ArgsCode::new(tool);
    let Checks {
        schema_binding,
        args_binding,
        unknown,
        bind,
    } = Checks::new(tool, &taken, &values);
    let Call {
        capture,
        lock,
        expr: call,
    } = Call::new(tool, &call_args);
    let output = erase_lifetimes(&tool.output);
    let output_span = tool.output_span;
    let output_schema =
        quote_spanned!(output_span=> ::oxmcp_server::__private::output_schema::<#output>());
    let into_result =
        quote_spanned!(output_span=> ::oxmcp_server::__private::into_result::<#output>);
    let cfgs = if with_cfgs { &tool.cfgs[..] } else { &[] };
    if !tool.is_async && !locked {
        let this = capture
            .is_some()
            .then(|| quote!(let __mcp_this = __mcp_shared.get();));
        // The context is made only for a tool that takes it.
        let ctx = tool
            .args
            .iter()
            .any(|arg| matches!(arg.kind, ArgKind::Injected))
            .then(|| quote!(let __mcp_ctx = __mcp_lazy.get();));
        return quote! {
            #(#cfgs)*
            __mcp_tools.push({
                #schema_binding = ::oxmcp_server::__private::InputSchemaBuilder::new();
                #(#schema)*
                let (__mcp_input, __mcp_params) = __mcp_schema.finish();
                #capture
                ::oxmcp_server::__private::tool_entry(
                    &#spec,
                    __mcp_input,
                    #output_schema,
                    ::oxmcp_server::__private::ToolHandler::at_once(
                        move |#args_binding: ::oxmcp_server::__private::Args<'_>,
                              __mcp_lazy: ::oxmcp_server::__private::LazyContext<'_>|
                              -> ::oxmcp_server::__private::CallToolResult {
                            #(#decode)*
                            #unknown
                            #bind
                            #ctx
                            #this
                            #into_result(#call)
                        },
                    ),
                )
            });
        };
    }
    // Spanned on the function's name: "future cannot be sent between threads
    // safely" then points at the tool, not at the #[tool] attribute.
    let future = quote_spanned! {tool.ident.span()=>
        ::std::boxed::Box::pin(async move {
            #bind
            #lock
            #into_result(#call)
        })
    };

    quote! {
        #(#cfgs)*
        __mcp_tools.push({
            #schema_binding = ::oxmcp_server::__private::InputSchemaBuilder::new();
            #(#schema)*
            let (__mcp_input, __mcp_params) = __mcp_schema.finish();
            #capture
            ::oxmcp_server::__private::tool_entry(
                &#spec,
                __mcp_input,
                #output_schema,
                ::oxmcp_server::__private::ToolHandler::future(
                    move |#args_binding: ::oxmcp_server::__private::Args<'static>,
                          __mcp_ctx: ::oxmcp_server::__private::Context|
                          -> ::oxmcp_server::__private::BoxFuture<'static, ::oxmcp_server::__private::CallToolResult> {
                        #capture
                        #(#decode)*
                        #unknown
                        #future
                    },
                ),
            )
        });
    }
}
