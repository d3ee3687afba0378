//! One tool from its signature: the helper attributes above it, its
//! arguments, and the `#[param]`s (method-level and inline) matched to them.

use std::fmt::Write as _;

use quote::ToTokens;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, LitStr, Pat, PatType, ReturnType, Signature};

use super::{cfgs, is_literal_context, Access, Arg, ArgKind, ParamInfo, Tool};
use crate::attr::{self, Helper, ParamAttr, Position, ToolOptions};
use crate::ctxt::Ctxt;
use crate::symbol::CFG;

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
    pub(super) fn from_syn(
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
            kind: super::ItemKind::Tool,
            block_scopes: Vec::new(),
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
            .map(Arg::rust_name)
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
                .find(|a| a.rust_name() == near)
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
    info.default = param.default.map(Box::new);
    info.rename = param.rename;
    *info.rules = param.rules;
}
