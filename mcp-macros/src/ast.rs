//! The model of a `#[tool]` item, built from syn's tree. Building it also
//! strips the helper attributes (`#[describe]`, `#[param]`, a method's
//! `#[tool]`) from the user's item, which is then emitted as it stands.

use std::fmt::Write as _;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, FnArg, Generics, Ident, ImplItem, ImplItemFn, ItemFn, ItemImpl, ItemTrait,
    LitStr, Pat, PatType, ReturnType, Signature, Token, TraitItem, TraitItemFn, Type, Visibility,
};

use crate::attr::{self, ClientOption, Container, Helper, ParamAttr, Position, ToolOptions};
use crate::ctxt::Ctxt;
use crate::symbol::{CFG, CONTEXT};

/// `#[tool(description = "...")] impl T { ... }`: a toolbox.
pub(crate) struct ToolImpl {
    pub(crate) self_ty: Type,
    pub(crate) generics: Generics,
    /// The type's name (the toolbox's `NAME`), if the self type is a path.
    pub(crate) type_name: Option<String>,
    pub(crate) description: Option<LitStr>,
    /// A `#[describe]` on the block stood for the description (already reported).
    pub(crate) description_attempted: bool,
    pub(crate) tools: Vec<Tool>,
    /// The impl's own `#[cfg]`s, repeated on what is generated for it.
    pub(crate) cfgs: Vec<Attribute>,
    /// Whether the block has `pub fn`s at all (tools or not), or a private
    /// fn with `#[describe]`/`#[param]` (already reported): not "no tools".
    pub(crate) has_candidates: bool,
    /// `impl Trait for T`: refused; nothing is generated.
    pub(crate) is_trait_impl: bool,
    /// The trait of `impl Trait for T`, for the error.
    pub(crate) trait_path: Option<syn::Path>,
    /// The typed client: on (`pub`), off, or with another visibility.
    pub(crate) client: ClientOption,
}

/// `#[tool(description = "...")] trait T { ... }`: the tools of a server
/// written elsewhere, declared for a typed client. The trait itself is not
/// emitted; `TClient<C>` is.
pub(crate) struct ToolTrait {
    pub(crate) ident: Ident,
    pub(crate) vis: Visibility,
    pub(crate) description: Option<LitStr>,
    /// A `#[describe]` on the trait stood for the description (already reported).
    pub(crate) description_attempted: bool,
    pub(crate) tools: Vec<Tool>,
    /// The trait's `#[cfg]`s, repeated on what is generated for it.
    pub(crate) cfgs: Vec<Attribute>,
    /// The trait's doc comments and lint attributes, carried to the client type.
    pub(crate) carried: Vec<Attribute>,
    /// Whether the trait has methods at all (tools or not).
    pub(crate) has_candidates: bool,
    /// What the trait may not have, kept for the checks.
    pub(crate) unsafety: Option<Token![unsafe]>,
    pub(crate) auto_token: Option<Token![auto]>,
    pub(crate) generics: Generics,
    pub(crate) supertraits: Option<TokenStream>,
}

/// `#[tool] fn f(...)`: one tool, exposed through a generated unit struct.
pub(crate) struct ToolFn {
    pub(crate) vis: Visibility,
    /// `add_numbers` → `AddNumbersTool`.
    pub(crate) struct_ident: Ident,
    /// `None` when the function cannot be a tool at all (it is a method).
    pub(crate) tool: Option<Tool>,
}

/// How a tool reaches its toolbox.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Access {
    /// `&self`: the read lock; runs concurrently.
    Shared,
    /// `&mut self`: the write lock; runs alone.
    Exclusive,
    /// A free function: no toolbox.
    Free,
}

