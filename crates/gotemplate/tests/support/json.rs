//! A small JSON reader for test and bench data: values files are written as JSON (which is
//! YAML), and Helm decodes every number in them as a float64, so numbers become `Float`.

use meshchart_gotemplate::{Map, Value};

/// A small JSON reader: values files are written as JSON (which is YAML), and Helm decodes
/// every number in them as a float64.
pub fn parse_json(s: &str) -> Value {
    let mut p = Json {
        b: s.as_bytes(),
        i: 0,
    };
    let v = p.value();
    p.ws();
    assert_eq!(p.i, p.b.len(), "trailing text in JSON");
    v
}

struct Json<'a> {
    b: &'a [u8],
    i: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Value {
        self.ws();
        match self.b[self.i] {
            b'{' => {
                self.i += 1;
                let mut m = Map::new();
                loop {
                    self.ws();
                    if self.b[self.i] == b'}' {
                        self.i += 1;
                        break;
                    }
                    let k = self.string();
                    self.ws();
                    assert_eq!(self.b[self.i], b':');
                    self.i += 1;
                    let v = self.value();
                    m.insert(k, v);
                    self.ws();
                    if self.b[self.i] == b',' {
                        self.i += 1;
                    }
                }
                Value::from(m)
            }
            b'[' => {
                self.i += 1;
                let mut l = Vec::new();
                loop {
                    self.ws();
                    if self.b[self.i] == b']' {
                        self.i += 1;
                        break;
                    }
                    l.push(self.value());
                    self.ws();
                    if self.b[self.i] == b',' {
                        self.i += 1;
                    }
                }
                Value::seq(l)
            }
            b'"' => Value::from(self.string()),
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'n' => self.word("null", Value::Null),
            _ => {
                let start = self.i;
                while self.i < self.b.len() && b"+-0123456789.eE".contains(&self.b[self.i]) {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("0");
                Value::Float(text.parse().unwrap_or_else(|_| panic!("bad number {text}")))
            }
        }
    }

    fn word(&mut self, w: &str, v: Value) -> Value {
        assert!(self.b[self.i..].starts_with(w.as_bytes()));
        self.i += w.len();
        v
    }

    fn string(&mut self) -> String {
        assert_eq!(self.b[self.i], b'"');
        self.i += 1;
        let mut out = String::new();
        loop {
            let rest = std::str::from_utf8(&self.b[self.i..]).unwrap_or("");
            let c = rest.chars().next().unwrap_or('"');
            self.i += c.len_utf8();
            match c {
                '"' => return out,
                '\\' => {
                    let e = self.b[self.i];
                    self.i += 1;
                    match e {
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let h = std::str::from_utf8(&self.b[self.i..self.i + 4]).unwrap_or("0");
                            self.i += 4;
                            out.push(
                                char::from_u32(u32::from_str_radix(h, 16).unwrap_or(0))
                                    .unwrap_or('?'),
                            );
                        }
                        other => out.push(other as char),
                    }
                }
                c => out.push(c),
            }
        }
    }
}
