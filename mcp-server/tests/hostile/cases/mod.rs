//! The JSON-RPC cases, a module per theme and a function (or a const table)
//! per group. Every `tools/call` goes to `add` or `count_to`, which the
//! calculator example has too.

mod envelope;
mod malformed;
mod messages;
mod params;
mod session;
mod sizes;

use crate::table::Case;

/// Every case, in the order the table has always run them (one session
/// runs them one after another).
pub(crate) fn all() -> Vec<Case> {
    [
        malformed::not_one_object(),
        sizes::nesting(),
        sizes::numbers(),
        malformed::bytes(),
        malformed::framing(),
        envelope::methods(),
        params::wrong_params(),
        envelope::ids(),
        envelope::duplicate_keys(),
        envelope::jsonrpc_member(),
        messages::never_answered(),
        messages::batches(),
        session::lifecycle(),
        session::cancellation(),
        session::progress_tokens(),
        params::tool_arguments(),
        sizes::size_limit(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