/// One tool: a method of a toolbox or a free function.
pub(crate) struct Tool {
    pub(crate) ident: Ident,
    pub(crate) options: ToolOptions,
    pub(crate) description: Option<LitStr>,
    /// A description was attempted (a malformed `#[describe]`, already reported).
    pub(crate) description_attempted: bool,
    pub(crate) access: Access,
    pub(crate) is_async: bool,
    pub(crate) args: Vec<Arg>,
    pub(crate) output: Type,
    /// Where errors about the output type go: the type, or the name when there is none.
    pub(crate) output_span: Span,
    pub(crate) generics: Generics,
    /// The method's `#[cfg]`s: a cfg'd-out method is not a tool.
    pub(crate) cfgs: Vec<Attribute>,
    /// Where the function is (for messages): "method" or "function".
    pub(crate) position: Position,
    /// Its errors' [`section`](Ctxt::section): its place in the impl block.
    pub(crate) section: usize,
    /// A declared tool's doc comments, lint attributes and `#[deprecated]`,
    /// carried to its client method (empty for other tools).
    pub(crate) carried: Vec<Attribute>,
    /// `unsafe fn`: refused.
    pub(crate) unsafety: Option<Token![unsafe]>,
    /// The signature of a declared tool, for its checks.
    pub(crate) declared: Option<DeclaredSig>,
}

/// What a declared tool's signature must and must not have.
pub(crate) struct DeclaredSig {
    /// The braces of a body (refused).
    pub(crate) body: Option<Span>,
    /// `fn` of a tool that is not `async`.
    pub(crate) not_async: Option<Token![fn]>,
    /// No receiver at all (refused at the name), or one that is not `&self`.
    pub(crate) receiver: Option<Result<(), TokenStream>>,
}

impl Tool {
    /// The tool's name on the wire: `name = "..."`, else the function's name.
    pub(crate) fn name(&self) -> String {
        match &self.options.name {
            Some(lit) => lit.value(),
            None => self.ident.unraw().to_string(),
        }
    }

    /// The tokens that set the name, for errors about it.
    pub(crate) fn name_span(&self) -> Span {
        match &self.options.name {
            Some(lit) => lit.span(),
            None => self.ident.span(),
        }
    }
}

/// One argument of a tool function.
pub(crate) struct Arg {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) kind: ArgKind,
    /// Its type is written `Context` or `&Context`: certainly injected, so a
    /// `#[param]` on it is a mistake the macro can name.
    pub(crate) literal_context: bool,
}

impl Arg {
    /// The parameter's name on the wire.
    pub(crate) fn wire_name(&self) -> String {
        self.ident.unraw().to_string()
    }
}

pub(crate) enum ArgKind {
    /// Decoded from the call's arguments, described in the schema.
    Param(ParamInfo),
    /// No description: injected by the server (`Context` or `&Context`,
    /// whatever they are called; the compiler checks the type through
    /// `mcp_server::__private::Inject`).
    Injected,
}

#[derive(Default)]
pub(crate) struct ParamInfo {
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Expr>,
    /// A `#[param]` named it (its description may still be missing, already reported).
    pub(crate) described: bool,
    /// A misspelled `#[param(name)]` meant it (already reported): not "undescribed" too.
    pub(crate) typo_target: bool,
}

impl ToolImpl {
    pub(crate) fn from_syn(cx: &Ctxt, args: TokenStream, item: &mut ItemImpl) -> ToolImpl {
        let options = attr::impl_options(cx, args, Container::Impl);
        let trait_path = item.trait_.as_ref().map(|(_, path, _)| path.clone());
        let description_attempted = impl_attrs(cx, &mut item.attrs);
        let type_name = match &*item.self_ty {
            Type::Path(p) if p.qself.is_none() => {
                p.path.segments.last().map(|s| s.ident.unraw().to_string())
            }
            _ => None,
        };
        let mut model = ToolImpl {
            self_ty: (*item.self_ty).clone(),
            generics: item.generics.clone(),
            type_name,
            description: options.description,
            description_attempted,
            tools: Vec::new(),
            cfgs: cfgs(&item.attrs),
            has_candidates: false,
            is_trait_impl: trait_path.is_some(),
            trait_path,
            client: options.client,
        };
        for (index, impl_item) in item.items.iter_mut().enumerate() {
            let ImplItem::Fn(method) = impl_item else {
                continue;
            };
            cx.section(index + 1);
            if let Some(mut tool) = model.method(cx, method) {
                tool.section = index + 1;
                model.tools.push(tool);
            }
        }
        cx.section(0);
        model
    }

