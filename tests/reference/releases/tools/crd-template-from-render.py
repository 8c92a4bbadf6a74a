#!/usr/bin/env python3
# Writes a CRD template of a template set from Helm's render of upstream's linkerd-crds at a tag
# (renders.tar.xz, unpacked into RENDERS): the schema without its description texts (the
# DEVIATIONS row), the per-render metadata as template expressions, and a Chart.Version test for
# the first release that has it. Used for templates/edge-24.10.2/linkerd-crds/ egress-network,
# tlsroutes, tcproutes and http-local-ratelimit-policy:
#   xz -dc renders.tar.xz | tar -x -C RENDERS
#   crd-template-from-render.py RENDERS simple edge-24.10.4 tlsroutes.gateway.networking.k8s.io 2024.10.4 enableTlsRoutes
#   crd-template-from-render.py RENDERS two httplocalratelimitpolicies.policy.linkerd.io edge-24.11.2 2024.11.2 edge-24.11.3 2024.11.3
# (PyYAML; the output is printed.)
import sys, yaml
def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != 'description'}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node
def body(tag, name):
    docs = [d for d in yaml.safe_load_all(open(f'{RENDERS}/{tag}/crds.yaml')) if d]
    doc = [d for d in docs if d['metadata']['name'] == name][0]
    doc = strip(doc)
    md = doc['metadata']
    md['annotations']['linkerd.io/created-by'] = '@CREATED_BY@'
    md['labels']['helm.sh/chart'] = '@CHART@'
    md['labels']['linkerd.io/control-plane-ns'] = '@NS@'
    text = yaml.safe_dump(doc, sort_keys=False, width=10000, default_flow_style=False)
    text = text.replace("'@CREATED_BY@'", '{{ include("_created-by.tpl") | trim }}').replace('@CREATED_BY@', '{{ include("_created-by.tpl") | trim }}')
    text = text.replace("'@CHART@'", '{{ Chart.Name }}-{{ Chart.Version | replace("+", "_") }}').replace('@CHART@', '{{ Chart.Name }}-{{ Chart.Version | replace("+", "_") }}')
    text = text.replace("'@NS@'", '{{ Release.Namespace }}').replace('@NS@', '{{ Release.Namespace }}')
    assert '{%' not in text and '{{ ' in text
    return text.rstrip('\n')
RENDERS = None
HEAD = '{#- Schema as upstream renders it, descriptions left out (tests/reference/DEVIATIONS.md). -#}\n'
RENDERS = sys.argv[1]
del sys.argv[1]
mode = sys.argv[1]
if mode == 'simple':   # tag name since-version [values-key]
    tag, name, since, key = sys.argv[2], sys.argv[3], sys.argv[4], (sys.argv[5] if len(sys.argv) > 5 else None)
    cond = f'semverCompare(">={since}", Chart.Version)' + (f' and Values.{key}' if key else '')
    print(HEAD + f'{{#- From {tag} on' + (f', unless {key} is false' if key else '') + '. #}\n' + f'{{%- if {cond} %}}\n' + body(tag, name) + '\n{%- endif %}')
else:  # two: name tagA sinceA tagB sinceB
    name, ta, sa, tb, sb = sys.argv[2:7]
    print(HEAD + f'{{#- From {ta} on; {tb} grew the schema. #}}\n' + f'{{%- if semverCompare(">={sb}", Chart.Version) %}}\n' + body(tb, name) + f'\n{{%- elif semverCompare(">={sa}", Chart.Version) %}}\n' + body(ta, name) + '\n{%- endif %}')
