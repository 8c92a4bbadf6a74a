#!/usr/bin/env python3
"""The parse-and-emit floor for inject: load every document of a YAML stream and dump it again,
with PyYAML's C (libyaml) loader and dumper, to stdout. usage: pyyaml-floor.py FILE"""
import sys

import yaml

with open(sys.argv[1]) as stream:
    yaml.dump_all(yaml.load_all(stream, Loader=yaml.CSafeLoader), sys.stdout,
                  Dumper=yaml.CSafeDumper)
