//! One rendering of the sidecar for every pod of a configuration, whatever its inbound ports.
//!
//! The pods of a stream share a handful of configurations, but nearly each has its own container
//! ports, which reach the partials as `proxy.podInboundPorts` (the proxy's
//! `LINKERD2_PROXY_INBOUND_PORTS`). Rendering the partials once per pod made the template engine
//! most of inject's time. The release lines' partials only print that value, quoted; so the
//! sidecar of a configuration is rendered once with sample ports and each pod's copy gets its own
//! ports where the sample's are.
//!
//! That shortcut is taken only where it is sure: the partials are rendered with two samples
//! of different shape ([`SAMPLE_PORTS`]: one number, whose unquoted print would read back as a
//! number; two, with a comma, of another length), and the two sidecars must differ exactly in
//! whole strings that are the sample itself, everything else equal. Partials that branch on the
//! ports, print them unquoted, or into a longer text fail that and each pod renders in full
//! ([`PortsPlan::RenderEach`]). Pods without ports never take the shortcut (an empty value
//! changes what the partials write). Debug builds render every pod in full as well and compare
//! (see `transform`), which the test suites and fixtures run through.

use super::mutate::Sidecar;
use super::sidecar::PodAdditions;
use crate::values::Value;

/// The two inbound-port lists the partials are tried with: both look like what a pod has
/// (port numbers, comma-separated), neither is likely to be printed by a partial of itself.
pub(super) const SAMPLE_PORTS: [&str; 2] = ["65101", "65202,65303"];

/// How the sidecar of pods with ports is made, for one configuration.
pub(super) enum PortsPlan {
    /// Rendered once with [`SAMPLE_PORTS`]`[0]`: each pod's copy gets its ports in its place
    /// ([`fill_ports`]).
    Fill(SampledSidecar),
    /// The partials do more with the ports than print them: each pod renders in full.
    RenderEach,
}

/// A sidecar rendered with [`SAMPLE_PORTS`]`[0]`, and where in it the sample stands: found once
/// per configuration, so that each pod's copy is changed only there (looking through every
/// value of every pod's copy was a thirtieth of inject's instructions).
pub(super) struct SampledSidecar {
    sidecar: Sidecar,
    samples: Vec<SampleAt>,
}

/// Where a sample stands: one of the sidecar's values, then the keys and indices down to it.
struct SampleAt {
    root: Root,
    steps: Vec<Step>,
}

#[derive(Clone)]
enum Root {
    Proxy,
    Init,
    Debug,
    Annotation(String),
    Label(String),
    Volume(usize),
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

impl PortsPlan {
    /// The plan for a configuration, `render(ports)` rendering its sidecar with those inbound
    /// ports. A sample that fails to render means each pod renders in full (and reports its own
    /// failure, if it has one).
    pub(super) fn new<E>(render: impl Fn(&str) -> Result<Sidecar, E>) -> PortsPlan {
        let [first, second] = SAMPLE_PORTS;
        match (render(first), render(second)) {
            (Ok(a), Ok(b)) if alike_sidecars(&a, &b) => PortsPlan::Fill(SampledSidecar {
                samples: samples_in(&a),
                sidecar: a,
            }),
            _ => PortsPlan::RenderEach,
        }
    }
}

/// A copy of the sampled sidecar with `ports` wherever the sample stood.
pub(super) fn fill_ports(sampled: &SampledSidecar, ports: &str) -> Sidecar {
    let mut sidecar = sampled.sidecar.clone();
    for at in &sampled.samples {
        if let Some(Value::String(text)) = value_at_mut(&mut sidecar, at) {
            *text = ports.to_owned();
        }
    }
    sidecar
}

/// Every string of `sidecar`'s values that is the first sample, found the way [`alike`] pairs
/// them (values only, never keys).
fn samples_in(sidecar: &Sidecar) -> Vec<SampleAt> {
    fn walk(value: &Value, root: &Root, steps: &mut Vec<Step>, out: &mut Vec<SampleAt>) {
        match value {
            Value::String(text) if text == SAMPLE_PORTS[0] => out.push(SampleAt {
                root: root.clone(),
                steps: steps.clone(),
            }),
            Value::Map(map) => {
                for (key, item) in map {
                    steps.push(Step::Key(key.clone()));
                    walk(item, root, steps, out);
                    steps.pop();
                }
            }
            Value::Seq(items) => {
                for (index, item) in items.iter().enumerate() {
                    steps.push(Step::Index(index));
                    walk(item, root, steps, out);
                    steps.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut steps = Vec::new();
    walk(&sidecar.proxy, &Root::Proxy, &mut steps, &mut out);
    if let Some(init) = &sidecar.init {
        walk(init, &Root::Init, &mut steps, &mut out);
    }
    if let Some(debug) = &sidecar.debug {
        walk(debug, &Root::Debug, &mut steps, &mut out);
    }
    if let Some(additions) = &sidecar.additions {
        for (key, value) in &additions.annotations {
            walk(value, &Root::Annotation(key.clone()), &mut steps, &mut out);
        }
        for (key, value) in &additions.labels {
            walk(value, &Root::Label(key.clone()), &mut steps, &mut out);
        }
        for (index, value) in additions.volumes.iter().enumerate() {
            walk(value, &Root::Volume(index), &mut steps, &mut out);
        }
    }
    out
}

/// The value of `sidecar` that `at` names.
fn value_at_mut<'s>(sidecar: &'s mut Sidecar, at: &SampleAt) -> Option<&'s mut Value> {
    let mut value = match &at.root {
        Root::Proxy => &mut sidecar.proxy,
        Root::Init => sidecar.init.as_mut()?,
        Root::Debug => sidecar.debug.as_mut()?,
        Root::Annotation(key) => sidecar.additions.as_mut()?.annotations.get_mut(key)?,
        Root::Label(key) => sidecar.additions.as_mut()?.labels.get_mut(key)?,
        Root::Volume(index) => sidecar.additions.as_mut()?.volumes.get_mut(*index)?,
    };
    for step in &at.steps {
        value = match (value, step) {
            (Value::Map(map), Step::Key(key)) => map.get_mut(key)?,
            (Value::Seq(items), Step::Index(index)) => items.get_mut(*index)?,
            _ => return None,
        };
    }
    Some(value)
}

/// Whether `a` (rendered with the first sample) and `b` (the second) differ only in whole
/// strings that are the samples themselves.
fn alike_sidecars(a: &Sidecar, b: &Sidecar) -> bool {
    let options = |x: &Option<Value>, y: &Option<Value>| match (x, y) {
        (Some(x), Some(y)) => alike(x, y),
        (None, None) => true,
        _ => false,
    };
    alike(&a.proxy, &b.proxy)
        && options(&a.init, &b.init)
        && options(&a.debug, &b.debug)
        && match (&a.additions, &b.additions) {
            (Some(x), Some(y)) => alike_additions(x, y),
            (None, None) => true,
            _ => false,
        }
}

fn alike_additions(a: &PodAdditions, b: &PodAdditions) -> bool {
    let maps = |x: &crate::values::Map, y: &crate::values::Map| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|((kx, vx), (ky, vy))| kx == ky && alike(vx, vy))
    };
    maps(&a.annotations, &b.annotations)
        && maps(&a.labels, &b.labels)
        && a.volumes.len() == b.volumes.len()
        && a.volumes.iter().zip(&b.volumes).all(|(x, y)| alike(x, y))
}

/// `a` from the first sample, `b` from the second: equal, except that where `a` is the first
/// sample as a whole string `b` is the second. A sample anywhere else (inside a longer text,
/// in a key, where the other render has something else) is not alike.
fn alike(a: &Value, b: &Value) -> bool {
    let [first, second] = SAMPLE_PORTS;
    match (a, b) {
        (Value::String(x), Value::String(y)) => {
            (x == first && y == second) || (x == y && x != first && x != second)
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && alike(vx, vy))
        }
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| alike(x, y))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::Map;

