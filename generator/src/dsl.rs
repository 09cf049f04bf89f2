//! The expression language of the spec's `body` and combiner keys.
//!
//! A body is a list of statements, one per line (or separated by `;`):
//! `name = expr` binds a value, `out = expr`, `out[i] = expr`,
//! `out[r][c] = expr` and `out.x = expr` define the result. Operators follow C:
//! `* /` bind tighter than `+ -`, both left-associative; comparisons, `&&`,
//! `||`, `!` and `c ? a : b` as in C. A leading `-` is allowed on a number
//! only: negating an expression is the contract's `neg`, spelled `x * -1`.
//! The integer bodies of predicates (`crate::predicate`) also use the bit
//! operators `<< >> & |` (C's precedences: shifts below `+ -`, then the
//! comparisons, then `&`, then `|`) and hexadecimal integer literals
//! (`0x3F7FEC0A`); the float bodies refuse both.
//!
//! Every body has bounds, so that no spec can exhaust the generator's stack or
//! memory: [`MAX_DEPTH`] levels of nesting (parentheses, calls, indexes, `!`,
//! `?:` and each operator of a chain count one), [`MAX_NODES`] nodes per
//! expression and [`MAX_BODY_BYTES`] bytes of text.

use std::fmt;

/// The deepest nesting an expression may have. Every operator of a chain
/// (`a + b + c` is `(a + b) + c`) counts one level, like a parenthesis, since
/// the tree of a chain is as deep as the chain is long.
pub const MAX_DEPTH: usize = 64;

/// The most nodes (numbers, names, operators, calls) one expression may have.
pub const MAX_NODES: usize = 4096;

/// The longest text a body or an expression may have.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Lt => "<",
            BinOp::Gt => ">",
            BinOp::Le => "<=",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge | BinOp::Eq | BinOp::Ne)
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }
}

/// The bit operators of the integer language (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    Shl,
    Shr,
    And,
    Or,
}

impl BitOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BitOp::Shl => "<<",
            BitOp::Shr => ">>",
            BitOp::And => "&",
            BitOp::Or => "|",
        }
    }
}

/// An expression as written, with the column where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Ast {
    pub col: usize,
    pub kind: AstKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AstKind {
    Number(f64),
    /// A hexadecimal integer literal (`0x...`): the integer language only.
    Int(u64),
    Ident(String),
    Index(Box<Ast>, Box<Ast>),
    Field(Box<Ast>, String),
    Call(String, Vec<Ast>),
    Bin(BinOp, Box<Ast>, Box<Ast>),
    Not(Box<Ast>),
    Select(Box<Ast>, Box<Ast>, Box<Ast>),
    /// A bit operation: the integer language only.
    Bits(BitOp, Box<Ast>, Box<Ast>),
}

/// The left side of a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// `name = ...`
    Let(String),
    /// `out = ...`
    Out,
    /// `out[i] = ...` or `out[r][c] = ...`: index variables over the result.
    OutIndexed(Vec<String>),
    /// `out.x = ...`
    OutField(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// 1-based line within the body text.
    pub line: usize,
    pub target: Target,
    pub value: Ast,
}

/// A parse error at a line and column of the body text.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} column {} of the expression: {}", self.line, self.col, self.message)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Hex(u64),
    Ident(String),
    Sym(&'static str),
}