    /// The tool of one method of the block, if it is one.
    fn method(&mut self, cx: &Ctxt, method: &mut ImplItemFn) -> Option<Tool> {
        if self.is_trait_impl {
            // Reported as a whole; its methods need no more errors.
            strip_helpers(&mut method.attrs, &mut method.sig);
            return None;
        }
        if !matches!(method.vis, Visibility::Public(_)) {
            if let Some(first) = strip_helpers(&mut method.attrs, &mut method.sig) {
                self.has_candidates = true;
                cx.error_spanned_by(
                    first,
                    format!(
                        "`{}` is not `pub`, so it is not a tool: make it `pub fn` to expose it as one",
                        method.sig.ident
                    ),
                );
            }
            return None;
        }
        self.has_candidates = true;
        let Some(access) = receiver_access(cx, &method.sig, self) else {
            strip_helpers(&mut method.attrs, &mut method.sig);
            return None;
        };
        Some(Tool::from_syn(
            cx,
            &mut method.attrs,
            &mut method.sig,
            access,
            Position::Method,
        ))
    }
}

/// Strips the helpers from an impl block's own attributes (they do not
/// belong there); returns whether a `#[describe]` stood for the description.
fn impl_attrs(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> bool {
    let mut description_attempted = false;
    attrs.retain(|attr| match attr::helper(attr) {
        Some(Helper::Describe) => {
            description_attempted = true;
            cx.error_spanned_by(
                attr,
                "a toolbox is described by its #[tool]: write #[tool(description = \"...\")] on the impl block instead of #[describe]",
            );
            false
        }
        Some(Helper::Param) => {
            cx.error_spanned_by(
                attr,
                "#[param] describes a parameter: put it above a tool method or on its argument",
            );
            false
        }
        _ => true,
    });
    description_attempted
}

/// `&self` or `&mut self`; anything else is reported and gives `None`.
fn receiver_access(cx: &Ctxt, sig: &Signature, model: &ToolImpl) -> Option<Access> {
    let name = &sig.ident;
    let Some(receiver) = sig.receiver() else {
        let ty = model.type_name.as_deref().unwrap_or("...");
        cx.error_spanned_by(
            name,
            format!(
                "`{name}` has no `self` receiver, so it cannot be a tool: tools in a #[tool] impl take `&self` or `&mut self`. \
                 If it is not a tool, move it to a separate `impl {ty} {{ ... }}` block without #[tool], or make it private"
            ),
        );
        return None;
    };
    if let Type::Reference(reference) = &*receiver.ty {
        if is_self(&reference.elem) {
            return Some(if reference.mutability.is_some() {
                Access::Exclusive
            } else {
                Access::Shared
            });
        }
    }
    cx.error_spanned_by(
        receiver,
        format!("tool `{name}` must borrow its toolbox: take `&self` (runs concurrently with other calls) or `&mut self` (runs alone)"),
    );
    None
}

fn is_self(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
}

impl ToolFn {
    pub(crate) fn from_syn(cx: &Ctxt, args: TokenStream, item: &mut ItemFn) -> ToolFn {
        let options = attr::tool_options(cx, args, Position::Function);
        let ident = item.sig.ident.unraw();
        let struct_ident = format_ident!(
            "{}Tool",
            upper_camel(&ident.to_string()),
            span = item.sig.ident.span()
        );
        let tool = if let Some(receiver) = item.sig.receiver() {
            cx.error_spanned_by(
                receiver,
                "this function is a method: put #[tool(description = \"...\")] on its impl block instead, and its `pub fn`s become tools (a method's own #[tool(...)] then takes `name`, `title` and annotations)",
            );
            strip_helpers(&mut item.attrs, &mut item.sig);
            None
        } else {
            let mut tool = Tool::from_syn(
                cx,
                &mut item.attrs,
                &mut item.sig,
                Access::Free,
                Position::Function,
            );
            tool.description_attempted |= options.description_attempted;
            tool.options = options;
            Some(tool)
        };
        ToolFn {
            vis: item.vis.clone(),
            struct_ident,
            tool,
        }
    }
}

/// The helper attributes above a tool function, stripped from it.
#[derive(Default)]
struct ToolAttrs {
    description: Option<LitStr>,
    description_attempted: bool,
    options: Option<ToolOptions>,
    /// `#[param(name, "...")]`s above the function, in source order.
    params: Vec<ParamAttr>,
}

impl ToolAttrs {
    fn parse(cx: &Ctxt, attrs: &mut Vec<Attribute>, fn_name: &Ident, position: Position) -> Self {
        let mut parsed = ToolAttrs::default();
        attrs.retain(|attr| match attr::helper(attr) {
            Some(Helper::Describe) => {
                parsed.description_attempted = true;
                if parsed.description.is_some() {
                    let message = format!(
                        "duplicate #[describe]: tool `{fn_name}` already has a description; merge the two"
                    );
                    cx.error_spanned_by(attr, message);
                } else if let Some(lit) = attr::describe(cx, attr) {
                    parsed.description = Some(lit);
                }
                false
            }
            Some(Helper::Param) => {
                if let Some(param) = attr::param(cx, attr) {
                    parsed.params.push(param);
                }
                false
            }
            Some(Helper::Tool) => {
                if position == Position::Function {
                    cx.error_spanned_by(attr, "duplicate #[tool]: merge the two");
                } else if parsed.options.is_some() {
                    cx.error_spanned_by(
                        attr,
                        "duplicate #[tool(...)] on this method: merge the two",
                    );
                } else {
                    let options = attr::method_tool_options(cx, attr, position);
                    parsed.description_attempted |= options.description_attempted;
                    parsed.options = Some(options);
                }
                false
            }
            None => true,
        });
        parsed
    }
}

impl Tool {
    fn from_syn(
        cx: &Ctxt,
        attrs: &mut Vec<Attribute>,
        sig: &mut Signature,
        access: Access,
        position: Position,
    ) -> Tool {
        let head = ToolAttrs::parse(cx, attrs, &sig.ident, position);
        let (mut args, inline) = parse_args(cx, sig, position);
        let mut params = Params {
            cx,
            fn_name: &sig.ident,
            args: &mut args,
        };
        // Source order: the attributes above the function come before its
        // arguments, so a duplicate is reported at the inline #[param].
        let nameless = params.apply_named(head.params);
        params.apply_inline(inline);
        params.report_nameless(nameless, position);
        classify(&mut args, position);

        // A tool's arguments are owned (they are decoded from JSON) and cannot be
        // generic over a hasher: the signature is the framework's, so the
        // pedantic lints against it are not the user's to fix. (A declaration
        // is not emitted.)
        if position != Position::Declared {
            attrs.push(syn::parse_quote!(
                #[allow(clippy::needless_pass_by_value, clippy::implicit_hasher)]
            ));
        }
        let (output, output_span) = match &sig.output {
            ReturnType::Default => (syn::parse_quote!(()), sig.ident.span()),
            ReturnType::Type(_, ty) => ((**ty).clone(), ty.span()),
        };
        Tool {
            ident: sig.ident.clone(),
            options: head.options.unwrap_or_default(),
            description: head.description,
            description_attempted: head.description_attempted,
            access,
            is_async: sig.asyncness.is_some(),
            args,
            output,
            output_span,
            generics: sig.generics.clone(),
            cfgs: cfgs(attrs),
            position,
            section: 0,
            carried: Vec::new(),
            unsafety: sig.unsafety,
            declared: None,
        }
    }
}

/// The arguments of a tool function, each with the `#[param]`s written on it.
fn parse_args(
    cx: &Ctxt,
    sig: &mut Signature,
    position: Position,
) -> (Vec<Arg>, Vec<Vec<ParamAttr>>) {
    let mut args = Vec::new();
    let mut inline_params = Vec::new();
    for input in &mut sig.inputs {
        let FnArg::Typed(pat_type) = input else {
            continue;
        };
        let inline = arg_attrs(cx, pat_type);
        let ident = match &*pat_type.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            pat => {
                cx.error_spanned_by(
                    pat,
                    "a tool's arguments must be plain names (`name: Type`): each name is a property of the tool's JSON input. Destructure inside the body instead",
                );
                continue;
            }
        };
        let ty = (*pat_type.ty).clone();
        // A declaration describes the server's inputs only: nothing is injected.
        let literal_context = position != Position::Declared && is_literal_context(&ty);
        inline_params.push(inline);
        args.push(Arg {
            ident,
            ty,
            kind: ArgKind::Param(ParamInfo::default()),
            literal_context,
        });
    }
    (args, inline_params)
}

