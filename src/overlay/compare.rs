//! ytt's structural comparison (`overlay.subset`, `@overlay/assert`): every
//! item on the right must be present and equal on the left.

use crate::yaml::Value;

/// Compares `left` against the (partial) `right`; on mismatch, says why.
pub fn compare(left: &Value, right: &Value) -> (bool, String) {
    match right {
        Value::Map(rm) => {
            let Value::Map(lm) = left else {
                return (false, format!("Expected map, but was {}", left.type_name()));
            };
            for ri in &rm.items {
                let mut matched = false;
                for li in &lm.items {
                    if li.key.scalar_eq(&ri.key) {
                        let (ok, why) = compare(&li.value, &ri.value);
                        if !ok {
                            return (false, why);
                        }
                        matched = true;
                    }
                }
                if !matched {
                    return (
                        false,
                        "Expected at least one map item to match by key".to_string(),
                    );
                }
            }
            (true, String::new())
        }
        Value::Array(ra) => {
            let Value::Array(la) = left else {
                return (
                    false,
                    format!("Expected array, but was {}", left.type_name()),
                );
            };
            for (i, ri) in ra.items.iter().enumerate() {
                let Some(li) = la.items.get(i) else {
                    return (
                        false,
                        "Expected to have matching number of array items".to_string(),
                    );
                };
                let (ok, why) = compare(&li.value, &ri.value);
                if !ok {
                    return (false, why);
                }
            }
            (true, String::new())
        }
        _ => compare_leafs(left, right),
    }
}

/// Leaf equality: same type and value (ints compare as ints).
pub fn compare_leafs(left: &Value, right: &Value) -> (bool, String) {
    if left.scalar_eq(right) {
        return (true, String::new());
    }
    (
        false,
        format!(
            "Expected leaf values to match {} {}",
            left.type_name(),
            right.type_name()
        ),
    )
}
