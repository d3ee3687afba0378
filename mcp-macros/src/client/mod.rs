//! The typed clients: `<Type>Client<C>` beside a toolbox (`#[tool]` on an
//! impl block), and `<Trait>Client<C>` for a declaration of a foreign
//! server's tools (`#[tool]` on a trait).
//!
//! A client method encodes its arguments (`EncodeFor<C>`), calls the tool
//! through the caller `C: ToolCaller`, and decodes the result through the
//! trait `oxmcp_types::call::ToolOutput<C>`, implemented by the very types a
//! tool may return (the server's `IntoToolResult` vocabulary): the compiler
//! resolves the tool's return type, however it is spelled (an alias, a
//! re-export), and the macro never reads a type's name to decide.
//!
//! | module | generates |
//! |---|---|
//! | this one | the client struct, its constructors and `connect` |
//! | [`methods`] | one method per tool: arguments encoded, the result decoded |
//! | [`docs`] | the rustdoc of the client and its methods |

mod docs;
mod methods;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{GenericParam, Generics, Ident};

use crate::ast::{ToolImpl, ToolTrait};
use crate::attr::ClientOption;
use docs::{doc_lines, escape_markdown};
use methods::{method, params};

/// Which kind of client, which decides the runtime path and the decoding.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Flavor {
    /// Beside a toolbox: `::oxmcp_server::__private`. The types are the
    /// server's, so the serde bounds a client needs are deferred to the call
    /// site (`where T: DecodeFor<C>`): an unused client must not require them.
    Toolbox,
    /// For a declaration: `::oxmcp_client::__private`. The types are the
    /// client's own and must be (de)serializable: checked at once, on the type.
    Declared,
}

impl Flavor {
    fn runtime(self) -> TokenStream {
        match self {
            Flavor::Toolbox => quote!(::oxmcp_server::__private),
            Flavor::Declared => quote!(::oxmcp_client::__private),
        }
    }
}

/// What the generation of one client needs to know.
struct Gen<'a> {
    flavor: Flavor,
    rt: TokenStream,
    /// The caller's type parameter (`C`).
    caller: &'a Ident,
    /// Emit `unreachable!()` bodies (beside errors).
    stub: bool,
}

/// Lints the generated client may trip in a user's crate: the client is
/// `pub` and may go unused (a server binary), and its methods mirror the
/// tools' signatures, which the user chose.
fn allow_lints() -> TokenStream {
    quote! {
        #[allow(
            dead_code,
            unreachable_pub,
            private_interfaces,
            private_bounds,
            clippy::too_many_arguments,
            clippy::fn_params_excessive_bools,
            clippy::needless_pass_by_value,
            clippy::implicit_hasher,
            clippy::option_option,
            clippy::used_underscore_binding,
            clippy::type_complexity,
            clippy::future_not_send,
            clippy::missing_errors_doc,
            non_snake_case,
        )]
    }
}

/// The caller's type parameter: `C`, unless the impl already uses that name.
fn caller_ident(generics: &Generics) -> Ident {
    let taken = generics.params.iter().any(|p| match p {
        GenericParam::Type(t) => t.ident == "C",
        GenericParam::Const(c) => c.ident == "C",
        GenericParam::Lifetime(_) => false,
    });
    if taken {
        Ident::new("__McpCaller", Span::call_site())
    } else {
        Ident::new("C", Span::call_site())
    }
}

/// The struct, `new`, `caller`, and the methods.
struct Parts<'a> {
    doc: Vec<TokenStream>,
    vis: TokenStream,
    ident: Ident,
    /// The generics of the client, the caller's last.
    generics: Generics,
    cfgs: &'a [syn::Attribute],
    extra: TokenStream,
    methods: Vec<TokenStream>,
}