/// Strips the helpers from one argument: its `#[param]`s.
fn arg_attrs(cx: &Ctxt, pat_type: &mut PatType) -> Vec<ParamAttr> {
    let mut inline = Vec::new();
    pat_type.attrs.retain(|attr| match attr::helper(attr) {
        Some(Helper::Param) => {
            if let Some(param) = attr::param(cx, attr) {
                inline.push(param);
            }
            false
        }
        Some(Helper::Describe | Helper::Tool) => {
            const MESSAGE: &str = "an argument is described with #[param(\"...\")]; #[describe] and #[tool] go above the function";
            cx.error_spanned_by(attr, MESSAGE);
            false
        }
        None => {
            if attr.path().is_ident(CFG.0) {
                const MESSAGE: &str = "#[cfg] on a tool's argument is not supported: the schema must not depend on it; put #[cfg] on the whole method";
                cx.error_spanned_by(attr, MESSAGE);
            }
            true
        }
    });
    inline
}

/// Matches `#[param]`s to the arguments they describe.
struct Params<'a> {
    cx: &'a Ctxt,
    fn_name: &'a Ident,
    args: &'a mut Vec<Arg>,
}

impl Params<'_> {
    /// `#[param(name, ...)]` above the function; returns those without a name.
    fn apply_named(&mut self, params: Vec<ParamAttr>) -> Vec<ParamAttr> {
        let mut nameless = Vec::new();
        for param in params {
            let Some(name) = &param.name else {
                nameless.push(param);
                continue;
            };
            let wanted = name.unraw();
            if let Some(arg) = self.args.iter_mut().find(|a| a.ident.unraw() == wanted) {
                apply_param(self.cx, arg, param);
            } else {
                let message = self.not_a_parameter(name);
                self.cx.error_spanned_by(name, message);
            }
        }
        nameless
    }

    /// Why `#[param(name, ...)]` names no parameter: the actual ones, and the
    /// one it probably meant (which then gets no "undescribed" error).
    fn not_a_parameter(&mut self, name: &Ident) -> String {
        let fn_name = self.fn_name;
        let names: Vec<String> = self
            .args
            .iter()
            .filter(|a| !a.literal_context)
            .map(Arg::wire_name)
            .collect();
        let mut message = format!("`{name}` is not a parameter of `{fn_name}`");
        if names.is_empty() {
            let _ = write!(
                message,
                ": `{fn_name}` takes no parameters; remove this #[param]"
            );
            return message;
        }
        let list = names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = write!(message, "; its parameters are {list}");
        let wanted = name.unraw().to_string();
        if let Some(near) = attr::similar(&wanted, names.iter().map(String::as_str)) {
            let _ = write!(message, " (did you mean `{near}`?)");
            if let Some(ArgKind::Param(info)) = self
                .args
                .iter_mut()
                .find(|a| a.wire_name() == near)
                .map(|a| &mut a.kind)
            {
                info.typo_target = true;
            }
        }
        message
    }

    /// `#[param("...")]` on the arguments themselves.
    fn apply_inline(&mut self, inline: Vec<Vec<ParamAttr>>) {
        for (arg, params) in self.args.iter_mut().zip(inline) {
            for param in params {
                if let Some(name) = &param.name {
                    if name.unraw() != arg.ident.unraw() {
                        self.cx.error_spanned_by(
                            name,
                            format!("on an argument, #[param] takes just the description: #[param(\"...\")] (this one names `{name}` but sits on `{}`)", arg.ident),
                        );
                        continue;
                    }
                }
                apply_param(self.cx, arg, param);
            }
        }
    }

    /// `#[param("text")]` above the function: probably meant for the first
    /// parameter still undescribed, which then gets no error of its own.
    fn report_nameless(&mut self, nameless: Vec<ParamAttr>, position: Position) {
        let place = match position {
            Position::Function => "function",
            Position::Method | Position::Declared => "method",
        };
        let mut undescribed = self.args.iter_mut().filter_map(|arg| match &mut arg.kind {
            ArgKind::Param(info)
                if !info.described && !info.typo_target && !arg.literal_context =>
            {
                Some((&arg.ident, info))
            }
            _ => None,
        });
        for param in nameless {
            let example = match undescribed.next() {
                Some((ident, info)) => {
                    info.typo_target = true;
                    format!("#[param({ident}, \"...\")]")
                }
                None => "#[param(name, \"...\")]".to_owned(),
            };
            self.cx.error_spanned_by(
                &param.tokens,
                format!("above the {place}, #[param] names its parameter: {example}; or put #[param(\"...\")] on the argument itself"),
            );
        }
    }
}

