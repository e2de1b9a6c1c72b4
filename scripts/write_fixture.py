"""Writes a reference script's output to test/fixtures/NAME as indented JSON with a final newline."""
import json
import os


def write_fixture(name, out):
    path = os.path.join(os.path.dirname(__file__), '..', 'test', 'fixtures', name)
    with open(path, 'w') as f:
        json.dump(out, f, indent=2)
        f.write('\n')