fn assemble(g: &Gen<'_>, parts: Parts<'_>) -> TokenStream {
    let Parts {
        doc,
        vis,
        ident,
        generics,
        cfgs,
        extra,
        methods,
    } = parts;
    let caller = g.caller;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    // The struct: no bounds (they are the impl's), a marker for the toolbox's
    // own type and lifetime parameters.
    let mut plain = generics.clone();
    plain.where_clause = None;
    let mut marked = Vec::new();
    for param in &mut plain.params {
        match param {
            GenericParam::Type(t) => {
                t.bounds.clear();
                t.colon_token = None;
                t.eq_token = None;
                t.default = None;
                if t.ident != *caller {
                    let ident = &t.ident;
                    marked.push(quote!(#ident));
                }
            }
            GenericParam::Lifetime(l) => {
                l.bounds.clear();
                l.colon_token = None;
                let lifetime = &l.lifetime;
                marked.push(quote!(&#lifetime ()));
            }
            GenericParam::Const(c) => {
                c.eq_token = None;
                c.default = None;
            }
        }
    }
    let (marker_field, marker_init) = if marked.is_empty() {
        (None, None)
    } else {
        (
            Some(quote!(__mcp_marker: ::core::marker::PhantomData<fn() -> (#(#marked,)*)>,)),
            Some(quote!(__mcp_marker: ::core::marker::PhantomData,)),
        )
    };
    let allow = allow_lints();
    let struct_generics = &plain.params;
    quote! {
        #(#cfgs)*
        #(#doc)*
        #[derive(::core::fmt::Debug, ::core::clone::Clone)]
        #[allow(dead_code, unreachable_pub)]
        #vis struct #ident<#struct_generics> {
            caller: #caller,
            #marker_field
        }

        #(#cfgs)*
        #allow
        impl #impl_generics #ident #ty_generics #where_clause {
            /// A client that calls the tools through `caller`.
            #[must_use]
            pub fn new(caller: #caller) -> Self {
                Self { caller, #marker_init }
            }

            /// The caller this client calls the tools through.
            #[must_use]
            pub fn caller(&self) -> &#caller {
                &self.caller
            }

            #extra

            #(#methods)*
        }
    }
}

/// `<Type>Client<C>` for a toolbox, or nothing when it has none.
pub(crate) fn toolbox_client(model: &ToolImpl, stub: bool) -> TokenStream {
    if model.is_trait_impl {
        return TokenStream::new();
    }
    let Some(type_name) = &model.type_name else {
        return TokenStream::new();
    };
    let vis = match &model.client {
        ClientOption::Off => return TokenStream::new(),
        ClientOption::Default => quote!(pub),
        ClientOption::Vis(vis) => vis.to_token_stream(),
    };
    let caller = caller_ident(&model.generics);
    let g = Gen {
        flavor: Flavor::Toolbox,
        rt: Flavor::Toolbox.runtime(),
        caller: &caller,
        stub,
    };
    let rt = &g.rt;
    let mut generics = model.generics.clone();
    generics
        .params
        .push(syn::parse_quote!(#caller: #rt::ToolCaller));
    let ident = format_ident!("{}Client", type_name, span = model.self_ty.span());
    let description = model
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let text = format!(
        "A typed client for the tools of `{type_name}`: {}\n\n\
         Generated by `#[tool]`: one `async` method per tool, taking the tool's \
         arguments and returning its typed result (the text, the parsed number, the \
         `Json<T>` payload, the content). The calls go through any `ToolCaller`: a \
         connected client, or a server in the same process. Build one with \
         `{ident}::new(caller)`.",
        escape_markdown(description.trim())
    );
    let methods = client_methods(&g, &model.tools);
    assemble(
        &g,
        Parts {
            doc: doc_lines(&text),
            vis,
            ident,
            generics,
            cfgs: &model.cfgs,
            extra: TokenStream::new(),
            methods,
        },
    )
}

/// The client's methods, both flavors: one per tool, then one per prompt.
fn client_methods(g: &Gen<'_>, tools: &[crate::ast::Tool]) -> Vec<TokenStream> {
    let calls = tools
        .iter()
        .filter(|t| t.is_tool())
        .filter_map(|t| method(g, t));
    let prompts = tools
        .iter()
        .filter(|t| matches!(t.kind, crate::ast::ItemKind::Prompt(_)))
        .map(|t| methods::prompt_method(g, t));
    calls.chain(prompts).collect()
}

/// `<Trait>Client<C>` for a declaration.
pub(crate) fn declared_client(model: &ToolTrait, stub: bool) -> TokenStream {
    let caller = Ident::new("C", Span::call_site());
    let g = Gen {
        flavor: Flavor::Declared,
        rt: Flavor::Declared.runtime(),
        caller: &caller,
        stub,
    };
    let rt = &g.rt;
    let mut generics = Generics::default();
    generics
        .params
        .push(syn::parse_quote!(#caller: #rt::ToolCaller));
    let trait_ident = &model.ident;
    let ident = format_ident!("{}Client", trait_ident, span = trait_ident.span());
    let doc = declared_doc(model, &ident);
    let connect = connect_fn(model, rt, &caller, stub);
    let methods = client_methods(&g, &model.tools);
    assemble(
        &g,
        Parts {
            doc,
            vis: model.vis.to_token_stream(),
            ident,
            generics,
            cfgs: &model.cfgs,
            extra: connect,
            methods,
        },
    )
}

/// The doc of `<Trait>Client`: the trait's own docs, then what it is.
fn declared_doc(model: &ToolTrait, ident: &Ident) -> Vec<TokenStream> {
    let trait_ident = &model.ident;
    let description = model
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let has_own_docs = model.carried.iter().any(|a| a.path().is_ident("doc"));
    let mut doc: Vec<TokenStream> = model
        .carried
        .iter()
        .map(ToTokens::to_token_stream)
        .collect();
    let intro = if has_own_docs { "\n" } else { "" };
    let text = format!(
        "{intro}A typed client for the tools declared by `trait {trait_ident}`: {}\n\n\
         Generated by `#[tool]`: one `async` method per declared tool. \
         `{ident}::connect(caller)` first checks that the server offers each tool \
         with a compatible input schema; `{ident}::new(caller)` does not check.",
        escape_markdown(description.trim())
    );
    doc.extend(doc_lines(&text));
    doc
}

/// `<Trait>Client::connect`: lists the server's tools and checks them
/// against the declaration.
fn connect_fn(model: &ToolTrait, rt: &TokenStream, caller: &Ident, stub: bool) -> TokenStream {
    if stub {
        quote! {
            /// Lists the server's tools and checks them against the declaration.
            ///
            /// # Errors
            ///
            /// `CallError::Incompatible` listing every difference.
            pub async fn connect(caller: #caller) -> ::core::result::Result<Self, #rt::CallError> {
                let _ = caller;
                ::core::unreachable!()
            }
        }
    } else {
        let declared = model.tools.iter().filter(|t| t.is_tool()).map(|tool| {
            let wire = tool.name();
            let cfgs = &tool.cfgs;
            let args = params(tool).into_iter().map(|p| {
                let name = &p.wire;
                let optional = p.optional;
                let sent = &p.sent_ty;
                let schema = quote_spanned!(sent.span()=> #rt::schema_of::<#sent>());
                quote!(#rt::DeclaredArg::new(#name, #optional, #schema))
            });
            quote! {
                #(#cfgs)*
                __mcp_declared.push(#rt::DeclaredTool::new(#wire, ::std::vec![#(#args),*]));
            }
        });
        let prompts: Vec<TokenStream> = model
            .tools
            .iter()
            .filter(|t| matches!(t.kind, crate::ast::ItemKind::Prompt(_)))
            .map(|prompt| {
                let wire = prompt.name();
                let cfgs = &prompt.cfgs;
                let args = params(prompt).into_iter().map(|p| {
                    let name = p.wire;
                    let optional = p.optional;
                    quote!((#name, #optional))
                });
                quote! {
                    #(#cfgs)*
                    __mcp_declared_prompts.push(#rt::DeclaredPrompt::new(#wire, ::std::vec![#(#args),*]));
                }
            })
            .collect();
        let list_prompts = if prompts.is_empty() {
            quote!(let __mcp_prompts = ::std::vec::Vec::new();)
        } else {
            quote!(let __mcp_prompts = #rt::ToolCaller::list_all_prompts(&caller).await?;)
        };
        quote! {
            /// Connects: lists the server's tools (every page) and checks that it
            /// offers each declared tool, and that each tool's input schema accepts
            /// the declared arguments: the properties the server requires are
            /// declared (and not as optional), every declared argument that is not
            /// optional is a property of the server's, and their JSON types agree
            /// (an integer is a number; complex schemas are accepted).
            ///
            /// # Errors
            ///
            /// `CallError::Incompatible` listing every difference, each naming
            /// the tool and the argument; the caller's own errors from listing the tools.
            pub async fn connect(caller: #caller) -> ::core::result::Result<Self, #rt::CallError> {
                let __mcp_tools = #rt::ToolCaller::list_all_tools(&caller).await?;
                #list_prompts
                #[allow(unused_mut)]
                let mut __mcp_declared = ::std::vec::Vec::new();
                #(#declared)*
                #[allow(unused_mut)]
                let mut __mcp_declared_prompts = ::std::vec::Vec::new();
                #(#prompts)*
                #rt::check_compatible(&__mcp_tools, &__mcp_declared, &__mcp_prompts, &__mcp_declared_prompts)?;
                ::core::result::Result::Ok(Self::new(caller))
            }
        }
    }
}