/// An argument no `#[param]` describes (nor meant to, by a reported typo)
/// is injected; a declared tool's arguments are all parameters.
fn classify(args: &mut [Arg], position: Position) {
    if position == Position::Declared {
        return;
    }
    for arg in args {
        if matches!(&arg.kind, ArgKind::Param(info) if !info.described && !info.typo_target) {
            arg.kind = ArgKind::Injected;
        }
    }
}

impl ToolTrait {
    pub(crate) fn from_syn(cx: &Ctxt, args: TokenStream, item: &mut ItemTrait) -> ToolTrait {
        let options = attr::impl_options(cx, args, Container::Trait);
        let (description_attempted, carried) = trait_attrs(cx, &item.attrs);
        let mut model = ToolTrait {
            ident: item.ident.clone(),
            vis: item.vis.clone(),
            description: options.description,
            description_attempted,
            tools: Vec::new(),
            cfgs: cfgs(&item.attrs),
            carried,
            has_candidates: false,
            unsafety: item.unsafety,
            auto_token: item.auto_token,
            generics: item.generics.clone(),
            supertraits: (!item.supertraits.is_empty()).then(|| item.supertraits.to_token_stream()),
        };
        for (index, trait_item) in item.items.iter_mut().enumerate() {
            cx.section(index + 1);
            let TraitItem::Fn(method) = trait_item else {
                cx.error_spanned_by(
                    &*trait_item,
                    "a #[tool] trait declares tools only (`async fn name(&self, ...) -> Output;`): remove this item",
                );
                continue;
            };
            model.has_candidates = true;
            let mut tool = declared_tool(cx, method);
            tool.section = index + 1;
            model.tools.push(tool);
        }
        cx.section(0);
        model
    }
}

