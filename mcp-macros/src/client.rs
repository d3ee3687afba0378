//! The typed clients: `<Type>Client<C>` beside a toolbox (`#[tool]` on an
//! impl block), and `<Trait>Client<C>` for a declaration of a foreign
//! server's tools (`#[tool]` on a trait).
//!
//! A client method encodes its arguments (`EncodeFor<C>`), calls the tool
//! through the caller `C: ToolCaller`, and decodes the result through the
//! trait `mcp_types::call::ToolOutput<C>`, implemented by the very types a
//! tool may return (the server's `IntoToolResult` vocabulary): the compiler
//! resolves the tool's return type, however it is spelled (an alias, a
//! re-export), and the macro never reads a type's name to decide.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{GenericArgument, GenericParam, Generics, Ident, Lifetime, PathArguments, Type};

use crate::ast::{ArgKind, Tool, ToolImpl, ToolTrait};
use crate::attr::ClientOption;
use crate::expand::erase_lifetimes;
use crate::symbol::{CLIENT_METHODS, DECLARED_CLIENT_METHODS};

/// Which kind of client, which decides the runtime path and the decoding.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Flavor {
    /// Beside a toolbox: `::mcp_server::__private`. The types are the
    /// server's, so the serde bounds a client needs are deferred to the call
    /// site (`where T: DecodeFor<C>`): an unused client must not require them.
    Toolbox,
    /// For a declaration: `::mcp_client::__private`. The types are the
    /// client's own and must be (de)serializable: checked at once, on the type.
    Declared,
}

impl Flavor {
    fn runtime(self) -> TokenStream {
        match self {
            Flavor::Toolbox => quote!(::mcp_server::__private),
            Flavor::Declared => quote!(::mcp_client::__private),
        }
    }
}

/// `Name<T>` with exactly one type argument: `T`.
fn single_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(p) = peel(ty) else {
        return None;
    };
    if p.qself.is_some() {
        return None;
    }
    let segment = p.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    (segment.ident == name && args.args.len() == 1).then_some(first)
}

fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => peel(&g.elem),
        Type::Paren(p) => peel(&p.elem),
        _ => ty,
    }
}

/// A declared return type refused whatever its name (a reference, `impl
/// Trait`; reported by the checks): its stub method is left out.
fn refused_output(ty: &Type) -> bool {
    matches!(peel(ty), Type::Reference(_) | Type::ImplTrait(_))
}

/// The return type of a client method (`Result<_, CallError>`), the
/// expression that decodes `__mcp_result` into it, and (for a toolbox) the
/// bound that defers the check to the call site; all through the traits of
/// `mcp_types::call`: the compiler, not the macro, tells what the tool's
/// return type decodes into.
fn output(g: &Gen<'_>, tool: &Tool) -> (TokenStream, TokenStream, Option<TokenStream>) {
    let wire = tool.name();
    let span = tool.output_span;
    // Every token spanned on the return type, so that an error about it
    // points there (and once: rustc merges identical errors).
    let rt = match g.flavor {
        Flavor::Toolbox => quote_spanned!(span=> ::mcp_server::__private),
        Flavor::Declared => quote_spanned!(span=> ::mcp_client::__private),
    };
    let caller = Ident::new(&g.caller.to_string(), span);
    let output = erase_lifetimes(&tool.output);
    match g.flavor {
        // `fn(&()) -> R`: a return type with elided lifetimes (`&str`,
        // `Cow<str>`) can be named in the `where` clause that defers the
        // bound to the call site (a server's `Json<T>` needs no `Deserialize`).
        Flavor::Toolbox => {
            let returns = quote_spanned!(span=> fn(&()) -> #output);
            let ret = quote_spanned! {span=>
                ::core::result::Result<<#returns as #rt::Returns<#caller>>::Output, #rt::CallError>
            };
            let bound = quote_spanned!(span=> #returns: #rt::Returns<#caller>);
            // The server wraps a value whose schema's root is not an object
            // as `{"result": value}`: ask its output schema, as it does.
            let decode = quote_spanned! {span=>
                <#returns as #rt::Returns<#caller>>::decode(
                    #wire,
                    __mcp_result,
                    #rt::Wrapping::Rule(|| {
                        #rt::is_wrapped_output(
                            #rt::output_schema::<#output>()
                                .as_ref()
                                .map(#rt::Schema::as_value),
                        )
                    }),
                )
            };
            (ret, decode, Some(bound))
        }
        // The client's own types: checked at once, where the trait is declared.
        Flavor::Declared => {
            let ret = quote_spanned! {span=>
                ::core::result::Result<<#output as #rt::ToolOutput<#caller>>::Output, #rt::CallError>
            };
            let decode = quote_spanned! {span=>
                <#output as #rt::ToolOutput<#caller>>::decode(#wire, __mcp_result, #rt::Wrapping::Lenient)
            };
            (ret, decode, None)
        }
    }
}

