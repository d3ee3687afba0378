//! The limits of a finished strict schema.

use serde_json::Value;

use super::keywords::escape_pointer;
use super::{
    LARGE_ENUM, MAX_CHARS, MAX_DEPTH, MAX_ENUM_VALUES, MAX_LARGE_ENUM_CHARS, MAX_PROPERTIES,
};

// ---------------------------------------------------------------------------
// Limits of the finished schema

#[derive(Default)]
pub(super) struct Totals {
    properties: usize,
    enum_values: usize,
    chars: usize,
}

impl Totals {
    pub(super) fn check(&self) -> Result<(), String> {
        if self.properties > MAX_PROPERTIES {
            return Err(format!(
                "#: {} object properties in all, over OpenAI's limit of {MAX_PROPERTIES}",
                self.properties
            ));
        }
        if self.enum_values > MAX_ENUM_VALUES {
            return Err(format!(
                "#: {} enum values in all, over OpenAI's limit of {MAX_ENUM_VALUES}",
                self.enum_values
            ));
        }
        if self.chars > MAX_CHARS {
            return Err(format!(
                "#: {} characters of property names and enum values, over OpenAI's limit of {MAX_CHARS}",
                self.chars
            ));
        }
        Ok(())
    }
}

pub(super) fn check_limits(
    schema: &Value,
    path: &str,
    depth: usize,
    totals: &mut Totals,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{path}: nested more than {MAX_DEPTH} levels deep (OpenAI's limit)"
        ));
    }
    let Value::Object(map) = schema else {
        return Ok(());
    };
    if let Some(Value::Object(properties)) = map.get("properties") {
        totals.properties += properties.len();
        for (name, sub) in properties {
            totals.chars += name.chars().count();
            let sub_path = format!("{path}/properties/{}", escape_pointer(name));
            check_limits(sub, &sub_path, depth + 1, totals)?;
        }
    }
    if let Some(items) = map.get("items") {
        check_limits(items, &format!("{path}/items"), depth + 1, totals)?;
    }
    if let Some(Value::Array(variants)) = map.get("anyOf") {
        for (i, variant) in variants.iter().enumerate() {
            check_limits(variant, &format!("{path}/anyOf/{i}"), depth + 1, totals)?;
        }
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        totals.enum_values += values.len();
        let chars: usize = values
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.chars().count())
            .sum();
        totals.chars += chars;
        if values.len() > LARGE_ENUM && chars > MAX_LARGE_ENUM_CHARS {
            return Err(format!(
                "{path}: an enum of {} values holding {chars} characters, over OpenAI's limit of {MAX_LARGE_ENUM_CHARS} for enums of more than {LARGE_ENUM} values",
                values.len()
            ));
        }
    }
    Ok(())
}