/// A trait's own attributes: whether a `#[describe]` stood for the
/// description, and those carried to the client.
fn trait_attrs(cx: &Ctxt, attrs: &[Attribute]) -> (bool, Vec<Attribute>) {
    let mut description_attempted = false;
    let mut carried = Vec::new();
    for attr in attrs {
        match attr::helper(attr) {
            Some(Helper::Describe) => {
                description_attempted = true;
                cx.error_spanned_by(
                    attr,
                    "a #[tool] trait is described by its #[tool]: write #[tool(description = \"...\")] on the trait instead of #[describe]",
                );
            }
            Some(Helper::Param) => cx.error_spanned_by(
                attr,
                "#[param] describes a parameter: put it above a method of the trait or on its argument",
            ),
            Some(Helper::Tool) => {
                cx.error_spanned_by(attr, "duplicate #[tool] on the trait: merge the two");
            }
            None if attr.path().is_ident(CFG.0) => {}
            None => carry(cx, attr, &mut carried, "client type"),
        }
    }
    (description_attempted, carried)
}

/// One method of a `#[tool]` trait: a declared tool.
fn declared_tool(cx: &Ctxt, method: &mut TraitItemFn) -> Tool {
    let receiver = match method.sig.receiver() {
        None => None,
        Some(receiver) => {
            let shared = matches!(
                &*receiver.ty,
                Type::Reference(r) if r.mutability.is_none() && is_self(&r.elem)
            );
            Some(if shared {
                Ok(())
            } else {
                Err(receiver.to_token_stream())
            })
        }
    };
    let declared = DeclaredSig {
        body: method.default.as_ref().map(|b| b.brace_token.span.join()),
        not_async: method
            .sig
            .asyncness
            .is_none()
            .then_some(method.sig.fn_token),
        receiver,
    };
    let mut tool = Tool::from_syn(
        cx,
        &mut method.attrs,
        &mut method.sig,
        Access::Shared,
        Position::Declared,
    );
    tool.declared = Some(declared);
    for attr in &method.attrs {
        if !attr.path().is_ident(CFG.0) {
            carry(cx, attr, &mut tool.carried, "client method");
        }
    }
    tool
}

