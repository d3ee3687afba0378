//! The typed clients: `<Type>Client<C>` beside a toolbox (`#[tool]` on an
//! impl block), and `<Trait>Client<C>` for a declaration of a foreign
//! server's tools (`#[tool]` on a trait).
//!
//! A client method encodes its arguments, calls the tool through the
//! caller `C: ToolCaller`, and decodes the result with one helper of
//! `mcp_types::call`, chosen here from the shape of the return type. The
//! shape is read from the tokens because the runtime cannot tell us: the
//! server's return types belong to `mcp-server` (no client-side trait can be
//! implemented for them), and a declared type may be `String` (the text)
//! as well as deserializable (structured content). Whatever is not
//! recognised gets the whole `CallToolResult`, which is always right.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    GenericArgument, GenericParam, Generics, Ident, Lifetime, PathArguments, PathSegment, Type,
};

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

/// What a client method returns, by the shape of the tool's return type.
enum Output<'a> {
    /// `()`: nothing.
    Unit,
    /// `String`, `&str`, `Cow<str>`: the text content.
    Text,
    /// A number, `bool` or `char`: its text, parsed.
    Parsed(&'a Type),
    /// Decoded from `structuredContent`: `value` (the `T` of a toolbox's
    /// `Json<T>`, whose type as written is `json`; or a declared type).
    Structured {
        value: &'a Type,
        json: Option<&'a Type>,
    },
    /// Content blocks: `Vec<ContentBlock>`.
    Content,
    /// The whole `CallToolResult`.
    Whole,
}

const PARSED: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64", "bool", "char",
];

fn peel(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => peel(&g.elem),
        Type::Paren(p) => peel(&p.elem),
        _ => ty,
    }
}

/// The last segment of a plain path type (`a::b::C<..>` → `C<..>`).
fn last_segment(ty: &Type) -> Option<&PathSegment> {
    match peel(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// The type arguments of a segment (`Result<T, E>` → `[T, E]`).
fn type_args(segment: &PathSegment) -> Vec<&Type> {
    match &segment.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `Name<T>` with exactly one type argument: `T`.
fn single_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let segment = last_segment(ty)?;
    let args = type_args(segment);
    (segment.ident == name && args.len() == 1).then(|| args[0])
}

fn is_named(ty: &Type, names: &[&str]) -> bool {
    last_segment(ty).is_some_and(|s| s.arguments.is_none() && names.iter().any(|n| s.ident == n))
}

fn is_unit(ty: &Type) -> bool {
    matches!(peel(ty), Type::Tuple(t) if t.elems.is_empty())
}

fn is_content_block(ty: &Type) -> bool {
    is_named(ty, &["Content", "ContentBlock"])
}

/// The client's output for a toolbox's return type (anything `IntoToolResult`).
fn toolbox_output(ty: &Type) -> Output<'_> {
    if is_unit(ty) {
        return Output::Unit;
    }
    if let Type::Reference(r) = peel(ty) {
        return if is_named(&r.elem, &["str"]) {
            Output::Text
        } else {
            Output::Whole
        };
    }
    let Some(segment) = last_segment(ty) else {
        return Output::Whole;
    };
    let args = type_args(segment);
    let name = segment.ident.to_string();
    match (name.as_str(), args.as_slice()) {
        // `Result<T, E>`, or an alias `Result<T>`: an error is `isError` anyway.
        ("Result", [ok, ..]) => toolbox_output(ok),
        ("String" | "Cow", _) => Output::Text,
        (n, []) if PARSED.contains(&n) && segment.arguments.is_none() => Output::Parsed(peel(ty)),
        ("Json", [value]) => Output::Structured {
            value,
            json: Some(peel(ty)),
        },
        ("Content" | "ContentBlock", []) => Output::Content,
        ("Vec", [item]) if is_content_block(item) => Output::Content,
        _ => Output::Whole,
    }
}

/// The client's output for a declared return type, or why it cannot be one
/// (the tokens at fault and the message).
pub(crate) fn declared_output(ty: &Type) -> Result<(), (TokenStream, String)> {
    declared(ty).map(drop)
}

fn declared(ty: &Type) -> Result<Output<'_>, (TokenStream, String)> {
    let at = ty.to_token_stream();
    if is_unit(ty) {
        return Ok(Output::Unit);
    }
    match peel(ty) {
        Type::Reference(r) => {
            let owned = if is_named(&r.elem, &["str"]) {
                "`String`"
            } else {
                "an owned type"
            };
            return Err((at, format!("a declared tool returns an owned value (the client decodes it from the server's answer): use {owned} instead of a reference")));
        }
        Type::ImplTrait(_) => {
            return Err((at, "a declared tool's return type must be concrete: `String`, a number, `Vec<ContentBlock>`, `CallToolResult`, or a type that implements `Deserialize`".to_owned()));
        }
        _ => {}
    }
    let Some(segment) = last_segment(ty) else {
        return Ok(Output::Structured {
            value: ty,
            json: None,
        });
    };
    let args = type_args(segment);
    let name = segment.ident.to_string();
    Ok(match (name.as_str(), args.as_slice()) {
        ("Result", [ok, ..]) => {
            let ok = ok.to_token_stream();
            return Err((at, format!("write the success type alone (`{ok}`): the client's method returns `Result<{ok}, CallError>`, and a tool's `isError` result is `CallError::Tool`")));
        }
        ("Json", [value]) => {
            let value = value.to_token_stream();
            return Err((at, format!("write `{value}`: a declared tool names the type the client decodes from the structured result (it must implement `Deserialize`); `Json<_>` is the server's wrapper")));
        }
        ("Content" | "ContentBlock", []) => {
            return Err((
                at,
                "a tool's content is a list of blocks: write `Vec<ContentBlock>`".to_owned(),
            ));
        }
        ("String", []) => Output::Text,
        (n, []) if PARSED.contains(&n) && segment.arguments.is_none() => Output::Parsed(peel(ty)),
        ("Vec", [item]) if is_content_block(item) => Output::Content,
        ("CallToolResult", []) => Output::Whole,
        _ => Output::Structured {
            value: ty,
            json: None,
        },
    })
}

