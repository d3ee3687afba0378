//! Every MCP method and notification name, written once.
//!
//! Code that needs a method name refers to these constants; nothing else in
//! the framework spells them out.

/// `initialize` (legacy era): the handshake request.
pub const INITIALIZE: &str = "initialize";
/// `notifications/initialized` (legacy era): the client finished the handshake.
pub const INITIALIZED: &str = "notifications/initialized";
/// `ping` (legacy era).
pub const PING: &str = "ping";
/// `server/discover` (2026-07-28): capabilities and supported versions, stateless.
pub const SERVER_DISCOVER: &str = "server/discover";
/// `tools/list`.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`.
pub const TOOLS_CALL: &str = "tools/call";
/// `prompts/list`.
pub const PROMPTS_LIST: &str = "prompts/list";
/// `prompts/get`.
pub const PROMPTS_GET: &str = "prompts/get";
/// `resources/list`.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/templates/list`.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// `resources/read`.
pub const RESOURCES_READ: &str = "resources/read";
/// `resources/subscribe` (legacy era).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe` (legacy era).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `completion/complete`.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// `logging/setLevel` (legacy era).
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// `subscriptions/listen` (2026-07-28): a long-lived stream of list-changed events.
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";

/// `notifications/cancelled`.
pub const CANCELLED: &str = "notifications/cancelled";
/// `notifications/progress`.
pub const PROGRESS: &str = "notifications/progress";
/// `notifications/message`: a log message to the client.
pub const MESSAGE: &str = "notifications/message";
/// `notifications/tools/list_changed`.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// `notifications/prompts/list_changed`.
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// `notifications/resources/list_changed`.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// `notifications/resources/updated`: a subscribed resource changed.
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// `notifications/subscriptions/acknowledged` (2026-07-28): first message of a listen stream.
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// `sampling/createMessage`: a server→client request (legacy) or an input request (modern).
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// `elicitation/create`: a server→client request (legacy) or an input request (modern).
pub const ELICITATION_CREATE: &str = "elicitation/create";
/// `roots/list`: a server→client request (legacy) or an input request (modern).
pub const ROOTS_LIST: &str = "roots/list";

/// `tasks/get` (the tasks extension, SEP-2663).
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/update` (the tasks extension).
pub const TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel` (the tasks extension).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// `notifications/tasks` (the tasks extension): a task's state, on a
/// `subscriptions/listen` stream that asked for its id.
pub const TASKS_NOTIFICATION: &str = "notifications/tasks";