/// Keeps the attributes of a declaration that mean something on the
/// generated item (docs, lint levels, `#[deprecated]`); refuses the rest,
/// which would otherwise vanish with the trait.
fn carry(cx: &Ctxt, attr: &Attribute, carried: &mut Vec<Attribute>, onto: &str) {
    const CARRIED: &[&str] = &[
        "doc",
        "allow",
        "expect",
        "warn",
        "deny",
        "forbid",
        "deprecated",
        "cfg_attr",
    ];
    if CARRIED.iter().any(|name| attr.path().is_ident(name)) {
        carried.push(attr.clone());
    } else {
        let path = attr::path_text(attr.path());
        cx.error_spanned_by(
            attr,
            format!("#[{path}] cannot be kept: a #[tool] trait is not emitted, only its client is, and the {onto} takes doc comments, lint levels and #[deprecated] only; remove it"),
        );
    }
}

fn apply_param(cx: &Ctxt, arg: &mut Arg, param: ParamAttr) {
    let at = match &param.description {
        Some(lit) => lit.to_token_stream(),
        None => param.tokens.clone(),
    };
    let name = &arg.ident;
    if arg.literal_context {
        cx.error_spanned_by(
            at,
            format!(
                "`{name}` is the injected `Context`, not a tool parameter: remove this #[param]"
            ),
        );
        return;
    }
    let ArgKind::Param(info) = &mut arg.kind else {
        return;
    };
    if info.described {
        cx.error_spanned_by(
            at,
            format!("parameter `{name}` is described twice: remove one of its #[param]s"),
        );
        return;
    }
    if param.description.is_none() {
        cx.error_spanned_by(
            &param.tokens,
            format!("#[param] for `{name}` needs a description: #[param(\"...\")]"),
        );
    }
    info.described = true;
    info.description = param.description;
    info.default = param.default;
}

/// A type written `Context` or `&Context` (by the last path segment): then
/// certainly the injected context, whatever else may be injected.
fn is_literal_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => is_literal_context(&r.elem),
        Type::Group(g) => is_literal_context(&g.elem),
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == CONTEXT && s.arguments.is_none()),
        _ => false,
    }
}

fn cfgs(attrs: &[Attribute]) -> Vec<Attribute> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident(CFG.0))
        .cloned()
        .collect()
}

/// Removes every helper attribute of a function that is not a tool; returns
/// where the first one was.
pub(crate) fn strip_helpers(
    attrs: &mut Vec<Attribute>,
    sig: &mut Signature,
) -> Option<TokenStream> {
    let mut first = None;
    let mut strip = |attrs: &mut Vec<Attribute>| {
        attrs.retain(|attr| {
            if attr::helper(attr).is_some() {
                first.get_or_insert_with(|| attr.to_token_stream());
                false
            } else {
                true
            }
        });
    };
    strip(attrs);
    for input in &mut sig.inputs {
        if let FnArg::Typed(pat_type) = input {
            strip(&mut pat_type.attrs);
        }
    }
    first
}

/// `add_numbers` → `AddNumbers`.
fn upper_camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    for part in snake.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() {
        out.push_str("Unnamed");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::upper_camel;

    #[test]
    fn camel_case() {
        assert_eq!(upper_camel("add_numbers"), "AddNumbers");
        assert_eq!(upper_camel("_private__x"), "PrivateX");
        assert_eq!(upper_camel("fetch2"), "Fetch2");
        assert_eq!(upper_camel("already_Camel"), "AlreadyCamel");
    }
}
