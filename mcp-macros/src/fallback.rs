//! What is emitted beside the errors: a stub `ToolBox` impl, so that code
//! using the toolbox still type-checks and the user sees only our messages
//! (thiserror `impl/src/fallback.rs`; clap `dummies.rs`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{ToolFn, ToolImpl};
use crate::expand::{toolbox_generics, unit_struct};

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
    quote! {
        #(#cfgs)*
        #[automatically_derived]
        impl #impl_generics ::mcp_server::__private::ToolBox for #self_ty #where_clause {
            const NAME: &'static str = #name;
            const DESCRIPTION: &'static str = "";
            fn into_tools(self) -> ::std::vec::Vec<::mcp_server::__private::ToolEntry> {
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
    quote! {
        #unit

        #(#cfgs)*
        #[automatically_derived]
        impl ::mcp_server::__private::ToolBox for #ident {
            const NAME: &'static str = #name;
            const DESCRIPTION: &'static str = "";
            fn into_tools(self) -> ::std::vec::Vec<::mcp_server::__private::ToolEntry> {
                ::core::unreachable!()
            }
        }
    }
}
