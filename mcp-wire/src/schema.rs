//! JSON Schema validation with one way of reporting problems, for the
//! server's dynamic tools (arguments), the client (structured results
//! against a tool's `outputSchema`) and the agent (a model's arguments).
//!
//! Schemas are compiled offline: MCP forbids fetching a network `$ref`.

use std::fmt::Write as _;

use serde_json::Value;

/// How many problems one report lists; the rest are counted.
pub const MAX_REPORTED: usize = 10;

/// A compiled schema.
#[derive(Debug)]
pub struct Validator(jsonschema::Validator);

impl Validator {
    /// Compiles `schema`, or says why it cannot be used.
    pub fn new(schema: &Value) -> Result<Validator, String> {
        jsonschema::options()
            .offline()
            .build(schema)
            .map(Validator)
            .map_err(|e| e.to_string())
    }

    /// Checks `schema` against its meta-schema first, then compiles it: for
    /// schemas a program declares, where a typo should be refused rather
    /// than silently ignored.
    pub fn checked(schema: &Value) -> Result<Validator, String> {
        jsonschema::meta::validate(schema).map_err(|e| format!("not valid JSON Schema: {e}"))?;
        Validator::new(schema)
    }

    /// Whether `value` is valid.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.0.is_valid(value)
    }

    /// `None` when `value` is valid; otherwise its problems, each as
    /// `at {JSON pointer}: {what is wrong}` (the offending value itself is
    /// not quoted: it may be long, or secret), joined with `; `, at most
    /// [`MAX_REPORTED`] of them.
    pub fn problems(&self, value: &Value) -> Option<String> {
        let mut report = String::new();
        let mut count = 0;
        for error in self.0.iter_errors(value) {
            count += 1;
            if count > MAX_REPORTED {
                continue;
            }
            if !report.is_empty() {
                report.push_str("; ");
            }
            let path = error.instance_path().to_string();
            let path = if path.is_empty() { "/" } else { &path };
            let _ = write!(report, "at {path}: {}", error.masked());
        }
        if count > MAX_REPORTED {
            let _ = write!(report, "; and {} more", count - MAX_REPORTED);
        }
        (count > 0).then_some(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_each_problem_with_its_path_and_bounds_the_list() {
        let v = Validator::new(&json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "array", "items": {"type": "string"}}},
            "required": ["a"]
        }))
        .unwrap();
        assert_eq!(v.problems(&json!({"a": 1})), None);
        let report = v.problems(&json!({"b": [1, "x", "secret-value"]})).unwrap();
        assert!(report.contains("at /: "), "{report}");
        assert!(report.contains("at /b/0: "), "{report}");
        assert!(!report.contains("secret"), "values are masked: {report}");

        let many = Validator::new(&json!({"type": "array", "items": {"type": "string"}})).unwrap();
        let report = many
            .problems(&json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]))
            .unwrap();
        assert!(report.ends_with("; and 2 more"), "{report}");
    }

    #[test]
    fn checked_refuses_what_the_meta_schema_refuses() {
        assert!(Validator::checked(&json!({"type": "object"})).is_ok());
        let e = Validator::checked(&json!({"type": "objet"})).unwrap_err();
        assert!(e.starts_with("not valid JSON Schema"), "{e}");
    }
}