const SYMBOLS: [&str; 25] =
    ["&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "(", ")", "[", "]", ",", ".", "?", ":", "+", "-", "*", "/", "<", ">", "!", "&", "|"];

fn lex(line: &str, line_no: usize, col0: usize) -> Result<Vec<(Tok, usize)>, ParseError> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        let col = col0 + i + 1;
        // Blanks are spaces and tabs: a body is printed line by line in `//`
        // comments, where another line break (a newline inside an expression,
        // a carriage return, a form feed) would end the comment
        // (names::check_text's rule for every text).
        if c == ' ' || c == '\t' {
            i += 1;
        } else if c == '0' && matches!(bytes.get(i + 1), Some(b'x' | b'X')) {
            let start = i + 2;
            i = start;
            while i < bytes.len() && (bytes[i].is_ascii_hexdigit() || bytes[i] == b'_') {
                i += 1;
            }
            let digits: String = line[start..i].chars().filter(|c| *c != '_').collect();
            let v = u64::from_str_radix(&digits, 16).map_err(|_| ParseError {
                line: line_no,
                col,
                message: format!("malformed hexadecimal literal `{}`", &line[start - 2..i]),
            })?;
            out.push((Tok::Hex(v), col));
        } else if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                i += 1;
                if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
                    i += 1;
                }
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let text = &line[start..i];
            let v: f64 = text.parse().map_err(|_| ParseError { line: line_no, col, message: format!("malformed number `{text}`") })?;
            // A number must be the one written: not rounded to infinity, nor a
            // nonzero one to zero (binary64, the widest type; model and
            // predicate check exactness in the type that reads it).
            let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
            if v.is_infinite() || (v == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b))) {
                let what = if v.is_infinite() { "overflows" } else { "underflows to zero in" };
                return Err(ParseError { line: line_no, col, message: format!("`{text}` {what} binary64") });
            }
            out.push((Tok::Num(v), col));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(line[start..i].to_string()), col));
        } else if c == '=' && bytes.get(i + 1) != Some(&b'=') {
            out.push((Tok::Sym("="), col));
            i += 1;
        } else if let Some(s) = SYMBOLS.iter().find(|s| line[i..].starts_with(**s)) {
            out.push((Tok::Sym(s), col));
            i += s.len();
        } else {
            // A character of the line as written (it may take several bytes).
            let ch = line[i..].chars().next().unwrap_or(c);
            let message = if ch.is_ascii_graphic() {
                format!("unexpected character `{ch}`")
            } else if ch.is_ascii() {
                format!(
                    "unexpected character {} (U+{:04X}): blanks are spaces and tabs, and a step or an expression is one line",
                    ch.escape_debug(),
                    u32::from(ch)
                )
            } else {
                format!("unexpected character {} (U+{:04X}): the body language is ASCII", ch.escape_debug(), u32::from(ch))
            };
            return Err(ParseError { line: line_no, col, message });
        }
    }
    Ok(out)
}

