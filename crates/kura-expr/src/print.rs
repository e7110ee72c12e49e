//! Prints expression trees back to expression text, with every name and value as a
//! placeholder. Parsing the printed text with the printed bindings gives the same tree,
//! which the property tests check; it also lets Kura log or forward an expression.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use kura_model::AttributeValue;

use crate::ast::{Condition, Operand, Path, PathElement, SetOperand, SetValue, Update};

/// Expression text plus its `ExpressionAttributeNames` and `ExpressionAttributeValues`.
#[derive(Debug, Default, Clone)]
pub struct Printed {
    pub text: String,
    pub names: BTreeMap<String, String>,
    pub values: BTreeMap<String, AttributeValue>,
}

#[derive(Default)]
struct Printer {
    out: Printed,
    by_name: BTreeMap<String, String>,
}

impl Printer {
    fn name(&mut self, name: &str) -> String {
        if let Some(p) = self.by_name.get(name) {
            return p.clone();
        }
        let placeholder = format!("#n{}", self.by_name.len());
        self.by_name.insert(name.to_owned(), placeholder.clone());
        self.out.names.insert(placeholder.clone(), name.to_owned());
        placeholder
    }

    fn value(&mut self, value: &AttributeValue) -> String {
        let placeholder = format!(":v{}", self.out.values.len());
        self.out.values.insert(placeholder.clone(), value.clone());
        placeholder
    }

    fn path(&mut self, path: &Path) -> String {
        let mut s = String::new();
        for (i, element) in path.0.iter().enumerate() {
            match element {
                PathElement::Attribute(name) => {
                    if i > 0 {
                        s.push('.');
                    }
                    s.push_str(&self.name(name));
                }
                PathElement::Index(ix) => {
                    let _ = write!(s, "[{ix}]");
                }
            }
        }
        s
    }

    fn operand(&mut self, op: &Operand) -> String {
        match op {
            Operand::Path(p) => self.path(p),
            Operand::Value(v) => self.value(v),
            Operand::Size(inner) => format!("size({})", self.operand(inner)),
        }
    }

    fn condition(&mut self, c: &Condition) -> String {
        match c {
            Condition::Compare(op, l, r) => {
                let l = self.operand(l);
                let r = self.operand(r);
                format!("{l} {} {r}", op.symbol())
            }
            Condition::Between(v, lo, hi) => {
                let v = self.operand(v);
                let lo = self.operand(lo);
                let hi = self.operand(hi);
                format!("{v} BETWEEN {lo} AND {hi}")
            }
            Condition::In(v, list) => {
                let v = self.operand(v);
                let list: Vec<String> = list.iter().map(|o| self.operand(o)).collect();
                format!("{v} IN ({})", list.join(", "))
            }
            Condition::AttributeExists(p) => format!("attribute_exists({})", self.path(p)),
            Condition::AttributeNotExists(p) => {
                format!("attribute_not_exists({})", self.path(p))
            }
            Condition::AttributeType(a, t) => {
                let p = self.operand(a);
                let t = self.value(&AttributeValue::s(t.descriptor()));
                format!("attribute_type({p}, {t})")
            }
            Condition::BeginsWith(a, b) => {
                let a = self.operand(a);
                let b = self.operand(b);
                format!("begins_with({a}, {b})")
            }
            Condition::Contains(a, b) => {
                let a = self.operand(a);
                let b = self.operand(b);
                format!("contains({a}, {b})")
            }
            Condition::Not(inner) => format!("NOT {}", self.child(inner, 3, false)),
            Condition::And(a, b) => {
                let a = self.child(a, 2, false);
                let b = self.child(b, 2, true);
                format!("{a} AND {b}")
            }
            Condition::Or(a, b) => {
                let a = self.child(a, 1, false);
                let b = self.child(b, 1, true);
                format!("{a} OR {b}")
            }
        }
    }

    /// A sub-condition, parenthesised when its operator binds looser than the parent's
    /// (or as loosely, on the right, since AND and OR associate to the left).
    fn child(&mut self, c: &Condition, parent: u8, right: bool) -> String {
        let own = match c {
            Condition::Or(..) => 1,
            Condition::And(..) => 2,
            Condition::Not(..) => 3,
            _ => 4,
        };
        let text = self.condition(c);
        if own < parent || (right && own == parent) {
            format!("({text})")
        } else {
            text
        }
    }

    fn set_operand(&mut self, op: &SetOperand) -> String {
        match op {
            SetOperand::Path(p) => self.path(p),
            SetOperand::Value(v) => self.value(v),
            SetOperand::IfNotExists(p, fallback) => {
                let p = self.path(p);
                let f = self.set_operand(fallback);
                format!("if_not_exists({p}, {f})")
            }
            SetOperand::ListAppend(a, b) => {
                let a = self.set_operand(a);
                let b = self.set_operand(b);
                format!("list_append({a}, {b})")
            }
        }
    }

    fn update(&mut self, u: &Update) -> String {
        let mut clauses = Vec::new();
        if !u.set.is_empty() {
            let actions: Vec<String> = u
                .set
                .iter()
                .map(|(p, v)| {
                    let p = self.path(p);
                    let v = match v {
                        SetValue::Operand(o) => self.set_operand(o),
                        SetValue::Plus(a, b) => {
                            format!("{} + {}", self.set_operand(a), self.set_operand(b))
                        }
                        SetValue::Minus(a, b) => {
                            format!("{} - {}", self.set_operand(a), self.set_operand(b))
                        }
                    };
                    format!("{p} = {v}")
                })
                .collect();
            clauses.push(format!("SET {}", actions.join(", ")));
        }
        if !u.remove.is_empty() {
            let paths: Vec<String> = u.remove.iter().map(|p| self.path(p)).collect();
            clauses.push(format!("REMOVE {}", paths.join(", ")));
        }
        for (word, actions) in [("ADD", &u.add), ("DELETE", &u.delete)] {
            if !actions.is_empty() {
                let actions: Vec<String> = actions
                    .iter()
                    .map(|(p, v)| format!("{} {}", self.path(p), self.value(v)))
                    .collect();
                clauses.push(format!("{word} {}", actions.join(", ")));
            }
        }
        clauses.join(" ")
    }

    fn finish(mut self, text: String) -> Printed {
        self.out.text = text;
        self.out
    }
}

pub fn condition(c: &Condition) -> Printed {
    let mut p = Printer::default();
    let text = p.condition(c);
    p.finish(text)
}

pub fn update(u: &Update) -> Printed {
    let mut p = Printer::default();
    let text = p.update(u);
    p.finish(text)
}

pub fn projection(paths: &[Path]) -> Printed {
    let mut p = Printer::default();
    let text: Vec<String> = paths.iter().map(|path| p.path(path)).collect();
    p.finish(text.join(", "))
}

/// Several trees of one request printed with one set of placeholders, so that their
/// names and values go into one `ExpressionAttributeNames`/`Values` pair (PartiQL hands
/// an update and its condition to UpdateItem this way).
#[derive(Default)]
pub struct Joint {
    printer: Printer,
}

impl Joint {
    pub fn new() -> Self {
        Joint::default()
    }

    pub fn condition(&mut self, c: &Condition) -> String {
        self.printer.condition(c)
    }

    pub fn update(&mut self, u: &Update) -> String {
        self.printer.update(u)
    }

    pub fn projection(&mut self, paths: &[Path]) -> String {
        let text: Vec<String> = paths.iter().map(|p| self.printer.path(p)).collect();
        text.join(", ")
    }

    /// The names and values every printed tree refers to.
    pub fn finish(self) -> Printed {
        self.printer.out
    }
}
