//! Collects every error of one expansion, so they are all reported at once
//! (`serde_derive`: `internals/ctxt.rs`).

use std::cell::{Cell, RefCell};
use std::fmt::Display;
use std::thread;

use proc_macro2::Span;
use quote::ToTokens;

/// The errors found so far. Must be [`check`](Ctxt::check)ed before it is dropped.
///
/// Each error is filed under the current *section* (0 for the item as a
/// whole, then one per method in source order), so that errors found by
/// different passes are still reported method by method.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: RefCell<Option<Vec<(usize, syn::Error)>>>,
    section: Cell<usize>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
            section: Cell::new(0),
        }
    }

    /// Files the errors that follow under `section`.
    pub(crate) fn section(&self, section: usize) {
        self.section.set(section);
    }

    /// An error spanning the tokens of `obj`.
    pub(crate) fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, msg: T) {
        self.syn_error(syn::Error::new_spanned(obj.into_token_stream(), msg));
    }

    /// An error at `span`.
    pub(crate) fn error_at<T: Display>(&self, span: Span, msg: T) {
        self.syn_error(syn::Error::new(span, msg));
    }

    /// An error from syn's own parsing.
    pub(crate) fn syn_error(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push((self.section.get(), err));
    }

    /// All errors combined into one, or `Ok` if there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.borrow_mut().take().expect("Ctxt checked twice");
        errors.sort_by_key(|(section, _)| *section);
        let mut iter = errors.into_iter().map(|(_, err)| err);
        let Some(mut combined) = iter.next() else {
            return Ok(());
        };
        for rest in iter {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        assert!(
            thread::panicking() || self.errors.borrow().is_none(),
            "forgot to check for errors"
        );
    }
}