/// A binary operator of either language.
#[derive(Clone, Copy)]
enum Op {
    Bin(BinOp),
    Bits(BitOp),
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    line: usize,
    end_col: usize,
    /// The nesting level being parsed (see [`MAX_DEPTH`]).
    depth: usize,
    /// Nodes built in the current expression (see [`MAX_NODES`]).
    nodes: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn col(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end_col, |(_, c)| *c)
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError { line: self.line, col: self.col(), message: message.into() })
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, sym: &str) -> Result<(), ParseError> {
        if self.eat(sym) {
            Ok(())
        } else {
            self.err(format!("expected `{sym}`"))
        }
    }

    fn ident(&mut self) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => self.err("expected a name"),
        }
    }

    /// Enters one more level of nesting, or refuses the expression.
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(format!(
                "the expression nests more than {MAX_DEPTH} levels deep (parentheses, calls, indexes, `!`, `?:` and the operators \
                 of a chain each count one): split it into named steps"
            ));
        }
        Ok(())
    }

    /// Counts one more node of the expression, or refuses it.
    fn node(&mut self, kind: AstKind, col: usize) -> Result<Ast, ParseError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return self.err(format!("the expression has more than {MAX_NODES} terms: split it into named steps"));
        }
        Ok(Ast { col, kind })
    }

    fn expr(&mut self) -> Result<Ast, ParseError> {
        self.enter()?;
        let col = self.col();
        let cond = self.binary(0)?;
        let e = if self.eat("?") {
            let a = self.expr()?;
            self.expect(":")?;
            let b = self.expr()?;
            self.node(AstKind::Select(Box::new(cond), Box::new(a), Box::new(b)), col)?
        } else {
            cond
        };
        self.depth -= 1;
        Ok(e)
    }

    fn binop(&self, level: usize) -> Option<Op> {
        let Some(Tok::Sym(s)) = self.peek() else { return None };
        let (op, op_level) = match *s {
            "||" => (Op::Bin(BinOp::Or), 0),
            "&&" => (Op::Bin(BinOp::And), 1),
            "|" => (Op::Bits(BitOp::Or), 2),
            "&" => (Op::Bits(BitOp::And), 3),
            "==" => (Op::Bin(BinOp::Eq), 4),
            "!=" => (Op::Bin(BinOp::Ne), 4),
            "<" => (Op::Bin(BinOp::Lt), 5),
            ">" => (Op::Bin(BinOp::Gt), 5),
            "<=" => (Op::Bin(BinOp::Le), 5),
            ">=" => (Op::Bin(BinOp::Ge), 5),
            "<<" => (Op::Bits(BitOp::Shl), 6),
            ">>" => (Op::Bits(BitOp::Shr), 6),
            "+" => (Op::Bin(BinOp::Add), 7),
            "-" => (Op::Bin(BinOp::Sub), 7),
            "*" => (Op::Bin(BinOp::Mul), 8),
            "/" => (Op::Bin(BinOp::Div), 8),
            _ => return None,
        };
        (op_level == level).then_some(op)
    }

    /// Precedence climbing; every level is left-associative, as in C.
    fn binary(&mut self, level: usize) -> Result<Ast, ParseError> {
        if level > 8 {
            return self.unary();
        }
        let col = self.col();
        let outer = self.depth;
        let mut lhs = self.binary(level + 1)?;
        while let Some(op) = self.binop(level) {
            self.pos += 1;
            // The chain's tree deepens by one with every operator.
            self.enter()?;
            let rhs = self.binary(level + 1)?;
            let kind = match op {
                Op::Bin(op) => AstKind::Bin(op, Box::new(lhs), Box::new(rhs)),
                Op::Bits(op) => AstKind::Bits(op, Box::new(lhs), Box::new(rhs)),
            };
            lhs = self.node(kind, col)?;
        }
        self.depth = outer;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Ast, ParseError> {
        let col = self.col();
        if self.eat("!") {
            self.enter()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return self.node(AstKind::Not(Box::new(inner)), col);
        }
        if self.eat("-") {
            return match self.peek() {
                Some(Tok::Num(v)) => {
                    let v = -*v;
                    self.pos += 1;
                    self.node(AstKind::Number(v), col)
                }
                _ => self.err("a leading `-` is allowed on a number only; negate an expression as `x * -1`"),
            };
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Ast, ParseError> {
        let col = self.col();
        let outer = self.depth;
        let mut e = self.primary()?;
        loop {
            if self.eat("[") {
                self.enter()?;
                let idx = self.expr()?;
                self.expect("]")?;
                e = self.node(AstKind::Index(Box::new(e), Box::new(idx)), col)?;
            } else if self.eat(".") {
                self.enter()?;
                let name = self.ident()?;
                e = self.node(AstKind::Field(Box::new(e), name), col)?;
            } else {
                self.depth = outer;
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Ast, ParseError> {
        let col = self.col();
        match self.peek().cloned() {
            Some(Tok::Num(v)) => {
                self.pos += 1;
                self.node(AstKind::Number(v), col)
            }
            Some(Tok::Hex(v)) => {
                self.pos += 1;
                self.node(AstKind::Int(v), col)
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                if self.eat("(") {
                    // A call's arguments nest one level below it.
                    self.enter()?;
                    let mut args = Vec::new();
                    if !self.eat(")") {
                        loop {
                            args.push(self.expr()?);
                            if self.eat(")") {
                                break;
                            }
                            self.expect(",")?;
                        }
                    }
                    self.depth -= 1;
                    self.node(AstKind::Call(name, args), col)
                } else {
                    self.node(AstKind::Ident(name), col)
                }
            }
            Some(Tok::Sym("(")) => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Some(_) => self.err("expected a number, a name or `(`"),
            None => self.err("the expression ends too early"),
        }
    }
}

/// A parser over one statement that starts at column `col0 + 1` of its line.
fn parser(text: &str, line_no: usize, col0: usize) -> Result<Parser, ParseError> {
    Ok(Parser { toks: lex(text, line_no, col0)?, pos: 0, line: line_no, end_col: col0 + text.len() + 1, depth: 0, nodes: 0 })
}

/// Refuses a text longer than [`MAX_BODY_BYTES`].
fn check_length(text: &str) -> Result<(), ParseError> {
    if text.len() > MAX_BODY_BYTES {
        return Err(ParseError { line: 1, col: 1, message: format!("{} bytes of expression text: at most {MAX_BODY_BYTES}", text.len()) });
    }
    Ok(())
}

/// Parses one expression (a combiner such as `new + acc`).
pub fn parse_expr(text: &str) -> Result<Ast, ParseError> {
    check_length(text)?;
    let mut p = parser(text, 1, 0)?;
    let e = p.expr()?;
    if p.pos != p.toks.len() {
        return p.err("unexpected text after the expression");
    }
    Ok(e)
}

/// Parses a body: statements separated by newlines or `;`.
pub fn parse_body(text: &str) -> Result<Vec<Stmt>, ParseError> {
    check_length(text)?;
    let mut stmts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let mut col0 = 0;
        for piece in line.split(';') {
            let start = col0;
            col0 += piece.len() + 1;
            if piece.trim_matches([' ', '\t']).is_empty() {
                continue;
            }
            let mut p = parser(piece, line_no, start)?;
            let target = parse_target(&mut p)?;
            p.expect("=")?;
            let value = p.expr()?;
            if p.pos != p.toks.len() {
                return p.err("unexpected text after the expression");
            }
            stmts.push(Stmt { line: line_no, target, value });
        }
    }
    if stmts.is_empty() {
        return Err(ParseError { line: 1, col: 1, message: "the body has no statement".into() });
    }
    Ok(stmts)
}

fn parse_target(p: &mut Parser) -> Result<Target, ParseError> {
    let name = p.ident()?;
    if name != "out" {
        return Ok(Target::Let(name));
    }
    if p.eat(".") {
        return Ok(Target::OutField(p.ident()?));
    }
    let mut vars = Vec::new();
    while p.eat("[") {
        vars.push(p.ident()?);
        p.expect("]")?;
    }
    Ok(if vars.is_empty() { Target::Out } else { Target::OutIndexed(vars) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(a: &Ast) -> String {
        match &a.kind {
            AstKind::Number(v) => format!("{v}"),
            AstKind::Ident(s) => s.clone(),
            AstKind::Index(b, i) => format!("{}[{}]", show(b), show(i)),
            AstKind::Field(b, f) => format!("{}.{f}", show(b)),
            AstKind::Call(n, args) => {
                format!("{n}({})", args.iter().map(show).collect::<Vec<_>>().join(", "))
            }
            AstKind::Bin(op, l, r) => format!("({} {} {})", show(l), op.symbol(), show(r)),
            AstKind::Not(e) => format!("!{}", show(e)),
            AstKind::Select(c, a, b) => format!("({} ? {} : {})", show(c), show(a), show(b)),
            AstKind::Int(v) => format!("0x{v:x}"),
            AstKind::Bits(op, l, r) => format!("({} {} {})", show(l), op.symbol(), show(r)),
        }
    }

    #[test]
    fn c_precedence_and_left_association() {
        let e = parse_expr("a.w * b.w - a.x * b.x - a.y * b.y").unwrap();
        assert_eq!(show(&e), "(((a.w * b.w) - (a.x * b.x)) - (a.y * b.y))");
        let e = parse_expr("n > 0 ? d[i] : a[i]").unwrap();
        assert_eq!(show(&e), "((n > 0) ? d[i] : a[i])");
        let e = parse_expr("m[r][c] * -1").unwrap();
        assert_eq!(show(&e), "(m[r][c] * -1)");
    }

    #[test]
    fn bit_operators_take_c_precedences() {
        let e = parse_expr("a | b & c == d").unwrap();
        assert_eq!(show(&e), "(a | (b & (c == d)))");
        let e = parse_expr("x << s - 1 >= h && 0x3F_7F == y >> 2").unwrap();
        assert_eq!(show(&e), "(((x << (s - 1)) >= h) && (0x3f7f == (y >> 2)))");
        assert!(parse_expr("0x").unwrap_err().message.contains("hexadecimal"));
    }

    #[test]
    fn unary_minus_on_an_expression_is_refused() {
        let e = parse_expr("-a").unwrap_err();
        assert!(e.message.contains("x * -1"), "{e}");
        assert_eq!(e.col, 2);
    }

    #[test]
    fn statements_and_targets() {
        let s = parse_body("r = 1 / s\nout[i] = r * a[i]; out.x = 1\nout[r][c] = 0").unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(s[0].target, Target::Let("r".into()));
        assert_eq!(s[1].target, Target::OutIndexed(vec!["i".into()]));
        assert_eq!(s[2].target, Target::OutField("x".into()));
        assert_eq!(s[3].line, 3);
        assert!(parse_body("out = (a").is_err());
        assert!(parse_body("out = a $ b").unwrap_err().message.contains("unexpected character"));
    }
}