/// `T: Trait`, spanned on `T`; a `T` with elided lifetimes (`&str`,
/// `Cow<'_, str>`), which a where clause cannot name, gets them bound by
/// `for<'__mcp>`.
fn deferred_bound(ty: &Type, tr: TokenStream) -> TokenStream {
    struct Namer(bool);
    impl VisitMut for Namer {
        fn visit_lifetime_mut(&mut self, lifetime: &mut Lifetime) {
            if lifetime.ident == "_" {
                *lifetime = Lifetime::new("'__mcp", lifetime.span());
                self.0 = true;
            }
        }
        fn visit_type_reference_mut(&mut self, reference: &mut syn::TypeReference) {
            if reference.lifetime.is_none() {
                reference.lifetime = Some(Lifetime::new("'__mcp", reference.and_token.span));
                self.0 = true;
            }
            syn::visit_mut::visit_type_reference_mut(self, reference);
        }
    }
    let mut ty = ty.clone();
    let mut namer = Namer(false);
    namer.visit_type_mut(&mut ty);
    let span = ty.span();
    if namer.0 {
        quote_spanned!(span=> for<'__mcp> #ty: #tr)
    } else {
        quote_spanned!(span=> #ty: #tr)
    }
}

/// One parameter of a client method.
struct Param<'a> {
    ident: &'a Ident,
    wire: String,
    /// The type the method takes: `T`, or `Option<T>` for a defaulted `T`.
    client_ty: TokenStream,
    /// The type of the value sent: `T` (also of an `Option<T>`).
    sent_ty: Type,
    /// `None` leaves the argument out (`Option<T>`, or defaulted).
    optional: bool,
    /// Defaulted: the server applies its default when it is left out.
    defaulted: bool,
    description: String,
}

fn params(tool: &Tool) -> Vec<Param<'_>> {
    tool.args
        .iter()
        .filter_map(|arg| {
            let ArgKind::Param(info) = &arg.kind else {
                return None;
            };
            let ty = erase_lifetimes(&arg.ty);
            let description = info
                .description
                .as_ref()
                .map(syn::LitStr::value)
                .unwrap_or_default();
            let param = if info.default.is_some() {
                let span = arg.ty.span();
                Param {
                    client_ty: quote_spanned!(span=> ::core::option::Option<#ty>),
                    sent_ty: ty,
                    optional: true,
                    defaulted: true,
                    ident: &arg.ident,
                    wire: arg.wire_name(),
                    description,
                }
            } else if let Some(inner) = single_arg(&ty, "Option") {
                Param {
                    client_ty: ty.to_token_stream(),
                    sent_ty: inner.clone(),
                    optional: true,
                    defaulted: false,
                    ident: &arg.ident,
                    wire: arg.wire_name(),
                    description,
                }
            } else {
                Param {
                    client_ty: ty.to_token_stream(),
                    sent_ty: ty,
                    optional: false,
                    defaulted: false,
                    ident: &arg.ident,
                    wire: arg.wire_name(),
                    description,
                }
            };
            Some(param)
        })
        .collect()
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

/// A description as Markdown that shows it as written: `<` and `[` outside
/// code spans are escaped, so `Vec<Hit>` is not an HTML tag and `[x]` is
/// not a link.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // The length of the backtick run that opened the current code span.
    let mut code: Option<usize> = None;
    while let Some(c) = chars.next() {
        if c == '`' {
            let mut run = 1;
            while chars.peek() == Some(&'`') {
                chars.next();
                run += 1;
            }
            match code {
                None => code = Some(run),
                Some(open) if open == run => code = None,
                Some(_) => {}
            }
            out.extend(std::iter::repeat_n('`', run));
            continue;
        }
        if code.is_none() && matches!(c, '<' | '>' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The doc of one client method.
fn method_doc(tool: &Tool, params: &[Param<'_>]) -> TokenStream {
    let description = tool
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .unwrap_or_default();
    let mut lines = vec![format!(
        "Calls the tool `{}`: {}",
        tool.name(),
        escape_markdown(description.trim())
    )];
    if !params.is_empty() {
        lines.push(String::new());
        lines.push("Arguments:".to_owned());
        for p in params {
            let optional = if p.defaulted {
                " (optional: `None` leaves it out, and the server applies its default)"
            } else if p.optional {
                " (optional: `None` leaves it out)"
            } else {
                ""
            };
            lines.push(format!(
                "- `{}`{optional}: {}",
                p.wire,
                escape_markdown(p.description.trim())
            ));
        }
    }
    lines.extend([
        String::new(),
        "Returns the tool's result, decoded as `ToolOutput` says for the tool's return type: \
         the text, the parsed number, the `Json<T>` payload, the content."
            .to_owned(),
        String::new(),
        "# Errors".to_owned(),
        String::new(),
        "`CallError::Tool` when the tool reports a failure (`isError`), \
         `CallError::Decode` when its result is not what this method returns, \
         and the caller's own errors (transport, protocol, timeout)."
            .to_owned(),
    ]);
    let docs = lines.iter().map(|line| {
        let line = if line.is_empty() {
            String::new()
        } else {
            format!(" {line}")
        };
        quote!(#[doc = #line])
    });
    quote!(#(#docs)*)
}

/// One client method, or `None` beside errors for a declared tool whose
/// return type is refused or a method named like the client's own.
fn method(g: &Gen<'_>, tool: &Tool) -> Option<TokenStream> {
    if g.stub {
        let ident = tool.ident.to_string();
        let ident = ident.trim_start_matches("r#");
        if CLIENT_METHODS.contains(&ident) || DECLARED_CLIENT_METHODS.contains(&ident) {
            return None;
        }
    }
    if g.flavor == Flavor::Declared && refused_output(&tool.output) {
        return None;
    }
    let rt = &g.rt;
    let caller = g.caller;
    let params = params(tool);
    let wire = tool.name();
    let ident = &tool.ident;
    // A stub has no bodies, so no bounds either: fewer errors beside the real ones.
    let deferred = g.flavor == Flavor::Toolbox && !g.stub;
    let mut bounds: Vec<TokenStream> = Vec::new();
    let mut bound = |b: TokenStream| {
        if !bounds.iter().any(|x| x.to_string() == b.to_string()) {
            bounds.push(b);
        }
    };

    let mut pushes = Vec::new();
    for p in &params {
        let name = &p.wire;
        let sent = &p.sent_ty;
        let span = sent.span();
        if deferred {
            bound(deferred_bound(sent, quote!(#rt::EncodeFor<#caller>)));
        }
        let value = p.ident;
        // A toolbox's argument needs `Serialize` only where the method is
        // called; a declared one at once (it is the client's own type).
        let push = match g.flavor {
            Flavor::Toolbox => quote_spanned!(span=> push::<#sent, #caller>),
            Flavor::Declared => quote_spanned!(span=> push_serialize::<#sent>),
        };
        pushes.push(if p.optional {
            quote_spanned! {span=>
                if let ::core::option::Option::Some(__mcp_value) = &#value {
                    __mcp_args.#push(#name, __mcp_value);
                }
            }
        } else {
            quote_spanned! {span=>
                __mcp_args.#push(#name, &#value);
            }
        });
    }

    let (ret, decode, output_bound) = output(g, tool);
    if let Some(output_bound) = output_bound {
        // Also on a stub: its return type names the bound's projection.
        bound(output_bound);
    }

    let idents: Vec<&Ident> = params.iter().map(|p| p.ident).collect();
    let body = if g.stub {
        quote! {
            let _ = (#(#idents,)*);
            ::core::unreachable!()
        }
    } else {
        let args = if pushes.is_empty() {
            quote!(#rt::JsonObject::new())
        } else {
            quote! {{
                let mut __mcp_args = #rt::CallArguments::new(#wire);
                #(#pushes)*
                __mcp_args.finish()?
            }}
        };
        quote! {
            let __mcp_result =
                #rt::ToolCaller::call_tool(&self.caller, #wire, #args).await?;
            #decode
        }
    };
    let where_clause = (!bounds.is_empty()).then(|| quote!(where #(#bounds,)*));
    let doc = method_doc(tool, &params);
    let cfgs = &tool.cfgs;
    let carried = &tool.carried;
    let args = params.iter().map(|p| {
        let ident = p.ident;
        let ty = &p.client_ty;
        quote!(#ident: #ty)
    });
    Some(quote! {
        #(#cfgs)*
        #(#carried)*
        #doc
        pub async fn #ident(&self, #(#args),*) -> #ret
            #where_clause
        {
            #body
        }
    })
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

fn doc_lines(text: &str) -> Vec<TokenStream> {
    text.lines()
        .map(|line| {
            let line = if line.is_empty() {
                String::new()
            } else {
                format!(" {line}")
            };
            quote!(#[doc = #line])
        })
        .collect()
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
    let methods = model.tools.iter().filter_map(|t| method(&g, t)).collect();
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

    let connect = if stub {
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
        let declared = model.tools.iter().map(|tool| {
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
                #[allow(unused_mut)]
                let mut __mcp_declared = ::std::vec::Vec::new();
                #(#declared)*
                #rt::check_compatible(&__mcp_tools, &__mcp_declared)?;
                ::core::result::Result::Ok(Self::new(caller))
            }
        }
    };
    let methods = model.tools.iter().filter_map(|t| method(&g, t)).collect();
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

#[cfg(test)]
mod tests {
    use super::escape_markdown;

    #[test]
    fn markdown_is_escaped_outside_code() {
        assert_eq!(
            escape_markdown("a Vec<Hit> of [x] and `Option<T>` or ``a ` [b]``"),
            "a Vec\\<Hit\\> of \\[x\\] and `Option<T>` or ``a ` [b]``"
        );
        assert_eq!(escape_markdown("plain"), "plain");
    }
}