/// Whether a type is certainly `Serialize + DeserializeOwned` (std data made
/// of strings, numbers, options, vectors and string-keyed maps): its deferred
/// bound would only clutter the method's documentation.
fn is_plain_data(ty: &Type) -> bool {
    if let Type::Tuple(t) = peel(ty) {
        return t.elems.iter().all(is_plain_data);
    }
    let Some(segment) = last_segment(ty) else {
        return false;
    };
    let args = type_args(segment);
    let name = segment.ident.to_string();
    match (name.as_str(), args.as_slice()) {
        (n, []) => segment.arguments.is_none() && (PARSED.contains(&n) || n == "String"),
        ("Option" | "Vec", [item]) => is_plain_data(item),
        ("HashMap" | "BTreeMap", [key, value]) => {
            is_named(key, &["String"]) && is_plain_data(value)
        }
        _ => false,
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

/// One client method, or `None` for a declared tool whose return type is
/// refused, or beside errors for one named like the client's own methods.
fn method(g: &Gen<'_>, tool: &Tool) -> Option<TokenStream> {
    if g.stub {
        let ident = tool.ident.to_string();
        let ident = ident.trim_start_matches("r#");
        if CLIENT_METHODS.contains(&ident) || DECLARED_CLIENT_METHODS.contains(&ident) {
            return None;
        }
    }
    let rt = &g.rt;
    let caller = g.caller;
    let output = match g.flavor {
        Flavor::Toolbox => toolbox_output(&tool.output),
        Flavor::Declared => declared(&tool.output).ok()?,
    };
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
        if deferred && !is_plain_data(sent) {
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

    let output_ty = erase_lifetimes(&tool.output);
    let (ret, decode) = match &output {
        Output::Unit => (quote!(()), quote!(#rt::decode_unit(#wire, __mcp_result))),
        Output::Text => (
            quote!(::std::string::String),
            quote!(#rt::decode_text(#wire, __mcp_result)),
        ),
        Output::Parsed(ty) => (
            ty.to_token_stream(),
            quote_spanned!(ty.span()=> #rt::decode_parsed::<#ty>(#wire, __mcp_result)),
        ),
        Output::Content => (
            if g.flavor == Flavor::Declared {
                output_ty.to_token_stream()
            } else {
                quote!(::std::vec::Vec<#rt::ContentBlock>)
            },
            quote!(#rt::decode_content(#wire, __mcp_result)),
        ),
        Output::Whole => (
            if g.flavor == Flavor::Declared {
                output_ty.to_token_stream()
            } else {
                quote!(#rt::CallToolResult)
            },
            quote!(#rt::decode_whole(#wire, __mcp_result)),
        ),
        Output::Structured { value, json } => {
            let value = erase_lifetimes(value);
            let span = value.span();
            // The server wraps a value whose schema's root is not an object
            // as `{"result": value}`: ask its output schema, as it does.
            let decode = if let Some(json) = json {
                if !is_plain_data(&value) {
                    bound(quote_spanned!(span=> #value: #rt::DecodeFor<#caller>));
                }
                let json = erase_lifetimes(json);
                quote_spanned! {json.span()=>
                    // The `Json` of the return type is the runtime's.
                    let _: ::core::marker::PhantomData<#rt::Json<#value>> =
                        ::core::marker::PhantomData::<#json>;
                    #rt::decode_structured::<#value, #caller>(#wire, __mcp_result, || {
                        #rt::is_wrapped_output(
                            #rt::output_schema::<#output_ty>()
                                .as_ref()
                                .map(#rt::Schema::as_value),
                        )
                    })
                }
            } else {
                quote_spanned! {span=>
                    #rt::decode_structured_lenient::<#value>(#wire, __mcp_result)
                }
            };
            (value.to_token_stream(), decode)
        }
    };

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
        pub async fn #ident(&self, #(#args),*)
            -> ::core::result::Result<#ret, #rt::CallError>
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