    fn proxy_with(env_value: Value) -> Sidecar {
        let mut var = Map::new();
        var.insert("name".into(), "LINKERD2_PROXY_INBOUND_PORTS".into());
        var.insert("value".into(), env_value);
        let mut proxy = Map::new();
        proxy.insert("name".into(), "linkerd-proxy".into());
        proxy.insert("env".into(), Value::Seq(vec![Value::Map(var)]));
        Sidecar {
            additions: None,
            proxy: Value::Map(proxy),
            init: None,
            debug: None,
        }
    }

    fn plan_for(render: impl Fn(&str) -> Value) -> PortsPlan {
        PortsPlan::new(|ports| Ok::<_, ()>(proxy_with(render(ports))))
    }

    #[test]
    fn ports_printed_as_a_whole_string_are_filled_in_per_pod() {
        let PortsPlan::Fill(sidecar) = plan_for(|ports| ports.into()) else {
            panic!("a partial that prints the ports quoted takes the shortcut");
        };
        assert_eq!(
            fill_ports(&sidecar, "80,8080"),
            proxy_with("80,8080".into())
        );
    }

    #[test]
    fn ports_read_back_as_a_number_render_each_pod() {
        // An unquoted single port reads back as a number: a fill would write a string.
        let plan = plan_for(|ports| match ports.parse::<i64>() {
            Ok(n) => Value::Int(n),
            Err(_) => ports.into(),
        });
        assert!(matches!(plan, PortsPlan::RenderEach));
    }

    #[test]
    fn ports_inside_a_longer_text_or_branched_on_render_each_pod() {
        let inside = plan_for(|ports| format!("--inbound={ports}").into());
        assert!(matches!(inside, PortsPlan::RenderEach));
        let branched = plan_for(|ports| match ports.contains(',') {
            true => "many".into(),
            false => ports.into(),
        });
        assert!(matches!(branched, PortsPlan::RenderEach));
    }

    #[test]
    fn a_sample_that_fails_to_render_means_each_pod_renders() {
        let plan = PortsPlan::new(|ports| match ports.contains(',') {
            true => Err(()),
            false => Ok(proxy_with(ports.into())),
        });
        assert!(matches!(plan, PortsPlan::RenderEach));
    }

    #[test]
    fn ports_the_partials_ignore_leave_nothing_to_fill() {
        let PortsPlan::Fill(sidecar) = plan_for(|_| "fixed".into()) else {
            panic!("a sidecar that does not depend on the ports takes the shortcut");
        };
        assert_eq!(fill_ports(&sidecar, "80"), proxy_with("fixed".into()));
    }
}
