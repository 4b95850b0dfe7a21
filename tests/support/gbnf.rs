//! A small GBNF matcher for the tests: parses the grammar text and checks whole strings
//! against it by exploring every parse (sets of end positions). Independent of the code that
//! writes the grammars; slow, and fine for test-sized inputs.

use std::collections::{BTreeSet, HashMap};

#[derive(Debug, Clone)]
enum Expr {
    Alt(Vec<Expr>),
    Seq(Vec<Expr>),
    Lit(Vec<char>),
    Class {
        negated: bool,
        items: Vec<(char, char)>,
    },
    Rule(String),
    Repeat(Box<Expr>, usize, Option<usize>),
}

pub struct Grammar {
    rules: HashMap<String, Expr>,
}

struct Parser<'a> {
    s: Vec<char>,
    i: usize,
    _src: &'a str,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i] == ' ' {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn alt(&mut self) -> Expr {
        let mut alts = vec![self.seq()];
        self.ws();
        while self.peek() == Some('|') {
            self.i += 1;
            alts.push(self.seq());
            self.ws();
        }
        if alts.len() == 1 {
            alts.pop().unwrap()
        } else {
            Expr::Alt(alts)
        }
    }

    fn seq(&mut self) -> Expr {
        let mut items = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                None | Some('|') | Some(')') => break,
                _ => {
                    let item = self.atom();
                    items.push(self.postfix(item));
                }
            }
        }
        Expr::Seq(items)
    }

    fn escaped(&mut self) -> char {
        let c = self.s[self.i];
        self.i += 1;
        if c != '\\' {
            return c;
        }
        let e = self.s[self.i];
        self.i += 1;
        match e {
            'n' => '\n',
            't' => '\t',
            other => other,
        }
    }

    fn atom(&mut self) -> Expr {
        match self.peek().expect("atom") {
            '"' => {
                self.i += 1;
                let mut lit = Vec::new();
                while self.peek() != Some('"') {
                    lit.push(self.escaped());
                }
                self.i += 1;
                Expr::Lit(lit)
            }
            '[' => {
                self.i += 1;
                let negated = self.peek() == Some('^');
                if negated {
                    self.i += 1;
                }
                let mut items = Vec::new();
                while self.peek() != Some(']') {
                    let lo = self.escaped();
                    let hi = if self.peek() == Some('-') && self.s.get(self.i + 1) != Some(&']') {
                        self.i += 1;
                        self.escaped()
                    } else {
                        lo
                    };
                    items.push((lo, hi));
                }
                self.i += 1;
                Expr::Class { negated, items }
            }
            '(' => {
                self.i += 1;
                let e = self.alt();
                self.ws();
                assert_eq!(self.peek(), Some(')'));
                self.i += 1;
                e
            }
            _ => {
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
                {
                    self.i += 1;
                }
                assert!(self.i > start, "unexpected {:?} at {}", self.peek(), self.i);
                Expr::Rule(self.s[start..self.i].iter().collect())
            }
        }
    }

    fn postfix(&mut self, e: Expr) -> Expr {
        match self.peek() {
            Some('*') => {
                self.i += 1;
                Expr::Repeat(Box::new(e), 0, None)
            }
            Some('+') => {
                self.i += 1;
                Expr::Repeat(Box::new(e), 1, None)
            }
            Some('?') => {
                self.i += 1;
                Expr::Repeat(Box::new(e), 0, Some(1))
            }
            Some('{') => {
                self.i += 1;
                let body: String = self.s[self.i..].iter().take_while(|&&c| c != '}').collect();
                self.i += body.chars().count() + 1;
                let mut parts = body.split(',').map(str::trim);
                let lo: usize = parts.next().unwrap().parse().unwrap();
                let hi = match parts.next() {
                    None => Some(lo),
                    Some("") => None,
                    Some(h) => Some(h.parse().unwrap()),
                };
                Expr::Repeat(Box::new(e), lo, hi)
            }
            _ => e,
        }
    }
}

impl Grammar {
    pub fn parse(text: &str) -> Self {
        let mut rules = HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (name, body) = line
                .split_once("::=")
                .unwrap_or_else(|| panic!("not a rule: {line}"));
            let mut p = Parser {
                s: body.chars().collect(),
                i: 0,
                _src: body,
            };
            let e = p.alt();
            p.ws();
            assert_eq!(p.i, p.s.len(), "trailing input in rule {name}");
            rules.insert(name.trim().to_owned(), e);
        }
        assert!(rules.contains_key("root"), "no root rule");
        Self { rules }
    }

    pub fn matches(&self, input: &str) -> bool {
        let s: Vec<char> = input.chars().collect();
        self.ends(&self.rules["root"], &s, 0).contains(&s.len())
    }

    fn ends(&self, e: &Expr, s: &[char], at: usize) -> BTreeSet<usize> {
        match e {
            Expr::Lit(lit) => {
                if s[at..].starts_with(lit) {
                    [at + lit.len()].into()
                } else {
                    BTreeSet::new()
                }
            }
            Expr::Class { negated, items } => match s.get(at) {
                Some(&c) if items.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated => {
                    [at + 1].into()
                }
                _ => BTreeSet::new(),
            },
            Expr::Rule(name) => self.ends(
                self.rules
                    .get(name)
                    .unwrap_or_else(|| panic!("no rule {name}")),
                s,
                at,
            ),
            Expr::Alt(alts) => alts.iter().flat_map(|a| self.ends(a, s, at)).collect(),
            Expr::Seq(items) => items
                .iter()
                .fold([at].into(), |starts: BTreeSet<usize>, item| {
                    starts
                        .into_iter()
                        .flat_map(|p| self.ends(item, s, p))
                        .collect()
                }),
            Expr::Repeat(inner, lo, hi) => {
                let mut all = BTreeSet::new();
                let mut frontier: BTreeSet<usize> = [at].into();
                let mut count = 0;
                loop {
                    if count >= *lo {
                        all.extend(frontier.iter().copied());
                    }
                    if hi.is_some_and(|h| count >= h) || frontier.is_empty() {
                        break;
                    }
                    let next: BTreeSet<usize> = frontier
                        .iter()
                        .flat_map(|&p| self.ends(inner, s, p))
                        .filter(|&p| count < *lo || !all.contains(&p))
                        .collect();
                    // Zero-width progress would loop forever; stop once nothing new is reached.
                    if next.is_empty() || (count >= *lo && next.is_subset(&all)) {
                        break;
                    }
                    frontier = next;
                    count += 1;
                }
                all
            }
        }
    }
}
