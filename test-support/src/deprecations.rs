//! The once-per-process warnings of the spec's deprecated features (target
//! `oxmcp::deprecated`), caught by a global `tracing` subscriber.
//!
//! A test binary of its own installs it: the warnings are once per process,
//! and only a global subscriber sees those emitted on the threads that
//! serve HTTP connections.

use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

/// The deprecation warnings seen so far: (feature, message).
#[derive(Clone, Default)]
pub struct Warnings(Arc<Mutex<Vec<(String, String)>>>);

impl Warnings {
    /// Installs a catcher as the process's global subscriber (once per
    /// process: a second call panics).
    #[must_use]
    pub fn install() -> Self {
        let warnings = Warnings::default();
        tracing::subscriber::set_global_default(
            tracing_subscriber::registry().with(warnings.clone()),
        )
        .expect("the test binary has no other global subscriber");
        warnings
    }

    /// The warnings seen since the last call.
    pub fn take(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }

    /// The features warned about since the last call, in order.
    pub fn take_features(&self) -> Vec<String> {
        self.take()
            .into_iter()
            .map(|(feature, _)| feature)
            .collect()
    }
}

#[derive(Default)]
struct Fields {
    feature: String,
    message: String,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "feature" {
            value.clone_into(&mut self.feature);
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for Warnings {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == "oxmcp::deprecated" {
            assert_eq!(*event.metadata().level(), tracing::Level::WARN);
            let mut fields = Fields::default();
            event.record(&mut fields);
            self.0
                .lock()
                .unwrap()
                .push((fields.feature, fields.message));
        }
    }
}
