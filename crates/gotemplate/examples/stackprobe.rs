//! Measures how much stack deep nesting needs: `stackprobe KIND DEPTH STACK_KIB` exits 0 if
//! parsing and executing fit (a stack overflow aborts the process instead).
use meshchart_gotemplate::{Templates, Value};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (kind, n, kb): (String, usize, usize) = (
        a[1].clone(),
        a[2].parse().unwrap_or(1),
        a[3].parse().unwrap_or(1),
    );
    let r = std::thread::Builder::new()
        .stack_size(kb * 1024)
        .spawn(move || {
            let mut set = Templates::new("s");
            let text = match kind.as_str() {
                "paren" => format!("{{{{ {}1{} }}}}", "(".repeat(n), ")".repeat(n)),
                "if" => format!("{}x{}", "{{ if true }}".repeat(n), "{{ end }}".repeat(n)),
                _ => "{{ define \"r\" }}{{ if lt (len .) 100000 }}{{ template \"r\" (print . \"x\") }}{{ end }}{{ end }}{{ template \"r\" \"\" }}".to_string(),
            };
            set.set_max_depth(n);
            set.set_stack_limit(usize::MAX);
            set.parse("t", &text).map_err(|e| e.to_string())?;
            set.execute("t", &Value::Null).map(|_| ()).map_err(|e| e.to_string())
        })
        .map(|h| h.join());
    match r {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => println!("error: {}", &e[..e.len().min(100)]),
        _ => std::process::exit(1),
    }
}
