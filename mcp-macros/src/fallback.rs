//! What is emitted beside the errors: a stub `ToolBox` impl, so that code
//! using the toolbox still type-checks and the user sees only our messages
//! (thiserror `impl/src/fallback.rs`; clap `dummies.rs`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{ArgKind, Tool, ToolFn, ToolImpl};
use crate::glue::{inject, toolbox_generics, unit_struct};

/// The injection of a tool's undescribed arguments, which the compiler checks
/// (an undescribed argument that is not the context is an error of its own,
/// beside the macro's).
fn injections(tool: &Tool) -> TokenStream {
    let injected: Vec<TokenStream> = tool
        .args
        .iter()
        .filter(|arg| matches!(arg.kind, ArgKind::Injected))
        .map(|arg| inject(&arg.ty))
        .collect();
    if injected.is_empty() {
        return TokenStream::new();
    }
    let cfgs = &tool.cfgs;
    quote! {
        #(#cfgs)*
        let _ = |__mcp_ctx: ::oxmcp_server::__private::Context| {
            let _ = (#(#injected,)*);
        };
    }
}

pub(crate) fn impl_stub(model: &ToolImpl) -> TokenStream {
    if model.is_trait_impl {
        return TokenStream::new();
    }
    let Some(name) = &model.type_name else {
        return TokenStream::new();
    };
    let self_ty = &model.self_ty;
    let generics = toolbox_generics(self_ty, &model.generics);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let cfgs = &model.cfgs;
    let injections = model
        .tools
        .iter()
        .filter(|t| {
            !matches!(
                t.kind,
                crate::ast::ItemKind::Complete(_) | crate::ast::ItemKind::Broken
            )
        })
        .map(injections);
    quote! {
        #(#cfgs)*
        #[automatically_derived]
        impl #impl_generics ::oxmcp_server::__private::ToolBox for #self_ty #where_clause {
            const NAME: &'static str = #name;
            const DESCRIPTION: &'static str = "";
            fn into_tools(self) -> ::std::vec::Vec<::oxmcp_server::__private::ToolEntry> {
                #(#injections)*
                ::core::unreachable!()
            }
        }
    }
}

pub(crate) fn fn_stub(model: &ToolFn) -> TokenStream {
    let Some(tool) = &model.tool else {
        return TokenStream::new();
    };
    let unit = unit_struct(model, tool);
    let ident = &model.struct_ident;
    let name = tool.name();
    let cfgs = &tool.cfgs;
    let injections = injections(tool);
    quote! {
        #unit

        #(#cfgs)*
        #[automatically_derived]
        impl ::oxmcp_server::__private::ToolBox for #ident {
            const NAME: &'static str = #name;
            const DESCRIPTION: &'static str = "";
            fn into_tools(self) -> ::std::vec::Vec<::oxmcp_server::__private::ToolEntry> {
                #injections
                ::core::unreachable!()
            }
        }
    }
}
