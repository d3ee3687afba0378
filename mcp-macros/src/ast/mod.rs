//! The model of a `#[tool]` item, built from syn's tree. Building it also
//! strips the helper attributes (`#[describe]`, `#[param]`, a method's
//! `#[tool]`) from the user's item, which is then emitted as it stands.
//!
//! | module | builds |
//! |---|---|
//! | [`toolbox`] | a toolbox (`impl`) and a tool function, down to their tools |
//! | [`tool`] | one tool from a signature: its helper attributes and `#[param]`s matched to arguments |
//! | [`declared`] | a declared server (`trait`) and its tools |
//! | [`kind`] | what a method is besides a tool: `#[prompt]`, `#[resource]`, `#[complete]` |

mod declared;
mod kind;
mod tool;
mod toolbox;

pub(crate) use kind::{AppAttr, CompleteAttr, ItemKind, ResourceAttr, APP_MIME_TYPE};

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{Attribute, Expr, FnArg, Generics, Ident, LitStr, Signature, Token, Type, Visibility};

use crate::attr::{self, ClientOption, Position, ToolOptions};
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
    /// A tool, or what else the method is (a prompt, a resource, ...).
    pub(crate) kind: ItemKind,
    /// The `scopes("...")` of its `#[tool]` impl block (tools, prompts,
    /// resources and templates; not completion functions).
    pub(crate) block_scopes: Vec<syn::LitStr>,
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
        match self.name_lit() {
            Some(lit) => lit.value(),
            None => self.ident.unraw().to_string(),
        }
    }

    /// The tokens that set the name, for errors about it.
    pub(crate) fn name_span(&self) -> Span {
        match self.name_lit() {
            Some(lit) => lit.span(),
            None => self.ident.span(),
        }
    }

    fn name_lit(&self) -> Option<&LitStr> {
        match self.kind.named() {
            Some(named) => named.name.as_ref(),
            None => self.options.name.as_ref(),
        }
    }

    /// The display title: a prompt's or resource's own, else `#[tool(title)]`.
    pub(crate) fn title(&self) -> Option<&LitStr> {
        match self.kind.named() {
            Some(named) => named.title.as_ref(),
            None => self.options.title.as_ref(),
        }
    }

    /// Whether this is a tool (not a prompt, a resource, a completion function).
    pub(crate) fn is_tool(&self) -> bool {
        matches!(self.kind, ItemKind::Tool)
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
    /// The argument's name in Rust, as `#[param(name, ...)]` writes it
    /// (`r#type` is `type`).
    pub(crate) fn rust_name(&self) -> String {
        self.ident.unraw().to_string()
    }

    /// The parameter's name on the wire: its `rename = "..."`, else its name in Rust.
    pub(crate) fn wire_name(&self) -> String {
        match self.rename() {
            Some(lit) => lit.value(),
            None => self.rust_name(),
        }
    }

    /// The `rename = "..."` of its `#[param]`, if any.
    pub(crate) fn rename(&self) -> Option<&LitStr> {
        match &self.kind {
            ArgKind::Param(info) => info.rename.as_ref(),
            ArgKind::Injected => None,
        }
    }
}

pub(crate) enum ArgKind {
    /// Decoded from the call's arguments, described in the schema.
    Param(ParamInfo),
    /// No description: injected by the server (`Context` or `&Context`,
    /// whatever they are called; the compiler checks the type through
    /// `oxmcp_server::__private::Inject`).
    Injected,
}

#[derive(Default)]
pub(crate) struct ParamInfo {
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Box<Expr>>,
    /// `rename = "dryRun"`: its name on the wire, when not its name in Rust.
    pub(crate) rename: Option<LitStr>,
    /// `min = 1, max = 16`, `pattern = "..."`, `one_of(...)`, ...
    pub(crate) rules: Box<crate::param_rules::ParamRules>,
    /// A `#[param]` named it (its description may still be missing, already reported).
    pub(crate) described: bool,
    /// A misspelled `#[param(name)]` meant it (already reported): not "undescribed" too.
    pub(crate) typo_target: bool,
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
